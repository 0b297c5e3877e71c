"""A seat's next run, armed after each run (judge.sandbox.zygote.Armed).

The armed run's helper has joined the groups and forked; its child has done its
whole set-up but the core and waits for the go.  These tests pin what must not
change for the program (its clock, its memory; what it gets and its core are
compared with a one-shot helper's in test_zygote.py), that a
run that is not the armed one calls it off without a trace, and that nothing
armed outlives its seat.  Every other judged run of tests/sandbox after a seat's
first goes through an armed run too.
"""

from __future__ import annotations

import time

import psutil
import pytest
from sandbox_support import FIXTURES, KEEP_STATE

from judge.sandbox import Limits, Sandbox, Seat, TurnRun, Verdict

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


def _turn(seat: Seat, *argv: str, limits: Limits | None = None) -> TurnRun:
    assert seat.program_dir is not None
    return seat.run_turn(
        [str(seat.program_dir / argv[0]), *argv[1:]],
        {"MAP.INP": b"map"},
        ["MOVE.OUT"],
        limits or Limits(time_s=10),
    )


def _counts(seat: Seat) -> tuple[int, int]:
    z = seat.launcher.zygote
    assert z is not None
    return z.armed_used, z.armed_called_off


def _exe(p: psutil.Process) -> str | None:
    try:
        return str(p.exe())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def _armed_helpers(seat: Seat, want: int = 1) -> list[psutil.Process]:
    """The judge's children that are run helpers (not the zygote itself), once there are
    ``want`` of them each with its child (the zygote makes them as it gets to the request:
    a moment after the run)."""
    z = seat.launcher.zygote
    assert z is not None
    helper = psutil.Process(z.pid).exe()  # run helpers are the zygote's program, forked
    deadline = time.monotonic() + 5
    while True:
        # Only the helper's processes: another test of this process may have left a child
        # of its own (Dask's multiprocessing resource tracker lives as long as the process).
        found = [
            p
            for p in psutil.Process().children()
            if p.pid != z.pid and p.status() != psutil.STATUS_ZOMBIE and _exe(p) == helper
        ]
        if len(found) == want and all(len(p.children()) == 1 for p in found):
            return found
        if time.monotonic() > deadline:
            return found
        time.sleep(0.01)


def test_the_clock_starts_at_the_go_not_when_the_run_was_armed(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        assert _turn(seat, "ok.py").result.verdict is Verdict.OK
        time.sleep(0.6)  # armed long before its turn
        run = _turn(seat, "ok.py")
        assert run.result.verdict is Verdict.OK, run.result.message
        assert run.result.wall_s < 0.4, run.result.wall_s
        time.sleep(0.6)
        run = _turn(seat, "sleep.sh", "5", limits=Limits(time_s=0.3))
        assert run.result.verdict is Verdict.TLE, run.result.message
        assert 0.3 <= run.result.wall_s < 0.3 + 0.25 + (run.result.wait_s or 0.0)
        # the time-out called off the run armed for ok.py; the next ok.py finds one armed
        # for sleep.sh (called off), and the one after it one armed for itself
        assert _counts(seat) == (1, 1)
        assert _turn(seat, "ok.py").result.verdict is Verdict.OK
        assert _turn(seat, "ok.py").result.verdict is Verdict.OK
        assert _counts(seat)[0] == 2


def test_an_armed_run_counts_the_programs_memory(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        limits = Limits(time_s=10, memory_bytes=128 * 2**20)
        assert _turn(seat, "memhog.py", "8", limits=limits).result.verdict is Verdict.OK
        ok = _turn(seat, "memhog.py", "64", limits=limits)  # armed for "8": called off
        hog = _turn(seat, "memhog.py", "64", limits=limits)  # armed for "64": used
        assert _counts(seat) == (1, 1)
        for r in (ok, hog):
            assert r.result.verdict is Verdict.OK, r.result.message
            assert r.result.peak_memory_bytes >= 64 * 2**20, r.result.peak_memory_bytes
        mle = _turn(seat, "memhog.py", "200", limits=limits)
        assert mle.result.verdict is Verdict.MLE, mle.result.message


def test_a_run_that_is_not_the_armed_one_calls_it_off_without_a_trace(
    zygote_sandbox: Sandbox,
) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        assert _turn(seat, "ok.py").result.verdict is Verdict.OK
        before = _armed_helpers(seat)
        assert len(before) == 1  # armed after the run: its helper, waiting
        assert len(before[0].children()) == 1  # and its child, waiting for the go
        # another command, then other limits (a file cap): each calls the armed run off
        run = _turn(seat, "turns.py")
        assert run.result.verdict is Verdict.OK, run.result.message
        assert not psutil.pid_exists(before[0].pid)  # reaped
        run = _turn(seat, "turns.py", limits=Limits(time_s=10, file_bytes=2**20))
        assert run.result.verdict is Verdict.OK, run.result.message
        assert _counts(seat) == (0, 2)
        assert len(_armed_helpers(seat)) == 1


def test_nothing_armed_outlives_its_seat(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb:
        with sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
            assert _turn(seat, "ok.py").result.verdict is Verdict.OK
            armed = _armed_helpers(seat)
            assert len(armed) == 1
            procs = [armed[0], *armed[0].children()]
            assert len(procs) == 2
        for p in procs:
            assert not psutil.pid_exists(p.pid) or p.status() == psutil.STATUS_ZOMBIE, p
        helper = sb.machine.helper.argv[0]
        left = [p for p in psutil.Process().children() if p.cmdline()[:1] == [helper]]
        assert left == []  # the armed helper reaped, the zygote too
