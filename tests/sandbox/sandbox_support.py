"""Helpers shared by the sandbox tests (a uniquely named module: tests import it by name)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The keep file as the referee asks for it (the sandbox itself has none by default).
KEEP_STATE = {"keep": "STATE.OUT", "keep_bytes": 2**20}
IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="uid separation and namespaces need root")


def find_cc() -> str | None:
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def procs_of_uid(uid: int | None) -> list[int]:
    """Pids of processes (zombies included) whose real uid is ``uid``."""
    if uid is None:
        return []
    out = []
    for p in psutil.process_iter(["uids", "status"]):
        try:
            if p.info["uids"] and p.info["uids"].real == uid:
                out.append(p.pid)
        except (psutil.Error, TypeError):
            pass
    return out


def wait_gone(uid: int | None, timeout: float = 0.0) -> list[int]:
    """Processes of ``uid`` still alive after ``timeout`` seconds (normally: none at once)."""
    deadline = time.monotonic() + timeout
    while True:
        left = procs_of_uid(uid)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.01)


def tree_digest(path: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every entry under ``path`` (links not followed): mode, uid, size and content hash."""
    out: dict[str, tuple[int, int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            digest = ""
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            out[os.path.relpath(p, path)] = (st.st_mode, st.st_uid, st.st_size, digest)
    return out


def start_hog(core: int, seconds: float | None = None) -> subprocess.Popen[bytes]:
    """A busy program outside the judge on one core (for ``seconds``, or until killed).

    As root it is a real-time task busy 6 ms in every 9 ms: whatever priority the
    judge gives its bots, they get a third of the core, as next to anything the judge
    does not control.  As a normal user it is a plain busy loop (bots run at the
    judge's own priority then)."""
    until = "True" if seconds is None else f"time.monotonic() - t < {seconds}"
    code = (
        "import os, time\n"
        f"os.sched_setaffinity(0, {{{core}}})\n"
        "try:\n"
        "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        "    rt = True\n"
        "except OSError:\n"
        "    rt = False\n"
        "t = time.monotonic()\n"
        f"while {until}:\n"
        "    busy = time.monotonic() + 0.006\n"
        "    while time.monotonic() < busy:\n"
        "        pass\n"
        "    if rt:\n"
        "        time.sleep(0.003)\n"
    )
    return subprocess.Popen([sys.executable, "-c", code])
