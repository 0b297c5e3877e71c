"""End to end through the real sandbox: bundled bots, short rounds (K = 6 or 4).

* a 3-team tournament (the contest's size) and a 5-team one, every file checked;
* ``--jobs 1`` and ``--jobs 2`` give the same standings and the same rounds;
* the judge killed mid-way (SIGKILL, and SIGTERM) leaves no bot process, and
  ``--resume`` then gives the same standings as the uninterrupted run;
* as root, a team's program cannot read the other team's program folder or
  STATE.OUT while both play in one tournament.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from judge.cli import main
from judge.rules import EndReason
from judge.tournament.config import load_config
from judge.tournament.ledger import LEDGER_FILE
from judge.tournament.play import Runner

from ._helpers import ROOT, config_dict, ledger_rows, read_standings, write_config

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

THREE_BOTS = ["greedy", "random", "greedy_c"]
#: Generous: results are compared across runs, and a run slowed past the limit by a busy
#: machine (a TLE) would change a move.  The bundled bots take milliseconds.
TIME_LIMIT = 10.0
FIVE_BOTS = ["greedy", "random", "greedy_c", "random", "greedy"]


def points_by_the_rules(gold: list[int]) -> list[int]:
    """Section 5: win 20, loss 0, draw 10 each only if both teams have at least 1 gold."""
    if gold[0] != gold[1]:
        return [20, 0] if gold[0] > gold[1] else [0, 20]
    return [10, 10] if min(gold) >= 1 else [0, 0]


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The contest's 3-team tournament, played once uninterrupted with --jobs 2."""
    root = tmp_path_factory.mktemp("three")
    cfg_path = write_config(root, config_dict(3, bots=THREE_BOTS, turns=4, time_limit=TIME_LIMIT))
    out = root / "whole"
    assert main(["tournament", str(cfg_path), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    return {
        "root": root,
        "config": cfg_path,
        "out": out,
        "standings": read_standings(out),
        "rows": ledger_rows(out),
    }


def check_tournament_folder(out: Path, n_teams: int) -> None:
    cfg_teams = {r["team"] for r in read_standings(out)}
    assert len(cfg_teams) == n_teams
    matches = [d for d in out.iterdir() if d.is_dir()]
    assert len(matches) == n_teams * (n_teams - 1) // 2
    totals: dict[str, dict[str, int]] = {t: {"points": 0, "gold": 0, "won": 0} for t in cfg_teams}
    for m in matches:
        result = json.loads((m / "result.json").read_text())
        a, b = result["teams"]
        assert m.name == f"{a}-vs-{b}"
        assert len(result["rounds"]) == 3
        maps = [r["map"] for r in result["rounds"]]
        assert len(set(maps)) == 3  # three different maps; the organisers' last
        assert maps[2].endswith("final.txt")
        assert [r["seats"][0] for r in result["rounds"]] == [a, b, a]
        for idx, r in enumerate(result["rounds"], start=1):
            assert r["points"] == points_by_the_rules(r["gold"])
            EndReason(r["end_reason"])
            header = json.loads((m / f"round-{idx}" / "replay.jsonl").read_text().splitlines()[0])
            assert header["teams"] == r["seats"] and header["turns"] == r["turns"]
            assert header["limits"]["time_limit_lifted"] is False
            for s, team in enumerate((a, b)):
                totals[team]["points"] += r["points"][s]
                totals[team]["gold"] += r["gold"][s]
                totals[team]["won"] += r["winner"] == s
        assert result["points"] == [sum(r["points"][s] for r in result["rounds"]) for s in (0, 1)]
    for row in read_standings(out):
        t = totals[row["team"]]
        assert (row["points"], row["gold"], row["rounds_won"]) == (t["points"], t["gold"], t["won"])
    keys = [
        (-r["points"], -r["rounds_won"], -r["gold"], r["team"].casefold())
        for r in read_standings(out)
    ]
    assert keys == sorted(keys)
    assert (out / "standings.csv").read_text(encoding="utf-8-sig").splitlines()[
        0
    ] == "rank,team,points,rounds_won,draws,losses,gold"
    assert (out / LEDGER_FILE).is_file() and (out / "index.html").is_file()


def test_three_teams_end_to_end(three: dict[str, Any]) -> None:
    check_tournament_folder(three["out"], 3)
    assert len(three["rows"]) == 9


def test_five_teams_end_to_end(tmp_path: Path) -> None:
    cfg_path = write_config(
        tmp_path, config_dict(5, bots=FIVE_BOTS, turns=2, time_limit=TIME_LIMIT)
    )
    out = tmp_path / "t"
    assert main(["tournament", str(cfg_path), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    check_tournament_folder(out, 5)
    assert len(ledger_rows(out)) == 30


def test_jobs_1_and_jobs_2_give_the_same_standings(three: dict[str, Any]) -> None:
    out = three["root"] / "jobs1"
    assert (
        main(["tournament", str(three["config"]), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    )
    assert read_standings(out) == three["standings"]
    assert ledger_rows(out) == three["rows"]


# ------------------------------------------------------------ kill and resume
def rounds_in_ledger(out: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{out / LEDGER_FILE}?mode=ro", uri=True, timeout=0.05)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def start_judge(config: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judge",
            "tournament",
            str(config),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--quiet",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def wait_for_rounds(proc: subprocess.Popen[bytes], out: Path, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while rounds_in_ledger(out) < n:
        assert proc.poll() is None, f"the judge ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "no rounds recorded in time"
        time.sleep(0.02)


def processes_of(judge_pid: int, out: Path) -> list[str]:
    """Processes left from that judge: its sandbox's helpers and bots, or anything in its folder."""
    marks = (f"sandbox-{judge_pid}-", str(out))
    found = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        try:
            text = " ".join(p.info["cmdline"] or [])
            cwd: str | None = p.cwd()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        if p.pid == judge_pid or any(m in text or m in (cwd or "") for m in marks):
            if p.status() != psutil.STATUS_ZOMBIE:
                found.append(f"{p.pid}: {text} (cwd {cwd})")
    return found


def assert_no_survivors(judge_pid: int, out: Path, grace_s: float = 5.0) -> None:
    deadline = time.monotonic() + grace_s
    while True:
        left = processes_of(judge_pid, out)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert left == [], "processes survived the judge:\n" + "\n".join(left)


def test_sigkill_mid_way_then_resume_gives_the_same_standings(three: dict[str, Any]) -> None:
    out = three["root"] / "killed"
    proc = start_judge(three["config"], out)
    try:
        wait_for_rounds(proc, out, 2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert_no_survivors(proc.pid, out)
    done = rounds_in_ledger(out)
    assert 2 <= done < 9, "the judge should have been killed mid-way"
    assert not (out / "standings.json").exists()

    # Without --resume the folder is refused; with it only the missing rounds are played.
    assert main(["tournament", str(three["config"]), "--out", str(out), "--quiet"]) == 2
    assert main(["tournament", str(three["config"]), "--out", str(out), "--resume", "--quiet"]) == 0
    assert read_standings(out) == three["standings"]
    assert ledger_rows(out) == three["rows"]


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT-group"])
def test_a_signal_stops_cleanly_and_says_how_to_resume(three: dict[str, Any], how: str) -> None:
    """SIGTERM to the judge, or Ctrl-C as a terminal sends it: to the whole process group."""
    out = three["root"] / f"stopped-{how}"
    proc = start_judge(three["config"], out)
    try:
        wait_for_rounds(proc, out, 1)
        if how == "SIGTERM":
            os.kill(proc.pid, signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)  # start_new_session: its group id is its pid
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    signum = signal.SIGTERM if how == "SIGTERM" else signal.SIGINT
    assert proc.returncode == 128 + signum, err.decode()
    text = " ".join(err.decode().split())
    assert signum.name in text and "--resume" in text
    assert_no_survivors(proc.pid, out)
    assert rounds_in_ledger(out) < 9
    assert main(["tournament", str(three["config"]), "--out", str(out), "--resume", "--quiet"]) == 0
    assert read_standings(out) == three["standings"]
    assert ledger_rows(out) == three["rows"]


# ------------------------------------------------------------------- privacy
SPY = r'''#!/usr/bin/env python3
"""Looks for the other team's files from everywhere it can reach, then reports on stderr."""
import os, sys

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    starts = set()
    for p in (os.getcwd(), here):
        while p not in ("/", ""):
            starts.add(p)
            p = os.path.dirname(p)
    try:
        with open(os.path.join(here, "targets.txt")) as f:
            starts.update(line.strip() for line in f if line.strip())
    except OSError:
        pass
    mine = (here, os.getcwd())
    tried, leaks = 0, []
    for start in sorted(starts):
        for dirpath, dirs, files in os.walk(start):
            if dirpath.startswith(mine) or dirpath.count("/") - start.count("/") > 4:
                dirs[:] = []
                continue
            for name in files:
                if name in ("SECRET.txt", "STATE.OUT"):
                    tried += 1
                    try:
                        with open(os.path.join(dirpath, name), "rb") as f:
                            leaks.append(f"{dirpath}/{name}: {f.read(100)!r}")
                    except OSError:
                        pass
            tried += 1
    sys.stderr.write(f"spy: looked in {len(starts)} places, {tried} entries; " +
                     ("LEAKED " + " | ".join(leaks) if leaks else "found nothing") + "\n")
    with open("MOVE.OUT", "w") as f:
        f.write("1 1\n")

main()
'''

VICTIM = r"""#!/usr/bin/env python3
with open("STATE.OUT", "w") as f:
    f.write("SECRET-VICTIM-STATE\n")
with open("MOVE.OUT", "w") as f:
    f.write("5 5\n")
"""


@pytest.mark.root("the seats' separate uids need root")
@pytest.mark.parametrize("options", [{}, {"namespaces": False}], ids=["full", "uids-only"])
def test_a_teams_program_cannot_read_the_other_teams_files(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """With every protection, and with separate uids alone (the seats' folders visible)."""
    from judge.sandbox import Sandbox

    spy, victim = tmp_path / "bots" / "spy", tmp_path / "bots" / "victim"
    for folder, code in ((spy, SPY), (victim, VICTIM)):
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(code)
        (folder / "bot.yaml").write_text("command: [python3, bot.py]\n")
    (victim / "SECRET.txt").write_text("SECRET-VICTIM-PROGRAM\n")
    data = config_dict(2, turns=4, time_limit=TIME_LIMIT)
    data["teams"] = [
        {"name": "Spy", "bot": str(spy), "map": "m1"},
        {"name": "Victim", "bot": str(victim), "map": "m2"},
    ]
    cfg = load_config(write_config(tmp_path, data))

    def sandbox() -> Sandbox:
        sb = Sandbox(**options)
        if not (
            sb.isolation.is_on("separate uid per seat")
            and sb.isolation.is_on("private seat folders")
        ):
            sb.close()
            pytest.skip("the sandbox cannot keep seats apart on this machine")
        # The spy is told where everything is: the sandbox's seats and the victim's own folder.
        (spy / "targets.txt").write_text(f"{sb.root}\n{victim}\n{tmp_path}\n")
        return sb

    # Control: outside the sandbox the spy does find the victim's files.
    (spy / "targets.txt").write_text(f"{victim}\n")
    (tmp_path / "outside").mkdir()
    control = subprocess.run(
        [sys.executable, str(spy / "bot.py")],
        cwd=tmp_path / "outside",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "LEAKED" in control.stderr and "SECRET-VICTIM-PROGRAM" in control.stderr

    out = tmp_path / "t"
    # Without namespaces some protections are off: the tournament must be told it may run.
    report = Runner(cfg, out, 2, sandbox, unsandboxed=bool(options)).run(resume=False)
    assert report.complete
    logs = sorted(out.glob("*/round-*/Spy/stderr.log"))
    assert len(logs) == 3
    for log in logs:
        text = log.read_text()
        assert "spy: looked in" in text  # it did run and look
        assert "SECRET" not in text and "LEAKED" not in text, text
    # The victim ran at the same time, writing its STATE.OUT every turn.
    for replay in out.glob("*/round-*/replay.jsonl"):
        lines = [json.loads(x) for x in replay.read_text().splitlines()]
        victim = lines[0]["teams"].index("Victim")
        assert all(rec["verdicts"][victim] == "OK" for rec in lines[1:])
