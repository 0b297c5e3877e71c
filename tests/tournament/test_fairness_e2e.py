"""End to end: bots that use most of their time limit get OK at any --jobs.

Two teams (three rounds: more than the default --jobs, one round per core, so rounds
queue) whose programs need 60 % of the limit in CPU every turn (0.3 s of 0.5 s): when
the default --jobs ran four busy programs on two cores, most runs were TLE.
Now every run holds a core of its own, so every recorded run is OK with --jobs 4 (more
rounds in flight than cores; the default, one round per core, is the easier case and
was a test of its own that repeated this one).  The contest's own scale
(1.2 s of 2 s) is benchmarks/fairness.py's default; nothing in the judge depends on the
limit's size, and the 0.5 s form is the stricter one (a program's start-up, the same at
any limit, is a larger share of it).  ``judge match`` in a process limited to
one core runs the two seats one after the other (at once, each would need
twice its CPU time and be TLE) and says so in its header.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli import main
from judge.sandbox.cores import plan_cores, usable_cores
from judge.tournament.config import ConfigError, load_config

from ._helpers import ROOT, config_dict, make_burner, write_config

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


def _runs(out: Path) -> list[tuple[str, str, str | None]]:
    """Every recorded run in every replay under ``out``: where (round and turn), its verdict
    and its message."""
    found = []
    for replay in sorted(out.rglob("replay.jsonl")):
        for line in replay.read_text().splitlines()[1:]:
            rec = json.loads(line)
            where = f"{replay.parent.relative_to(out)} turn {rec['turn']}"
            found += [
                (where, v, m)
                for v, m in zip(rec["verdicts"], rec["messages"], strict=True)
                if v is not None
            ]
    return found


def _verdicts(out: Path) -> list[str]:
    """Every recorded run's verdict in every replay under ``out``."""
    return [v for _, v, _ in _runs(out)]


def _not_ok(out: Path) -> list[str]:
    """Why each recorded run that is not OK is not (its message: where its time went)."""
    return [f"{where}: {v} {m}" for where, v, m in _runs(out) if v != "OK"]


def _tournament(
    tmp: Path, cpu_s: float, limit: float, jobs: int | None, quiet: bool = True, teams: int = 2
) -> list[str]:
    bots = [str(make_burner(tmp / f"bot{i}", cpu_s)) for i in range(teams)]
    data = config_dict(teams, bots=bots, turns=2, time_limit=limit)
    del data["jobs"]  # the default: one round per core
    cfg = write_config(tmp, data)
    argv = ["tournament", str(cfg), "--out", str(tmp / "out")] + (["--quiet"] if quiet else [])
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    assert main(argv) == 0
    verdicts = _verdicts(tmp / "out")
    rounds = 3 * teams * (teams - 1) // 2  # 3 rounds a pair
    assert len(verdicts) >= rounds * 2 * 2  # 2 seats, placement and at least a move
    return verdicts


@pytest.mark.xdist_group("heavy")  # most of every core it gets: not beside the others
@pytest.mark.parametrize("jobs", [4])
def test_cpu_heavy_bots_get_only_ok_fast(
    tmp_path: Path, jobs: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = _tournament(tmp_path, 0.3, 0.5, jobs, quiet=False)
    assert set(verdicts) == {"OK"}, _not_ok(tmp_path / "out")
    # The header says how many programs run at once (the cores, whatever --jobs says).
    n = len(plan_cores(None, *usable_cores()).bots)
    assert f"programs: at most {n} at once, one per core" in capsys.readouterr().out


@pytest.mark.xdist_group("heavy")
def test_one_core_match_runs_the_seats_one_after_the_other(tmp_path: Path) -> None:
    core = max(os.sched_getaffinity(0))
    bot = make_burner(tmp_path / "burner", 0.3)
    out = tmp_path / "match"
    code = (
        "import os, sys\n"
        f"os.sched_setaffinity(0, {{{core}}})\n"
        "from judge.cli import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "match", str(bot), str(bot), "--map", "m1"]
        + ["--turns", "2", "--time-limit", "0.5", "--seed", "1", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"programs: at most 1 at once, one per core, on core {core}" in proc.stdout
    verdicts = _verdicts(out)
    assert verdicts and set(verdicts) == {"OK"}, verdicts


def test_cores_in_the_configuration_is_checked_and_changes_no_result(tmp_path: Path) -> None:
    plain = load_config(write_config(tmp_path / "a", config_dict(3)))
    one = load_config(write_config(tmp_path / "b", config_dict(3, cores=1)))
    assert plain.cores is None and one.cores == 1
    assert one.config_hash() == plain.config_hash()  # like jobs: resume with other cores
    for bad, words in (("x", "core list"), (99, "give 1 to"), ([1], "a number of cores")):
        with pytest.raises(ConfigError, match=words):
            load_config(write_config(tmp_path / "c", config_dict(3, cores=bad)))


def test_cores_this_machine_lacks_are_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    too_many = str(len(usable_cores()[0]) + 1)
    cfg = write_config(tmp_path, config_dict(3))
    out = tmp_path / "t"
    assert main(["tournament", str(cfg), "--out", str(out), "--cores", too_many]) == 2
    assert f"cores {too_many}: give 1 to" in capsys.readouterr().err and not out.exists()
    match_out = tmp_path / "m"
    argv = ["match", "greedy", "random", "--map", "m1", "--out", str(match_out)]
    assert main([*argv, "--cores", "0-99"]) == 2
    assert "not usable by this process" in capsys.readouterr().err
