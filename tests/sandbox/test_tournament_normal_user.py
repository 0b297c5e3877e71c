"""``judge tournament`` run by a normal user (issue 12 items 6, 2 and 3).

As in test_sandbox_normal_user, the judge (with its dependencies, and the
bundled bots and maps under ``judge/shipped/`` as a wheel holds them) is copied
into a folder uid 65534 (nobody) can read but not write, and the system's
python runs it as that user.  Without root most sandbox protections are off:

* the tournament is refused, nothing written, the message naming the way out;
* with ``--unsandboxed`` it runs, says so loudly, and the ledger and
  standings.json record it;
* along the way: Vietnamese team names, the bundled bots from a read-only
  installation (greedy_c is built in the judge's cache, not in the package).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from sandbox_support import needs_root

import judge

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"
ROOT = Path(judge.__file__).resolve().parents[1]
DEPENDENCIES = ("psutil", "yaml", "_yaml", "rich", "pygments", "markdown_it", "mdurl", "openskill")
NAMES = ["Rồng Biển", "Đội Hải Âu", "Cá-Mập"]


def _copy_installation(dst: Path) -> None:
    """The judge as a wheel installs it (bots and maps in judge/shipped), plus its dependencies."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(Path(judge.__file__).resolve().parent, dst / "judge", ignore=skip)
    shutil.copytree(ROOT / "bots", dst / "judge" / "shipped" / "bots", ignore=skip)
    shutil.copytree(ROOT / "maps", dst / "judge" / "shipped" / "maps", ignore=skip)
    built = dst / "judge" / "shipped" / "bots" / "greedy_c" / "greedy"
    built.unlink(missing_ok=True)  # the wheel never carries it
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        if spec.submodule_search_locations:
            src = Path(list(spec.submodule_search_locations)[0])
            shutil.copytree(src, dst / src.name, ignore=skip)
        elif spec.origin:
            shutil.copy2(spec.origin, dst / Path(spec.origin).name)


def _as_nobody(args: list[str], work: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SYSTEM_PYTHON, "-m", "judge", *args],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd=str(cwd),
        capture_output=True,
        text=True,
        timeout=600,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": str(work),
            "HOME": "/nonexistent",
            "TMPDIR": str(cwd),
            "LANG": "C.UTF-8",
            "COLUMNS": "200",
        },
    )


@needs_root
def test_a_normal_users_tournament_is_refused_unless_unsandboxed() -> None:
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is missing")
    work = Path(tempfile.mkdtemp(prefix="oj-normal-tournament-"))
    try:
        os.chmod(work, 0o755)
        _copy_installation(work)
        contest = work / "contest"
        contest.mkdir()
        config = {
            "seed": 7,
            "turns": 4,
            "time_limit": 5.0,
            "jobs": 2,
            "organiser_map": {"generate": {"rows": 9, "cols": 11, "turns": 4, "seed": 3}},
            "teams": [
                {"name": NAMES[0], "bot": "greedy_c", "map": "m1"},
                {"name": NAMES[1], "bot": "random", "map": "m2"},
                {"name": NAMES[2], "bot": "greedy", "map": "m3"},
            ],
        }
        (contest / "judge.yaml").write_text(
            yaml.safe_dump(config, allow_unicode=True), encoding="utf-8"
        )
        for dirpath, dirnames, filenames in os.walk(work):  # readable, not writable, by nobody
            for name in dirnames:
                os.chmod(os.path.join(dirpath, name), 0o755)
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o644)
        home = work / "home"  # the user's own folder: the only one they can write
        home.mkdir()
        os.chown(home, NOBODY, NOBODY)
        cfg = str(contest / "judge.yaml")
        out = home / "final"

        refused = _as_nobody(["tournament", cfg, "--out", str(out)], work, home)
        assert refused.returncode == 2, refused.stderr[-3000:]
        said = " ".join(refused.stderr.split())
        assert "sandbox protections are OFF" in said and "separate uid per seat" in said
        assert "add --unsandboxed" in said and "Traceback" not in said
        assert not out.exists()

        ran = _as_nobody(["tournament", cfg, "--out", str(out), "--unsandboxed"], work, home)
        assert ran.returncode == 0, (ran.stdout[-3000:], ran.stderr[-3000:])
        assert "UNSANDBOXED (--unsandboxed)" in ran.stdout
        for name in NAMES:
            assert name in ran.stdout  # the standings, names as written
        data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
        assert data["unsandboxed"] is True and "separate uid per seat" in data["protections_off"]
        assert sorted(r["team"] for r in data["standings"]) == sorted(NAMES)
        assert set(data["programs"]) == set(NAMES)
        with sqlite3.connect(out / "ledger.sqlite") as db:
            (runs,) = db.execute("SELECT value FROM meta WHERE key = 'runs'").fetchone()
        assert json.loads(runs)[0]["unsandboxed"] is True
        assert (out / "Rong_Bien-vs-Doi_Hai_Au").is_dir() or (
            out / "Doi_Hai_Au-vs-Rong_Bien"
        ).is_dir()
        # greedy_c was built outside the read-only installation, and it played.
        assert not (work / "judge" / "shipped" / "bots" / "greedy_c" / "greedy").exists()
        verdicts = [
            rec["verdicts"]
            for replay in out.glob("*/round-*/replay.jsonl")
            for rec in map(json.loads, replay.read_text(encoding="utf-8").splitlines()[1:])
        ]
        assert verdicts and all(v == "OK" for pair in verdicts for v in pair if v is not None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
