"""Fallback exec helper, used only when no C compiler exists.

It speaks the same command line and status record as ``wrapper.c`` (modes
``run``, ``killuid``, ``version``), so the judge treats both alike.  It runs as
its own single-threaded process (``python -I -S pyhelper.py``), so forking here
is safe, unlike a ``preexec_fn`` in the threaded judge.  It cannot build a
seat's filesystem view once (no holder mode); with ``-U`` it gives each run a
fresh network/IPC namespace instead, which costs about a millisecond more.

Standard library only: it must not import the judge (``-S`` drops site-packages).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time

PROTOCOL = "ocean-judge-sandbox-helper 1"
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
RLIMITS = {
    "fsize": resource.RLIMIT_FSIZE,
    "nproc": resource.RLIMIT_NPROC,
    "core": resource.RLIMIT_CORE,
    "rtprio": resource.RLIMIT_RTPRIO,
    "nofile": resource.RLIMIT_NOFILE,
    "stack": resource.RLIMIT_STACK,
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "data": resource.RLIMIT_DATA,
    "memlock": resource.RLIMIT_MEMLOCK,
}
WAIT_SIGNALS = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


class Opts:
    """Parsed command line of ``run``."""

    def __init__(self) -> None:
        self.status_fd = -1
        self.cgroups: list[str] = []
        self.child_cgroups: list[str] = []
        self.orig_nice = 0
        self.nsfds: list[int] = []
        self.dir: str | None = None
        self.uid = -1
        self.gid = -1
        self.rlimits: list[tuple[int, int]] = []
        self.nproc_extra = -1
        self.oom = False
        self.check = False
        self.unshare = False
        self.tree_only = False
        self.argcheck: list[int] = []
        self.cpu = -1
        self.prog_nice: int | None = None
        self.argv: list[str] = []


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _prctl(libc: ctypes.CDLL, option: int, arg: int) -> None:
    if libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _try_write(path: str, text: str) -> None:
    """Best effort (oom_score_adj below 0 needs CAP_SYS_RESOURCE)."""
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        pass


def _clean(text: str) -> str:
    return "".join(c if c.isprintable() and c != "|" else " " for c in text)


def _parse(argv: list[str]) -> Opts:
    o = Opts()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            o.argv = argv[i + 1 :]
            break
        if a in ("-o", "-C", "-U", "-t"):
            o.oom = o.oom or a == "-o"
            o.check = o.check or a == "-C"
            o.unshare = o.unshare or a == "-U"
            o.tree_only = o.tree_only or a == "-t"
            i += 1
            continue
        v = argv[i + 1]
        if a == "-s":
            o.status_fd = int(v)
        elif a == "-c":
            o.cgroups.append(v)
        elif a == "-j":
            o.child_cgroups.append(v)
        elif a == "-n":
            o.nsfds.append(int(v))
        elif a == "-d":
            o.dir = v
        elif a == "-u":
            o.uid = int(v)
        elif a == "-g":
            o.gid = int(v)
        elif a == "-N":
            o.nproc_extra = int(v)
        elif a == "-A":
            o.argcheck.append(int(v))
        elif a == "-a":
            o.cpu = int(v)
        elif a == "-P":
            o.prog_nice = int(v)
        elif a == "-r":
            name, _, value = v.partition("=")
            o.rlimits.append(
                (RLIMITS[name], resource.RLIM_INFINITY if value == "inf" else int(value))
            )
        else:
            raise SystemExit(f"pyhelper: unknown option {a}")
        i += 2
    if not o.argv or o.status_fd < 0 or o.uid == 0 or o.gid == 0:
        raise SystemExit("pyhelper: bad arguments")
    return o


def _resolve(cmd: str) -> str | None:
    if "/" in cmd:
        return cmd if os.path.exists(cmd) else None
    for d in os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(":"):
        p = os.path.join(d or ".", cmd)
        if os.access(p, os.X_OK):
            return p
    return None


def _diagnose(cmd: str) -> tuple[int, str] | None:
    """Why argv[0] cannot run for this uid (None: it looks runnable)."""
    uid = os.getuid()
    path = _resolve(cmd)
    if path is None:
        where = "" if "/" in cmd else f" in PATH={os.environ.get('PATH', '')}"
        return (
            2,
            f"{cmd}: not found{where} (or a folder on its path is not reachable for uid {uid})",
        )
    if os.path.isdir(path):
        return 21, f"{path}: is a folder, not a program"
    if not os.access(path, os.X_OK):
        return (
            13,
            f"{path}: uid {uid} cannot execute it (no execute permission, or a folder on its path is not reachable)",
        )
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except PermissionError:
        return None
    except OSError as exc:
        return exc.errno or 5, f"{path}: cannot be opened: {exc.strerror}"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
        if words:
            interp = words[0]
            if not os.access(interp, os.X_OK):
                return 13, (
                    f"{path}: the interpreter {interp} named on its first line cannot be run "
                    f"by uid {uid} inside the seat"
                )
            if (
                os.path.basename(interp) == "env"
                and len(words) > 1
                and not words[1].startswith("-")
            ):
                if _resolve(words[1]) is None:
                    return 2, (
                        f"{path}: its first line runs '{words[1]}' through env, but it is not found "
                        f"in PATH={os.environ.get('PATH', '')} for uid {uid}"
                    )
    return None


def _child(o: Opts, errw: int, readyw: int, libc: ctypes.CDLL) -> None:
    def fail(stage: str, err: int, msg: str) -> None:
        os.write(errw, f"{stage}|{err}|{_clean(msg)}".encode()[:1500])
        os._exit(127)

    try:
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        if o.oom:
            _try_write("/proc/self/oom_score_adj", "0")
            try:
                os.setpriority(os.PRIO_PROCESS, 0, o.orig_nice)
            except OSError:
                pass
        if o.prog_nice is not None:  # ahead of ordinary work (only root may go below 0)
            try:
                os.setpriority(os.PRIO_PROCESS, 0, o.prog_nice)
            except OSError:
                pass
        for procs in o.child_cgroups:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
        if o.cpu >= 0:  # the program and all it starts inherit its core
            os.sched_setaffinity(0, {o.cpu})
        os.setsid()
        if o.prog_nice is not None:  # the new session's autogroup too (see wrapper.c)
            _try_write("/proc/self/autogroup", str(o.prog_nice))
        for fd in o.nsfds:
            if libc.setns(fd, 0) != 0:
                err = ctypes.get_errno()
                fail("setns", err, f"setns(fd {fd}): {os.strerror(err)}")
        if o.unshare:
            if libc.unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) != 0:
                err = ctypes.get_errno()
                fail("unshare", err, f"unshare(net, ipc, uts): {os.strerror(err)}")
        if o.dir:
            os.chdir(o.dir)
        for res, val in o.rlimits:
            resource.setrlimit(res, (val, val))
        # Ready: the slow set-up is over (cgroup joins above all); the program's clock
        # starts now, read here since the helper may be scheduled later (see wrapper.c).
        os.write(readyw, time.monotonic_ns().to_bytes(8, "little"))
        os.close(readyw)
        if o.gid >= 0:
            os.setgroups([])
            os.setresgid(o.gid, o.gid, o.gid)
        if o.uid >= 0:
            os.setresuid(o.uid, o.uid, o.uid)
        _prctl(libc, PR_SET_NO_NEW_PRIVS, 1)
        _prctl(libc, PR_SET_PDEATHSIG, signal.SIGKILL)
        os.closerange(3, errw)
        os.closerange(errw + 1, 65536)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
    except OSError as exc:
        fail("setup", exc.errno or 0, f"{exc}")
    if o.check:
        bad = _diagnose(o.argv[0])
        if bad:
            fail("check", bad[0], bad[1])
        for idx in o.argcheck:
            arg = o.argv[idx]
            if not os.access(arg, os.R_OK):
                fail(
                    "check",
                    13,
                    f"argument {idx} ({arg}) exists for the judge but uid {os.getuid()} "
                    "cannot read it inside the seat",
                )
        os._exit(0)
    try:
        os.execv(_resolve(o.argv[0]) or o.argv[0], o.argv)
    except OSError as exc:
        if exc.errno == 8:  # ENOEXEC
            fail(
                "exec",
                8,
                f"{o.argv[0]}: not a program this machine can run (wrong format, or a "
                "script without a #! line)",
            )
        bad = _diagnose(o.argv[0])
        if bad:
            fail("exec", bad[0], bad[1])
        fail("exec", exc.errno or 0, f"{o.argv[0]}: {exc.strerror}")


def _children() -> list[int]:
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        out = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                            out.append(int(name))
                except (OSError, IndexError, ValueError):
                    pass
        return out


def _kill_uid(uid: int, gid: int) -> bool:
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            if os.geteuid() != 0:
                os.kill(-1, signal.SIGKILL)
                os._exit(0)
        except OSError:
            pass
        os._exit(1)
    _, st = os.waitpid(pid, 0)
    return os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0


def _count_tasks(uid: int) -> int:
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid == uid:
                total += len(os.listdir(f"/proc/{name}/task"))
        except OSError:
            pass
    return total


def run(o: Opts) -> int:
    """The ``run`` mode: see wrapper.c for the design."""
    libc = _libc()
    rec: dict[str, str] = {"protocol": PROTOCOL}
    signal.pthread_sigmask(signal.SIG_BLOCK, WAIT_SIGNALS)
    judge = os.getppid()
    os.setsid()
    _prctl(libc, PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != judge:
        os.kill(os.getpid(), signal.SIGTERM)
    start = time.monotonic_ns()
    child = -1
    main_status = -1
    main_end = 0
    main_first = 0
    killed = 0
    method = "none"
    errline = b""
    try:
        if o.oom:
            _try_write("/proc/self/oom_score_adj", "-1000")
            try:
                o.orig_nice = os.getpriority(os.PRIO_PROCESS, 0)
                os.setpriority(os.PRIO_PROCESS, 0, -15)
            except OSError:
                pass
        for procs in o.cgroups:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
        if o.nproc_extra >= 0:
            o.rlimits.append((resource.RLIMIT_NPROC, _count_tasks(os.getuid()) + o.nproc_extra))
        _prctl(libc, PR_SET_CHILD_SUBREAPER, 1)
        errr, errw = os.pipe2(os.O_CLOEXEC)
        readyr, readyw = os.pipe2(os.O_CLOEXEC)
        start = time.monotonic_ns()
        child = os.fork()
        if child == 0:
            os.close(errr)
            os.close(readyr)
            _child(o, errw, readyw, libc)
            os._exit(127)
        os.close(errw)
        os.close(readyw)
        # The clock starts when the child's set-up is over (or it failed: EOF).
        ready = b""
        while len(ready) < 8:
            chunk = os.read(readyr, 8 - len(ready))
            if not chunk:
                break
            ready += chunk
        os.close(readyr)
        ready_ns = int.from_bytes(ready, "little") if len(ready) == 8 else 0
        start = ready_ns if ready_ns >= start else time.monotonic_ns()
        # First status line: when the program's clock started (see wrapper.c).
        os.write(o.status_fd, f"start_ns={start}\n".encode())
        while True:
            chunk = os.read(errr, 2048)
            if not chunk:
                break
            errline += chunk
        os.close(errr)
    except OSError as exc:
        rec.update(
            setup_stage="setup", setup_errno=str(exc.errno or 0), setup_error=_clean(str(exc))
        )
    else:
        term = False
        while True:
            try:
                while True:
                    pid, st = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    if pid == child:
                        main_status, main_end = st, time.monotonic_ns()
                        main_first = 0 if term else 1
            except ChildProcessError:
                break
            if term:
                if not killed:
                    method = (
                        "uid"
                        if o.uid >= 0
                        and not o.tree_only
                        and _kill_uid(o.uid, o.gid if o.gid >= 0 else o.uid)
                        else "children"
                    )
                killed = 1
                for pid in _children():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            info = signal.sigtimedwait(WAIT_SIGNALS, 0.01 if term else 3600.0)
            if info is not None and info.si_signo != signal.SIGCHLD:
                term = True
    if errline:
        parts = errline.decode(errors="replace").split("|", 2)
        if len(parts) == 3:
            rec.update(child_stage=parts[0], child_errno=parts[1], child_error=parts[2])
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec.update(
        main_pid=str(child),
        main_status=str(main_status),
        start_ns=str(start),
        main_end_ns=str(main_end),
        end_ns=str(time.monotonic_ns()),
        main_before_kill=str(main_first),
        utime_us=str(int(ru.ru_utime * 1e6)),
        stime_us=str(int(ru.ru_stime * 1e6)),
        maxrss_kb=str(ru.ru_maxrss),
        killed=str(killed),
        kill_method=method,
        end="1",
    )
    text = "".join(f"{k}={v}\n" for k, v in rec.items())
    os.write(o.status_fd, text.encode())
    return 3 if "setup_stage" in rec else 0


def main(argv: list[str]) -> int:
    """Entry point: ``pyhelper.py MODE ...``."""
    if len(argv) < 2:
        return 2
    if argv[1] == "version":
        print(PROTOCOL)
        return 0
    if argv[1] == "killuid":
        uid, gid = int(argv[2]), int(argv[3])
        if uid <= 0 or gid <= 0:
            return 2
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.geteuid() == 0:
            return 1
        os.kill(-1, signal.SIGKILL)
        return 0
    if argv[1] == "run":
        return run(_parse(argv[2:]))
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
