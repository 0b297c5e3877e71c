"""Helpers shared by the sandbox tests (a uniquely named module: tests import it by name)."""

from __future__ import annotations

import hashlib
import os
import select
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
needs_root = pytest.mark.root("uid separation and namespaces need root")


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


def may_raise_priority() -> bool:
    """Whether this process holds CAP_SYS_NICE (root usually does; not in every container)."""
    try:
        with open("/proc/self/status") as f:
            caps = next(line.split()[1] for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration, IndexError):
        return False
    return bool(int(caps, 16) >> 23 & 1)


def start_hog(core: int, seconds: float | None = None) -> subprocess.Popen[bytes]:
    """A busy program outside the judge on one core (for ``seconds``, or until killed).

    It must take about two thirds of the core whatever priority the judge gives
    its bots: as a real-time task busy 6 ms in every 9 ms where it may (root
    with CAP_SYS_NICE), else as 40 busy processes, each in a session (and so a
    scheduler autogroup) of its own, that end with it.  Returned once the hog is in
    place (a Python start-up takes 0.2 s on a busy machine: a run started 50 ms after
    the hog could end before it took the core)."""
    until = "True" if seconds is None else f"time.monotonic() - t < {seconds}"
    code = (
        "import os, time\n"
        f"os.sched_setaffinity(0, {{{core}}})\n"
        "t = time.monotonic()\n"
        "try:\n"
        "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        "    os.write(1, b'r')\n"
        "except OSError:\n"
        "    me = os.getpid()\n"
        "    for _ in range(40):\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        f"            while {until} and os.getppid() == me:\n"
        "                pass\n"
        "            os._exit(0)\n"
        "    os.write(1, b'r')\n"
        f"    while {until}:\n"
        "        time.sleep(0.05)\n"
        "    raise SystemExit\n"
        f"while {until}:\n"
        "    busy = time.monotonic() + 0.006\n"
        "    while time.monotonic() < busy:\n"
        "        pass\n"
        "    time.sleep(0.003)\n"
    )
    hog = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert hog.stdout is not None
    ready, _, _ = select.select([hog.stdout], [], [], 30.0)
    said = hog.stdout.read(1) if ready else b""
    hog.stdout.close()
    if said != b"r":
        hog.kill()
        hog.wait()
        raise RuntimeError("the outside hog did not start")
    return hog


class ScriptedMeter:
    """A wait meter (judge.sandbox.cpuwait.WaitMeter) with given figures."""

    source = "scripted"
    after_exit = True

    def __init__(self, wait: float | None, cpu: float | None) -> None:
        self.wait, self.cpu_s = wait, cpu

    def read(self, elapsed_s: float) -> float | None:
        return self.wait
