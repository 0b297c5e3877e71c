"""What this machine allows, found once per Sandbox, and the isolation report built from it.

Every mechanism is tried for real (a cgroup is created, a seat's namespaces
are built on a scratch folder) rather than guessed from file names, so the
report printed at start says what is actually in force, with the reason for
anything that is off.
"""

from __future__ import annotations

import enum
import os
import secrets
import shutil
from dataclasses import dataclass

from judge.sandbox.cgroups import CgroupBackend, detect
from judge.sandbox.cores import BOT_NICE, CoreBudget
from judge.sandbox.cpuwait import PsiMeter, TreeMeter
from judge.sandbox.helper import Helper, HelperKind, find_helper
from judge.sandbox.memfs import INODES, SIZE_BYTES, mount_tmpfs, shm_folder, unmount
from judge.sandbox.namespaces import make_namespaces
from judge.sandbox.procfs import status
from judge.sandbox.types import Isolation, SandboxError
from judge.sandbox.uids import UidPool

# Protection names, stable: replays record them and tests look them up.
P_HELPER = "exec helper"
P_UID = "separate uid per seat"
P_FOLDERS = "private seat folders"
P_SIGNAL = "cannot signal the judge"
P_NETWORK = "no network"
P_VIEW = "private filesystem view"
P_IPC = "private IPC"
P_MEMORY = "memory limit by cgroup"
P_PROCS = "process cap"
P_CPU = "fair CPU share"
P_CORES = "a core per run"
P_MACHINE = "one core budget per machine"
P_SURVIVORS = "no survivors"
P_FILES = "file size cap"
P_SPACE = "folder space cap"
P_PRIVS = "no privilege gain"


class NsMode(str, enum.Enum):
    """How a seat's runs are kept from the network, from each other's IPC and from the
    machine's files (judge.sandbox.namespaces)."""

    VIEW = "view"  #: namespaces made once per seat, with a private filesystem view
    NET = "net"  #: namespaces made once per seat (network, IPC, UTS), no view
    UNSHARE = "unshare"  #: a fresh network and IPC namespace per run (the Python helper)
    NONE = "none"  #: no namespaces (not root, or turned off)

    @property
    def per_seat(self) -> bool:
        """The seat's namespaces are made once and entered by every run."""
        return self in (NsMode.VIEW, NsMode.NET)


@dataclass
class Machine:
    """The mechanisms a Sandbox uses (decided once)."""

    root: bool
    helper: Helper
    cgroup: CgroupBackend | None
    cgroup_note: str
    uid_pool: UidPool | None
    uid_note: str
    ns_mode: NsMode
    ns_note: str
    poll_interval_s: float
    #: seats' writable folders on a tmpfs of their own (judge.sandbox.memfs)
    memfs: bool = False
    #: why not, when not
    memfs_note: str = ""
    #: a normal user's seats keep their folders in a folder of their own in here (a
    #: tmpfs: judge.sandbox.memfs.shm_folder); None: on disk
    shm: str | None = None


def _probe_memfs(scratch_root: str, root: bool) -> tuple[bool, str]:
    """Whether a seat's folders can be a tmpfs of its own: one is mounted and taken away."""
    if not root:
        return False, "a tmpfs of the seat's own needs root"
    folder = os.path.join(scratch_root, f".probe-memfs-{secrets.token_hex(4)}")
    os.mkdir(folder, 0o700)
    try:
        why = mount_tmpfs(folder, 0o700, None)
        if why is not None:
            return False, why
        try:
            with open(os.path.join(folder, "probe"), "wb") as f:
                f.write(b"x")
        finally:
            unmount(folder)
        return True, ""
    except OSError as exc:
        return False, f"cannot use a tmpfs of the seat's own: {exc}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _probe_namespaces(
    helper: Helper, scratch_root: str, wanted: bool, root: bool
) -> tuple[NsMode, str]:
    if not wanted:
        return NsMode.NONE, "namespaces disabled by configuration"
    if not root:
        return NsMode.NONE, "needs root"
    if not helper.can_hold:
        return (
            NsMode.UNSHARE,
            "a fresh network/IPC namespace per run (the Python helper cannot keep one per seat)",
        )
    base = os.path.join(scratch_root, f".probe-{secrets.token_hex(4)}")
    try:
        for sub in ("", "rw", "rw/tmp", ".view"):
            os.mkdir(os.path.join(base, sub), 0o700)
        try:
            ns = make_namespaces(
                helper,
                view=True,
                seat_dir=base,
                tmp_dir=os.path.join(base, "rw", "tmp"),
                staging=os.path.join(base, ".view"),
                rw_dir=os.path.join(base, "rw"),
            )
            ns.close()
            return NsMode.VIEW, ""
        except SandboxError as exc:
            view_error = str(exc)
        try:
            make_namespaces(helper, view=False).close()
            return NsMode.NET, f"filesystem view unavailable: {view_error}"
        except SandboxError as exc:
            return NsMode.NONE, str(exc)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def probe(
    scratch_root: str,
    *,
    cgroup: str,
    helper: str,
    namespaces: bool,
    uid_range: tuple[int, int],
    uid_lock_dir: str,
    poll_interval_s: float,
    helper_cache: str | None,
) -> Machine:
    """Find the helper, cgroups, uids and namespaces this judge can use."""
    is_root = os.geteuid() == 0
    found_helper = find_helper(helper, helper_cache, scratch=os.path.join(scratch_root, ".helper"))
    backend, cg_note = detect(cgroup)
    pool: UidPool | None = None
    if is_root:
        try:
            pool = UidPool(uid_range[0], uid_range[1], uid_lock_dir)
            uid_note = ""
        except (OSError, SandboxError) as exc:
            uid_note = f"cannot use the uid lock folder {uid_lock_dir}: {exc}"
    else:
        uid_note = "the judge is not root"
    ns_mode, ns_note = _probe_namespaces(found_helper, scratch_root, namespaces, is_root)
    memfs, memfs_note = _probe_memfs(scratch_root, is_root)
    shm = None
    if not is_root:
        shm, why = shm_folder()
        memfs_note = f"{memfs_note}; {why}" if why else memfs_note
    return Machine(
        is_root,
        found_helper,
        backend,
        cg_note,
        pool,
        uid_note,
        ns_mode,
        ns_note,
        poll_interval_s,
        memfs,
        memfs_note,
        shm,
    )


def pinning(m: Machine) -> str:
    """How a run is held to its core on this machine."""
    if m.cgroup is not None and m.cgroup.cpuset:
        return f"by a {m.cgroup.name} cpuset of that one core, which the program cannot widen"
    return (
        "by CPU affinity, set by the exec helper before the program starts (without a "
        "cpuset a program could widen its own affinity; its neighbours' waiting would "
        "then be measured and given back)"
    )


def _may_raise_priority() -> bool:
    """Whether the judge holds CAP_SYS_NICE (root does, except in some containers)."""
    try:
        return bool(int(status()[b"CapEff"], 16) >> 23 & 1)
    except (OSError, KeyError, ValueError):
        return False


def priority(m: Machine) -> str:
    """Whether programs run ahead of ordinary work on their core."""
    if m.root and _may_raise_priority():
        return (
            f"programs run at nice {BOT_NICE}, ahead of ordinary work (the judge's own "
            "threads included), their exec helper at -15 to kill on time"
        )
    return (
        "programs run at the judge's own priority (a nice below 0 needs root, with "
        "CAP_SYS_NICE); the sandbox's CPU cgroup, where there is one, still weighs as "
        f"one program at nice {BOT_NICE} per core"
    )


def wait_source(m: Machine) -> str:
    """Where a run's CPU waiting is read from on this machine (see :mod:`.cpuwait`)."""
    if m.cgroup is not None and m.cgroup.psi:
        return PsiMeter("").source
    return TreeMeter.source + ", read at the limit: processes that already exited are missed"


def isolation(m: Machine, cores: CoreBudget | None = None, leases_note: str = "") -> Isolation:
    """The report: every protection, on or off, with what provides it or why it is off."""
    items: list[tuple[str, bool, str]] = []
    add = items.append
    add((P_HELPER, m.helper.kind is HelperKind.C, m.helper.detail))
    sep = m.uid_pool is not None
    if sep:
        assert m.uid_pool is not None
        add(
            (
                P_UID,
                True,
                f"uids {m.uid_pool.first}-{m.uid_pool.last} leased with lock files in "
                f"{m.uid_pool.lock_dir}",
            )
        )
        add(
            (
                P_FOLDERS,
                True,
                "work folder owned by the seat's uid, mode 0700; program copy root:seat "
                "0750, read-only for the seat, unreadable by the other seat",
            )
        )
        add(
            (
                P_SIGNAL,
                True,
                "programs run under an unprivileged uid; the judge and helper are root",
            )
        )
    else:
        add((P_UID, False, f"{m.uid_note}: programs run as the judge's own uid"))
        add(
            (
                P_FOLDERS,
                False,
                "folders are 0700, but both seats run as one uid, so a program can "
                "read the other seat's folder",
            )
        )
        add((P_SIGNAL, False, "programs run as the judge's uid and could signal it"))
    if m.ns_mode.per_seat:
        add((P_NETWORK, True, "own network namespace per seat, made once; no interface up"))
        add((P_IPC, True, "own IPC and UTS namespaces per seat"))
    elif m.ns_mode is NsMode.UNSHARE:
        add((P_NETWORK, True, "a fresh network namespace per run; no interface up"))
        add((P_IPC, True, "a fresh IPC namespace per run"))
    else:
        add((P_NETWORK, False, m.ns_note))
        add((P_IPC, False, m.ns_note))
    if m.ns_mode is NsMode.VIEW:
        add(
            (
                P_VIEW,
                True,
                "root shows only system folders read-only, a minimal /dev, a /proc "
                "without other users' processes, a private /tmp and the seat's own folder",
            )
        )
    else:
        add((P_VIEW, False, m.ns_note or "needs the C helper's holder as root"))
    cg = m.cgroup
    if cg is not None and cg.memory:
        add(
            (
                P_MEMORY,
                True,
                f"{cg.name} memory controller: peak of the whole tree, enforced by the "
                f"kernel, in {cg.describe('memory')}",
            )
        )
    else:
        add(
            (
                P_MEMORY,
                False,
                f"{m.cgroup_note or 'no memory controller'}: the tree's resident memory "
                f"is polled every {m.poll_interval_s * 1000:g} ms (plus each process's "
                "own peak afterwards), so a very fast allocation can overshoot before "
                "it is killed",
            )
        )
    if cg is not None and cg.pids:
        add(
            (
                P_PROCS,
                True,
                f"{cg.name} pids controller"
                + (" and RLIMIT_NPROC of the seat's uid" if sep else ""),
            )
        )
    elif sep:
        add((P_PROCS, True, "RLIMIT_NPROC of the seat's own uid"))
    else:
        add(
            (
                P_PROCS,
                False,
                "only RLIMIT_NPROC over all of the judge user's processes (approximate)",
            )
        )
    if sep:
        add(
            (
                P_SURVIVORS,
                True,
                "the helper is a child subreaper: it waits for every descendant and "
                "kills them all at once by uid",
            )
        )
    else:
        add(
            (
                P_SURVIVORS,
                False,
                "the helper is a child subreaper and kills the whole tree, but a "
                "program running as the judge's uid could kill the helper first",
            )
        )
    if cg is not None and cg.cpu:
        add(
            (
                P_CPU,
                True,
                f"{cg.name} cpu controller: each run is its own CPU group, so a program "
                "with many busy processes cannot starve the other seat's program",
            )
        )
    else:
        add(
            (
                P_CPU,
                False,
                "no cpu controller: a program with many busy processes can slow the "
                "other seat's program when both run at once",
            )
        )
    if cores is not None:
        add(
            (
                P_CORES,
                True,
                f"programs run {cores.describe()}; each run is pinned to its core "
                f"{pinning(m)}; {priority(m)}; a run waits "
                "for a free core before its clock starts; time a run is kept waiting "
                f"for its core anyway is measured ({wait_source(m)}) and given back, "
                "never counted against the program",
            )
        )
    if cores is not None:
        leases = cores.leases
        if leases is not None:
            add((P_MACHINE, leases.shared, leases.note))
        else:
            add(
                (
                    P_MACHINE,
                    False,
                    f"{leases_note or 'core leases turned off'}: other judges on this machine "
                    "may run programs on the same cores",
                )
            )
    add((P_FILES, True, "RLIMIT_FSIZE (SIGXFSZ/EFBIG -> OLE)"))
    if m.memfs:
        add(
            (
                P_SPACE,
                True,
                f"the seat's work folder and /tmp are a tmpfs of its own, of at most "
                f"{SIZE_BYTES // 2**20} MiB and {INODES} files; what a program writes there "
                "is memory, counted toward its limit",
            )
        )
    elif m.shm:
        add(
            (
                P_SPACE,
                False,
                f"{m.memfs_note}: the seat's work folder is in {m.shm}, memory every user "
                "shares, without a cap of its own; only each file's size is capped",
            )
        )
    else:
        add(
            (
                P_SPACE,
                False,
                f"{m.memfs_note}: the seat's folders are on the judge's disk, only each "
                "file's size is capped",
            )
        )
    add((P_PRIVS, True, "no_new_privs: set-uid programs cannot raise privileges"))
    return Isolation(tuple(items))
