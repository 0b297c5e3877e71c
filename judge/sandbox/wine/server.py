"""A seat's wineserver as a process: started from a thread of its own, armed ahead, found ready.

The server runs under the exec helper like a program (the seat's uid, namespaces
and view, a cgroup of its own), for the seat's life or until the refresh after
the next run.  Why a thread owns it: the helper's parent-death signal fires when
the *thread* that started it ends, and the referee runs seats from short-lived
pool threads.  Why armed: the next server's helper joins its groups while the
seat's refresh goes on (a cgroup v1 join may wait for an RCU grace period), so
the refresh only gives it its go.
"""

from __future__ import annotations

import array
import glob
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from judge.sandbox.launcher import Spawn, helper_command
from judge.sandbox.supervise import KILL_GRACE_S
from judge.sandbox.types import SandboxError

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.helper import Helper

SERVER_START_S = 20.0
#: The seat's wineserver (not the program) is capped by a cgroup of its own.
SERVER_MEMORY = 256 * 2**20
SERVER_PROCS = 16


class ServerArming:
    """A seat's next wineserver armed on a thread of its own (``arm(log)``: the server
    started armed, writing to ``log``, or None), so that its groups and its helper's
    start are made while the seat's refresh goes on."""

    def __init__(self, log: str, arm: Callable[[str], Server | None]) -> None:
        self.log = log
        self._server: Server | None = None

        def run() -> None:
            self._server = arm(log)

        self._thread = threading.Thread(target=run, name="wineserver-arming")
        self._thread.start()

    def result(self) -> Server | None:
        """The armed server, once armed (None: it could not be)."""
        self._thread.join()
        return self._server

    def discard(self) -> None:
        server = self.result()
        if server is not None:
            server.stop()


class Server:
    """The exec helper running a seat's wineserver, owned by a thread of its own.

    Why a thread: the helper's parent-death signal fires when the *thread* that
    started it ends, and the referee runs seats from short-lived pool threads.
    """

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.cg: RunCgroup | None = None
        self.log = ""
        self._status_r = -1
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        #: an armed server's go pipe (-1: started, or not armed)
        self._go_w = -1
        #: set by the owner thread once it has reaped the helper
        self._ended = threading.Event()

    @classmethod
    def start(
        cls, helper: Helper, spawn: Spawn, cg: RunCgroup | None, log: str, armed: bool = False
    ) -> Server:
        """The helper started (the server with it, unless ``armed``: then the helper joins
        the groups and readies the server's process, which waits for :meth:`go`)."""
        s = cls()
        s.cg, s.log = cg, log
        s._thread = threading.Thread(
            target=s._own, args=(helper, spawn, armed), name="wineserver-owner", daemon=True
        )
        s._thread.start()
        s._started.wait()
        if s._error is not None:
            s.stop()
            raise SandboxError(f"cannot start wine's server for this seat: {s._error}")
        return s

    def _own(self, helper: Helper, spawn: Spawn, armed: bool) -> None:
        go_r = -1
        try:
            status_r, status_w = os.pipe2(os.O_CLOEXEC)
            self._status_r = status_r
            if armed:
                go_r, self._go_w = os.pipe2(os.O_CLOEXEC)
            log_fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
                self.proc = subprocess.Popen(
                    helper_command(helper, spawn, status_w, self.cg, go_r if armed else None),
                    stdin=subprocess.DEVNULL,
                    stdout=log_fd,
                    stderr=log_fd,
                    env=spawn.env,
                    pass_fds=(status_w, *spawn.ns_fds, *((go_r,) if armed else ())),
                    cwd="/",
                    close_fds=True,
                )
            finally:
                os.close(status_w)
                os.close(log_fd)
                if go_r >= 0:
                    os.close(go_r)
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._started.set()
            return
        self._started.set()
        try:
            self.proc.wait()
        finally:
            self._ended.set()

    def go(self, core: int | None) -> None:
        """An armed server's start, on ``core`` (None: not pinned).  OSError: its helper is
        gone (the caller stops it and starts another)."""
        fd, self._go_w = self._go_w, -1
        if fd < 0:
            raise OSError("this wineserver was not armed, or was started already")
        try:
            os.write(fd, f"{-1 if core is None else core}\n".encode())
        finally:
            os.close(fd)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self) -> str:
        try:
            with open(self.log, "rb") as f:
                data = f.read()[-400:]
        except OSError:
            return "(no log)"
        return data.decode("utf-8", "replace").strip() or "(nothing in its log)"

    def stop(self) -> None:
        """End the server and everything of the seat's uid (the helper kills them all)."""
        if self._go_w >= 0:  # armed, never started: it ends at EOF on its go pipe
            os.close(self._go_w)
            self._go_w = -1
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            # The owner thread reaps it and says so at once (a timed Popen.wait beside
            # that thread's own wait polls, 0.5, 1, 2, 4 ms apart).
            if not self._ended.wait(KILL_GRACE_S):
                proc.kill()
                self._ended.wait(KILL_GRACE_S)
        if self._thread is not None:
            self._thread.join(KILL_GRACE_S)
            self._thread = None
        if self._status_r >= 0:
            os.close(self._status_r)
            self._status_r = -1
        if self.cg is not None:
            self.cg.destroy()
            self.cg = None


def find_socket(
    prefix: str, run_dir: str, tmpdir: str, uid: int | None, view: bool
) -> tuple[str | None, str | None]:
    """The prefix's server socket once it exists, and the seat-private folder that holds
    it (None, None: not yet): Debian's wine keeps it under ``$TMPDIR/wine-XXXXXX/``
    (``run_dir``), upstream wine under ``/tmp/.wine-UID/`` (the seat's own /tmp,
    ``tmpdir``, with a ``view``)."""
    st = os.stat(prefix)
    server_dir = f"server-{st.st_dev:x}-{st.st_ino:x}"
    for found in glob.glob(os.path.join(glob.escape(run_dir), "*", server_dir, "socket")):
        return (found if os.path.exists(found) else None), run_dir
    uid = uid if uid is not None else os.getuid()
    if view:  # the seat's /tmp is its own: the whole .wine-UID folder is the seat's
        upstream = os.path.join(tmpdir, f".wine-{uid}")
        home = upstream
    else:  # the real /tmp, shared with the judge's user: only this prefix's folder
        upstream = os.path.join("/tmp", f".wine-{uid}")
        home = os.path.join(upstream, server_dir)
    socket_path = os.path.join(upstream, server_dir, "socket")
    if os.path.exists(socket_path):
        return socket_path, home
    return None, None


def wait_accepting(socket_path: str, deadline: float, log_tail: Callable[[], str]) -> None:
    """Wait until the new server takes programs: it listens before it has loaded the
    registry, and only then accepts a connection and sends its protocol version.
    Connecting once, as wine's loader does, keeps that start-up out of the next
    program's time.  SandboxError (ending with ``log_tail()``): it does not."""
    # A socket path may be longer than AF_UNIX allows: go through the folder's fd.
    folder = os.open(os.path.dirname(socket_path), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            path = f"/proc/self/fd/{folder}/{os.path.basename(socket_path)}"
            while True:  # the socket exists a moment before the server listens on it
                try:
                    sock.connect(path)
                    break
                except ConnectionRefusedError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.001)
            _, ancillary, _, _ = sock.recvmsg(4, socket.CMSG_SPACE(4))
    except OSError as exc:
        raise SandboxError(
            f"wine's server for this seat does not take programs: {exc}; {log_tail()}"
        ) from exc
    finally:
        os.close(folder)
    for level, kind, data in ancillary:  # the request pipe wine passes: not ours to keep
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            for fd in array.array("i", data[: len(data) - len(data) % 4]):
                os.close(fd)
