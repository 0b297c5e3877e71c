"""Control groups: one per run, to cap and measure memory and processes of a whole tree.

Why cgroups: ``ru_maxrss`` from ``wait4`` is per process and inherits the
judge's own size at fork; a cgroup counts every process the program started,
the kernel enforces the limit the instant it is crossed, and its peak counter
misses nothing between two polls.

Two layouts are supported:

* **v1** (this machine and CI): the ``memory`` and ``pids`` controllers are
  separate hierarchies.  Our groups nest under the judge's own group in each,
  so whatever already accounts for the judge also accounts for its bots.
* **v2** (most current machines): one hierarchy.  Controllers can only be
  handed to children of a group without processes, so our groups go under the
  nearest ancestor that already delegates ``memory`` and ``pids`` (as root:
  usually the root group).

A seat's runs reuse one set of groups (:mod:`.seatgroups`): making and
removing five groups a run cost more than the rest of the sandbox's own work.
Between two runs the groups are empty (the exec helper exits only when every
process of the run has; one that did not is killed and its groups removed), so a
run counts from where the last one left the counters (:meth:`RunCgroup.restart`):
the memory peak is reset and the charge left over (the keep file's page cache)
taken off it, the OOM kills, refused forks and CPU pressure so far are its base.
Only the limits and the core that changed are written again
(:meth:`CgroupBackend.reuse`).  Where the peak cannot be reset (cgroup v2's
``memory.peak`` before Linux 6.12) each run gets a fresh group, as before.
Without a usable cgroup the supervisor falls back to polling the tree.
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from judge.sandbox.cores import BOT_WEIGHT
from judge.sandbox.cpuwait import psi_usable, read_psi_totals
from judge.sandbox.procfs import Mount, host_path, mounts, pid_alive
from judge.sandbox.procfs import own_cgroups as read_own_cgroups
from judge.sandbox.procfs import read_text as _read
from judge.sandbox.types import SandboxError

PREFIX = "ocean-judge-"
#: v1 groups the program joins but its exec helper does not
PROGRAM_ONLY = ("cpu", "cpuset")


class CgroupError(SandboxError):
    """A cgroup operation failed; the message names the file."""


def _write(path: str, text: str) -> None:
    # One write(2) of the whole text, as a control file wants it (no Python file
    # object, whose buffering and flush cost more than the write: a seat writes one or
    # two of these a run).
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, text.encode("ascii"))
        finally:
            os.close(fd)
    except OSError as exc:
        raise CgroupError(f"cannot write {text!r} to {path}: {exc.strerror}") from exc


def _keyed(text: str) -> dict[str, int]:
    """Parse ``key value`` lines (memory.events, oom_control, pids.events)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def read_mounts(mountinfo: str | None = None) -> list[Mount]:
    """The cgroup mounts of this process's mount namespace (``mountinfo``: that file's text)."""
    return [m for m in mounts(mountinfo) if m.fstype in ("cgroup", "cgroup2")]


def _sweep_stale(parent: str) -> None:
    """Remove groups left by judges that died (their pid is in the name and gone)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(PREFIX):
            continue
        try:
            pid = int(name[len(PREFIX) :].split("-")[0])
        except ValueError:
            continue
        if pid == os.getpid() or pid_alive(pid):
            continue
        top = os.path.join(parent, name)
        for sub in _listdirs(top):
            _rmdir_quiet(os.path.join(top, sub))
        _rmdir_quiet(top)


def _listdirs(path: str) -> list[str]:
    try:
        return [e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _rmdir_quiet(path: str) -> bool:
    try:
        os.rmdir(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _kill_procs_file(procs: str) -> int:
    """SIGKILL every pid listed in a cgroup.procs file; returns how many were listed."""
    try:
        pids = [int(x) for x in _read(procs).split()]
    except OSError:
        return 0
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return len(pids)


def move_procs(pids: list[int], group: str) -> bool:
    """Move processes into the group in folder ``group``; False if one could not be moved."""
    ok = True
    for pid in pids:
        try:
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(pid))
        except OSError:
            ok = False
    return ok


class CounterFiles:
    """A group's counter files, each opened once and read again with ``pread`` at offset
    0: a cgroup file's text is made afresh at every read from its start, and a run reads
    about a dozen of them, where an open, a read and a close cost three times one
    ``pread``.  Thread-safe (the run's watch reads its pressure while the seat
    waits), and closed with the group: no read ever goes to an fd number closed and
    given to another file since."""

    #: larger than any counter file; a cgroup.procs that fills it is read whole
    CHUNK = 4096

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        self._lock = threading.Lock()
        self._closed = False

    def read(self, path: str) -> str:
        """The file's text now (OSError: cannot be opened or read)."""
        with self._lock:
            fd = self._fds.get(path)
            if fd is None:
                if self._closed:
                    return _read(path)
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                self._fds[path] = fd
            data = os.pread(fd, self.CHUNK, 0)
        if len(data) >= self.CHUNK:
            return _read(path)
        return data.decode("ascii", errors="replace")

    def close(self) -> None:
        """Close every file (a later read opens the file for that read alone)."""
        with self._lock:
            self._closed = True
            fds, self._fds = list(self._fds.values()), {}
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass
class RunCgroup:
    """The groups of one run (one per hierarchy).  Not thread-shared: one run, one owner."""

    version: int
    dirs: dict[str, str]  # controller ("memory", "pids", "" for v2) -> group dir
    memory: bool
    pids: bool
    #: the group's cpu.pressure tells how long the run waited for a CPU (see cpuwait)
    psi: bool = False
    _destroyed: bool = field(default=False, repr=False)
    #: (memory bytes, processes, core) the group was last set to, so a reused group is
    #: written again only where they change
    settings: tuple[int, int, int | None] | None = None
    #: the counters' totals when this run started (a reused group: where the last run
    #: left them), taken off every reading so a run counts its own events alone
    base: dict[str, int] = field(default_factory=dict, repr=False)
    #: the counters' totals at their last reading (the next run's base)
    last: dict[str, int] = field(default_factory=dict, repr=False)
    #: cpu.pressure's and cpu.stat's totals (µs) when this run started (:class:`PsiMeter`)
    psi_base: dict[str, int] = field(default_factory=dict, repr=False)
    #: the counter files, kept open while the group lives (every run of a seat reads them)
    files: CounterFiles = field(default_factory=CounterFiles, repr=False, compare=False)

    # The groups' folders never change: their files are named once (every run reads them).
    @functools.cached_property
    def procs_files(self) -> tuple[str, ...]:
        """Files the exec helper writes its own pid to (it must be counted and capped too)."""
        return tuple(
            sorted(
                {
                    os.path.join(d, "cgroup.procs")
                    for k, d in self.dirs.items()
                    if k not in PROGRAM_ONLY
                }
            )
        )

    @functools.cached_property
    def child_procs_files(self) -> tuple[str, ...]:
        """Files only the program joins: v1's CPU group and cpuset, so the helper is never
        starved on the program's core."""
        return tuple(
            os.path.join(d, "cgroup.procs") for k, d in self.dirs.items() if k in PROGRAM_ONLY
        )

    def _mem_dir(self) -> str | None:
        return self.dirs.get("memory") if self.version == 1 else self.dirs.get("")

    @property
    def psi_dir(self) -> str | None:
        """The run's group in the unified hierarchy, whose PSI counts its CPU waiting."""
        if not self.psi:
            return None
        return self.dirs.get("psi") if self.version == 1 else self.dirs.get("")

    @property
    def pressure_only_dir(self) -> str | None:
        """The run's pressure group when it sets no limit (cgroup v1: a group of the
        unified hierarchy, kept for its PSI alone): another process may join it
        for the run without being capped (None: no such group)."""
        return self.dirs.get("psi") if self.version == 1 and self.psi else None

    def _pids_dir(self) -> str | None:
        return self.dirs.get("pids") if self.version == 1 else self.dirs.get("")

    def peak_memory(self) -> int | None:
        """Highest memory charge of the group during this run, less what an earlier run of
        a reused group left charged when it started (None: unknown)."""
        d = self._mem_dir()
        if not self.memory or d is None:
            return None
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        peak: int | None
        try:
            peak = int(self.files.read(os.path.join(d, name)).split()[0])
        except (OSError, ValueError, IndexError):
            peak = self.current_memory()
        return None if peak is None else max(0, peak - self.base.get("usage", 0))

    def current_memory(self) -> int | None:
        """Memory charged right now."""
        d = self._mem_dir()
        if not self.memory or d is None:
            return None
        name = "memory.usage_in_bytes" if self.version == 1 else "memory.current"
        try:
            return int(self.files.read(os.path.join(d, name)).split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def oom_kills(self) -> int | None:
        """How many processes the kernel's OOM killer killed inside the group
        (None: this kernel has no such counter)."""
        d = self._mem_dir()
        if not self.memory or d is None:
            return 0
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            values = _keyed(self.files.read(os.path.join(d, name)))
        except OSError:
            return None
        if "oom_kill" not in values:
            return None
        total = max(values.get("oom_kill", 0), values.get("oom_group_kill", 0))
        self.last["oom_kill"] = total
        return total - self.base.get("oom_kill", 0)

    def memory_failures(self) -> int:
        """v1 only: times the limit was hit (reclaim included); an OOM hint for old kernels."""
        d = self._mem_dir()
        if self.version != 1 or not self.memory or d is None:
            return 0
        try:
            total = int(self.files.read(os.path.join(d, "memory.failcnt")).split()[0])
        except (OSError, ValueError, IndexError):
            return 0
        self.last["failcnt"] = total
        return total - self.base.get("failcnt", 0)

    def pids_refused(self) -> int:
        """How many forks the process cap refused."""
        d = self._pids_dir()
        if not self.pids or d is None:
            return 0
        try:
            total = _keyed(self.files.read(os.path.join(d, "pids.events"))).get("max", 0)
        except OSError:
            return 0
        self.last["pids_max"] = total
        return total - self.base.get("pids_max", 0)

    def pids_current(self) -> int | None:
        """Processes and threads in the group right now (helper included)."""
        d = self._pids_dir()
        if not self.pids or d is None:
            return None
        try:
            return int(self.files.read(os.path.join(d, "pids.current")).split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def is_empty(self) -> bool:
        """Whether no process is left in any of the groups (one read with a pids group)."""
        current = self.pids_current()
        if current is not None:
            return current == 0
        return not self.members()

    def restart(self, psi: bool = True) -> bool:
        """Make the empty group count a new run from zero: the memory peak reset to the
        charge left over (which is taken off it), the event counters' totals as the base.
        ``psi`` False: the CPU pressure's base is left to :meth:`rebase_psi` at the run's
        start (a run armed ahead: its set-up in the group is not the run's waiting).

        False when that cannot be done here (cgroup v2's peak cannot be reset before
        Linux 6.12, a counter cannot be read): the caller makes a fresh group instead.
        """
        if self._destroyed:
            return False
        d = self._mem_dir()
        try:
            if self.memory and d is not None:
                if self.version != 1:
                    return False
                usage = self._reset_peak(d)
                if "oom_kill" not in self.last:  # old kernel: the failure counter counts
                    self.memory_failures()
                self.base = {**self.last, "usage": usage}
            else:
                self.base = dict(self.last)
            psi_dir = self.psi_dir if psi else None
            if psi_dir is not None:
                self.psi_base = read_psi_totals(psi_dir, self.files.read)
        except (OSError, ValueError, IndexError, CgroupError):
            return False
        return True

    def rebase_memory(self) -> bool:
        """Count the memory peak from the charge now: at the start of a run armed
        ahead, after the clean that followed its :meth:`restart` freed what the last
        run left in the seat's folders (on a tmpfs, charged here).  The armed run's
        child, asleep in the group, is part of the new base.  False: nothing to do or
        it cannot be done (the base taken at the restart stands)."""
        d = self._mem_dir()
        if self._destroyed or not self.memory or d is None or self.version != 1:
            return False
        try:
            usage = self._reset_peak(d)
        except (OSError, ValueError, IndexError, CgroupError):
            return False
        self.base = {**self.base, "usage": usage}
        return True

    def _reset_peak(self, d: str) -> int:
        """cgroup v1: the memory peak of the group in ``d`` reset to its charge now,
        which is returned (the base a run's peak counts from)."""
        _write(os.path.join(d, "memory.max_usage_in_bytes"), "0")
        return int(self.files.read(os.path.join(d, "memory.usage_in_bytes")).split()[0])

    def rebase_psi(self) -> bool:
        """Count the group's CPU pressure from now on (False: it cannot be read)."""
        psi = self.psi_dir
        if psi is not None:
            try:
                self.psi_base = read_psi_totals(psi, self.files.read)
            except (OSError, ValueError, IndexError, CgroupError):
                return False
        return not self._destroyed

    def members(self) -> list[int]:
        """Pids still inside any of the groups."""
        out: set[int] = set()
        for d in self.dirs.values():
            try:
                out.update(int(x) for x in self.files.read(os.path.join(d, "cgroup.procs")).split())
            except (OSError, ValueError):
                pass
        return sorted(out)

    def kill_all(self) -> None:
        """Last-resort sweep: SIGKILL everything still inside (v2: atomically via cgroup.kill)."""
        for d in self.dirs.values():
            kill_file = os.path.join(d, "cgroup.kill")
            if self.version == 2 and os.path.exists(kill_file):
                try:
                    _write(kill_file, "1")
                    continue
                except CgroupError:
                    pass
            for _ in range(100):
                if _kill_procs_file(os.path.join(d, "cgroup.procs")) == 0:
                    break
                time.sleep(0.002)

    def destroy(self) -> tuple[bool, list[int]]:
        """Remove the groups.  Returns (removed?, pids that were still inside and got killed):
        normally (True, []), as the helper exits only when its whole tree has."""
        if self._destroyed:
            return True, []
        self.files.close()
        ok = True
        stragglers: list[int] = []
        for d in self.dirs.values():
            if _rmdir_quiet(d):
                continue
            stragglers = sorted(set(stragglers) | set(self.members()))
            self.kill_all()
            for _ in range(250):
                if _rmdir_quiet(d):
                    break
                time.sleep(0.004)
            else:
                ok = False
        self._destroyed = ok
        return ok, stragglers


class CgroupBackend:
    """Makes per-run groups under one private parent group per sandbox."""

    version: int = 0
    name: str = ""

    def __init__(
        self,
        parents: dict[str, str],
        memory: bool,
        pids: bool,
        cpu: bool = False,
        psi: bool = False,
        cpuset: bool = False,
    ) -> None:
        self.parents = parents  # controller key -> our sandbox's parent dir
        self.memory = memory
        self.pids = pids
        #: run groups report CPU waiting (cgroup v2 PSI; v1: a group in the unified hierarchy)
        self.psi = psi
        #: each run in its own CPU group: a program with 64 busy processes gets the
        #: same share of the machine as the other seat's single process
        self.cpu = cpu
        #: each run's group is a cpuset of its one core: a program cannot widen its
        #: CPU affinity to take another run's core
        self.cpuset = cpuset
        #: v1: the cpus and mems our parent cpuset was given (a new v1 cpuset starts empty)
        self.cpuset_base: tuple[str, str] = ("", "")
        self._counter = 0

    def describe(self, controller: str = "memory") -> str:
        """Where the groups of one controller live, for the isolation report."""
        key = controller if self.version == 1 else ""
        return self.parents.get(key, "")

    def create(
        self, tag: str, memory_bytes: int, max_procs: int, core: int | None = None
    ) -> RunCgroup:
        """Make the groups of one run with its limits written (and, with a cpuset, confined
        to ``core``); CgroupError says what failed."""
        self._counter += 1
        name = f"{tag}-{self._counter}-{secrets.token_hex(3)}"
        dirs: dict[str, str] = {}
        try:
            for key, parent in self.parents.items():
                d = os.path.join(parent, name)
                try:
                    os.mkdir(d)
                except OSError as exc:
                    raise CgroupError(f"cannot create cgroup {d}: {exc.strerror}") from exc
                dirs[key] = d
            run = RunCgroup(self.version, dirs, self.memory, self.pids, self.psi)
            self._set_limits(run, memory_bytes, max_procs)
            if self.cpuset:
                self._confine(run, core)
            run.settings = (memory_bytes, max_procs, core)
            return run
        except BaseException:
            for d in dirs.values():
                _rmdir_quiet(d)
            raise

    def reuse(
        self, run: RunCgroup, memory_bytes: int, max_procs: int, core: int | None = None
    ) -> bool:
        """Ready an empty group from a seat's last run for its next: the limits and the core
        written where they changed (its counters are restarted first by the caller,
        :meth:`RunCgroup.restart`).  False: it cannot be reused (the caller removes it and
        makes a fresh one)."""
        try:
            old = run.settings
            if old is None or old[:2] != (memory_bytes, max_procs):
                self._set_limits(run, memory_bytes, max_procs)
            if self.cpuset and (old is None or old[2] != core):
                self._confine(run, core)
        except CgroupError:
            return False
        run.settings = (memory_bytes, max_procs, core)
        return True

    def _set_limits(self, run: RunCgroup, memory_bytes: int, max_procs: int) -> None:
        raise NotImplementedError

    def _confine(self, run: RunCgroup, core: int | None) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Remove our parent groups (their run groups must be gone already)."""
        for parent in set(self.parents.values()):
            for sub in _listdirs(parent):
                RunCgroup(self.version, {"x": os.path.join(parent, sub)}, False, False).destroy()
            _rmdir_quiet(parent)


class CgroupV1(CgroupBackend):
    """cgroup v1: memory and pids hierarchies, each nested under the judge's own group."""

    version = 1
    name = "cgroup v1"

    def _set_limits(self, run: RunCgroup, memory_bytes: int, max_procs: int) -> None:
        mem = run.dirs.get("memory")
        if mem:
            _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_bytes))
            memsw = os.path.join(mem, "memory.memsw.limit_in_bytes")
            if os.path.exists(memsw):
                try:  # no escaping the limit through swap
                    _write(memsw, str(memory_bytes))
                except CgroupError:
                    pass
        pids = run.dirs.get("pids")
        if pids:
            # +2: the exec helper and its short-lived killer also live in the group.
            _write(os.path.join(pids, "pids.max"), str(max_procs + 2))

    def _confine(self, run: RunCgroup, core: int | None) -> None:
        d = run.dirs.get("cpuset")
        if d:
            cpus, mems = self.cpuset_base
            _write(os.path.join(d, "cpuset.mems"), mems)
            _write(os.path.join(d, "cpuset.cpus"), cpus if core is None else str(core))


class CgroupV2(CgroupBackend):
    """cgroup v2: one group per run under our own parent with memory/pids delegated."""

    version = 2
    name = "cgroup v2"

    def _set_limits(self, run: RunCgroup, memory_bytes: int, max_procs: int) -> None:
        d = run.dirs[""]
        if self.memory:
            _write(os.path.join(d, "memory.max"), str(memory_bytes))
            # Not memory.oom.group: it would kill the helper too (unless it could
            # lower its oom_score_adj), losing the run's record; the judge kills
            # the rest of the tree itself as soon as it sees the OOM kill.
            for fname, value in (("memory.swap.max", "0"),):
                if os.path.exists(os.path.join(d, fname)):
                    try:
                        _write(os.path.join(d, fname), value)
                    except CgroupError:
                        pass
        if self.pids:
            _write(os.path.join(d, "pids.max"), str(max_procs + 2))

    def _confine(self, run: RunCgroup, core: int | None) -> None:
        if core is not None:
            _write(os.path.join(run.dirs[""], "cpuset.cpus"), str(core))


def _weigh(group: str, name: str, weight: int) -> None:
    """Our parent CPU group weighs as much as one program at nice -10 per core, not as
    one ordinary task for all the runs in it (best effort)."""
    try:
        _write(os.path.join(group, name), str(weight))
    except CgroupError:
        pass


def _make_parent(base: str) -> str:
    _sweep_stale(base)
    d = os.path.join(base, f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}")
    os.mkdir(d)
    return d


def _try_v1(mounts: list[Mount], own: dict[str, str]) -> tuple[CgroupBackend | None, str]:
    parents: dict[str, str] = {}
    reasons = []
    cpuset_base = ("", "")
    for ctrl in ("memory", "pids", "cpu", "cpuset"):
        optional = ctrl in ("cpu", "cpuset")
        mount = next((m for m in mounts if m.fstype == "cgroup" and ctrl in m.options), None)
        if mount is None:
            if not optional:
                reasons.append(f"no v1 {ctrl} hierarchy")
            continue
        base = host_path(mount, own.get(ctrl, "/"))
        try:
            parents[ctrl] = _make_parent(base)
        except OSError as exc:
            if not optional:
                reasons.append(f"cannot create a group in {base}: {exc.strerror}")
            continue
        if ctrl == "cpuset":
            try:  # a new v1 cpuset has no cpus and no mems: give ours the base's
                cpuset_base = (
                    _read(os.path.join(base, "cpuset.cpus")).strip(),
                    _read(os.path.join(base, "cpuset.mems")).strip(),
                )
                _write(os.path.join(parents[ctrl], "cpuset.cpus"), cpuset_base[0])
                _write(os.path.join(parents[ctrl], "cpuset.mems"), cpuset_base[1])
            except (OSError, CgroupError):
                _rmdir_quiet(parents.pop(ctrl))
        if ctrl == "cpu":
            _weigh(parents[ctrl], "cpu.shares", min(262144, BOT_WEIGHT * (os.cpu_count() or 1)))
    if not ("memory" in parents or "pids" in parents):
        for d in parents.values():
            _rmdir_quiet(d)
        return None, "; ".join(reasons)
    psi = _unified_psi_parent(mounts, own)
    if psi is not None:
        parents["psi"] = psi
    backend = CgroupV1(
        parents,
        "memory" in parents,
        "pids" in parents,
        "cpu" in parents,
        psi is not None,
        "cpuset" in parents,
    )
    backend.cpuset_base = cpuset_base
    return backend, "; ".join(reasons)


def _unified_psi_parent(mounts: list[Mount], own: dict[str, str]) -> str | None:
    """A cgroup-v1 machine with the unified (v2) hierarchy mounted as well: a parent
    group there, only so that each run's CPU waiting can be read from its PSI."""
    mount = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if mount is None:
        return None
    try:
        parent = _make_parent(host_path(mount, own.get("", "/")))
    except OSError:
        return None
    if psi_usable(parent):
        return parent
    _rmdir_quiet(parent)
    return None


def _v2_controllers(path: str, fname: str) -> set[str]:
    try:
        return set(_read(os.path.join(path, fname)).split())
    except OSError:
        return set()


def _try_v2(
    mounts: list[Mount], own: dict[str, str], require_controllers: bool
) -> tuple[CgroupBackend | None, str]:
    mount = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if mount is None:
        return None, "no cgroup2 mount"
    want = {"memory", "pids"}
    start = host_path(mount, own.get("", "/"))
    candidates = []
    p = Path(start)
    top = Path(mount.mountpoint)
    while True:
        candidates.append(str(p))
        if p == top or top not in p.parents:
            break
        p = p.parent
    chosen: str | None = None
    for cand in candidates:
        if not os.access(cand, os.W_OK):
            continue
        delegated = _v2_controllers(cand, "cgroup.subtree_control")
        if want <= delegated:
            chosen = cand
            break
        is_root = cand == mount.mountpoint
        if is_root:
            available = _v2_controllers(cand, "cgroup.controllers")
            missing = ((want | {"cpu", "cpuset"}) & available) - delegated
            if missing:
                try:
                    _write(
                        os.path.join(cand, "cgroup.subtree_control"),
                        " ".join(f"+{c}" for c in sorted(missing)),
                    )
                except CgroupError:
                    pass
            chosen = cand
            break
    if chosen is None:
        if require_controllers:
            return None, "no writable cgroup2 group delegates memory and pids"
        chosen = start
    try:
        parent = _make_parent(chosen)
    except OSError as exc:
        return None, f"cannot create a group in {chosen}: {exc.strerror}"
    have = _v2_controllers(parent, "cgroup.controllers") & (want | {"cpu", "cpuset"})
    if have:
        try:
            _write(
                os.path.join(parent, "cgroup.subtree_control"),
                " ".join(f"+{c}" for c in sorted(have)),
            )
        except CgroupError:
            have = set()
    if require_controllers and not have & want:
        _rmdir_quiet(parent)
        return None, f"cgroup2 at {chosen} has no memory/pids controller"
    if "cpu" in have:  # v2 weights: 100 is nice 0's 1024
        _weigh(parent, "cpu.weight", min(10000, BOT_WEIGHT * (os.cpu_count() or 1) * 100 // 1024))
    backend = CgroupV2(
        {"": parent},
        "memory" in have,
        "pids" in have,
        "cpu" in have,
        psi_usable(parent),
        "cpuset" in have,
    )
    missing = want - have
    return backend, (f"cgroup2 without {', '.join(sorted(missing))}" if missing else "")


def _check_cpuset(backend: CgroupBackend) -> CgroupBackend:
    """Keep the cpuset only if a run's group can really be confined to one core here."""
    if not backend.cpuset:
        return backend
    try:
        backend.create("probe", 64 * 2**20, 8, min(os.sched_getaffinity(0))).destroy()
    except (CgroupError, OSError):
        backend.cpuset = False
        parent = backend.parents.pop("cpuset", None)
        if parent is not None:
            _rmdir_quiet(parent)
    return backend


def detect(prefer: str = "auto") -> tuple[CgroupBackend | None, str]:
    """Find a writable cgroup layout and make our parent groups there.

    ``prefer``: ``"auto"`` (v1 memory+pids if writable, else v2 with controllers),
    ``"v1"``, ``"v2"`` (also accepted without controllers: then it only tracks
    and kills the tree) or ``"none"``.  Returns (backend or None, why not / what is missing).
    """
    if prefer not in ("auto", "v1", "v2", "none"):
        raise ValueError(f"cgroup preference must be auto, v1, v2 or none, not {prefer!r}")
    if prefer == "none":
        return None, "cgroups disabled by configuration"
    try:
        mounts = read_mounts()
        own = read_own_cgroups()
    except OSError as exc:
        return None, f"cannot read /proc: {exc.strerror}"
    if prefer in ("auto", "v1"):
        backend, why = _try_v1(mounts, own)
        if backend is not None and (backend.memory or prefer == "v1"):
            return _check_cpuset(backend), why
        if backend is not None:
            backend.close()
        if prefer == "v1":
            return None, why
        v1_why = why
    else:
        v1_why = ""
    backend, why = _try_v2(mounts, own, require_controllers=(prefer == "auto"))
    if backend is not None:
        return _check_cpuset(backend), why
    return None, "; ".join(x for x in (v1_why, why) if x) or "no writable cgroup"
