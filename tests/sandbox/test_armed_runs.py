"""A seat's next run, armed after each run (judge.sandbox.zygote.Armed, issue 35).

The armed run's helper has joined the groups and forked; its child has done its
whole set-up but the core and waits for the go.  These tests pin what must not
change for the program (what it gets, its clock, its memory, its core), that a
run that is not the armed one calls it off without a trace, and that nothing
armed outlives its seat.  Every other judged run of tests/sandbox after a seat's
first goes through an armed run too.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import psutil
import pytest
from sandbox_support import FIXTURES, KEEP_STATE
from test_zygote import STATE

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
    z = seat._zygote
    assert z is not None
    return z.armed_used, z.armed_called_off


def _armed_helpers(seat: Seat, want: int = 1) -> list[psutil.Process]:
    """The judge's children that are run helpers (not the zygote itself), once there are
    ``want`` of them each with its child (the zygote makes them as it gets to the request:
    a moment after the run)."""
    z = seat._zygote
    assert z is not None
    deadline = time.monotonic() + 5
    while True:
        found = [
            p
            for p in psutil.Process().children()
            if p.pid != z.pid and p.status() != psutil.STATUS_ZOMBIE
        ]
        if len(found) == want and all(len(p.children()) == 1 for p in found):
            return found
        if time.monotonic() > deadline:
            return found
        time.sleep(0.01)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path / "seats")
    if sb.machine.helper.kind != "c":
        sb.close()
        pytest.skip("no C helper here: every run starts a one-shot helper")
    return sb


def test_an_armed_run_gives_the_program_what_a_one_shot_helper_gives(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "state.py").write_text(STATE)
    (prog / "state.py").chmod(0o755)
    with sandbox as sb, sb.seat("a", prog) as seat:
        first = _turn(seat, "state.py")
        armed = _turn(seat, "state.py")
        assert _counts(seat) == (1, 0)  # the second run was the one armed after the first
        zygote, seat._zygote = seat._zygote, None  # this seat's next run: one-shot
        try:
            one_shot = _turn(seat, "state.py")
        finally:
            seat._zygote = zygote
        runs = (first, armed, one_shot)
        for r in runs:
            assert r.result.verdict is Verdict.OK, r.result.message
        states = [json.loads(r.outputs["MOVE.OUT"] or b"{}") for r in runs]
        for s in states:
            assert len(s.pop("cores")) == 1  # pinned to one core, given with the go
        assert states[1] == states[2] == states[0]
        assert states[1]["fds"] == [0, 1, 2, 3]  # the go pipe is not left open


def test_the_clock_starts_at_the_go_not_when_the_run_was_armed(sandbox: Sandbox) -> None:
    with sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
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


def test_an_armed_run_counts_the_programs_memory(sandbox: Sandbox) -> None:
    with sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
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
    sandbox: Sandbox,
) -> None:
    with sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
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


def test_nothing_armed_outlives_its_seat(sandbox: Sandbox) -> None:
    with sandbox as sb:
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
