"""How long a run was kept waiting for a CPU: the judge's fault, never the program's.

Linux counts, for every task, the time it was runnable but not running (it
wanted the CPU and something else had it).  A run that went over the time
limit because of that waiting was slowed by the machine (another program, the
judge itself), so the supervisor gives it that time back, and a run that only
finished in the extra time is the judge's failure (IE, run again), never TLE.
Sleeping, waiting for a file and the program's own threads competing for its
one core are not counted: those are the program's doing.

Two sources, best first:

* **PSI of the run's cgroup** (cgroup v2 ``cpu.pressure``; on a cgroup-v1
  machine a per-run group in the unified hierarchy, kept for this alone).
  Its ``full`` line is the time *none* of the run's tasks could run although
  some wanted to: exactly the waiting others caused, for the whole process
  tree, exited processes included.  Kernels before 5.13 only have ``some``
  (self-contention included), so it is capped by wall minus the group's CPU.
* **/proc/PID/task/TID/schedstat** of every task of the tree, read at the
  deadline (when a time-out is decided, the tree is still alive).  The sum of
  the tasks' waits is capped by wall minus the whole tree's CPU time (live
  processes, plus what the exec helper and every process in the tree have
  reaped, from /proc/PID/stat), which takes out a program's own processes and
  threads competing for its core, even a fork storm's.  Waits of tasks that
  exited before the deadline are not counted (they can only make the judge
  blame itself less).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from judge.sandbox.procfs import children as children  # the wait meters' callers walk trees too
from judge.sandbox.procfs import descendants, per_task, proc_stat, read_text, schedstat_fields

#: How a counter file is read: its path -> its text (OSError: unreadable).  A seat's
#: reused groups read theirs through :class:`~judge.sandbox.cgroups.CounterFiles`.
TextReader = Callable[[str], str]


NS = 1e-9
US = 1e-6
TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


class WaitMeter(Protocol):
    """Waiting so far; ``read`` returns None when nothing could be measured."""

    #: plain-words source, for messages and the report
    source: str
    #: whether ``read`` still works after the tree exited (a cgroup's counters do)
    after_exit: bool

    @property
    def cpu_s(self) -> float | None:
        """The run's CPU time at the last ``read`` (None: not known)."""

    def read(self, elapsed_s: float) -> float | None: ...


def _keyed_totals(text: str) -> dict[str, int]:
    """``some avg10=.. total=N`` lines -> {"some": N, "full": N} (microseconds)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        for w in words[1:]:
            if w.startswith("total="):
                try:
                    out[words[0]] = int(w[6:])
                except ValueError:
                    pass
    return out


def psi_usable(group_dir: str) -> bool:
    """Whether the group's ``cpu.pressure`` can be read (PSI compiled in and switched on)."""
    try:
        with open(os.path.join(group_dir, "cpu.pressure"), encoding="ascii") as f:
            return "some" in _keyed_totals(f.read())
    except OSError:
        return False


def _group_cpu_us(group_dir: str, read: TextReader = read_text) -> int | None:
    try:
        for line in read(os.path.join(group_dir, "cpu.stat")).splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value)
    except (OSError, ValueError):
        pass
    return None


def read_psi_totals(group_dir: str, read: TextReader = read_text) -> dict[str, int]:
    """A group's CPU pressure totals, CPU time and I/O stall so far, in µs (``some``,
    ``full``, ``usage_usec``, ``io_some``): the base a reused group's next run counts
    from (OSError: unreadable)."""
    totals = _keyed_totals(read(os.path.join(group_dir, "cpu.pressure")))
    cpu = _group_cpu_us(group_dir, read)
    if cpu is not None:
        totals["usage_usec"] = cpu
    io = io_stall_us(group_dir, read)
    if io is not None:
        totals["io_some"] = io
    return totals


def io_stall_us(group_dir: str, read: TextReader = read_text) -> int | None:
    """How long, in µs, some task of the group was stalled on I/O so far (its
    ``io.pressure`` "some" total; None: not readable).  Not waiting for a CPU, and
    not given back: said in a time-out's message, so that a program kept off its
    time by the machine's disk is told apart from one that slept."""
    try:
        return _keyed_totals(read(os.path.join(group_dir, "io.pressure"))).get("some")
    except OSError:
        return None


class PsiMeter:
    """Waiting of everything in one cgroup since the run started: its PSI counters less
    ``base``, their totals when it did (a fresh group's start at zero; a seat's reused
    group's where its last run left them, :meth:`~judge.sandbox.cgroups.RunCgroup.restart`)."""

    after_exit = True

    def __init__(
        self, group_dir: str, base: dict[str, int] | None = None, read: TextReader = read_text
    ) -> None:
        self.dir = group_dir
        self.base = dict(base or {})
        self._read = read
        self.source = "cgroup CPU pressure (PSI) of the run's group"
        #: the group's CPU time at the last read (None: not known)
        self.cpu_s: float | None = None

    def read(self, elapsed_s: float) -> float | None:
        try:
            totals = _keyed_totals(self._read(os.path.join(self.dir, "cpu.pressure")))
        except OSError:
            return None
        cpu_us = _group_cpu_us(self.dir, self._read)
        self.cpu_s = None if cpu_us is None else (cpu_us - self.base.get("usage_usec", 0)) * US
        if "full" in totals:
            return (totals["full"] - self.base.get("full", 0)) * US
        if "some" not in totals:
            return None
        cpu = self.cpu_s
        some = (totals["some"] - self.base.get("some", 0)) * US
        return some if cpu is None else max(0.0, min(some, elapsed_s - cpu))


def task_times(pid: int) -> dict[int, tuple[int, int]]:
    """{tid: (ns on a CPU, ns runnable but waiting)} of every thread of ``pid``."""
    out: dict[int, tuple[int, int]] = {}
    for tid, text in per_task(pid, "schedstat").items():
        try:
            fields = schedstat_fields(text)
            out[tid] = (fields[0], fields[1])
        except (ValueError, IndexError):
            pass
    return out


def stat_cpu_s(pid: int, children_only: bool = False) -> float:
    """CPU seconds of a process (all its threads) plus what it reaped, from /proc/PID/stat."""
    try:
        fields = proc_stat(f"/proc/{pid}/stat")
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    except (OSError, ValueError, IndexError):
        return 0.0
    return ((0 if children_only else utime + stime) + cutime + cstime) * TICK_S


class TreeMeter:
    """Waiting of the live descendants of ``root`` (the exec helper, itself left out)."""

    after_exit = False
    source = "per-task schedstat of the run's processes"

    def __init__(self, root: int) -> None:
        self.root = root
        #: last value seen per task, so a task that exits between two reads still counts
        self.seen: dict[int, tuple[int, int]] = {}
        #: the tree's CPU time at the last read (None: not read yet)
        self.cpu_s: float | None = None

    def read(self, elapsed_s: float) -> float | None:
        found = False
        tree_cpu = stat_cpu_s(self.root, children_only=True)  # reaped by the helper
        for pid in descendants((self.root,), itself=False):
            times = task_times(pid)
            found = found or bool(times)
            self.seen.update(times)
            tree_cpu += stat_cpu_s(pid)
        if not found and not self.seen:
            return None
        cpu = max(tree_cpu, sum(c for c, _ in self.seen.values()) * NS)
        self.cpu_s = cpu
        wait = sum(w for _, w in self.seen.values()) * NS
        return max(0.0, min(wait, elapsed_s - cpu))


def tree_times(roots: tuple[int, ...]) -> tuple[int, int]:
    """(ns on a CPU, ns runnable but waiting) summed over every thread of ``roots`` and
    their descendants."""
    cpu = wait = 0
    for pid in descendants(roots):
        for c, w in task_times(pid).values():
            cpu += c
            wait += w
    return cpu, wait


class ServiceMeter:
    """A run's own waiting plus the waiting of a service that works for it.

    A Windows program asks its seat's wineserver for much of what it does and
    sleeps until the server answers; when the server is kept off the CPU, the
    program looks asleep and its own counters see nothing.  The
    server serves this seat only, so its waiting during the run is the run's.

    Best, the server is in the run's pressure group for the run (``counted``):
    PSI's ``full`` then counts exactly the time neither could run for want of
    a CPU.  Otherwise its waiting is read from its threads' schedstat (the
    difference from the run's start) and added, capped by the time neither the
    program nor the server was on a CPU (they share the run's core); the
    server's waiting while the program itself held the core is then counted
    too, an overestimate in the program's favour, bounded by that cap.
    Either way the server's CPU for the run is read, for the time-out message.
    """

    def __init__(
        self,
        inner: WaitMeter,
        services: tuple[int, ...],
        base: tuple[int, int],
        counted: bool = False,
    ) -> None:
        self.inner = inner
        self.services = services
        #: the services are in the inner meter's group for the run: it counts them already
        self.counted = counted
        self.source = (
            f"{inner.source}, the seat's wineserver in it for the run"
            if counted
            else f"{inner.source}, plus the schedstat of the seat's wineserver"
        )
        self.after_exit = inner.after_exit
        #: the services' (CPU, waiting) in ns when the run started (:func:`tree_times`)
        self._base = base
        #: CPU the service spent for the run so far (seconds), and its waiting
        self.service_cpu_s = 0.0
        self.service_wait_s = 0.0

    @property
    def cpu_s(self) -> float | None:
        return self.inner.cpu_s

    def read_service(self) -> None:
        """Bring the service's figures up to now (the service outlives the run)."""
        cpu_ns, wait_ns = tree_times(self.services)
        self.service_cpu_s = max(0, cpu_ns - self._base[0]) * NS
        self.service_wait_s = max(0, wait_ns - self._base[1]) * NS

    def read(self, elapsed_s: float) -> float | None:
        own = self.inner.read(elapsed_s)
        self.read_service()
        if self.counted:
            return own
        if own is None and not self.service_wait_s:
            return None
        idle = elapsed_s - (self.inner.cpu_s or 0.0) - self.service_cpu_s
        return max(0.0, min((own or 0.0) + self.service_wait_s, idle))


def wait_grace_s(time_s: float) -> float:
    """Waiting up to this much is scheduling noise nobody is blamed for (40 ms at 2 s)."""
    return 0.02 + 0.01 * time_s


#: A run kept waiting is given its waiting back, but never beyond this many times its limit
#: (plus :data:`EXTENSION_EXTRA_S`): a machine that busy cannot time a run fairly at all.
EXTENSION_FACTOR = 5.0
EXTENSION_EXTRA_S = 2.0
