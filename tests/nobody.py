"""Running a test script as the unprivileged user ``nobody`` (the sandbox as a normal user).

The caller fills ``work`` (a folder of its own under /tmp, which other users can
reach) with what the script imports; :func:`run_as_nobody` makes it readable,
gives the script a private temporary folder and runs it with the system Python.
:func:`leftovers` lists processes of ``nobody`` still running from ``work``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psutil

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"


def run_as_nobody(
    work: Path, script: str, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """Run ``script`` (Python source) as nobody with ``work`` on its import path."""
    (work / "run.py").write_text(script)
    tmp = work / "tmp"
    tmp.mkdir()
    os.chown(tmp, NOBODY, NOBODY)
    os.chmod(work, 0o755)
    for dirpath, dirnames, _filenames in os.walk(work):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
    return subprocess.run(
        [SYSTEM_PYTHON, str(work / "run.py"), *args],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd=str(tmp),
        capture_output=True,
        timeout=timeout,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": str(work),
            "HOME": "/nonexistent",
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
        },
    )


def leftovers(work: Path) -> list[int]:
    """Pids of nobody's processes whose command line names ``work``."""
    return [
        p.pid
        for p in psutil.process_iter(["uids", "cmdline"])
        if p.info["uids"]
        and p.info["uids"].real == NOBODY
        and any(str(work) in a for a in (p.info["cmdline"] or []))
    ]
