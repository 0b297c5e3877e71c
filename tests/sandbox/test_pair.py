"""A turn's two seats, run by the sandbox (judge.sandbox.pair): at once with the interpreter-lock
hand-off, and a run the judge failed run again by the sandbox's own policy.

Scripted seats (no programs): what the pair promises its caller, the referee, which
only renders the inputs and applies the rules to what comes back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import judge.sandbox.pair as pair
from judge.sandbox import Limits, PairRun, RunResult, SeatPair, TurnRun, Verdict


def _result(verdict: Verdict = Verdict.OK, kept_waiting: bool = False) -> RunResult:
    r = RunResult(verdict, 0.01, 0.01, 0, 0, None, b"", b"", verdict.value)
    object.__setattr__(r, "kept_waiting", kept_waiting)
    return r


class _Seat:
    """Says it is starting after ``before`` s of its own work, then runs ``program`` s;
    its first ``fails`` runs are IE (kept waiting, or not)."""

    def __init__(
        self, name: str, log: list[str], before: float = 0.0, fails: int = 0, busy: bool = False
    ) -> None:
        self.name, self.log, self.before, self.fails, self.busy = name, log, before, fails, busy
        self.runs = 0

    def run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        *,
        starting: Callable[[], None] | None = None,
        discard_stalled: bool = False,
    ) -> TurnRun:
        time.sleep(self.before)
        self.log.append(f"{self.name} starting")
        if starting is not None:
            starting()
        self.runs += 1
        time.sleep(0.05)
        self.log.append(f"{self.name} done")
        if self.runs <= self.fails:
            return TurnRun(_result(Verdict.IE, self.busy), {})
        return TurnRun(_result(), {"MOVE.OUT": b"1 1\n"})


def _asked(*seats: Any) -> list[PairRun | None]:
    return [
        None if s is None else PairRun(s, ["bot"], {"MAP.INP": b"m"}, ["MOVE.OUT"], Limits())
        for s in seats
    ]


def test_seat_1_begins_once_seat_0s_program_is_about_to_start() -> None:
    log: list[str] = []
    a, b = _Seat("a", log, before=0.1), _Seat("b", log)
    p = SeatPair()
    try:
        runs = p.run(_asked(a, b))
    finally:
        p.close()
    assert [r.result.verdict for r in runs if r] == [Verdict.OK, Verdict.OK]
    assert log.index("a starting") < log.index("b starting") < log.index("a done")


def test_one_after_the_other_when_not_together_or_a_seat_is_not_run() -> None:
    log: list[str] = []
    a, b = _Seat("a", log), _Seat("b", log)
    p = SeatPair()
    try:
        assert p.run(_asked(a, b), together=False)[1] is not None
        assert log == ["a starting", "a done", "b starting", "b done"]
        assert p.run(_asked(None, b))[0] is None
    finally:
        p.close()


def test_the_sandbox_runs_its_failures_again_by_its_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pair, "BUSY_PAUSE_S", 0.0)
    log: list[str] = []
    busy = _Seat("a", log, fails=pair.BUSY_RETRIES, busy=True)
    broken = _Seat("b", log, fails=pair.IE_RETRIES + 1)
    retried: list[tuple[int, str]] = []
    p = SeatPair()
    try:
        runs = p.run(_asked(busy, broken), on_retry=lambda s, r: retried.append((s, r.message)))
    finally:
        p.close()
    assert runs[0] is not None and runs[0].result.verdict is Verdict.OK
    assert runs[1] is not None and runs[1].result.verdict is Verdict.IE  # it stands
    assert busy.runs == pair.BUSY_RETRIES + 1 and broken.runs == pair.IE_RETRIES + 1
    assert retried.count((0, "IE")) == pair.BUSY_RETRIES and retried.count((1, "IE")) == 1


class _StalledSeat:
    """Its first ``stalls`` runs are time-outs the disk decided; then OK.  Records the
    ``discard_stalled`` each run was asked with."""

    def __init__(self, stalls: int) -> None:
        self.stalls = stalls
        self.asked: list[bool] = []

    def run_turn(self, argv: Any, inputs: Any, outputs: Any, limits: Limits, **kw: Any) -> TurnRun:
        self.asked.append(kw["discard_stalled"])
        if len(self.asked) > self.stalls:
            return TurnRun(_result(), {"MOVE.OUT": b"1 1\n"})
        r = _result(Verdict.TLE)
        object.__setattr__(r, "stalled_on_disk", True)
        return TurnRun(r, {})


@pytest.mark.parametrize("stalls", [1, pair.DISK_RETRIES, pair.DISK_RETRIES + 3])
def test_a_time_out_the_disk_decided_is_run_again_and_the_last_try_stands(
    monkeypatch: pytest.MonkeyPatch, stalls: int
) -> None:
    monkeypatch.setattr(pair, "BUSY_PAUSE_S", 0.0)
    seat, thrown = _StalledSeat(stalls), list[RunResult]()
    run = pair.run_retrying(seat, ["bot"], {}, ["MOVE.OUT"], Limits(), thrown.append)
    tries = min(stalls, pair.DISK_RETRIES) + 1
    assert run.result.verdict is (Verdict.OK if stalls <= pair.DISK_RETRIES else Verdict.TLE)
    assert len(thrown) == tries - 1 and all(t.verdict is Verdict.TLE for t in thrown)
    # Each run the policy may throw away is asked to leave the seat as it found it; the last
    # try is not (a time-out that stands keeps what the program wrote, as any time-out).
    assert seat.asked == [True] * min(tries, pair.DISK_RETRIES) + [False] * (
        tries - pair.DISK_RETRIES
    )


def test_a_failure_heard_on_seat_0s_thread_is_raised_once_both_runs_are_over() -> None:
    log: list[str] = []
    a, b = _Seat("a", log), _Seat("b", log)
    threads: list[str] = []

    def done(s: int, run: TurnRun) -> None:
        threads.append(threading.current_thread().name)
        if s == 0:
            raise RuntimeError("seat 0 refused")

    p = SeatPair()
    try:
        with pytest.raises(RuntimeError, match="seat 0 refused"):
            p.run(_asked(a, b), on_done=done)
    finally:
        p.close()
    assert "b done" in log  # seat 1's run was over before seat 0's failure came out
    assert threads[0].startswith("seat-0") or threads[1].startswith("seat-0")
