"""A seat's persistent exec helper (the "zygote"): one C helper for the seat's life.

Why: a one-shot run costs a ``Popen`` of the helper (the judge's Python: fork,
exec, pipes) and the exec and start-up of the static helper (CONTRIBUTING.md,
"The cost of a turn").  The zygote is the same C helper (``wrapper zygote``),
started once, at the seat's first judged run; for each run it makes a process
(``clone(CLONE_PARENT)``: the judge's child, not the zygote's) that becomes
exactly what ``wrapper run`` would be (fresh process, the run's fds, the run's
environment) and does today's work: joins the run's groups, forks the program,
its set-up, the clock read after it, the exec, the reaping and the record.  The
judge watches, signals and reaps that process as it does a one-shot helper.
Only the exec of the helper and the judge's ``Popen`` are gone.

Which path a run takes: the seat's judged runs go through its zygote when the
helper is the C one and this Python has ``pidfd_open`` (:func:`usable`), unless
its Sandbox starts every run one-shot (``Sandbox(launcher="oneshot")``, see
:mod:`.launcher`); everything else (the Python fallback helper, command checks,
wine's server and probes) starts a one-shot helper, as does a judged run whose
zygote cannot be started at all.

Failures: a zygote found dead before a request is sent is replaced and the
request sent again (nothing ran yet).  One that dies once a request is sent,
or does not answer, is dropped and the run ends in an internal error (IE), as
when a one-shot helper cannot be started; the seat's next run starts a new one.
A zygote that dies during a run changes nothing for it: the run's process is
the judge's child.  The zygote ends at EOF on its socket: when the seat closes
it, or when the judge dies and the kernel closes it.

Threads: ``PR_SET_PDEATHSIG`` fires when the *thread* that made a process ends.
The runs' processes are children of the zygote's parent thread, and their
death signal (as a one-shot helper's) must only come with the judge's end, so
every zygote is started by one thread that lives as long as the judge
(:class:`_Starter`).
"""

from __future__ import annotations

import os
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from judge.sandbox.helper import Helper, HelperKind, HelperProcess
from judge.sandbox.procfs import schedstat

#: what os.fsencode encodes with (the same bytes, chosen once)
_FS_ENCODING = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
#: the zygote's fds in the run's process: 0 /dev/null, 1 stdout, 2 stderr, 3 status,
#: 4... the seat's namespaces
STATUS_FD = 3
FIRST_NS_FD = 4
#: how long the zygote may take to answer a request
ANSWER_S = 10.0
#: how long a zygote may take to exit once its socket is closed
CLOSE_S = 2.0
_lock = threading.Lock()
_live: weakref.WeakSet[Zygote] = weakref.WeakSet()


def cpu_seconds() -> float:
    """CPU the live zygotes of this process have used so far: ``getrusage`` of this
    process counts a zygote only once it is closed and reaped (the runs' processes are
    the judge's children: counted as a one-shot helper is).  A benchmark adds it."""
    with _lock:
        zygotes = list(_live)
    total = 0.0
    for z in zygotes:
        pid = z.pid
        if pid is None:
            continue
        counters = schedstat(pid)
        if counters:
            total += counters[0] / 1e9
    return total


class ZygoteUnavailable(Exception):
    """The zygote could not be started or reached; nothing of the run was started."""


class ZygoteFailed(Exception):
    """The zygote failed after the request was sent: the run is an internal error."""


_pidfds: bool | None = None


def usable(helper: Helper) -> bool:
    """Whether runs can go through a zygote: the C helper and pidfds (Linux 5.3)."""
    global _pidfds
    if _pidfds is None:
        try:
            os.close(os.pidfd_open(os.getpid()))
            _pidfds = True
        except (OSError, AttributeError):
            _pidfds = False
    return helper.kind is HelperKind.C and _pidfds


def _ready(fd: int, timeout: float | None) -> bool:
    """Whether ``fd`` is readable (or hung up) within ``timeout`` seconds."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(None if timeout is None else max(0, int(timeout * 1000))))


class _Starter:
    """The one thread that starts every zygote of this process, and lives as long as it
    (a daemon thread, idle between starts): see the module's "Threads"."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]]
        self._queue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` run on the starter thread; its result, or what it raised."""
        with self._lock:
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._queue = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._queue,), name="zygote-starter", daemon=True
                )
                self._thread.start()
                self._pid = os.getpid()
            q = self._queue
        box: list[Any] = []
        done = threading.Event()
        q.put((fn, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    @staticmethod
    def _serve(
        q: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]],
    ) -> None:
        while True:
            fn, box, done = q.get()
            try:
                box.append(fn())
            except BaseException as exc:  # handed to the caller
                box.append(exc)
            done.set()


_starter = _Starter()


class ZygoteRun(HelperProcess):
    """One run's process, made by the zygote as the judge's own child: watched through
    a pidfd, signalled and reaped here, as a one-shot helper is."""

    def __init__(self, pid: int, out_r: int, err_r: int) -> None:
        self.pid = pid
        self.pidfd: int | None = os.pidfd_open(pid)  # our child, not reaped: no reuse race
        self.stdout_fd = out_r
        self.stderr_fd = err_r
        self._reaped = False

    @property
    def done(self) -> bool:
        return self._reaped

    def wait(self, timeout: float | None) -> bool:
        """Wait until the process is gone (True) or ``timeout`` passed (False)."""
        if self.done:
            return True
        if self.pidfd is None or not _ready(self.pidfd, timeout):
            return False
        self.reap()
        return True

    def reap(self) -> tuple[int | None, Any]:
        _, status, rusage = os.wait4(self.pid, 0)
        self._reaped = True
        return status, rusage

    def close(self) -> None:
        for fd in (self.pidfd, self.stdout_fd, self.stderr_fd):
            if fd is not None and fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.pidfd = None
        self.stdout_fd = self.stderr_fd = -1


class Zygote:
    """A seat's persistent exec helper.  Not thread-safe: one run at a time (the seat's)."""

    def __init__(self, helper: Helper, protect: bool = False) -> None:
        if helper.kind is not HelperKind.C:
            raise ValueError("only the C exec helper can be a zygote")
        self._helper = helper
        #: root: the zygote is kept from the OOM killer and runs at a high priority, as
        #: a one-shot helper does for its run (each run's process starts without them)
        self._protect = protect
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        #: zygotes started so far (the first, and each replacement)
        self.starts = 0
        #: why this seat's runs no longer try a zygote (it could not make a run's process)
        self.refused: str | None = None
        #: the seat's next run, armed ahead of its turn (its request sent, not answered)
        self._armed: Armed | None = None
        #: the last armed run's key and request bytes (the next is most often the same)
        self._armed_payload: tuple[object, bytes] | None = None
        #: armed runs used, and called off, so far
        self.armed_used = 0
        self.armed_called_off = 0
        with _lock:
            _live.add(self)

    @property
    def pid(self) -> int | None:
        """The running zygote's pid (None: none started, or it was dropped)."""
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [*self._helper.argv, "zygote", *(["-o"] if self._protect else [])]
        try:
            self._proc = _starter.call(
                lambda: subprocess.Popen(
                    argv,
                    stdin=child.fileno(),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    cwd="/",
                    env={},
                    close_fds=True,
                )
            )
        except OSError as exc:
            parent.close()
            raise ZygoteUnavailable(f"cannot start the exec helper's zygote: {exc}") from exc
        finally:
            child.close()
        self._sock = parent
        self.starts += 1

    def spawn(
        self, words: list[str], env: dict[str, str], fds: list[int], out_r: int, err_r: int
    ) -> ZygoteRun:
        """Ask for one run: ``words`` are a "run" command line's after "run" (with ``-s 3``
        and ``-n 4 ...``), ``fds`` the status pipe, stdout, stderr and namespace fds."""
        self.call_off()
        self._request(words, env, fds)
        return self._answer(out_r, err_r)

    def arm(
        self,
        key: object,
        words: Callable[[], list[str]],
        env: dict[str, str],
        fds: list[int],
        pipes: tuple[int, int, int, int],
    ) -> None:
        """Ask for the seat's next run ahead of its turn, without waiting for the answer:
        ``words()`` carry ``-W FD`` (the last of ``fds``, the read end of the go pipe) and
        no core.  ``pipes``: the judge's ends, status, stdout, stderr and go, handed over to
        the armed run (closed here if the request cannot be sent).  ``key``: what the
        next run must match to use it (:meth:`take_armed`); ``words`` is called only when
        the key is not the last armed run's, whose request's bytes are sent again (a seat
        arms the same run every turn)."""
        self.call_off()
        try:
            cached = self._armed_payload
            if cached is not None and cached[0] == key:
                payload = cached[1]
            else:
                payload = self._payload(words(), env)
                self._armed_payload = (key, payload)
            self._send(payload, fds)
        except BaseException:
            for fd in pipes:
                os.close(fd)
            raise
        self._armed = Armed(self, key, *pipes)

    def take_armed(self, key: object) -> Armed | None:
        """The armed run, if it was armed for ``key``; any other is called off."""
        armed, self._armed = self._armed, None
        if armed is not None and armed.key != key:
            armed.call_off()
            return None
        return armed

    def call_off(self) -> None:
        """Call the armed run off, if there is one (its processes end; nothing ran)."""
        armed, self._armed = self._armed, None
        if armed is not None:
            armed.call_off()

    def _request(self, words: list[str], env: dict[str, str], fds: list[int]) -> None:
        self._send(self._payload(words, env), fds)

    @staticmethod
    def _payload(words: list[str], env: dict[str, str]) -> bytes:
        """A request's bytes: the count of words, the words, the environment, each
        ended by a NUL (encoded as os.fsencode does)."""
        enc, errors = _FS_ENCODING
        payload = b"\0".join(
            [str(len(words)).encode()]
            + [w.encode(enc, errors) for w in words]
            + [f"{k}={v}".encode(enc, errors) for k, v in env.items()]
        )
        return payload + b"\0"

    def _send(self, payload: bytes, fds: list[int]) -> None:
        if self.refused is not None:
            raise ZygoteUnavailable(self.refused)
        for attempt in (0, 1):
            # Not polled for its exit each request: a zygote that is gone has closed its
            # end (its runs close theirs at once), so the send fails (EPIPE) and the
            # zygote is started again for the second attempt.
            if self._proc is None or self._sock is None:
                self.drop()
                self._start()
            assert self._sock is not None
            try:
                socket.send_fds(self._sock, [payload], fds)
                break
            except OSError as exc:
                # Dead before it read the request (EPIPE, ECONNRESET): nothing ran.
                self.drop()
                if attempt:
                    raise ZygoteUnavailable(
                        f"the exec helper's zygote is unreachable: {exc}"
                    ) from exc

    def _answer(self, out_r: int, err_r: int) -> ZygoteRun:
        """The zygote's answer to the request sent last: the run's process, watched."""
        msg = self._receive(ANSWER_S)
        word, _, rest = (msg or "").partition(" ")
        if word == "start":
            pid = int(rest)
            try:
                return ZygoteRun(pid, out_r, err_r)
            except OSError as exc:  # no pidfd (out of fds): the run cannot be watched
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise ZygoteFailed(f"cannot watch the run's helper process: {exc}") from exc
        if word == "error":
            # Nothing was started (clone refused: say an old kernel, or a pid namespace's
            # init as the judge): this run and the seat's next ones start one-shot helpers.
            self.refused = f"the seat's exec helper (zygote) cannot start runs: {rest}"
            self.drop()
            raise ZygoteUnavailable(self.refused)
        self.drop()
        raise ZygoteFailed(
            "the seat's exec helper (zygote) ended or did not answer a run's request"
        )

    def _receive(self, timeout: float) -> str | None:
        sock = self._sock
        if sock is None:
            return None
        try:
            if not _ready(sock.fileno(), timeout):
                return None
            data = sock.recv(4096)
        except OSError:
            return None
        return data.decode("ascii", "replace") if data else None

    def drop(self) -> None:
        """End the zygote (its socket closed: it exits at EOF; killed if it does not)."""
        self.call_off()
        sock, self._sock = self._sock, None
        proc, self._proc = self._proc, None
        if sock is not None:
            sock.close()
        if proc is not None:
            try:
                proc.wait(CLOSE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    close = drop


class Armed:
    """The seat's next run, made ahead of its turn (:meth:`Zygote.arm`).

    Its helper process has joined the run's groups and forked; the child has done
    all of its set-up (groups, session, namespaces, folder, limits) but the core, and
    waits for the go: so a turn's run starts with one write instead of a process
    made, five cgroup joins and a fork (CONTRIBUTING.md, "The cost of a turn").
    Nothing of the program has run, nor has the clock started: the child's ready
    message, after the go, starts it, as in any run.  Called off (the next run is
    not the one it was armed for, the seat closes, the zygote is replaced), it ends
    without a trace: its child exits at EOF on the go pipe and the helper with it."""

    def __init__(
        self, zygote: Zygote, key: object, status_r: int, out_r: int, err_r: int, go_w: int
    ) -> None:
        self.key = key
        self._zygote = zygote
        self.status_r, self._out_r, self._err_r, self._go_w = status_r, out_r, err_r, go_w
        #: started or called off: its fds are no longer this object's
        self.done = False

    def go(self, core: int | None) -> ZygoteRun:
        """Start the run on ``core``; its process, watched.  ZygoteUnavailable: it could
        not be started (called off: nothing ran), ZygoteFailed: the zygote failed."""
        if self.done:
            raise ZygoteUnavailable("the armed run was started or called off already")
        self.done = True
        try:
            run = self._zygote._answer(self._out_r, self._err_r)
        except BaseException:
            self._close(self.status_r, self._out_r, self._err_r, self._go_w)
            self._zygote.armed_called_off += 1
            raise
        try:
            os.write(self._go_w, b"%d\n" % (-1 if core is None else core))
        except OSError as exc:  # the armed child is gone (EPIPE): nothing ran
            self._end(run)
            self._close(self.status_r)
            self._zygote.armed_called_off += 1
            raise ZygoteUnavailable(f"the armed run ended before its go: {exc}") from exc
        finally:
            self._close(self._go_w)
        self._zygote.armed_used += 1
        return run

    def call_off(self) -> None:
        """End it without running anything (the child exits at EOF on the go pipe)."""
        if self.done:
            return
        self.done = True
        self._close(self._go_w)
        self._zygote.armed_called_off += 1
        try:
            run = self._zygote._answer(self._out_r, self._err_r)
        except (ZygoteUnavailable, ZygoteFailed):
            run = None
        if run is not None:
            self._end(run)
        else:
            self._close(self._out_r, self._err_r)
        self._close(self.status_r)

    @staticmethod
    def _end(run: ZygoteRun) -> None:
        """Wait for the called-off run's helper to exit (killed if it does not), reap it."""
        if not run.wait(CLOSE_S):
            run.signal(signal.SIGKILL)
            run.wait(None)
        run.close()

    @staticmethod
    def _close(*fds: int) -> None:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
