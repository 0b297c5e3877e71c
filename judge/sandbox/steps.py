"""The named steps of one run, and how long each took.

A turn's overhead is the sum of small steps, none of which looks slow on its
own; naming them, and timing every run by them, is what lets a change be
judged by the step it cuts (``benchmarks/turn_cost.py`` prints them beside
bare spawns of the same programs).  The names are the code's shape: each step
is timed under its name by the function that takes it, and docs/turn-path.md
names that function (``tests/sandbox/test_turn_path.py`` checks all three agree).

Timing costs two ``perf_counter`` calls a step, so every run is timed, not
only benchmark runs: no switch, no global state, the figures travel with the
run (:attr:`~judge.sandbox.types.TurnRun.steps`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: Every step of a run, in the order a run takes them (a step may be taken in pieces).
STEPS = (
    "accept",  # the request checked and the seat taken: one turn at a time
    "resolve",  # the command that really runs (wine's loader, a wrapper); checked at its first use
    "before",  # the seat's companion before the run: a stopped wineserver made afresh
    "folder",  # empty the work folder but the keep file, save it, write the inputs
    "core",  # take a core of the budget (and its machine-wide lease); give it back
    "cgroup",  # ready the run's cgroups (limits written, counters read), the wineserver lent
    "helper",  # the exec helper: started, joins the groups, forks; reaps and reports after
    "program",  # the program and everything it started, by the helper's clock
    "waits",  # read the run's counters after it: CPU waiting, memory peak, OOM kills, forks
    "release",  # the groups kept (or removed), the wineserver taken back, the next run armed
    "after",  # the seat's companion after the run: wine's folders swept, its server made afresh
    "clean",  # read the outputs, empty the folder but a valid keep file
    "verdict",  # decide the verdict from what was observed
    "roll_back",  # a run judged IE: the keep file put back as it was before it
)


@dataclass
class StepTimes:
    """Seconds spent in each step of one run (a step not taken is absent)."""

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, step: str, seconds: float) -> None:
        """Count ``seconds`` more to ``step`` (a step may be taken in several pieces)."""
        if step not in STEPS:
            raise ValueError(f"unknown step {step!r}; the steps are {', '.join(STEPS)}")
        self.seconds[step] = self.seconds.get(step, 0.0) + max(0.0, seconds)

    def timed(self, step: str) -> Timed:
        """Count the time spent in the ``with`` block to ``step`` (with :meth:`add`)."""
        return Timed(self, step)

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


class Timed:
    """The ``with`` block of :meth:`StepTimes.timed`: a plain class, not a generator
    (a run times some 16 blocks, and a generator's entry and exit cost several times a
    plain call's: the figures would include their own cost)."""

    __slots__ = ("_times", "_step", "_t0")

    def __init__(self, times: StepTimes, step: str) -> None:
        self._times, self._step, self._t0 = times, step, 0.0

    def __enter__(self) -> None:
        self._t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self._times.add(self._step, time.perf_counter() - self._t0)
