"""The sandbox's one reader of ``/proc``: mounts, cgroup membership, processes, threads, locks.

Why one: the kernel writes these files with rules of its own (mountinfo escapes a
space, tab, newline or backslash in a path as ``\\ooo``; a stat file's command name,
in parentheses, may hold spaces and parentheses), and each copy of a parser drifts
from them in its own way.  Every module of the sandbox that looks at mounts, at its
own cgroups, at a process or at the file locks (cores, cgroups, memfs, wine,
starvation, the wait meters, the watch's memory poll, the zygotes' CPU, the core
leases) reads them here.  The exec helper's Python fallback (``pyhelper.py``) reads
/proc itself: it runs as a program of its own, without the judge's modules.

Everything is read afresh at each call, nothing is cached: a process or a mount
may come and go between two calls (a starvation canary keeps its own schedstat
open, and reads it again with ``pread``: :func:`task_schedstat_fd`).
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass

PAGE = os.sysconf("SC_PAGE_SIZE")


def read_text(path: str) -> str:
    """A small kernel file's text, opened for this one reading (OSError: unreadable)."""
    with open(path, encoding="ascii", errors="replace") as f:
        return f.read()


# ------------------------------------------------------------------ mounts


@dataclass(frozen=True)
class Mount:
    """One line of ``/proc/self/mountinfo``, its paths unescaped."""

    mountpoint: str
    fstype: str
    source: str
    #: the path of the file system's own tree shown at the mount point (a cgroup
    #: hierarchy's group, a bind mount's folder)
    root: str
    #: the mount's options and the file system's (a v1 cgroup's controllers are there)
    options: frozenset[str]


def unescape(field: str) -> str:
    """A mountinfo field as the path it is: ``\\ooo`` (octal) back to its character."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts(mountinfo: str | None = None) -> list[Mount]:
    """Every mount of this process's mount namespace, in the kernel's order (``mountinfo``:
    that file's text instead, for tests).  OSError: the file cannot be read."""
    if mountinfo is None:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            mountinfo = f.read()
    found: list[Mount] = []
    for line in mountinfo.splitlines():
        head, sep, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if not sep or len(fields) < 5 or len(rest) < 2:
            continue
        options = set(rest[2].split(",")) if len(rest) > 2 else set()
        if len(fields) > 5:
            options.update(fields[5].split(","))
        found.append(
            Mount(
                unescape(fields[4]),
                rest[0],
                unescape(rest[1]),
                unescape(fields[3]),
                frozenset(options),
            )
        )
    return found


def own_cgroups(text: str | None = None) -> dict[str, str]:
    """Controller (``memory``, ``pids``, ...; ``""`` for cgroup v2) -> this process's group
    in its hierarchy, from ``/proc/self/cgroup`` (``text``: that file's text instead).
    OSError: unreadable."""
    text = text if text is not None else read_text("/proc/self/cgroup")
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for ctrl in parts[1].split(",") if parts[1] else [""]:
            out[ctrl] = parts[2]
    return out


def _below_root(mount: Mount, group: str) -> str:
    """``group`` as a path below the mount's root (the part of the hierarchy it shows)."""
    root = mount.root
    if root != "/" and (group == root or group.startswith(root + "/")):
        group = group[len(root) :] or "/"
    return group


def host_path(mount: Mount, group: str) -> str:
    """The folder of ``group`` (a path in the mount's hierarchy) under ``mount``."""
    return os.path.join(mount.mountpoint, _below_root(mount, group).lstrip("/"))


def group_dirs(mount: Mount, group: str) -> list[str]:
    """The folders of ``group`` and of each of its ancestors under ``mount``, itself first."""
    parts = [p for p in _below_root(mount, group).split("/") if p]
    return [os.path.join(mount.mountpoint, *parts[:i]) for i in range(len(parts), -1, -1)]


# ------------------------------------------------------------------ processes


def proc_stat(path: str) -> list[bytes]:
    """The fields of a /proc stat file after the command's name, its state first (the
    name, in parentheses, may hold spaces and parentheses).  OSError: no such task;
    IndexError: not a stat file."""
    with open(path, "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot; None: no such process)."""
    try:
        return int(proc_stat(f"/proc/{pid}/stat")[19])
    except (OSError, ValueError, IndexError):
        return None


def thread_state(tid: int) -> str:
    """A thread of this process's scheduler state (R: running or runnable; "" unknown)."""
    try:
        fields = proc_stat(f"/proc/self/task/{tid}/stat")
    except (OSError, IndexError):
        return ""
    return fields[0].decode("ascii", "replace") if fields else ""


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (another user's counts too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def status(pid: int | str = "self") -> dict[bytes, bytes]:
    """``/proc/PID/status`` as field -> value (OSError: no such process)."""
    with open(f"/proc/{pid}/status", "rb") as f:
        lines = f.read().splitlines()
    return {k: v.strip() for k, _, v in (ln.partition(b":") for ln in lines) if _ == b":"}


def running(pid: int) -> bool:
    """A process that exists, is not a zombie and has no SIGKILL waiting for it (one just
    sent is as good as done, though the process may not have run since)."""
    try:
        fields = status(pid)
        state = fields[b"State"].split()[0]
        pending = int(fields[b"SigPnd"], 16) | int(fields[b"ShdPnd"], 16)
    except (OSError, KeyError, ValueError, IndexError):
        return False
    return state not in (b"Z", b"X") and not pending & (1 << (signal.SIGKILL - 1))


def threads(pid: int | str = "self") -> list[int]:
    """The thread ids of a process (none: it is gone)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


def per_task(pid: int, name: str) -> dict[int, bytes]:
    """{tid: contents of /proc/PID/task/TID/<name>} for every thread still there."""
    out: dict[int, bytes] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/{name}", "rb") as f:
                out[int(tid)] = f.read()
        except (OSError, ValueError):
            pass
    return out


def children(pid: int) -> list[int]:
    """The child processes of every thread of ``pid`` (a subreaper's whole next level)."""
    out: list[int] = []
    for text in per_task(pid, "children").values():
        try:
            out.extend(int(x) for x in text.split())
        except ValueError:
            pass
    return out


def descendants(roots: tuple[int, ...], itself: bool = True) -> list[int]:
    """``roots`` (unless not ``itself``) and every process below them."""
    out: list[int] = []
    stack = list(roots) if itself else [c for r in roots for c in children(r)]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children(pid))
    return out


def rss_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid`` (``/proc/PID/statm``; None: it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return None


def has_children_files(pid: int) -> bool:
    """Whether this kernel lists a thread's children (``/proc/PID/task/TID/children``)."""
    return os.path.exists(f"/proc/{pid}/task/{pid}/children")


def cmdline(pid: int, limit: int = 400) -> list[bytes] | None:
    """The first ``limit`` bytes of a process's command line, as its words (None: gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read(limit).split(b"\0")
    except OSError:
        return None


# ------------------------------------------------------------------ scheduler counters


def schedstat_fields(text: bytes) -> tuple[int, ...]:
    """A schedstat file's counters: ns on a CPU, ns runnable but kept off one, times on a
    CPU (ValueError: not a schedstat file)."""
    return tuple(int(w) for w in text.split())


def schedstat(pid: int) -> tuple[int, ...] | None:
    """Process ``pid``'s schedstat counters, its threads' together (None: unreadable)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return schedstat_fields(f.read())
    except (OSError, ValueError):
        return None


def has_schedstat() -> bool:
    """Whether this kernel keeps schedstat counters per thread."""
    return os.path.exists(f"/proc/self/task/{threading.get_native_id()}/schedstat")


def task_schedstat_fd(tid: int) -> int:
    """An fd on the schedstat file of this process's thread ``tid``, to read with
    :func:`pread_schedstat` as often as needed (OSError: no such thread)."""
    return os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)


def pread_schedstat(fd: int) -> tuple[int, ...]:
    """The counters of the schedstat file open on ``fd`` now (OSError, ValueError)."""
    return schedstat_fields(os.pread(fd, 128, 0))


# ------------------------------------------------------------------ file locks


def flock_holders() -> dict[tuple[int, int, int], int]:
    """(major, minor, inode) -> pid of each FLOCK in /proc/locks (none: unreadable)."""
    out: dict[tuple[int, int, int], int] = {}
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return out
    for line in lines:
        words = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("->" marks a waiter)
        if len(words) < 6 or words[1] != "FLOCK" or words[2] == "->":
            continue
        try:
            major, minor, ino = words[5].split(":")
            out[(int(major, 16), int(minor, 16), int(ino))] = int(words[4])
        except ValueError:
            continue
    return out
