"""What runs is the bot's source: bytecode caches in its folder are not copied into a seat.

A ``.pyc`` compiled "unchecked" is run without a look at the source beside it, and a
``.pyc`` with no source is imported as it is, so a folder could carry code its source
does not show; and a program's fingerprint and a cluster's bundle leave caches out, so
such a bot would play one way here and another on a worker.  The seat's copy leaves out
what the fingerprint leaves out (judge.sandbox.folders.is_cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from judge.programs import files_of
from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.seat import SEAT_PATH

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

MAIN = """import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mod
try:
    import hidden
    extra = str(hidden.VALUE)
except ImportError:
    extra = "none"
with open("MOVE.OUT", "w") as f:
    f.write(f"{mod.VALUE} {extra}")
"""


def _pyc(python3: str, source: str, out: Path, tmp: Path) -> None:
    """``source`` compiled by ``python3`` as an unchecked-hash .pyc at ``out``."""
    src = tmp / "src.py"
    src.write_text(source)
    code = (
        "import py_compile, sys\n"
        "py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True,\n"
        "    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n"
    )
    subprocess.run([python3, "-c", code, str(src), str(out)], check=True)


def test_cached_bytecode_in_a_bots_folder_is_not_what_runs(tmp_path: Path) -> None:
    python3 = shutil.which("python3", path=SEAT_PATH)
    if python3 is None:
        pytest.skip(f"no python3 on the seat's PATH ({SEAT_PATH})")
    tag = subprocess.run(
        [python3, "-c", "import sys; print(sys.implementation.cache_tag)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    bot = tmp_path / "bot"
    (bot / "__pycache__").mkdir(parents=True)
    (bot / "main.py").write_text(MAIN)
    (bot / "mod.py").write_text("VALUE = 1\n")
    # Other code in the caches: mod's cache says 2, and a module with no source says 3.
    _pyc(python3, "VALUE = 2\n", bot / "__pycache__" / f"mod.{tag}.pyc", tmp_path)
    _pyc(python3, "VALUE = 3\n", bot / "hidden.pyc", tmp_path)
    (bot / ".DS_Store").write_bytes(b"\0")
    # As the bot's folder is, Python runs the cached code (what the judge ran before).
    shutil.copytree(bot, tmp_path / "as-is")
    direct = subprocess.run(
        [python3, str(tmp_path / "as-is" / "main.py")], cwd=tmp_path, check=True
    )
    assert direct.returncode == 0 and (tmp_path / "MOVE.OUT").read_text() == "2 3"

    with Sandbox(tmp_path / "seats") as sb, sb.seat("a", bot) as seat:
        assert seat.program_dir is not None
        copied = sorted(
            os.path.relpath(os.path.join(top, name), seat.program_dir)
            for top, dirs, files in os.walk(seat.program_dir)
            for name in dirs + files
        )
        run = seat.run_turn(
            ["python3", str(seat.program_dir / "main.py")],
            {"MAP.INP": b"x"},
            ["MOVE.OUT"],
            Limits(time_s=10),
        )
    assert copied == ["main.py", "mod.py"]
    assert copied == [p.relative_to(bot).as_posix() for p in files_of(bot)]  # its fingerprint
    assert run.result.verdict is Verdict.OK, run.result.message
    assert run.outputs["MOVE.OUT"] == b"1 none"
