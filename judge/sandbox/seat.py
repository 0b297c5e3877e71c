"""One team's seat for one round: its folders and uid, and its program run turn after turn.

A run is the steps of :data:`.steps.STEPS`, in that order, each timed under its
name by the method that takes it (docs/turn-path.md follows a turn from the
referee to the program's start).  :meth:`Seat.run_turn` reads as that list; each
concern is one collaborator the seat owns: its folders (:class:`~.seatfolder.SeatFolder`),
its cgroups (:class:`~.seatgroups.SeatGroups`), how its runs' helpers start (a
launcher, :mod:`.launcher`) and what lives beside its programs (a companion:
nothing for a native program, wine for a Windows one, :mod:`.companion`).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge.sandbox import supervise
from judge.sandbox.cgroups import CgroupError, RunCgroup
from judge.sandbox.companion import Companion
from judge.sandbox.cores import BOT_NICE, CoreBudget
from judge.sandbox.folders import remove_tree
from judge.sandbox.launcher import LauncherKind, Spawn, make_launcher
from judge.sandbox.namespaces import SeatNamespaces, make_namespaces
from judge.sandbox.probe import NsMode
from judge.sandbox.record import HelperRecord, RawRun
from judge.sandbox.request import Command, RunContext, RunRequest, TurnFailed, checked_argv
from judge.sandbox.seatfolder import SeatFolder
from judge.sandbox.seatgroups import SeatGroups
from judge.sandbox.starvation import Canary
from judge.sandbox.types import (
    Limits,
    ProgramUnreachable,
    RunResult,
    SandboxError,
    TurnRun,
    Verdict,
)
from judge.sandbox.uids import UidLease
from judge.sandbox.verdicts import decide
from judge.sandbox.wine import WineSupport
from judge.sandbox.wine.companion import Host, WineCompanion, wine_needed
from judge.sandbox.zygote import Armed

if TYPE_CHECKING:
    from judge.sandbox.probe import Machine

SEAT_PATH = "/usr/local/bin:/usr/bin:/bin"
#: exec/check failures that mean "this uid cannot run that program here".
UNREACHABLE_ERRNOS = {
    errno.ENOENT,
    errno.EACCES,
    errno.ENOEXEC,
    errno.ELOOP,
    errno.ENOTDIR,
    errno.ENAMETOOLONG,
    errno.EISDIR,
    errno.EPERM,
}
CHECK_TIME_S = 20.0


@dataclass(frozen=True)
class _Ready:
    """A run readied by the steps before its helper: what the helper is told, the run's
    limits, its groups (None: no cgroups), the run armed for it (None: none), and what
    works for it beside it (the seat's wineserver)."""

    spawn: Spawn
    limits: Limits
    cg: RunCgroup | None
    armed: Armed | None
    services: supervise.Services


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")[:40]
    return cleaned or "seat"


class Seat:
    """A team's private folder and uid for one round.  Use as a context manager.

    Not for concurrent use: one turn at a time per seat (two seats may run at once).
    """

    def __init__(
        self,
        machine: Machine,
        root: str,
        name: str,
        program_dir: Path | None,
        keep: str | None,
        keep_bytes: int,
        on_close: Callable[[Seat], None],
        wine: WineSupport | None = None,
        cores: CoreBudget | None = None,
        canary: Canary | None = None,
        launcher: LauncherKind = LauncherKind.ARMED,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"seat name must be a non-empty string, not {name!r}")
        SeatFolder.check_keep(keep, keep_bytes)
        self.name = name
        self.machine = machine
        #: a run holds one of these cores for its whole run (None: runs are not pinned)
        self._cores = cores
        #: the machine's starvation of ordinary processes, given back like waiting
        self._canary = canary
        self._on_close = on_close
        self._lock = threading.Lock()
        self._closed = False
        self._checked: set[tuple[str, ...]] = set()
        self._lease: UidLease | None = None
        self._ns: SeatNamespaces | None = None
        #: Windows programs: wine found by the sandbox (None: refused as without wine)
        self._wine_support = wine
        #: what lives beside the seat's programs (wine, from the first .exe run on)
        self.companion = Companion()
        #: how the seat's runs' exec helpers are started
        self.launcher = make_launcher(launcher, machine.helper, protect=machine.root)
        self._tag = f"{_safe_name(name)}-{secrets.token_hex(3)}"
        self.groups = SeatGroups(machine.cgroup, self._tag, lambda: self.companion.evict())
        #: a diagnostic tool started in front of every command of this seat, e.g.
        #: check-bot's file trace (``strace ... --``); it runs inside the run, as the seat's
        #: user, under the run's limits, around wine too.  Empty for judged runs.
        self.wrapper: tuple[str, ...] = ()
        self.base = os.path.join(root, f"seat-{self._tag}")
        #: the seat's folders once made (closed with the seat even if its set-up fails)
        self._made: SeatFolder | None = None
        try:
            self.folder = self._setup(program_dir, keep, keep_bytes)
        except BaseException:
            self._teardown()
            raise

    # ------------------------------------------------------------ set-up
    @property
    def uid(self) -> int | None:
        """The seat's own uid (None when not running as root)."""
        return self._lease.uid if self._lease else None

    @property
    def gid(self) -> int | None:
        return self._lease.gid if self._lease else None

    def _owner(self) -> tuple[int, int] | None:
        return (self._lease.uid, self._lease.gid) if self._lease else None

    def _setup(self, program_dir: Path | None, keep: str | None, keep_bytes: int) -> SeatFolder:
        m = self.machine
        if m.uid_pool is not None:
            self._lease = m.uid_pool.acquire()
            # A judge that crashed may have left processes under this uid.
            supervise.sweep_uid(m.helper, self._lease.uid, self._lease.gid)
        folder = SeatFolder(self.base, self.name, keep, keep_bytes, self._owner(), m.memfs, m.shm)
        self._made = folder
        if program_dir is not None:
            folder.copy_program(Path(program_dir))
        if m.ns_mode.per_seat:
            self._ns = make_namespaces(
                m.helper,
                view=m.ns_mode is NsMode.VIEW,
                seat_dir=self.base,
                tmp_dir=folder.tmpdir,
                staging=folder.staging,
                rw_dir=folder.rw,
            )
        return folder

    @property
    def program_dir(self) -> Path | None:
        """The seat's private copy of the bot's folder (None: none was given)."""
        return self.folder.program_dir

    @property
    def workdir(self) -> Path:
        """The run's working folder and HOME: inputs, outputs, the keep file."""
        return self.folder.workdir

    @property
    def rw(self) -> str:
        return self.folder.rw

    @property
    def tmpdir(self) -> str:
        return self.folder.tmpdir

    @property
    def trash(self) -> str:
        return self.folder.trash

    @property
    def keep(self) -> str | None:
        return self.folder.keep

    @property
    def keep_bytes(self) -> int:
        return self.folder.keep_bytes

    # ------------------------------------------------------------ commands
    def _spawn(
        self,
        argv: list[str],
        limits: Limits | None,
        check: bool = False,
        argcheck: tuple[int, ...] = (),
        cpu: int | None = None,
    ) -> Spawn:
        """What the exec helper is told for one run of this seat (``limits`` None: a check)."""
        m, companion = self.machine, self.companion
        # No core dumps; no real-time priority (a program that could make itself
        # real-time would starve the machine, and the judge gives starvation back).
        rl: list[tuple[str, int]] = [("core", 0), ("rtprio", 0)]
        nproc_extra = None
        if limits is not None:
            rl.append(("fsize", limits.file_bytes))
            if self._lease is not None:
                rl.append(("nproc", limits.max_procs + companion.nproc_slack))
            else:
                nproc_extra = limits.max_procs
        home = {"PATH": SEAT_PATH, "HOME": str(self.workdir), "LANG": "C.UTF-8"}
        return Spawn(
            argv=argv,
            cwd=str(self.workdir),
            env=companion.env(home),
            uid=self.uid,
            gid=self.gid,
            ns_fds=self._ns.fds if self._ns else (),
            unshare=m.ns_mode is NsMode.UNSHARE,
            rlimits=tuple(rl),
            nproc_extra=nproc_extra,
            oom_protect=m.root,
            check=check,
            argcheck=argcheck,
            tree_only_kill=companion.tree_only_kill,
            cpu=cpu,
            nice=BOT_NICE if cpu is not None else None,
        )

    def check(self, argv: list[str]) -> None:
        """Make sure this seat's uid can run ``argv`` in its view.

        Raises ProgramUnreachable naming the path and the reason (program missing
        or not executable for the uid, interpreter of a script unreachable, an
        absolute path argument the judge sees but the seat cannot read), or
        SandboxError if the check itself could not run.  run_turn() calls it the
        first time it sees a command, so a bad command fails loudly at once
        instead of giving RE on every turn.
        """
        given = checked_argv(argv)
        argv = self._command(given)
        self.folder.emptied = False  # the check runs in the seat's folder too
        argcheck = tuple(
            i for i, a in enumerate(argv) if i > 0 and a.startswith("/") and os.path.exists(a)
        )
        raw = supervise.run(
            self.machine.helper,
            self._spawn(argv, None, check=True, argcheck=argcheck),
            time_s=CHECK_TIME_S,
            memory_bytes=2**40,
            output_bytes=4096,
            cg=None,
            poll_s=1.0,
            kill_uid=self._owner(),
        )
        rec = raw.record
        if rec is None or raw.internal_error:
            raise SandboxError(
                f"seat {self.name!r}: cannot check the command {argv}: "
                f"{raw.internal_error or 'no status record'}"
            )
        self._raise_unreachable(argv, rec)
        failed = rec.setup or rec.child
        if failed is not None:
            raise SandboxError(f"seat {self.name!r}: cannot prepare a run: {failed.error}")
        self._checked.add(tuple(given))

    def _command(self, argv: list[str]) -> list[str]:
        """The command that really runs, as the seat's companion says: a Windows program
        goes through wine, the seat's wine started before its first one (refused with the
        reason if wine cannot run it here: :func:`~.wine.companion.wine_needed`)."""
        if wine_needed(argv, self.companion, self._wine_support):
            self._start_wine()
        return self.companion.command(argv).argv

    def _start_wine(self) -> None:
        """Before the seat's first Windows run: its wine (prefix, server, a test run)."""
        assert self._wine_support is not None
        host = Host(self.name, self.machine.helper, self._host_spawn, self.groups, self.folder)
        wine = WineCompanion(self._wine_support, host, view=self.machine.ns_mode is NsMode.VIEW)
        self.companion = wine  # from here on every run of this seat goes through wine
        try:
            wine.start()
        except BaseException:
            self.companion = Companion()
            raise

    def _host_spawn(self, argv: list[str], limits: Limits, core: int | None) -> Spawn:
        return self._spawn(argv, limits, cpu=core)

    def _raise_unreachable(self, argv: list[str], rec: HelperRecord) -> None:
        child = rec.child
        if child is None or child.stage not in ("check", "exec"):
            return
        if child.stage == "check" or child.errno in UNREACHABLE_ERRNOS:
            uid = f"uid {self.uid}" if self.uid is not None else "the judge's uid"
            raise ProgramUnreachable(argv[0], f"{child.error} (seat {self.name!r}, {uid})")

    def wine_server_pids(self) -> list[int]:
        """The seat's wineserver, if it has one now (its wine starts with the first .exe run)."""
        return self.companion.server_pids()

    # ------------------------------------------------------------ a turn, step by step
    def run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        *,
        starting: Callable[[], None] | None = None,
        discard_stalled: bool = False,
    ) -> TurnRun:
        """Run the program once, in the steps of :data:`.steps.STEPS` (see docs/turn-path.md).

        ``starting`` is called once, from this thread, when the judge's own work
        before the program is done (folder, core, groups) and its start is next, or
        when the call ends without getting that far: a caller running two seats lets
        the second one's Python work wait for it, instead of both sharing the
        interpreter lock while neither program runs yet (:meth:`~.pair.SeatPair.run`).  It
        is called with the seat busy and a core held: it must be quick (setting an
        event) and must not raise.  ``discard_stalled``: a time-out the disk decided
        (``stalled_on_disk``) will be run again, so it leaves the seat as an IE does."""
        ctx = RunContext(starting)
        try:
            with ctx.timed("accept"):
                request = RunRequest.checked(argv, inputs, outputs, limits, keep=self.keep)
                self._accept()
            try:
                return self._run(request, ctx, discard_stalled)
            finally:
                self._lock.release()
        finally:
            ctx.starting()

    def _accept(self) -> None:
        """Step "accept": the seat taken for this turn (RuntimeError: busy, or closed)."""
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(f"seat {self.name!r} is already running a turn")
        if self._closed:
            self._lock.release()
            raise RuntimeError(f"seat {self.name!r} is closed")

    def _run(self, request: RunRequest, ctx: RunContext, discard_stalled: bool) -> TurnRun:
        """The steps after "accept".  A run judged IE (the judge's failure, which the
        referee runs again), or a time-out the disk decided with ``discard_stalled``,
        leaves the seat as it found it: its keep file put back, so the run that counts
        starts exactly as the discarded one did."""
        try:
            command = self._resolve(request.argv, ctx)
            self.companion.before_run(command, ctx)
            spare = self.companion.tmp_spare()
            saved = self.folder.prepare(request.inputs, self.companion.lives_on, spare, ctx)
        except TurnFailed as failed:
            return ctx.failed(failed)
        try:
            turn = self._judged(command, request, ctx)
        except TurnFailed as failed:
            turn = ctx.failed(failed)
        r = turn.result
        if r.verdict is Verdict.IE or (discard_stalled and r.stalled_on_disk):
            self.folder.roll_back(saved, ctx)
        return turn

    def _resolve(self, argv: list[str], ctx: RunContext) -> Command:
        """Step "resolve": the command that really runs, checked the first time it is seen
        (ProgramUnreachable: the seat cannot run it)."""
        with ctx.timed("resolve"):
            if tuple(argv) not in self._checked:
                try:
                    self.check(argv)
                except SandboxError as exc:
                    raise TurnFailed(str(exc)) from exc
            command = self.companion.command(argv)
            if self.wrapper:
                command = Command([*self.wrapper, *command.argv], command.windows)
            return command

    def _judged(self, command: Command, request: RunRequest, ctx: RunContext) -> TurnRun:
        """Steps "core" to "verdict": the run on a core of its own; its outputs, its verdict.

        The core is taken before the clock starts and given back once the tree is gone:
        a run never waits for a core during its time, nor shares one with another run."""
        limits = request.limits
        with ctx.timed("core"):
            core = self._cores.acquire(self.name) if self._cores is not None else None
        self.folder.emptied = False  # the program writes in its folders from here on
        try:
            with ctx.timed("core"):
                self.companion.pin(command, core)
            raw, cg = self._execute(command, limits, core, ctx)
            self.companion.after_run(command, core, ctx)
        finally:
            if core is not None and self._cores is not None:
                with ctx.timed("core"):
                    self._cores.release(core)
        spare = self.companion.tmp_spare()
        outputs, biggest = self.folder.collect(request.outputs, limits.file_bytes, spare, ctx)
        with ctx.timed("verdict"):
            result = self._verdict(command, raw, limits, biggest, cg is not None and cg.memory)
            result = self.companion.judge(command, raw, result, ctx)
        return ctx.turn(result, outputs)

    def _execute(
        self, command: Command, limits: Limits, core: int | None, ctx: RunContext
    ) -> tuple[RawRun, RunCgroup | None]:
        """Steps "cgroup" to "release": the run itself, in the seat's groups, on ``core``."""
        wrapped = bool(self.wrapper)
        spawn = self._spawn(command.argv, limits, cpu=core)
        armed = self.launcher.armed_for(spawn, self.groups.kept, wrapped)
        try:
            with ctx.timed("cgroup"):
                cg, armed = self.groups.ready(limits, core, armed)
                ready = _Ready(spawn, limits, cg, armed, self.companion.join(command, cg, ctx))
        except CgroupError as exc:  # nothing ran: the judge's failure
            if armed is not None:
                armed.call_off()
            raw = supervise.new_raw(limits.output_bytes)
            raw.internal_error = str(exc)
            return raw, None
        finished = False
        try:
            raw = self._watched(ready, ctx)
            finished = True
        finally:
            if armed is not None:
                armed.call_off()  # the run never got to its start (a started one is left)
            with ctx.timed("release"):
                kept = finished and cg is not None and cg.is_empty()
                self.companion.leave(kept, ctx)
                stragglers = self.groups.release(cg, kept, ctx.notes)
        with ctx.timed("release"):
            if stragglers:
                raw.survivors = stragglers
            else:  # as soon as the run is over: the referee and the other seat work meanwhile
                self.launcher.arm_next(spawn, self.groups, limits, core, wrapped)
        return raw, cg

    def _watched(self, ready: _Ready, ctx: RunContext) -> RawRun:
        """Steps "helper", "program" and "waits": the run's helper started (the caller's
        ``starting`` first), the run watched until it and all it started are gone, its
        counters read.  Never raises for anything the program does: judge-side failures
        are the raw run's ``internal_error``."""
        m, limits, cg = self.machine, ready.limits, ready.cg
        raw = supervise.new_raw(limits.output_bytes)
        base = ready.services.base()  # the services' figures before the run
        ctx.starting()
        asked = time.monotonic()
        started = self.launcher.start(ready.spawn, cg, ready.armed, raw)
        if started is None:
            return raw
        meters = supervise.Meters.of(
            cg, started.proc.pid, ready.services, base, self._canary, limits.time_s
        )
        bounds = supervise.Bounds(
            limits.time_s, limits.memory_bytes, cg, m.poll_interval_s, self._owner()
        )
        supervise.watch(m.helper, started, raw, asked, bounds, meters)
        waits_from = time.monotonic()
        supervise.read_waits(raw, meters, cg)
        program = (raw.record.wall_s if raw.record is not None else None) or 0.0
        ctx.steps.add("program", program)
        ctx.steps.add("helper", (waits_from - asked) - program)
        ctx.steps.add("waits", time.monotonic() - waits_from)
        return raw

    def _verdict(
        self,
        command: Command,
        raw: RawRun,
        limits: Limits,
        biggest: tuple[str, int] | None,
        memory_by_cgroup: bool,
    ) -> RunResult:
        """Step "verdict": what was observed, judged (ProgramUnreachable for a command
        the seat's uid could not even start)."""
        if raw.record is not None:
            self._raise_unreachable(command.argv, raw.record)
        return decide(raw, limits, biggest, memory_by_cgroup, files_in_memory=self.folder.in_memory)

    def reset(self) -> None:
        """New round: remove the keep file too (it starts absent: the referee's ruling R15)."""
        with self._lock:
            if self._closed:
                raise RuntimeError(f"seat {self.name!r} is closed")
            self.folder.clean(keep=False, notes=None, spare=self.companion.tmp_spare())

    # ------------------------------------------------------------ closing
    def _teardown(self) -> None:
        folder = self._made
        try:
            self.launcher.close()
            self.companion.close()
            self.groups.close()
            if self._lease is not None and self._lease.held:
                try:
                    supervise.sweep_uid(self.machine.helper, self._lease.uid, self._lease.gid)
                except (OSError, SandboxError):
                    pass
            if self._ns is not None:
                self._ns.close()
        finally:
            if folder is not None:  # its memory back, whatever failed above
                folder.release_memory()
        remove_tree(self.base)
        if self._lease is not None:
            self._lease.release()

    def close(self) -> None:
        """Kill anything left, remove the seat's folders, release its uid (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._teardown()
            finally:
                self._on_close(self)

    def __enter__(self) -> Seat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Seat({self.name!r}, uid={self.uid}, workdir={str(self.workdir)!r})"
