"""How a run's exec helper is started: one-shot, by the seat's zygote, or armed ahead of its turn.

Step "helper" of a run (:mod:`.steps`).  Three ways, each falling back to the next
when it cannot start a run without having started anything:

* **armed** (the default): the seat's zygote (:mod:`.zygote`) made this run's helper
  right after the seat's last run, and its child did its whole set-up but the core;
  the run starts with a go (:class:`~.zygote.Armed`).  Right after each run the next
  is armed (:meth:`ArmedLauncher.arm_next`) if nothing of the run is left;
* **zygote**: the seat's zygote makes the run's helper now (``clone``, no exec);
* **one-shot**: a ``Popen`` of ``wrapper run`` (the Python fallback helper, checks,
  wine's server and probes always run so).

A Sandbox chooses one for all its seats (``Sandbox(launcher=...)``: benchmarks and
bisecting compare them); a seat whose helper cannot be a zygote (the Python helper,
no pidfds) starts one-shot helpers whatever was chosen.  Whatever the way, the run's
helper is the judge's own child, watched, signalled and reaped by
:mod:`.supervise` alike, and it is handed the same words (:func:`run_words`).
"""

from __future__ import annotations

import dataclasses
import enum
import fcntl
import os
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.sandbox.helper import Helper, HelperProcess
from judge.sandbox.record import RawRun
from judge.sandbox.zygote import (
    FIRST_NS_FD,
    STATUS_FD,
    Armed,
    Zygote,
    ZygoteFailed,
    ZygoteRun,
    ZygoteUnavailable,
    usable,
)

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.seatgroups import SeatGroups
    from judge.sandbox.types import Limits

PIPE_SIZE = 1 << 20


class LauncherKind(str, enum.Enum):
    """How a Sandbox's seats start their runs' exec helpers (see the module)."""

    ARMED = "armed"  #: by the seat's zygote, the next run armed right after each
    ZYGOTE = "zygote"  #: by the seat's zygote, on the run's turn
    ONESHOT = "oneshot"  #: a one-shot helper each run


@dataclass(frozen=True)
class Spawn:
    """Everything the helper needs for one run (or one reachability check)."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    uid: int | None = None
    gid: int | None = None
    ns_fds: tuple[int, ...] = ()
    unshare: bool = False
    rlimits: tuple[tuple[str, int], ...] = ()
    nproc_extra: int | None = None
    oom_protect: bool = False
    check: bool = False
    argcheck: tuple[int, ...] = ()
    #: kill only the program's own process tree, not every process of its uid: the
    #: seat's uid also runs a seat-long service (wine's server) that must survive
    tree_only_kill: bool = False
    cpu: int | None = None  #: the one core the run is pinned to
    nice: int | None = None  #: the program's nice value (None: the judge's)


@dataclass(frozen=True)
class Started:
    """A run's helper process, started, and the judge's end of its status pipe."""

    proc: OneShotProcess | ZygoteRun
    status_r: int


def helper_command(
    helper: Helper, spawn: Spawn, status_fd: int, cg: RunCgroup | None, go_fd: int | None = None
) -> list[str]:
    """The command line of a one-shot exec helper for ``spawn`` (``go_fd``: it waits for
    its go on that fd)."""
    return [*helper.argv, "run", *run_words(spawn, status_fd, cg, spawn.ns_fds, go_fd)]


def run_words(
    spawn: Spawn,
    status_fd: int,
    cg: RunCgroup | None,
    ns_fds: tuple[int, ...],
    go_fd: int | None = None,
) -> list[str]:
    """The helper's "run" options and the program's argv (the words after "run");
    ``go_fd``: the run is armed, and waits for its go (and core) on that fd."""
    cmd = ["-s", str(status_fd), "-d", spawn.cwd]
    if cg is not None:
        for procs in cg.procs_files:
            cmd += ["-c", procs]
        for procs in cg.child_procs_files:
            cmd += ["-j", procs]
    for fd in ns_fds:
        cmd += ["-n", str(fd)]
    if spawn.uid is not None:
        cmd += ["-u", str(spawn.uid)]
    if spawn.gid is not None:
        cmd += ["-g", str(spawn.gid)]
    for name, value in spawn.rlimits:
        cmd += ["-r", f"{name}={value}"]
    if spawn.nproc_extra is not None:
        cmd += ["-N", str(spawn.nproc_extra)]
    if spawn.oom_protect:
        cmd.append("-o")
    if spawn.unshare:
        cmd.append("-U")
    if spawn.check:
        cmd.append("-C")
    if spawn.tree_only_kill:
        cmd.append("-t")
    for idx in spawn.argcheck:
        cmd += ["-A", str(idx)]
    if spawn.cpu is not None:
        cmd += ["-a", str(spawn.cpu)]
    if spawn.nice is not None:
        cmd += ["-P", str(spawn.nice)]
    if go_fd is not None:
        cmd += ["-W", str(go_fd)]
    cmd.append("--")
    cmd += spawn.argv
    return cmd


class OneShotProcess(HelperProcess):
    """A one-shot exec helper, the judge's child: watched through a pidfd where there
    are pidfds, reaped here."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.pid = proc.pid
        self.stdout_fd = proc.stdout.fileno()
        self.stderr_fd = proc.stderr.fileno()
        try:
            self.pidfd: int | None = os.pidfd_open(proc.pid)
        except (OSError, AttributeError):
            self.pidfd = None

    @property
    def done(self) -> bool:
        return self.proc.returncode is not None

    def wait(self, timeout: float | None) -> bool:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def reap(self) -> tuple[int | None, Any]:
        _, status, rusage = os.wait4(self.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return status, rusage

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()
        self.proc.stderr.close()


def start_one_shot(
    helper: Helper, spawn: Spawn, cg: RunCgroup | None, raw: RawRun
) -> Started | None:
    """A one-shot helper for ``spawn`` (a ``Popen``), with its status pipe; None (``raw``
    says why) when it cannot be started."""
    status_r, status_w = os.pipe2(os.O_CLOEXEC)
    cmd = helper_command(helper, spawn, status_w, cg)
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=spawn.env,
            pass_fds=(status_w, *spawn.ns_fds),
            cwd="/",
            close_fds=True,
        )
    except OSError as exc:
        os.close(status_r)
        os.close(status_w)
        raw.internal_error = f"cannot start the exec helper {cmd[0]}: {exc}"
        return None
    os.close(status_w)
    assert proc.stdout is not None and proc.stderr is not None
    for fd in (proc.stdout.fileno(), proc.stderr.fileno()):
        _ready_output(fd)
    return Started(OneShotProcess(proc), status_r)


def _ready_output(fd: int) -> None:
    """The judge's end of a run's stdout or stderr pipe: read without blocking, with a
    large buffer (where the system allows one) so a chatty program is rarely held up."""
    os.set_blocking(fd, False)
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass


#: a Spawn's fields but its core: what an armed run must match (read field by field,
#: cheaper than a copy of the Spawn each run)
_ARM_KEY_FIELDS = tuple(f.name for f in dataclasses.fields(Spawn) if f.name != "cpu")


def arm_key(spawn: Spawn, cg: RunCgroup | None) -> object:
    """What a run must match to use the run armed for it: everything the helper is told
    but the core (given at the go), and the same groups."""
    return (
        tuple(getattr(spawn, name) for name in _ARM_KEY_FIELDS),
        None if cg is None else (cg.procs_files, cg.child_procs_files),
    )


def arm(zygote: Zygote, spawn: Spawn, cg: RunCgroup | None) -> None:
    """Arm the seat's next run with the zygote (:class:`~.zygote.Armed`): the run as
    ``spawn`` says but its core, which comes with the go.  ZygoteUnavailable: not armed."""
    go_fd = FIRST_NS_FD + len(spawn.ns_fds)  # after the namespaces' fds
    (status_r, out_r, err_r), theirs = _run_pipes()
    go_r, go_w = os.pipe2(os.O_CLOEXEC)
    try:
        zygote.arm(
            arm_key(spawn, cg),
            lambda: _zygote_words(dataclasses.replace(spawn, cpu=None), cg, go_fd),
            spawn.env,
            [*theirs, *spawn.ns_fds, go_r],
            (status_r, out_r, err_r, go_w),
        )
    finally:
        for fd in (*theirs, go_r):
            os.close(fd)


def _start_by_zygote(zygote: Zygote, spawn: Spawn, cg: RunCgroup | None) -> Started:
    """The run's helper process made by the seat's zygote, with the same pipes a
    one-shot helper gets (its stdout and stderr are the program's)."""
    words = _zygote_words(spawn, cg)
    mine, theirs = _run_pipes()
    status_r, out_r, err_r = mine
    try:
        run = zygote.spawn(words, spawn.env, [*theirs, *spawn.ns_fds], out_r, err_r)
    except BaseException:
        for fd in mine:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    return Started(run, status_r)


def _zygote_words(spawn: Spawn, cg: RunCgroup | None, go_fd: int | None = None) -> list[str]:
    """A "run" request's words for the zygote, which hands the run its fds in order:
    the status pipe as STATUS_FD, then the namespaces' from FIRST_NS_FD (then the go
    pipe's, ``go_fd``, for an armed run)."""
    ns = tuple(range(FIRST_NS_FD, FIRST_NS_FD + len(spawn.ns_fds)))
    return run_words(spawn, STATUS_FD, cg, ns, go_fd)


def _run_pipes() -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A run's status, stdout and stderr pipes: the judge's read ends (the outputs
    ready to be drained) and the run's write ends."""
    status_r, status_w = os.pipe2(os.O_CLOEXEC)
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    try:
        for fd in (out_r, err_r):
            _ready_output(fd)
    except BaseException:
        for fd in (status_r, status_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    return (status_r, out_r, err_r), (status_w, out_w, err_w)


class OneShotLauncher:
    """A seat whose every run starts a one-shot helper (and the base of the others)."""

    kind = LauncherKind.ONESHOT
    #: the seat's persistent exec helper (None: none, every run is one-shot)
    zygote: Zygote | None = None

    def __init__(self, helper: Helper) -> None:
        self.helper = helper

    def armed_for(self, spawn: Spawn, kept: RunCgroup | None, wrapped: bool) -> Armed | None:
        """The run armed for this one after the seat's last run, if it is this run (the
        same command, limits and groups ``kept``; only the core may differ)."""
        return None

    def start(
        self, spawn: Spawn, cg: RunCgroup | None, armed: Armed | None, raw: RawRun
    ) -> Started | None:
        """Step "helper": the run's helper started with its status pipe; None (``raw``
        says why) when it cannot be."""
        return start_one_shot(self.helper, spawn, cg, raw)

    def arm_next(
        self, spawn: Spawn, groups: SeatGroups, limits: Limits, core: int | None, wrapped: bool
    ) -> None:
        """Step "release": the seat's next run made ready now, where this way can."""

    def close(self) -> None:
        """End whatever the seat's runs left of this launcher (its zygote)."""


class ZygoteLauncher(OneShotLauncher):
    """A seat whose runs' helpers are made by its zygote, started at its first run."""

    kind = LauncherKind.ZYGOTE

    def __init__(self, helper: Helper, protect: bool) -> None:
        super().__init__(helper)
        self.zygote: Zygote = Zygote(helper, protect=protect)

    def armed_for(self, spawn: Spawn, kept: RunCgroup | None, wrapped: bool) -> Armed | None:
        self.zygote.call_off()
        return None

    def start(
        self, spawn: Spawn, cg: RunCgroup | None, armed: Armed | None, raw: RawRun
    ) -> Started | None:
        """Made by the seat's zygote; a one-shot helper where the zygote could not even
        be asked (nothing was started); None (``raw`` says why) when it failed after."""
        try:
            return _start_by_zygote(self.zygote, spawn, cg)
        except ZygoteFailed as exc:
            raw.internal_error = str(exc)
            return None
        except ZygoteUnavailable:
            return super().start(spawn, cg, armed, raw)

    def close(self) -> None:
        self.zygote.close()


class ArmedLauncher(ZygoteLauncher):
    """A seat whose next run is armed right after each run (:class:`~.zygote.Armed`)."""

    kind = LauncherKind.ARMED

    def armable(self, spawn: Spawn, wrapped: bool) -> bool:
        """Whether a run like ``spawn`` is armed ahead of its turn: not a wrapped run
        (check-bot's file trace), nor a normal user's seat's (its process cap counts the
        uid's tasks when the helper starts: at the run, not a turn earlier); only through
        a zygote that makes runs.  A Windows run is armed too: its child waits, still
        root, without having touched wine, while the refresh after this run makes the
        seat's new wineserver (whose uid-wide kill of the old one passes it over), and
        connects to the new one when it execs wine's loader at its go."""
        return self.zygote.refused is None and not wrapped and spawn.nproc_extra is None

    def armed_for(self, spawn: Spawn, kept: RunCgroup | None, wrapped: bool) -> Armed | None:
        if not self.armable(spawn, wrapped):
            self.zygote.call_off()
            return None
        return self.zygote.take_armed(arm_key(spawn, kept))

    def start(
        self, spawn: Spawn, cg: RunCgroup | None, armed: Armed | None, raw: RawRun
    ) -> Started | None:
        """The armed run's go, on the run's core; made now (by the zygote) when there is
        none or it was called off meanwhile (nothing of it ran)."""
        if armed is not None:
            try:
                return Started(armed.go(spawn.cpu), armed.status_r)
            except (ZygoteUnavailable, ZygoteFailed):
                pass
        return super().start(spawn, cg, armed, raw)

    def arm_next(
        self, spawn: Spawn, groups: SeatGroups, limits: Limits, core: int | None, wrapped: bool
    ) -> None:
        """Arm the seat's next run now, after this one: its helper joins the groups and
        forks, and the child does its whole set-up while the referee and the other seat
        work, so the next run starts with a go.  Only where nothing of this run is left
        (the caller's to know), in the groups kept empty, their counters restarted before
        the armed run joins them (:meth:`SeatGroups.ready_to_arm`).  A next run that is
        not this one (another command or limits) calls it off and starts as usual."""
        if not self.armable(spawn, wrapped) or not groups.ready_to_arm(limits, core):
            return
        try:
            arm(self.zygote, spawn, groups.kept)
        except (ZygoteUnavailable, OSError):
            pass


def make_launcher(kind: LauncherKind, helper: Helper, protect: bool) -> OneShotLauncher:
    """A seat's launcher of ``kind``; one-shot where the helper cannot be a zygote here.
    ``protect``: root, the zygote is kept from the OOM killer and runs at a high priority."""
    if kind is LauncherKind.ONESHOT or not usable(helper):
        return OneShotLauncher(helper)
    if kind is LauncherKind.ZYGOTE:
        return ZygoteLauncher(helper, protect)
    return ArmedLauncher(helper, protect)
