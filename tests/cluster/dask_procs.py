"""A real Dask scheduler and workers on 127.0.0.1, as subprocesses (``dask scheduler``,
``dask worker``), on free ports, torn down at the end with nothing left behind.

A worker may run as another uid (65534, nobody): it then runs the system's
python with a copy of the judge and of every module the judge's worker side
imports (the test's own environment may live where that uid cannot read).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from distributed import Client

import judge

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"
START_TIMEOUT_S = 120.0
#: what a worker imports (the judge's worker side pulls in the sandbox and Dask)
WORKER_MODULES = "import dask, distributed, distributed.cli.dask_worker, judge.cluster.worker"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DaskProcs:
    """One scheduler and its workers; use as a context manager."""

    def __init__(self, tmp: Path):
        # pytest's own temporary folders are private to root: uid 65534 reads and writes here.
        self.tmp = Path(tempfile.mkdtemp(prefix="ocean-dask-", dir=tmp if _open(tmp) else None))
        os.chmod(self.tmp, 0o755)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workers: dict[str, subprocess.Popen[bytes]] = {}  # name -> process
        self.address = ""
        self.client: Client | None = None
        self._copy: Path | None = None

    def __enter__(self) -> DaskProcs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ starting
    def _spawn(self, argv: list[str], log: str, **kw: object) -> subprocess.Popen[bytes]:
        out = open(self.tmp / log, "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kw
        )  # type: ignore[call-overload]
        out.close()
        self.procs.append(proc)
        return proc

    def start_scheduler(self) -> str:
        """A scheduler (again, after the last one was killed: the old client is closed)."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=5)
        port = free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        argv = [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1"]
        self._spawn(argv + ["--port", str(port), "--no-dashboard"], "scheduler.log")
        self.client = Client(self.address, timeout=START_TIMEOUT_S, set_as_default=False)
        return self.address

    def start_worker(
        self, name: str, as_nobody: bool = False, judge_copy: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """A worker with one thread and no nanny (a killed worker stays dead); with
        ``judge_copy`` (a folder holding a ``judge`` package) it runs that judge instead."""
        assert self.client is not None
        local = self.tmp / f"worker-{name}"
        local.mkdir(mode=0o777)
        os.chmod(local, 0o777)
        args = ["worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard"]
        args += ["--host", "127.0.0.1", "--name", name, "--local-directory", str(local)]
        args += ["--death-timeout", "60"]
        if as_nobody:
            proc = self._spawn(
                [SYSTEM_PYTHON, "-m", "dask", *args],
                f"worker-{name}.log",
                user=NOBODY,
                group=NOBODY,
                extra_groups=[],
                cwd=str(local),
                env={
                    "PATH": "/usr/local/bin:/usr/bin:/bin",
                    "PYTHONPATH": str(self._installation()),
                    "HOME": "/nonexistent",
                    "TMPDIR": str(local),
                    "LANG": "C.UTF-8",
                },
            )
        elif judge_copy is not None:
            env = {**os.environ, "PYTHONPATH": str(judge_copy)}
            proc = self._spawn(  # not in the checkout: `python -m` puts the folder first
                [sys.executable, "-m", "dask", *args], f"worker-{name}.log", env=env, cwd=str(local)
            )
        else:
            proc = self._spawn([sys.executable, "-m", "dask", *args], f"worker-{name}.log")
        self.workers[name] = proc
        deadline = time.monotonic() + START_TIMEOUT_S
        while name not in self.names():
            if proc.poll() is not None or time.monotonic() > deadline:
                log = (self.tmp / f"worker-{name}.log").read_text(errors="replace")
                raise RuntimeError(f"worker {name} did not start:\n{log[-3000:]}")
            time.sleep(0.2)
        return proc

    def names(self) -> dict[str, str]:
        """Worker name -> address, as the scheduler knows them now (asked now: the client's
        own copy of the scheduler's information is brought up to date only every few
        seconds, so a worker that just joined may not be in it yet)."""
        assert self.client is not None

        def worker_names(dask_scheduler: Any) -> dict[str, str]:
            # defined here, so that it travels by value: the scheduler need not import tests
            return {str(ws.name): addr for addr, ws in dask_scheduler.workers.items()}

        found: dict[str, str] = self.client.run_on_scheduler(worker_names)
        return found

    def _installation(self) -> Path:
        """The judge and the modules a worker imports, copied where uid 65534 can read them."""
        if self._copy is not None:
            return self._copy
        dst = self.tmp / "installation"
        dst.mkdir()
        listing = subprocess.run(
            [
                sys.executable,
                "-c",
                f"{WORKER_MODULES}; import sys, importlib.metadata as md\n"
                "dists = md.packages_distributions()\n"
                "for m in list(sys.modules.values()):\n"
                "    f = getattr(m, '__file__', None)\n"
                "    if f and 'site-packages' in f:\n"
                "        top = m.__name__.split('.')[0]\n"
                "        print(top, f)\n"
                "        for d in dists.get(top, []):\n"
                "            info = md.distribution(d)._path\n"
                "            print(info.name, info / 'METADATA')\n",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        skip = shutil.ignore_patterns("__pycache__", "*.pyc")
        done: set[str] = set()
        for line in sorted(set(listing.splitlines())):
            top, path = line.split(" ", 1)
            if top in done:
                continue
            done.add(top)
            p = Path(path)
            parts = p.parts
            root = Path(*parts[: parts.index("site-packages") + 2])
            if root.is_dir():
                shutil.copytree(root, dst / root.name, ignore=skip)
            else:
                shutil.copy2(root, dst / root.name)
        judge_dir = Path(judge.__file__).resolve().parent
        shutil.copytree(judge_dir, dst / "judge", ignore=skip, dirs_exist_ok=True)
        for d, _dirs, files in os.walk(dst):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        self._copy = dst
        return dst

    # ------------------------------------------------------------- stopping
    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL a process and everything it started (its session)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=5)
            self.client = None
        # The workers first, while their scheduler is there: a worker told to stop at the
        # same time as its scheduler tries to reach it again for its --death-timeout (60 s).
        # One whose scheduler is already gone gets a few seconds, then SIGKILL.
        workers = [p for p in self.procs if p in self.workers.values()]
        others = [p for p in self.procs if p not in workers]
        for group in (workers, others):
            for proc in group:
                if proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            for proc in group:
                try:
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.kill(proc)
                # A killed worker cannot close its sandbox: remove what it left (root's seats).
                for left in glob.glob(f"/var/lib/ocean-judge/sandbox-{proc.pid}-*"):
                    shutil.rmtree(left, ignore_errors=True)
        self.procs.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _open(folder: Path) -> bool:
    """Whether every folder down to ``folder`` lets others pass (o+x)."""
    return all(os.stat(p).st_mode & 0o001 for p in [folder, *folder.parents])
