"""A verdict never depends on how busy the machine is.

* every run is pinned to one core of the sandbox's budget, and no more runs
  hold a core at once than the budget has;
* next to an outside CPU hog on its core, a CPU-bound program that needs less
  than its limit gets IE ("kept waiting", run it again), never TLE, with either
  way of measuring the wait (cgroup PSI, or per-task schedstat without cgroups);
* a program that sleeps, or loops for ever, next to the same hog still gets TLE.

Each test makes a one-core sandbox (core ``CORE``) and pins the hog there.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sandbox_support import FIXTURES, IS_ROOT, may_raise_priority, start_hog

from judge.sandbox import Limits, Sandbox, TurnRun, Verdict
from judge.sandbox.cores import BOT_NICE

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # real programs, and outside hogs

CORE = max(os.sched_getaffinity(0))
MAP = {"MAP.INP": b"5 5 10\n"}


@pytest.fixture
def hog() -> Iterator[subprocess.Popen[bytes]]:
    """An outside program busy on the test sandboxes' one core, ahead of the bots."""
    proc = start_hog(CORE)
    time.sleep(0.1)
    yield proc
    proc.kill()
    proc.wait()


def _run(sb: Sandbox, argv_tail: list[str], time_s: float) -> TurnRun:
    with sb.seat("fair", FIXTURES) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / argv_tail[0]), *argv_tail[1:]]
        seat.check(argv)
        return seat.run_turn(argv, MAP, ["MOVE.OUT"], Limits(time_s=time_s))


def test_each_run_is_pinned_to_a_core_of_the_budget(sandbox: Sandbox) -> None:
    def one(_: int) -> TurnRun:
        return _run(sandbox, ["burn.py", "0.05"], 5.0)

    with ThreadPoolExecutor(6) as pool:
        runs = list(pool.map(one, range(6)))
    for run in runs:
        assert run.result.verdict is Verdict.OK, run.result.message
        words = run.result.stderr_tail.decode().split()
        assert words[1].isdigit() and int(words[1]) in sandbox.cores.cores, words
        # As root, ahead of ordinary work on its core (a normal user cannot go below 0).
        boost = IS_ROOT and may_raise_priority()
        assert int(words[3]) == (BOT_NICE if boost else os.getpriority(os.PRIO_PROCESS, 0))
    assert sandbox.cores.peak <= sandbox.cores.size


def test_a_program_cannot_widen_its_cpuset(sandbox: Sandbox) -> None:
    cg = sandbox.machine.cgroup
    if cg is None or not cg.cpuset:
        pytest.skip("no cpuset here: runs are pinned by CPU affinity only (the report says so)")
    assert "cannot widen" in sandbox.isolation.as_dict()["a core per run"]["detail"]
    run = _run(sandbox, ["widen.py"], 5.0)
    assert run.result.verdict is Verdict.OK, run.result.message
    where = run.result.stderr_tail.decode().split("cores ")[-1].split()[0]
    assert where.isdigit() and int(where) in sandbox.cores.cores, run.result.stderr_tail


def test_one_core_runs_seats_one_after_the_other() -> None:
    before = os.sched_getaffinity(0)
    with Sandbox(cores=f"{CORE}-{CORE}") as sb:
        assert sb.cores.size == 1
        # The cores left over are the judge's: its threads keep off the bots' core.
        assert os.sched_getaffinity(0) == (before - {CORE} or before)
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda _: _run(sb, ["burn.py", "0.2"], 5.0), range(2)))
        assert sb.cores.peak == 1 and sb.cores.runs == 2
    assert os.sched_getaffinity(0) == before
    for run in runs:
        assert run.result.verdict is Verdict.OK, run.result.message
        assert run.result.stderr_tail.decode().split()[1] == str(CORE)


@pytest.mark.parametrize("cgroup", ["auto", "none"])
def test_an_outside_hog_gives_ie_not_tle(cgroup: str, hog: subprocess.Popen[bytes]) -> None:
    with Sandbox(cores=f"{CORE}-{CORE}", cgroup=cgroup) as sb:
        # 0.3 s of CPU within 0.6 s: easy alone, impossible with a third of a core.
        run = _run(sb, ["burn.py", "0.3"], 0.6)
        r = run.result
        assert r.verdict is Verdict.IE and r.kept_waiting, r.message
        assert r.wait_s is not None and r.wait_s > 0.1
        assert f"kept waiting {r.wait_s:.3f} s for a CPU" in r.message
        assert r.wall_s > 0.6  # it was given its waiting back and finished in it
        hog.kill()
        hog.wait()
        again = _run(sb, ["burn.py", "0.3"], 0.6).result
        # Alone on its core it is OK (IE only if other load on the machine stole it).
        assert again.verdict is Verdict.OK or again.kept_waiting, again.message


def test_an_infinite_loop_next_to_a_hog_is_still_tle(hog: subprocess.Popen[bytes]) -> None:
    with Sandbox(cores=f"{CORE}-{CORE}") as sb:
        r = _run(sb, ["loop.py"], 0.4).result
    assert r.verdict is Verdict.TLE, r.message
    assert "not counting" in r.message and "kept waiting for a CPU" in r.message
    assert r.wait_s is not None and r.wall_s - r.wait_s >= 0.35


def test_a_sleeping_program_next_to_a_hog_is_still_tle(hog: subprocess.Popen[bytes]) -> None:
    with Sandbox(cores=f"{CORE}-{CORE}") as sb:
        r = _run(sb, ["sleep.sh", "5"], 0.5).result
    assert r.verdict is Verdict.TLE and not r.kept_waiting, r.message
    # Only its start-up could have waited for the core: nothing like the hog's share.
    assert r.wall_s < 0.5 + 0.3, r.wall_s


def test_sandbox_info_says_how_many_programs_run_at_once_and_where(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from judge.cli import main

    usable = sorted(os.sched_getaffinity(0))
    assert main(["sandbox-info", "--json"]) == 0
    cores = json.loads(capsys.readouterr().out)["cores"]
    assert cores["programs_at_once"] == len(cores["bot_cores"]) >= 1
    assert set(cores["bot_cores"] + cores["judge_cores"]) <= set(usable)
    assert main(["sandbox-info", "--cores", f"{CORE}-{CORE}"]) == 0
    assert f"programs: at most 1 at once, one per core, on core {CORE}" in capsys.readouterr().out
    assert main(["sandbox-info", "--cores", str(len(usable) + 1)]) == 2
    assert f"give 1 to {len(usable)}" in capsys.readouterr().err
