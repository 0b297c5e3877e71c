"""Every wait that is not the program's is counted, for .exe seats too.

A Windows program that asks its wineserver for much (hostile.exe ``server``:
create and close an event, thousands of times) sleeps while the server works.
With an outside load that outranks the bots on the run's core, both wait; the
waiting counted must explain the whole slow-down, the server's share included
(it joins the run's pressure group for the run), and a time-out says where its
time went.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from judge.sandbox import Limits, Sandbox, TurnRun, Verdict
from tests.sandbox.sandbox_support import start_hog
from tests.windows.conftest import Exes

pytestmark = pytest.mark.slow

CALLS = "20000"


def _unexplained(run: TurnRun) -> float:
    """Wall time that is neither the program's CPU, its server's, nor counted waiting."""
    r = run.result
    assert r.wait_s is not None and r.service_cpu_s is not None
    return r.wall_s - r.cpu_s - r.service_cpu_s - r.wait_s


@pytest.mark.alone  # an outside hog on a core
def test_the_servers_waiting_is_counted_as_the_runs(hostile_exe: Path) -> None:
    core = max(os.sched_getaffinity(0))
    with Sandbox(cores=f"{core}-{core}") as sb, sb.seat("waits", hostile_exe) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "hostile.exe"), "server", CALLS]
        roomy = Limits(time_s=20.0)
        seat.run_turn(argv, {}, ["MOVE.OUT"], roomy)  # warm
        quiet = seat.run_turn(argv, {}, ["MOVE.OUT"], roomy)
        hog = start_hog(core, seconds=30)
        try:
            time.sleep(0.05)
            busy = seat.run_turn(argv, {}, ["MOVE.OUT"], roomy)
        finally:
            hog.kill()
            hog.wait()
    assert quiet.result.verdict is Verdict.OK and busy.result.verdict is Verdict.OK
    slower = busy.result.wall_s - quiet.result.wall_s
    assert slower > 0.3, (quiet.result, busy.result)  # the hog did take most of the core
    # the slow-down is waiting the judge counted, to within a few per cent
    assert _unexplained(busy) - _unexplained(quiet) < 0.04 * slower + 0.01, (
        quiet.result,
        busy.result,
    )


def test_a_time_out_of_an_exe_says_where_its_time_went(wine_sandbox: Sandbox, exes: Exes) -> None:
    with wine_sandbox.seat("tle", exes.hostile) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "hostile.exe"), "server", "100000000"]
        run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits(time_s=0.5))
    r = run.result
    assert r.verdict is Verdict.TLE, r.message
    for words in ("s CPU, ", "s waiting for a CPU, ", "s neither: sleeping or blocked, "):
        assert words in r.message, r.message
    assert "while the seat's wineserver worked for it" in r.message, r.message
