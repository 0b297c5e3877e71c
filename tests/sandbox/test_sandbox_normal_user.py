"""The sandbox run by a normal user: no uid separation, no namespaces, no cgroups.

From the root test, the judge package (and psutil) is copied into a folder that
uid 65534 (nobody) can read, and the system's /usr/bin/python3 runs a small
script as that user: an OK, a TLE and an MLE program must get their verdicts,
and the isolation report must say that uid separation is off.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import psutil
import pytest
from sandbox_support import FIXTURES, needs_root

import judge
from judge.sandbox.leases import MACHINE_FOLDER, CoreLeases
from judge.sandbox.memfs import shm_folder
from judge.sandbox.probe import P_MACHINE, P_NETWORK, P_SIGNAL, P_SPACE, P_UID
from tests.nobody import SYSTEM_PYTHON, leftovers, run_as_nobody

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

SCRIPT = r"""
import json, sys
from pathlib import Path
from judge.sandbox import Limits, Sandbox

fixtures = Path(sys.argv[1])
out = {}
with Sandbox() as sb:
    out["isolation"] = sb.isolation.as_dict()
    out["root"] = str(sb.root)
    for name, prog, time_s in (("ok", "ok.py", 10.0), ("tle", "loop.py", 0.5), ("mle", "memhog.py", 10.0),
                               ("daemon", "daemon.py", 0.5)):
        with sb.seat(name, fixtures) as seat:
            argv = [str(seat.program_dir / prog)] + (["60"] if name == "daemon" else [])
            r = seat.run_turn(argv, {"MAP.INP": b"m"}, ["MOVE.OUT"], Limits(time_s=time_s))
            out[name] = {"verdict": r.result.verdict.value, "message": r.result.message,
                         "peak": r.result.peak_memory_bytes, "move": (r.outputs["MOVE.OUT"] or b"").decode(),
                         "work": str(seat.workdir)}
    # a program of the judge's own uid shuts the folders above its own: read and removed all the same
    with sb.seat("shut", None) as seat:
        r = seat.run_turn(["/bin/sh", "-c", "echo 2 2 > MOVE.OUT; chmod 000 .. ../.. 2>/dev/null; exit 0"], {}, ["MOVE.OUT"], Limits())
        out["shut"] = {"verdict": r.result.verdict.value, "message": r.result.message,
                       "move": (r.outputs["MOVE.OUT"] or b"").decode(), "work": str(seat.workdir)}
# Without root's lease folder, the user's own: the budget is shared with this user only.
import judge.sandbox.leases as leases
leases.MACHINE_FOLDER = "/nonexistent/ocean-judge/cores"
with Sandbox() as sb:
    out["own_budget"] = sb.isolation.as_dict()["one core budget per machine"]
print(json.dumps(out))
"""


def _copy_package(dst: Path) -> None:
    src = Path(judge.__file__).resolve().parent
    (dst / "judge").mkdir()
    shutil.copy2(src / "__init__.py", dst / "judge" / "__init__.py")
    shutil.copytree(
        src / "sandbox", dst / "judge" / "sandbox", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(
        Path(psutil.__file__).resolve().parent,
        dst / "psutil",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(FIXTURES, dst / "fixtures")


@needs_root
def test_normal_user_runs_with_what_is_available() -> None:
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is missing")
    work = Path(tempfile.mkdtemp(prefix="oj-normal-user-"))
    CoreLeases((0,)).close()  # root's machine-wide lease folder exists
    try:
        _copy_package(work)
        proc = run_as_nobody(work, SCRIPT, str(work / "fixtures"))
        assert proc.returncode == 0, proc.stderr.decode()[-3000:]
        out = json.loads(proc.stdout)
        iso = out["isolation"]
        # a normal user's judge joins root's core leases (read-only files suffice for flock)
        assert iso[P_MACHINE]["on"] is True and MACHINE_FOLDER in iso[P_MACHINE]["detail"]
        assert out["own_budget"]["on"] is False
        assert "only with this user's judges" in out["own_budget"]["detail"]
        assert iso[P_UID]["on"] is False and "not root" in iso[P_UID]["detail"]
        assert iso[P_SIGNAL]["on"] is False and iso[P_NETWORK]["on"] is False
        assert out["ok"]["verdict"] == "OK" and out["ok"]["move"] == "1 1\n", out["ok"]
        assert out["tle"]["verdict"] == "TLE", out["tle"]
        assert "still running" not in out["tle"]["message"], "the main process was the one killed"
        assert out["mle"]["verdict"] == "MLE", out["mle"]
        assert out["daemon"]["verdict"] == "TLE" and "still running" in out["daemon"]["message"]
        left = leftovers(work)
        assert left == [], f"processes left behind: {left}"
        assert not os.path.exists(out["root"]), "the sandbox root was not removed"
        # the seats' folders in memory (a folder of their own in /dev/shm) when the judge
        # found room there, else on disk; gone with them either way
        assert iso[P_SPACE]["on"] is False
        in_shm = "work folder is in /dev/shm, memory every user shares" in iso[P_SPACE]["detail"]
        assert in_shm == (shm_folder()[0] == "/dev/shm")  # here: /dev/shm has room
        assert out["shut"]["verdict"] == "OK" and out["shut"]["move"] == "2 2\n", out["shut"]
        for name in ("ok", "tle", "mle", "daemon", "shut"):
            work_dir = Path(out[name]["work"])
            if in_shm:
                assert work_dir.parent.parent == Path("/dev/shm"), out[name]
                assert work_dir.parent.name.startswith("ocean-judge-seat-")
            assert not work_dir.parent.exists(), f"{work_dir.parent} was not removed"
    finally:
        shutil.rmtree(work, ignore_errors=True)
