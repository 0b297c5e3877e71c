"""A turn's two seats run at once, and a run the judge failed run again: the sandbox's policy.

Only the sandbox can judge its own failures, so it decides when a run is run
again: a run the machine kept waiting for a CPU (IE, ``kept_waiting``) after a
pause that doubles each time (load elsewhere comes in bursts), any other IE once
(:func:`run_retrying`).  The last run is returned: a verdict still IE means the
judge cannot run the program, and the caller abandons what it was doing.  A
time-out the disk decided (TLE, ``stalled_on_disk``: the program waited for its
files from a cold cache, or stalled itself) is run again too, after the same
pauses, but a few times only and the last run stands: a program that stalls
itself on the disk every time is judged on it, and cannot stop the round.

Two seats' runs of one turn go at once (:class:`SeatPair`), seat 0 on a worker
thread of the pair's own, seat 1 on the caller's, which would otherwise only wait.
Seat 1's run begins once seat 0's program is about to start (its run's
``starting``): the two runs' work before their programs is the judge's Python, and
done at once it would share the interpreter lock and start both programs late.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from threading import Event
from typing import Protocol

from judge.sandbox.types import Limits, RunResult, TurnRun, Verdict

#: A judge failure (IE) is run again this many times before it stands.
IE_RETRIES = 1
#: A run the machine kept waiting for a CPU (IE, ``kept_waiting``) is run again this many
#: times, after pauses that double from BUSY_PAUSE_S: a burst of load elsewhere passes.
BUSY_RETRIES = 5
BUSY_PAUSE_S = 0.25
#: A time-out the disk decided (TLE, ``stalled_on_disk``) is run again this many times,
#: after the same pauses; the last run's verdict stands.
DISK_RETRIES = 2


class Runs(Protocol):
    """A seat, as far as running its turns goes (:meth:`~judge.sandbox.seat.Seat.run_turn`)."""

    def run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        *,
        starting: Callable[[], None] | None = None,
        discard_stalled: bool = False,
    ) -> TurnRun: ...


def run_retrying(
    seat: Runs,
    argv: list[str],
    inputs: dict[str, bytes],
    outputs: list[str],
    limits: Limits,
    on_retry: Callable[[RunResult], None] | None = None,
    starting: Callable[[], None] | None = None,
) -> TurnRun:
    """One run of a turn; a judge failure (IE, never the bot's fault) is run again.

    A run the machine kept waiting for a CPU (``kept_waiting``) is run again up to
    :data:`BUSY_RETRIES` times after doubling pauses, any other IE :data:`IE_RETRIES`
    times, a time-out the disk decided (``stalled_on_disk``) :data:`DISK_RETRIES` times
    after the same pauses; ``on_retry`` hears of each run thrown away.  The last run is
    returned, so a verdict still IE means the judge cannot run the program.  ``starting``:
    :meth:`Seat.run_turn <judge.sandbox.seat.Seat.run_turn>`'s, for the first run
    (the program about to start, or the run over).
    """
    failures, busy, disk, pause = 0, 0, 0, BUSY_PAUSE_S
    while True:
        disk_left = disk < DISK_RETRIES
        run = seat.run_turn(
            argv, inputs, outputs, limits, starting=starting, discard_stalled=disk_left
        )
        starting = None
        r = run.result
        if r.verdict is Verdict.TLE and r.stalled_on_disk and disk_left:
            disk += 1
        elif r.verdict is not Verdict.IE:
            return run
        elif r.kept_waiting and busy < BUSY_RETRIES:
            busy += 1
        elif not r.kept_waiting and failures < IE_RETRIES:
            failures += 1
        else:
            return run
        if r.verdict is Verdict.TLE or r.kept_waiting:  # the machine's load: let it pass
            time.sleep(pause)
            pause *= 2
        if on_retry is not None:
            on_retry(r)


@dataclass(frozen=True)
class PairRun:
    """One seat's run of a turn, as a :class:`SeatPair` is asked for it."""

    seat: Runs
    argv: list[str]
    inputs: dict[str, bytes]
    outputs: list[str]
    limits: Limits


#: hears of each failed run of seat ``s`` that is run again: ``(s, result)``
OnRetry = Callable[[int, RunResult], None]
#: hears of seat ``s``'s run that counts, on the thread that ran it (it may raise: the
#: pair's call then raises it, once both runs are over, seat 0's first)
OnDone = Callable[[int, TurnRun], None]


class SeatPair:
    """The two seats of a round, run turn after turn.  Its worker thread is made once,
    for the pair's life (:meth:`close` ends it)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="seat-0")

    def run(
        self,
        runs: Sequence[PairRun | None],
        together: bool = True,
        on_retry: OnRetry | None = None,
        on_done: OnDone | None = None,
    ) -> list[TurnRun | None]:
        """The two seats' runs of a turn (None: that seat is not run), each run again as
        :func:`run_retrying` does; at once when ``together`` and both are run, else seat
        0's, then seat 1's."""

        def one(s: int, starting: Callable[[], None] | None = None) -> TurnRun | None:
            asked = runs[s]
            if asked is None:
                return None
            retried = None if on_retry is None else (lambda r: on_retry(s, r))
            run = run_retrying(
                asked.seat,
                asked.argv,
                asked.inputs,
                asked.outputs,
                asked.limits,
                on_retry=retried,
                starting=starting,
            )
            if on_done is not None:
                on_done(s, run)
            return run

        if not together or any(r is None for r in runs):
            return [one(0), one(1)]
        first_starting = Event()
        first = self._pool.submit(one, 0, first_starting.set)
        # A seat 0 that ends without saying so (a seat of another kind) lets seat 1 go.
        first.add_done_callback(lambda _: first_starting.set())
        try:
            first_starting.wait()
            second = one(1)
        except BaseException:
            wait([first])
            first.result()
            raise
        return [first.result(), second]

    def close(self) -> None:
        """End the worker thread (after the run in flight, if any)."""
        self._pool.shutdown(wait=True)
