"""Plain values the sandbox hands to the referee: verdicts, limits, results.

They are frozen so a result recorded in a replay cannot change afterwards, and
they know nothing of the game: the referee decides what a verdict means for a
move (ruling R10).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judge.sandbox.steps import StepTimes


class Verdict(str, enum.Enum):
    """How one run ended.  ``str`` so it is written as-is into JSON replays."""

    OK = "OK"  #: exited 0 within every limit
    TLE = "TLE"  #: the wall clock ran out before the program and everything it started exited
    MLE = "MLE"  #: resident memory of the whole process tree went over the limit
    RE = "RE"  #: crashed, killed by a signal, or exited non-zero
    OLE = "OLE"  #: a file it wrote reached the file-size cap
    IE = "IE"  #: the judge itself failed; never the bot's fault, always explained


class SandboxError(RuntimeError):
    """The judge cannot set up or use the sandbox (the message says what and why)."""


class ProgramUnreachable(ValueError):
    """A seat's uid cannot run the program: raised instead of an ``RE`` on every turn.

    ``path`` names the program (or interpreter, or argument) and ``reason`` says why.
    Raised by :meth:`Seat.run_turn` (and :meth:`Seat.check`) the first time a
    command is used; the fix is on the judge's side (copy the bot into its
    program folder, use an interpreter the seat can reach), so retrying is pointless.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"the seat cannot run {path!r}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    """Limits of one run.  Defaults are the contest's (2 s, 512 MiB)."""

    time_s: float | None = 2.0  #: wall clock; None = no time limit (debugging only)
    memory_bytes: int = 512 * 2**20  #: peak resident memory of the whole process tree
    file_bytes: int = 16 * 2**20  #: cap on the size of any file written (RLIMIT_FSIZE)
    max_procs: int = 64  #: processes + threads of the seat at once
    output_bytes: int = 64 * 1024  #: how much of the end of stdout/stderr is kept

    def __post_init__(self) -> None:
        if self.time_s is not None and not (self.time_s > 0 and math.isfinite(self.time_s)):
            raise ValueError(
                f"Limits.time_s must be a positive number of seconds or None, not {self.time_s!r}"
            )
        for name in ("memory_bytes", "file_bytes", "max_procs", "output_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, not {value!r}")
        if self.memory_bytes < 4 * 2**20:
            raise ValueError(
                f"Limits.memory_bytes={self.memory_bytes} is below 4 MiB: "
                "no program can start with that"
            )


@dataclass(frozen=True)
class RunResult:
    """What one run did.  ``message`` always says in plain words why the verdict."""

    verdict: Verdict
    wall_s: float  #: start until the program and all it started had exited (or were killed)
    cpu_s: float  #: user + system CPU of the whole tree
    peak_memory_bytes: int  #: peak resident memory of the tree (cgroup charge, or polled RSS)
    exit_code: int | None  #: exit status of the main process, None if killed by a signal
    signal: int | None  #: signal that ended the main process, if any
    stdout_tail: bytes
    stderr_tail: bytes
    message: str
    #: time the run was runnable but kept off its core by something else (None: not measured)
    wait_s: float | None = None
    #: an IE because of that waiting: the program is not at fault, a later try may succeed
    kept_waiting: bool = False
    #: CPU the seat's wineserver spent working for the run (None: not a Windows program)
    service_cpu_s: float | None = None
    #: a TLE the disk decided (without the run's stall on the disk it had time left): the
    #: program may have waited for its own files from a cold cache; a later try may succeed
    stalled_on_disk: bool = False


@dataclass(frozen=True)
class TurnRun:
    """A run plus what the seat's folder held afterwards."""

    result: RunResult
    #: requested output files, read after the run (None = absent, not a regular file, or over the cap)
    outputs: dict[str, bytes | None]
    #: plain-words reports of what folder hygiene removed or refused
    discarded: tuple[str, ...] = ()
    #: how long each step of the run took (:mod:`judge.sandbox.steps`; None: not timed)
    steps: StepTimes | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Isolation:
    """Which protections are in force: printed once at start and recorded in replays."""

    items: tuple[tuple[str, bool, str], ...] = field(default_factory=tuple)

    def is_on(self, name: str) -> bool:
        """Whether the protection called ``name`` is on (KeyError names unknown ones)."""
        for item_name, on, _ in self.items:
            if item_name == name:
                return on
        raise KeyError(f"no protection called {name!r}; known: {[i[0] for i in self.items]}")

    def off(self) -> list[str]:
        """The names of the protections that are off, in the report's order (none: all on)."""
        return [name for name, on, _ in self.items if not on]

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Isolation:
        """The record back from its :meth:`as_dict` form (a replay's header, a cluster
        worker's answer); an entry that is not ``{"on": ..., "detail": ...}`` is off."""
        items = []
        for name, item in record.items():
            on = isinstance(item, dict) and bool(item.get("on"))
            detail = item.get("detail", "") if isinstance(item, dict) else ""
            items.append((str(name), on, detail if isinstance(detail, str) else str(detail)))
        return cls(tuple(items))

    def describe(self) -> str:
        """One line per protection, ``on``/``OFF`` first so what is missing stands out."""
        width = max((len(n) for n, _, _ in self.items), default=0)
        lines = []
        for name, on, detail in self.items:
            lines.append(f"  [{'on ' if on else 'OFF'}] {name.ljust(width)}  {detail}")
        off = len(self.off())
        head = "all protections on" if off == 0 else f"{off} of {len(self.items)} protections OFF"
        return head + "\n" + "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{name: {"on": bool, "detail": str}}`` in a stable order.

        (Spelled out rather than ``judge.records.Json``: the sandbox imports nothing of
        the judge.)"""
        return {name: {"on": on, "detail": detail} for name, on, detail in self.items}
