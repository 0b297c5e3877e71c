"""Timing accuracy with the contest's 2 s limit.

A program sleeping 1.5 s gets OK; one sleeping 2.3 s gets TLE and is gone by
2.1 s after its start.  Both run at once in two seats (as in a match), so the
test takes about 2.1 s.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sandbox_support import FIXTURES, procs_of_uid

from judge.sandbox import Limits, Sandbox, TurnRun, Verdict

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


def _sleeper(sandbox: Sandbox, seconds: str) -> tuple[TurnRun, float, list[int]]:
    with sandbox.seat(f"sleep-{seconds}", FIXTURES) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "sleep.sh"), seconds]
        seat.check(argv)  # reachability check outside the timed part
        t0 = time.monotonic()
        run = seat.run_turn(argv, {"MAP.INP": b"x"}, ["MOVE.OUT"], Limits())
        returned_after = time.monotonic() - t0
        return run, returned_after, procs_of_uid(seat.uid)


@pytest.mark.alone  # its clean-up is timed to 50 ms
def test_sleep_1_5_ok_and_sleep_2_3_tle_gone_by_2_1(sandbox: Sandbox) -> None:
    with ThreadPoolExecutor(2) as pool:
        short_f = pool.submit(_sleeper, sandbox, "1.5")
        long_f = pool.submit(_sleeper, sandbox, "2.3")
        short, long_ = short_f.result(), long_f.result()
    run, _, left = short
    assert run.result.verdict is Verdict.OK, run.result.message
    assert 1.5 <= run.result.wall_s < 2.0
    assert run.outputs["MOVE.OUT"] == b"1 1\n"
    assert left == []
    run, returned_after, left = long_
    assert run.result.verdict is Verdict.TLE, run.result.message
    # A start-up kept waiting for a CPU by a busy machine is given back.
    given_back = run.result.wait_s or 0.0
    assert 2.0 <= run.result.wall_s <= 2.1 + given_back, run.result.wall_s
    assert returned_after <= 2.1 + given_back + 0.05, returned_after  # cleanup included
    assert left == [], "the sleeping program outlived its run"
    assert run.outputs["MOVE.OUT"] is None
    assert run.result.signal == 9 and run.result.exit_code is None
