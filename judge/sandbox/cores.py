"""The cores bots run on: one budget per Sandbox, shared by every round in flight.

Why: the limit is wall-clock time, so a program that shares its core with
another busy program gets half the time it was promised.  Two rounds at once
with both seats running is four busy programs; on two cores each would get
half a core and CPU-bound bots would lose on time to the judge's own
parallelism.  So every run holds one core of the budget for its whole run and
is pinned to it (a cgroup cpuset of that one core where cgroups allow, which the
program cannot widen; else the CPU affinity the exec helper gives the program's
process before exec, which all it starts inherits).  A run that finds no free
core waits *before* its clock starts, in arrival order, never during its clock:
``--jobs`` then only bounds how many rounds are in flight, never how many
programs run.  As root the program also runs at :data:`BOT_NICE`, ahead of
ordinary work on its core (the judge's own threads included).

The budget by default is the cores this process may use: its CPU affinity
(which also reflects a cpuset), cut down to the whole cores of a CPU quota
(cgroup v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``) when one is set, so a
container given 1.5 CPUs runs one program at a time.  With three or more
usable cores one is kept for the judge itself (the referee, the ledger, the
views) and the judge's threads are pinned to it, so its work never lands on a
bot's core; with one or two cores nothing is kept back and the judge's own
work is measured instead, like any other CPU thief (see
:mod:`judge.sandbox.cpuwait`).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from judge.sandbox.leases import POLL_S, CoreLeases
from judge.sandbox.procfs import children, group_dirs, mounts, own_cgroups, read_text, threads

#: From this many usable cores on, one is kept for the judge's own threads.
JUDGE_CORE_FROM = 3
#: The programs' nice value (as root; a normal user cannot go below 0): ahead of
#: ordinary work at 0, the judge's own threads included, so whatever shares a bot's
#: core takes little of it; the exec helper stays ahead, at -15, to kill on time.
BOT_NICE = -10
#: The scheduler's weight of a task at BOT_NICE (the kernel's sched_prio_to_weight): what
#: the sandbox's CPU cgroup weighs per core, so the cgroup does not undo the nice value.
BOT_WEIGHT = 9548


class CoreSpecError(ValueError):
    """A ``cores`` setting that cannot be used on this machine (the message says why).

    A ValueError, not a judge.errors class: the sandbox imports nothing of the
    judge; the commands turn it into exit status 2."""


def _read(path: str) -> str | None:
    try:
        return read_text(path)
    except OSError:
        return None


def cpu_quota(mountinfo: str | None = None, cgroup: str | None = None) -> float | None:
    """The tightest CPU quota (in CPUs) over this process's cgroup and its ancestors.

    None when no quota is set (or none can be read).  v2: ``cpu.max`` is
    ``QUOTA PERIOD`` or ``max PERIOD``; v1: ``cpu.cfs_quota_us`` (-1: none) over
    ``cpu.cfs_period_us``.  ``mountinfo``, ``cgroup``: those files' text (tests).
    """
    try:
        own, found = own_cgroups(cgroup), mounts(mountinfo)
    except OSError:
        return None
    best: float | None = None
    for mount in found:
        if mount.fstype == "cgroup2":
            for d in group_dirs(mount, own.get("", "/")):
                text = _read(os.path.join(d, "cpu.max"))
                if not text:
                    continue
                words = text.split()
                if len(words) == 2 and words[0] != "max":
                    try:
                        q = int(words[0]) / int(words[1])
                    except (ValueError, ZeroDivisionError):
                        continue
                    best = q if best is None else min(best, q)
        elif mount.fstype == "cgroup" and "cpu" in mount.options:
            for d in group_dirs(mount, own.get("cpu", "/")):
                quota = _read(os.path.join(d, "cpu.cfs_quota_us"))
                period = _read(os.path.join(d, "cpu.cfs_period_us"))
                try:
                    qv, pv = int((quota or "").strip()), int((period or "").strip())
                except ValueError:
                    continue
                if qv > 0 and pv > 0:
                    best = qv / pv if best is None else min(best, qv / pv)
    return best


def usable_cores() -> tuple[tuple[int, ...], str]:
    """The cores this process may use and how that was found (for the report).

    While a sandbox keeps the judge's threads on its own core (:class:`JudgePin`),
    the affinity they had before counts: a second sandbox sees the same machine.
    """
    try:
        affinity = tuple(sorted(JudgePin.before_pinning() or os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
        affinity = tuple(range(n))
    how = f"CPU affinity {format_cores(affinity)}"
    quota = cpu_quota()
    if quota is not None and int(quota) < len(affinity):
        whole = max(1, int(quota))
        how += f", cut to {whole} by a cgroup CPU quota of {quota:g} CPUs"
        affinity = affinity[:whole]
    return affinity, how


def format_cores(cores: Sequence[int]) -> str:
    """``0-3,6`` style: how ``taskset -c`` and cpusets write core lists."""
    out: list[str] = []
    items = sorted(set(cores))
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ",".join(out) if out else "none"


def parse_core_list(text: str) -> tuple[int, ...]:
    """``"0,2-3"`` -> (0, 2, 3); CoreSpecError for anything else."""
    cores: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part and text.strip().endswith(","):
            continue
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise CoreSpecError(
                f"cores {text!r}: give a number of cores (e.g. 2) or a core list (e.g. 0,2-3)"
            ) from None
        if a < 0 or b < a:
            raise CoreSpecError(f"cores {text!r}: {part!r} is not a core range")
        cores.update(range(a, b + 1))
    return tuple(sorted(cores))


@dataclass(frozen=True)
class CorePlan:
    """Which cores run bots and which (if any) the judge keeps for itself."""

    bots: tuple[int, ...]
    judge: tuple[int, ...]
    how: str  #: where the numbers come from, in words


def plan_cores(spec: str | int | None, usable: Sequence[int], how: str) -> CorePlan:
    """Turn a ``cores`` setting into a plan.  ``spec``:

    * None or ``"auto"``: every usable core, but one kept for the judge from
      :data:`JUDGE_CORE_FROM` usable cores on;
    * a number N: the last N usable cores for bots, the others for the judge
      (core 0 is the one the kernel most often gives interrupts to);
    * a core list such as ``"0,2-3"``, as ``taskset -c`` writes it (one core
      alone is ``"3-3"`` or ``"3,"``, since ``"3"`` means three cores):
      exactly those (each must be usable), the other usable cores for the judge.
    """
    usable = tuple(sorted(set(usable)))
    if not usable:
        raise CoreSpecError("this process may use no core at all")
    if spec is None or spec == "auto":
        if len(usable) >= JUDGE_CORE_FROM:
            return CorePlan(usable[1:], usable[:1], f"{how}; core {usable[0]} kept for the judge")
        return CorePlan(usable, (), how)
    if isinstance(spec, bool):
        raise CoreSpecError(f"cores: {spec!r} is not a number of cores or a core list")
    text = str(spec).strip()
    if isinstance(spec, int) or text.isdigit():
        n = int(text)
        if not 1 <= n <= len(usable):
            raise CoreSpecError(
                f"cores {n}: give 1 to {len(usable)} (this process may use {format_cores(usable)})"
            )
        bots, judge = usable[len(usable) - n :], usable[: len(usable) - n]
        return CorePlan(bots, judge, f"{n} of {how} (set by the cores option)")
    wanted = parse_core_list(text)
    missing = [c for c in wanted if c not in usable]
    if missing:
        raise CoreSpecError(
            f"cores {text}: core(s) {format_cores(missing)} not usable by this process "
            f"(it may use {format_cores(usable)})"
        )
    judge = tuple(c for c in usable if c not in wanted)
    return CorePlan(wanted, judge, f"cores {format_cores(wanted)} (set by the cores option)")


class CoreBudget:
    """Hands out the bots' cores, one per run, first come first served.  Thread-safe.

    With ``leases`` (:mod:`.leases`), a core is also leased machine-wide for the
    run, so judges in other processes never put a program on it meanwhile; a core
    another process holds is passed over, and when every free core is held
    elsewhere the run waits (before its clock starts) until one is given back.
    """

    def __init__(self, plan: CorePlan, leases: CoreLeases | None = None) -> None:
        if not plan.bots:
            raise CoreSpecError("no core left for the bots")
        self.plan = plan
        self.leases = leases
        self._cond = threading.Condition()
        self._free: list[int] = list(plan.bots)
        self._queue: deque[object] = deque()
        self._in_use = 0
        #: most runs that ever held a core at once (tests check it never passes the budget)
        self.peak = 0
        self.runs = 0

    @property
    def cores(self) -> tuple[int, ...]:
        return self.plan.bots

    @property
    def size(self) -> int:
        """How many programs may run at once."""
        return len(self.plan.bots)

    def _take_free(self, who: str) -> int | None:
        """The lowest free core no other process holds, leased; None if there is none."""
        for core in sorted(self._free):
            if self.leases is None or self.leases.try_take(core, who):
                self._free.remove(core)
                self._in_use += 1
                self.runs += 1
                self.peak = max(self.peak, self._in_use)
                return core
        return None

    def acquire(self, who: str = "") -> int:
        """A free core (the lowest), waiting in arrival order until one is released.

        ``who`` names the run for the lease file (``judge sandbox-info``).  Across
        processes, the head of each one's queue takes turns (the leases' turnstile), so
        a judge with many rounds in flight cannot take back every core it gives up
        before a second judge on the machine has looked for one."""
        me = object()
        with self._cond:
            self._queue.append(me)
        try:
            while True:
                with self._cond:
                    # the head of this process's queue, with one of its cores not in use here
                    while not (self._queue[0] is me and self._free):
                        self._cond.wait()
                    if self.leases is None:
                        core = self._take_free(who)
                        assert core is not None
                        return core
                with self.leases.turn():
                    with self._cond:
                        while self._free:  # only grows while we are the head
                            core = self._take_free(who)
                            if core is not None:
                                return core
                            # held by other processes: look again soon (one of ours
                            # given back wakes us at once)
                            self._cond.wait(POLL_S)
        finally:
            with self._cond:
                self._queue.remove(me)
                self._cond.notify_all()

    def release(self, core: int) -> None:
        """Give the core back (and its lease): the longest waiting run takes it."""
        with self._cond:
            if self.leases is not None:
                self.leases.give_back(core)
            self._in_use -= 1
            self._free.append(core)
            self._cond.notify_all()

    @contextmanager
    def core(self, who: str = "") -> Iterator[int]:
        """Hold one core for the ``with`` block."""
        core = self.acquire(who)
        try:
            yield core
        finally:
            self.release(core)

    def describe(self) -> str:
        """For headers, after "programs: ": how many at once, on which cores."""
        n = self.size
        judge = (
            f"; the judge runs on core {format_cores(self.plan.judge)}"
            if self.plan.judge
            else "; the judge shares them (its use is measured as waiting, never the bot's)"
        )
        machine = ""
        if self.leases is not None:
            machine = (
                "; one budget with every judge on this machine"
                if self.leases.shared
                else "; shared with this user's judges only"
            )
        return (
            f"at most {n} at once, one per core, on core{'s' if n != 1 else ''} "
            f"{format_cores(self.plan.bots)}{judge}{machine}"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "programs_at_once": self.size,
            "bot_cores": list(self.plan.bots),
            "judge_cores": list(self.plan.judge),
            "source": self.plan.how,
            "leases": None
            if self.leases is None
            else {"folder": self.leases.folder, "machine_wide": self.leases.shared},
        }

    def close(self) -> None:
        """Close the lease files (every lease of this process is given back)."""
        if self.leases is not None:
            self.leases.close()


class JudgePin:
    """Pins every thread of this process to the judge's cores; ``restore()`` undoes it.

    Threads started later inherit the affinity of the thread that starts them,
    so pinning the threads alive now covers the judge's future threads too.

    CPU affinity belongs to the whole process, so the pins in force are known to
    the class (``_active``): the affinity before the first one is what the
    process may use, for any sandbox made meanwhile.
    """

    _active: list[JudgePin] = []
    _lock = threading.Lock()

    def __init__(self, cores: Sequence[int]) -> None:
        self.cores = set(cores)
        self._saved: dict[int, set[int]] = {}
        self._pid = os.getpid()
        if not self.cores:
            return
        for tid in _threads():
            try:
                self._saved[tid] = os.sched_getaffinity(tid)
                os.sched_setaffinity(tid, self.cores)
            except OSError:
                pass
        with JudgePin._lock:
            JudgePin._active.append(self)

    @classmethod
    def before_pinning(cls) -> set[int] | None:
        """The process's affinity before the earliest pin still in force (None: no pin)."""
        with cls._lock:
            for pin in cls._active:
                if pin._pid == os.getpid() and pin._saved:
                    return pin._saved.get(pin._pid, set().union(*pin._saved.values()))
        return None

    def restore(self) -> None:
        """Threads pinned by us get their old cores back; threads started since, the process's."""
        with JudgePin._lock:
            if self in JudgePin._active:
                JudgePin._active.remove(self)
        saved, self._saved = self._saved, {}
        if not saved:
            return
        default = saved.get(os.getpid(), set().union(*saved.values()))
        for tid in _threads():
            try:
                os.sched_setaffinity(tid, saved.get(tid, default))
            except OSError:  # the thread is gone
                pass


def pin_tree(root: int, cores: set[int], nice: int | None = None) -> None:
    """Pin every thread of ``root``'s descendants to ``cores`` (and give them ``nice``).

    ``root`` itself is the exec helper and stays where it is.  Best effort: a
    process that is gone, or not ours to move, is passed over.
    """
    stack = children(root)
    while stack:
        pid = stack.pop()
        for tid in threads(pid):
            try:
                os.sched_setaffinity(tid, cores)
                if nice is not None:
                    os.setpriority(os.PRIO_PROCESS, tid, nice)
            except OSError:
                pass
        stack.extend(children(pid))


def _threads() -> list[int]:
    return threads() or [threading.get_native_id()]
