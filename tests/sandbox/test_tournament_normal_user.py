"""``judge tournament`` run by a normal user.

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
import tempfile
from pathlib import Path

import pytest
import yaml
from sandbox_support import needs_root

import judge
from tests.nobody import SYSTEM_PYTHON, leftovers, run_as_nobody

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(judge.__file__).resolve().parents[1]
DEPENDENCIES = ("psutil", "yaml", "_yaml", "rich", "pygments", "markdown_it", "mdurl", "openskill")
NAMES = ["Rồng Biển", "Đội Hải Âu", "Cá-Mập"]
#: The judge's command line, run by the system python as nobody.
CLI = "import sys\nfrom judge.cli import main\nsys.exit(main(sys.argv[1:]))\n"


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


def _judge_as_nobody(work: Path, *args: str) -> tuple[int, str, str]:
    """``judge ARGS`` as nobody, in a fresh folder of its own (work/tmp, its only writable one)."""
    shutil.rmtree(work / "tmp", ignore_errors=True)
    proc = run_as_nobody(work, CLI, *args, timeout=600)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


@needs_root
def test_a_normal_users_tournament_is_refused_unless_unsandboxed() -> None:
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is missing")
    work = Path(tempfile.mkdtemp(prefix="oj-normal-tournament-"))
    try:
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
        for dirpath, _dirnames, filenames in os.walk(work):  # readable, not writable, by nobody
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o644)
        cfg = str(contest / "judge.yaml")

        code, _out, err = _judge_as_nobody(work, "tournament", cfg, "--out", "final")
        assert code == 2, err[-3000:]
        said = " ".join(err.split())
        assert "sandbox protections are OFF" in said and "separate uid per seat" in said
        assert "add --unsandboxed" in said and "Traceback" not in said
        assert not (work / "tmp" / "final").exists()

        code, out_text, err = _judge_as_nobody(
            work, "tournament", cfg, "--out", "final", "--unsandboxed"
        )
        assert code == 0, (out_text[-3000:], err[-3000:])
        assert "UNSANDBOXED (--unsandboxed)" in out_text
        for name in NAMES:
            assert name in out_text  # the standings, names as written
        out = work / "tmp" / "final"
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
        assert leftovers(work) == []
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
