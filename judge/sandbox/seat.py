"""One team's folder for one round, and running its program turn after turn.

Layout of a seat (as root; ``U`` = the seat's uid/gid)::

    <root>/seat-<name>-<rand>/   root:U   0750   only this seat can even enter
        work/                    U:U      0700   cwd and HOME: inputs, outputs, the keep file
        prog/                    root:U   0750   private read-only copy of the bot's folder
        tmp/                     U:U      0700   the seat's /tmp (in its filesystem view)
        trash/                   root     0700   cleaning happens here
        .view/                   root     0700   mount point used to build the view

As a normal user everything is the judge's, 0700.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from judge.sandbox import supervise
from judge.sandbox.cgroups import CgroupError, RunCgroup
from judge.sandbox.cores import BOT_NICE, CoreBudget
from judge.sandbox.folders import (
    Cleaner,
    check_name,
    copy_program,
    read_outputs,
    remove_tree,
    restore_file,
    save_file,
    write_inputs,
)
from judge.sandbox.memfs import mount_tmpfs, remove_own_folder, shm_prefix, unmount
from judge.sandbox.namespaces import SeatNamespaces, make_namespaces
from judge.sandbox.probe import NsMode
from judge.sandbox.record import HelperRecord, RawRun
from judge.sandbox.starvation import Canary
from judge.sandbox.steps import StepTimes
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
from judge.sandbox.wine import (
    NPROC_SLACK,
    SERVER_MEMORY,
    SERVER_PROCS,
    WineSeat,
    WineSupport,
    refusal,
    windows_target,
)
from judge.sandbox.zygote import Armed, Zygote, ZygoteUnavailable
from judge.sandbox.zygote import arming as zygote_arm
from judge.sandbox.zygote import usable as zygote_usable

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
#: Run once when a seat's wine starts: proves the prefix, server and view work.
PROBE_COMMAND = ("C:\\windows\\system32\\cmd.exe", "/c", "exit 0")


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
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"seat name must be a non-empty string, not {name!r}")
        self.name = name
        self.keep = check_name(keep, "keep file name") if keep is not None else None
        if not isinstance(keep_bytes, int) or keep_bytes < 0:
            raise ValueError(f"keep_bytes must be a non-negative integer, not {keep_bytes!r}")
        self.keep_bytes = keep_bytes
        self._m = machine
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
        #: the seat's writable folders are a tmpfs of their own, to take away at close
        self._mounted = False
        #: the seat's writable folders are outside its folder (in /dev/shm), to remove too
        self._rw_apart = False
        #: Windows programs: wine found by the sandbox, and this seat's prefix and server
        self._wine_support = wine
        self._wine: WineSeat | None = None
        #: runs in a row that wine failed (see _wine_verdict)
        self._wine_failures = 0
        #: the folders hold nothing but a valid keep file, and nothing ran since they were
        #: emptied: the next run's folder step need not walk them again
        self._emptied = False
        #: the seat's run cgroups, kept between runs (see _run_cgroup)
        self._cg: RunCgroup | None = None
        #: the seat's persistent exec helper for its judged runs, started at the first one
        #: (None: runs start a one-shot helper each, e.g. the Python fallback helper)
        self._zygote: Zygote | None = (
            Zygote(machine.helper, protect=machine.root) if zygote_usable(machine.helper) else None
        )
        self._tag = f"{_safe_name(name)}-{secrets.token_hex(3)}"
        self.base = os.path.join(root, f"seat-{self._tag}")
        try:
            self._setup(program_dir)
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

    def _setup(self, program_dir: Path | None) -> None:
        m = self._m
        if m.uid_pool is not None:
            self._lease = m.uid_pool.acquire()
            # A judge that crashed may have left processes under this uid.
            supervise.sweep_uid(m.helper, self._lease.uid, self._lease.gid)
        uid, gid = self.uid, self.gid
        os.mkdir(self.base, 0o700)
        # What runs write (the work folder, the private /tmp) and the trash their
        # clean moves folders to (a rename: the same file system) are in "rw": a
        # tmpfs of the seat's own as root, a folder of its own in /dev/shm for a
        # normal user, where it can (judge.sandbox.memfs).
        if m.shm:  # a normal user's (root's are a tmpfs of their own: m.memfs)
            self.rw = tempfile.mkdtemp(prefix=shm_prefix(), dir=m.shm)
            self._rw_apart = True
        else:
            self.rw = os.path.join(self.base, "rw")
            os.mkdir(self.rw, 0o700)
        self.workdir = Path(self.rw, "work")
        self.tmpdir = os.path.join(self.rw, "tmp")
        self.trash = os.path.join(self.rw, "trash")
        self._staging = os.path.join(self.base, ".view")
        os.mkdir(self._staging, 0o700)
        if m.memfs:
            why = mount_tmpfs(self.rw, 0o750 if gid is not None else 0o700, gid)
            if why is not None:
                raise SandboxError(f"seat {self.name!r}: {why}")
            self._mounted = True
        for d in (str(self.workdir), self.tmpdir, self.trash):
            os.mkdir(d, 0o700)
        if uid is not None and gid is not None:
            for d in (str(self.workdir), self.tmpdir):
                os.chown(d, uid, gid)
            for d in (self.base, self.rw):
                os.chown(d, 0, gid)
                os.chmod(d, 0o750)
        self.program_dir: Path | None = None
        #: a diagnostic tool started in front of every command of this seat, e.g.
        #: check-bot's file trace (``strace ... --``); it runs inside the run, as the seat's
        #: user, under the run's limits, around wine too.  Empty for judged runs.
        self.wrapper: tuple[str, ...] = ()
        if program_dir is not None:
            src = Path(program_dir)
            if not src.is_dir():
                raise ValueError(f"program_dir {src} of seat {self.name!r} is not a folder")
            dst = os.path.join(self.base, "prog")
            copy_program(src, dst, gid)
            self.program_dir = Path(dst)
        self._emptied = True  # made just now, empty
        if m.ns_mode.per_seat:
            self._ns = make_namespaces(
                m.helper,
                view=m.ns_mode is NsMode.VIEW,
                seat_dir=self.base,
                tmp_dir=self.tmpdir,
                staging=self._staging,
                rw_dir=self.rw,
            )

    # ------------------------------------------------------------ running
    def _env(self) -> dict[str, str]:
        return {"PATH": SEAT_PATH, "HOME": str(self.workdir), "LANG": "C.UTF-8"}

    def _spawn(
        self,
        argv: list[str],
        limits: Limits | None,
        check: bool = False,
        argcheck: tuple[int, ...] = (),
        cpu: int | None = None,
    ) -> supervise.Spawn:
        m = self._m
        # No core dumps; no real-time priority (a program that could make itself
        # real-time would starve the machine, and the judge gives starvation back).
        rl: list[tuple[str, int]] = [("core", 0), ("rtprio", 0)]
        nproc_extra = None
        wine = self._wine
        if limits is not None:
            rl.append(("fsize", limits.file_bytes))
            if self._lease is not None:
                rl.append(("nproc", limits.max_procs + (NPROC_SLACK if wine else 0)))
            else:
                nproc_extra = limits.max_procs
        return supervise.Spawn(
            argv=argv,
            cwd=str(self.workdir),
            env=wine.env(self._env()) if wine else self._env(),
            uid=self.uid,
            gid=self.gid,
            ns_fds=self._ns.fds if self._ns else (),
            unshare=m.ns_mode is NsMode.UNSHARE,
            rlimits=tuple(rl),
            nproc_extra=nproc_extra,
            oom_protect=m.root,
            check=check,
            argcheck=argcheck,
            # The seat's wineserver shares the uid: a run kills its own tree only.
            tree_only_kill=wine is not None,
            cpu=cpu,
            nice=BOT_NICE if cpu is not None else None,
        )

    def _kill_uid(self) -> tuple[int, int] | None:
        return (self._lease.uid, self._lease.gid) if self._lease else None

    def check(self, argv: list[str]) -> None:
        """Make sure this seat's uid can run ``argv`` in its view.

        Raises ProgramUnreachable naming the path and the reason (program missing
        or not executable for the uid, interpreter of a script unreachable, an
        absolute path argument the judge sees but the seat cannot read), or
        SandboxError if the check itself could not run.  run_turn() calls it the
        first time it sees a command, so a bad command fails loudly at once
        instead of giving RE on every turn.
        """
        given = self._validate_argv(argv)
        argv = self._command(given)
        self._emptied = False  # the check runs in the seat's folder too
        argcheck = tuple(
            i for i, a in enumerate(argv) if i > 0 and a.startswith("/") and os.path.exists(a)
        )
        raw = supervise.run(
            self._m.helper,
            self._spawn(argv, None, check=True, argcheck=argcheck),
            time_s=CHECK_TIME_S,
            memory_bytes=2**40,
            output_bytes=4096,
            cg=None,
            poll_s=1.0,
            kill_uid=self._kill_uid(),
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

    # ------------------------------------------------------------ Windows programs
    def _command(self, argv: list[str]) -> list[str]:
        """The command that really runs: a Windows program goes through wine (its
        seat's prefix and server made ready first; refused with the reason if it
        cannot run here)."""
        idx = windows_target(argv)
        if idx is None:
            return argv
        support = self._wine_support
        why = refusal(argv[idx], support.install if support is not None else None)
        if why is not None:
            raise ProgramUnreachable(argv[idx], why)
        if self._wine is None:
            self._start_wine()
        assert self._wine is not None
        return self._wine.argv(argv)

    def _start_wine(self) -> None:
        """Before turn 1: the seat's prefix, its wineserver, one trivial program run."""
        assert self._wine_support is not None
        wine = WineSeat(
            self._wine_support,
            self.base,
            self.uid,
            self.gid,
            self.tmpdir,
            view=self._m.ns_mode is NsMode.VIEW,
        )
        self._wine = wine  # from here on every run of this seat goes through wine
        try:
            wine.prepare()
            self._start_wine_server()
        except BaseException as exc:
            wine.close()
            self._wine = None
            remove_tree(wine.dir)  # the next attempt starts from nothing
            if isinstance(exc, OSError):
                raise SandboxError(f"seat {self.name!r}: cannot prepare wine: {exc}") from exc
            raise

    def _server_cgroup(self) -> RunCgroup | None:
        """A cgroup of its own for the seat's wineserver (None: no cgroups here)."""
        backend = self._m.cgroup
        if backend is None:
            return None
        return backend.create(f"{self._tag}-wineserver", SERVER_MEMORY, SERVER_PROCS)

    def _server_spawn(self, core: int | None) -> Callable[[list[str]], supervise.Spawn]:
        """How the seat's wineserver is started (on ``core``, at the bots' priority)."""
        return lambda argv: self._spawn(argv, Limits(), cpu=core)

    def _start_wine_server(self) -> None:
        """Start (or restart) the seat's wineserver, check a program runs, then give the
        seat a fresh server: every run, the first included, starts on a server that
        nothing ran on before (the judge's test program ran on the first one)."""
        wine = self._wine
        assert wine is not None
        wine.start(self._m.helper, self._server_spawn(None), self._server_cgroup)
        why = self._wine_probe()
        if why is not None:
            raise SandboxError(f"seat {self.name!r}: wine cannot run a program here: {why}")
        self._clean(keep=True, report=None)
        wine.refresh(self._m.helper, self._server_spawn(None), self._server_cgroup, [])

    def _wine_probe(self) -> str | None:
        """Run the judge's own trivial Windows program (cmd.exe): why wine cannot run
        it, or None when it ran."""
        wine = self._wine
        assert wine is not None
        probe = [wine.install.loader64, *PROBE_COMMAND]
        raw = supervise.run(
            self._m.helper,
            self._spawn(probe, Limits(time_s=CHECK_TIME_S)),
            time_s=CHECK_TIME_S,
            memory_bytes=2**40,
            output_bytes=4096,
            cg=None,
            poll_s=1.0,
            kill_uid=None,
        )
        st = raw.main_status
        if raw.internal_error or st is None or not os.WIFEXITED(st) or os.WEXITSTATUS(st):
            return (
                raw.internal_error
                or (raw.record.child.error if raw.record and raw.record.child else None)
                or (f"status {st}: {raw.stderr.data.decode('utf-8', 'replace').strip()[-300:]}")
            )
        return None

    def _refresh_wine(self, core: int | None, discarded: list[str]) -> None:
        """After a run, on its core: a new wineserver with the template's registry, so
        nothing the program left in wine reaches its next run."""
        wine = self._wine
        assert wine is not None
        try:
            wine.refresh(
                self._m.helper, self._server_spawn(core), self._server_cgroup, discarded, core
            )
        except (OSError, SandboxError) as exc:
            wine.stop()  # made afresh, and proven, before the next run
            discarded.append(f"wine: could not be made afresh after this run: {exc}")
            return
        # Lent to the seat's kept pressure group now, not at the next run's start: a
        # cgroup move waits for an RCU grace period when none happened for a while, and
        # the refresh's own (the server after next armed) is a few ms old now.  Idle till
        # the run, the server adds nothing to the group's counters, which the run counts
        # from its own start.
        cg = self._cg
        if cg is not None and cg.pressure_only_dir is not None:
            wine.lend_server(cg.pressure_only_dir)

    def wine_server_pids(self) -> list[int]:
        """The seat's wineserver, if it has one now (its wine starts with the first .exe run)."""
        return self._wine.server_pids() if self._wine is not None else []

    def _raise_unreachable(self, argv: list[str], rec: HelperRecord) -> None:
        child = rec.child
        if child is None or child.stage not in ("check", "exec"):
            return
        if child.stage == "check" or child.errno in UNREACHABLE_ERRNOS:
            uid = f"uid {self.uid}" if self.uid is not None else "the judge's uid"
            raise ProgramUnreachable(argv[0], f"{child.error} (seat {self.name!r}, {uid})")

    @staticmethod
    def _validate_argv(argv: list[str]) -> list[str]:
        if (
            not isinstance(argv, (list, tuple))
            or not argv
            or not all(isinstance(a, str) and a and "\0" not in a for a in argv[:1])
            or not all(isinstance(a, str) and "\0" not in a for a in argv)
        ):
            raise ValueError(f"argv must be a non-empty list of strings without NUL, not {argv!r}")
        return list(argv)

    def run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        *,
        starting: Callable[[], None] | None = None,
    ) -> TurnRun:
        """Run the program once (see the module and package docs for every step).

        ``starting`` is called once, from this thread, when the judge's own work
        before the program is done (folder, core, groups) and its start is next, or
        when the call ends without getting that far: a caller running two seats lets
        the second one's Python work wait for it, instead of both sharing the
        interpreter lock while neither program runs yet.  It is called
        with the seat busy and a core held: it must be quick (setting an event) and
        must not raise."""
        once = _Once(starting)
        try:
            return self._run_turn(argv, inputs, outputs, limits, once)
        finally:
            once()

    def _run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        starting: Callable[[], None],
    ) -> TurnRun:
        argv = self._validate_argv(argv)
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, not {type(limits).__name__}")
        for name in inputs:
            check_name(name, "input file name")
            if name == self.keep:
                raise ValueError(
                    f"input file {name!r} is the seat's keep file; the judge never writes it"
                )
            if not isinstance(inputs[name], (bytes, bytearray, memoryview)):
                raise TypeError(f"input {name!r} must be bytes, not {type(inputs[name]).__name__}")
        for name in outputs:
            check_name(name, "output file name")
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(f"seat {self.name!r} is already running a turn")
        try:
            if self._closed:
                raise RuntimeError(f"seat {self.name!r} is closed")
            if tuple(argv) not in self._checked:
                try:
                    self.check(argv)
                except SandboxError as exc:
                    return self._ie(str(exc))
            return self._run(argv, inputs, outputs, limits, starting)
        finally:
            self._lock.release()

    def _ie(self, message: str, discarded: tuple[str, ...] = ()) -> TurnRun:
        return TurnRun(
            RunResult(
                Verdict.IE, 0.0, 0.0, 0, None, None, b"", b"", f"judge internal error: {message}"
            ),
            {},
            discarded,
        )

    def _restore_modes(self) -> None:
        """The program owns its folders and may have opened them up (or locked the
        judge out when not root): set them back.  Without a uid of its own it owns the
        folders above them too."""
        if self._lease is None:
            os.chmod(self.base, 0o700)
            os.chmod(self.rw, 0o700)
        os.chmod(self.workdir, 0o700)
        os.chmod(self.tmpdir, 0o700)

    def _clean(
        self, keep: bool, report: list[str] | None, modes: bool = True
    ) -> tuple[str, int] | None:
        self._emptied = False  # until the walk below has finished
        cleaner = Cleaner(self.trash)
        if modes:
            self._restore_modes()
        cleaner.clean(self.tmpdir, spare=self._wine.tmp_spare() if self._wine else frozenset())
        cleaner.clean(str(self.workdir), self.keep if keep else None, self.keep_bytes, report)
        self._emptied = True
        return cleaner.biggest

    def _owner(self) -> tuple[int, int] | None:
        uid, gid = self.uid, self.gid
        return (uid, gid) if uid is not None and gid is not None else None

    def _run(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        starting: Callable[[], None],
    ) -> TurnRun:
        """One run in its named steps (:mod:`.steps`), each timed; a run judged IE leaves
        the seat as it found it.

        The keep file is all the seat carries from run to run, so it is saved before
        the run and put back after an IE (the judge's failure, which the referee runs
        again): the run that counts starts exactly as the discarded one did.
        """
        steps = StepTimes()
        discarded: list[str] = []
        windows = self._wine is not None and windows_target(argv) is not None
        if windows:
            assert self._wine is not None
            with steps.timed("wine"):
                why = self._restart_wine_if_needed(discarded)
            if why is not None:
                return self._ie(why, tuple(discarded))
            argv = self._wine.argv(argv)
        if self.wrapper:
            argv = [*self.wrapper, *argv]
        try:
            with steps.timed("folder"):
                saved = self._prepare_folder(inputs, discarded)
        except OSError as exc:
            return self._ie(
                f"cannot prepare the folder of seat {self.name!r}: {exc}", tuple(discarded)
            )
        turn = self._execute(argv, outputs, limits, windows, discarded, steps, starting)
        if turn.result.verdict is Verdict.IE:
            self._roll_back(saved)
        return dataclasses.replace(turn, steps=steps)

    def _restart_wine_if_needed(self, discarded: list[str]) -> str | None:
        """Step "wine", before the inputs (a restart cleans the folder): a fresh wineserver
        when the last one cannot serve another run; why not, if it could not be made."""
        wine = self._wine
        assert wine is not None
        if not wine.needs_restart():
            return None
        try:
            discarded.append(wine.restart_note())
            wine.stop()
            wine.reset_if_needed()
            self._start_wine_server()
        except (OSError, SandboxError) as exc:
            return f"cannot restart wine: {exc}"
        return None

    def _prepare_folder(
        self, inputs: dict[str, bytes], discarded: list[str]
    ) -> tuple[bytes, int] | None:
        """Step "folder": empty the work folder but the keep file, save that, write the inputs.

        Returns the keep file as it was (None: absent), for :meth:`_roll_back`.  The
        folders were emptied after the last run, and nothing that can write in them has
        run since (the exec helper outlives every process of a run; only the seat's uid
        can write there), so they are walked again only when that clean did not finish,
        when a seat-long wineserver of the seat's uid lived on meanwhile, or when the
        seat has no uid of its own (a normal user's judge: another seat's program, of
        the same uid, may have written there while this seat waited).
        """
        if not self._emptied or self._wine is not None or self._lease is None:
            self._clean(keep=True, report=discarded)
        saved = None
        if self.keep is not None:
            saved = save_file(str(self.workdir), self.keep, self.keep_bytes)
        write_inputs(str(self.workdir), {k: bytes(v) for k, v in inputs.items()}, self._owner())
        return saved

    def _roll_back(self, saved: tuple[bytes, int] | None) -> None:
        """After a discarded run: the keep file back as it was before it (the folder is
        already emptied of everything else)."""
        if self.keep is None:
            return
        try:
            restore_file(str(self.workdir), self.keep, saved, self._owner())
        except OSError as exc:
            raise SandboxError(
                f"seat {self.name!r}: cannot put {self.keep} back as it was before a run "
                f"the judge discarded: {exc}"
            ) from exc

    def _take_core(self) -> int | None:
        """Step "core": a core of the budget for this run alone (None: runs are not pinned).

        Taken before the clock starts and given back once the tree is gone: a run never
        waits for a core during its time, nor shares one with another run."""
        return self._cores.acquire(self.name) if self._cores is not None else None

    def _give_core_back(self, core: int | None) -> None:
        if core is not None and self._cores is not None:
            self._cores.release(core)

    def _execute(
        self,
        argv: list[str],
        outputs: list[str],
        limits: Limits,
        windows: bool,
        discarded: list[str],
        steps: StepTimes,
        starting: Callable[[], None],
    ) -> TurnRun:
        """Run the prepared program on a core of its own; read, clean, decide."""
        with steps.timed("core"):
            core = self._take_core()
        self._emptied = False  # the program writes in its folders from here on
        try:
            if windows and core is not None:
                assert self._wine is not None
                # The seat's wineserver works for this run: on its core, not another run's.
                with steps.timed("wine"):
                    self._wine.pin_server(core)
            ran = self._supervised(argv, limits, core, discarded, windows, steps, starting)
            if self._wine is not None:
                with steps.timed("wine"):
                    self._wine.after_run(discarded)
                    if windows:
                        self._refresh_wine(core, discarded)
        finally:
            with steps.timed("core"):
                self._give_core_back(core)
        if isinstance(ran, str):  # the run's cgroup could not be made
            self._clean(keep=True, report=discarded)
            return self._ie(ran, tuple(discarded))
        raw, cg = ran
        try:
            with steps.timed("clean"):
                self._restore_modes()  # before the outputs: the way to them may be shut
                outs = read_outputs(str(self.workdir), outputs, limits.file_bytes, discarded)
                biggest = self._clean(keep=True, report=discarded, modes=False)
        except OSError as exc:
            return self._ie(
                f"cannot clean the folder of seat {self.name!r}: {exc}", tuple(discarded)
            )
        with steps.timed("verdict"):
            result = self._verdict(argv, raw, cg, limits, biggest, windows, discarded)
        return TurnRun(result, outs, tuple(discarded))

    def _verdict(
        self,
        argv: list[str],
        raw: RawRun,
        cg: RunCgroup | None,
        limits: Limits,
        biggest: tuple[str, int] | None,
        windows: bool,
        discarded: list[str],
    ) -> RunResult:
        """Step "verdict": what was observed, judged (ProgramUnreachable for a command
        the seat's uid could not even start)."""
        if raw.record is not None:
            self._raise_unreachable(argv, raw.record)
        result = decide(
            raw,
            limits,
            biggest,
            memory_by_cgroup=cg is not None and cg.memory,
            files_in_memory=self._mounted,
        )
        if windows:
            assert self._wine is not None
            result = self._wine_verdict(raw, self._wine.explain(result), discarded)
        return result

    def _wine_verdict(self, raw: RawRun, result: RunResult, discarded: list[str]) -> RunResult:
        """A run wine failed (not the program: see :meth:`WineSeat.failure`) is IE, so
        the referee runs it again.  From the second time in the seat's
        round on, the judge first runs its own test program: if wine runs that, wine
        works here and the failure is this program's doing (it stopped its wineserver,
        say): RE, naming what wine said; if not, wine is broken here: IE again, and the
        round stops."""
        wine = self._wine
        assert wine is not None
        if result.verdict not in (Verdict.OK, Verdict.RE):
            # Only a run that ended by itself is looked at: a time-out, a broken memory
            # or file cap stand as they are, and an IE (kept waiting) is retried as one.
            return result
        why = wine.failure(raw.stderr.head, raw.stderr.data)
        if why is None:
            return result
        # Counted over the seat's round, not reset by a good run: a program cannot
        # throw away one unwanted run a turn by stopping its wineserver.
        self._wine_failures += 1
        if self._wine_failures == 1:
            return dataclasses.replace(
                result,
                verdict=Verdict.IE,
                kept_waiting=False,
                message=f"judge internal error: wine failed, not the program: {why}",
            )
        if not wine.alive:
            # Not made afresh after the run (why is in the run's notes): the test
            # program would run on a server wine started by itself, nobody's to stop,
            # and the judge cannot show that its wine works here.
            return dataclasses.replace(
                result,
                verdict=Verdict.IE,
                kept_waiting=False,
                message=(
                    f"judge internal error: wine failed again ({why}), and the judge could "
                    "not make it afresh to run its own test program"
                ),
            )
        try:
            broken = self._wine_probe()  # on the server made afresh after the run
        finally:
            self._refresh_wine(None, discarded)  # nothing of the test program's stays either
        if broken is not None:
            return dataclasses.replace(
                result,
                verdict=Verdict.IE,
                kept_waiting=False,
                message=(
                    f"judge internal error: wine failed again ({why}), and it cannot run "
                    f"the judge's own test program either: {broken}"
                ),
            )
        return dataclasses.replace(
            result,
            verdict=Verdict.RE,
            kept_waiting=False,
            message=(
                f"{why}, for the second time this round, while wine runs the judge's own "
                "test program here: counted as the program's failure"
            ),
        )

    def _supervised(
        self,
        argv: list[str],
        limits: Limits,
        core: int | None,
        discarded: list[str],
        windows: bool,
        steps: StepTimes,
        starting: Callable[[], None],
    ) -> tuple[RawRun, RunCgroup | None] | str:
        """The run itself in the seat's cgroups (pinned to ``core``); a str: why it could not run.

        A Windows program's wineserver works for it: its waiting for a CPU is the
        run's.  Where the run's pressure group is one of its own (cgroup
        v1 with the unified hierarchy: no limits there), the server joins it for the
        run, so the group's PSI counts exactly the time neither could run; elsewhere
        the server's own waiting is added (:class:`~judge.sandbox.cpuwait.ServiceMeter`).
        """
        spawn = self._spawn(argv, limits, cpu=core)
        armed = self._take_armed(spawn)
        try:
            with steps.timed("cgroup"):
                cg, armed = self._run_cgroup(limits, core, armed)
        except CgroupError as exc:
            if armed is not None:
                armed.call_off()
            return str(exc)
        services: tuple[int, ...] = ()
        lent = False
        if windows and self._wine is not None:
            services = tuple(self._wine.server_pids())
            if cg is not None and cg.pressure_only_dir is not None:
                with steps.timed("wine"):
                    lent = self._wine.lend_server(cg.pressure_only_dir)
        stragglers: list[int] = []
        finished = False
        try:
            raw = supervise.run(
                self._m.helper,
                spawn,
                time_s=limits.time_s,
                memory_bytes=limits.memory_bytes,
                output_bytes=limits.output_bytes,
                cg=cg,
                poll_s=self._m.poll_interval_s,
                kill_uid=self._kill_uid(),
                measure_wait=True,
                services=services,
                services_in_group=lent,
                steps=steps,
                zygote=self._zygote,
                armed=armed,
                canary=self._canary,
                starting=starting,
            )
            finished = True
        finally:
            if armed is not None and not armed.done:  # the run never got to its start
                armed.call_off()
            # The seat's groups are kept when the run left them empty; its wineserver may
            # then stay in the pressure group: the refresh after the run ends it, and the
            # next run counts the group's pressure from its own start.  Groups about to be
            # removed give it back first (their removal kills what is left inside).
            keep = finished and cg is not None and cg.is_empty()
            if lent and self._wine is not None and not keep:
                with steps.timed("wine"):
                    self._wine.take_server_back()
            if cg is not None:
                with steps.timed("cgroup"):
                    stragglers = self._release_cgroup(cg, keep, discarded)
        if stragglers:
            raw.survivors = stragglers
        elif self._armable(spawn):
            # As soon as the run is over and its counters read: while this seat's
            # outputs are read and judged, the referee works and the other seat runs.
            with steps.timed("helper"):
                self._arm_next(spawn, limits, core)
        return raw, cg

    def _armable(self, spawn: supervise.Spawn) -> bool:
        """Whether a run like ``spawn`` is armed ahead of its turn: not check-bot's wrapped
        runs, nor a normal user's seat's (its process cap counts the uid's tasks when the
        helper starts: at the run, not a turn earlier); only through a zygote that makes
        runs.  A Windows run is armed too: its child waits, still root, without having
        touched wine, while the refresh after this run makes the seat's new wineserver
        (whose uid-wide kill of the old one passes it over), and connects to the new one
        when it execs wine's loader at its go."""
        zygote = self._zygote
        return (
            zygote is not None
            and zygote.refused is None
            and zygote_arm()
            and not self.wrapper
            and spawn.nproc_extra is None
        )

    def _take_armed(self, spawn: supervise.Spawn) -> Armed | None:
        """The run armed for this one after the seat's last run, if it is this run (the
        same command, limits and groups; only the core may differ): see :meth:`_arm_next`."""
        zygote = self._zygote
        if zygote is None:
            return None
        if not self._armable(spawn):
            zygote.call_off()
            return None
        return zygote.take_armed(supervise.arm_key(spawn, self._cg))

    def _run_cgroup(
        self, limits: Limits, core: int | None, armed: Armed | None = None
    ) -> tuple[RunCgroup | None, Armed | None]:
        """Step "cgroup": the seat's groups, ready for a run (None: no cgroups here), and
        the armed run still usable in them.

        The last run's groups when they can be reused (:meth:`CgroupBackend.reuse`:
        counters restarted, changed limits and core written; with an armed run inside,
        the counters were restarted before it joined), else fresh ones."""
        backend = self._m.cgroup
        if backend is None:
            return None, armed
        cg, self._cg = self._cg, None
        if cg is not None and armed is not None:
            if backend.reuse(cg, limits.memory_bytes, limits.max_procs, core, restarted=True):
                return cg, armed
        if armed is not None:  # not usable in these groups, or armed in none
            armed.call_off()
        if cg is not None:
            if backend.reuse(cg, limits.memory_bytes, limits.max_procs, core):
                return cg, None
            if self._wine is not None and self._wine.lent:
                self._wine.take_server_back()  # the groups' removal kills what is inside
            cg.destroy()
        return backend.create(self._tag, limits.memory_bytes, limits.max_procs, core), None

    def _arm_next(self, spawn: supervise.Spawn, limits: Limits, core: int | None) -> None:
        """Arm the seat's next run now, after this one (:class:`~.zygote.Armed`): its
        helper joins the groups and forks, and the child does its whole set-up while the
        referee and the other seat work, so the next run starts with a go.  Only where
        nothing of this run is left: its groups kept (empty), its counters restarted
        before the armed run joins them (:meth:`CgroupBackend.reuse`).  A next run that
        is not this one (another command or limits) calls it off and starts as usual."""
        zygote = self._zygote
        assert zygote is not None  # _armable
        backend, cg = self._m.cgroup, self._cg
        if backend is not None and (
            cg is None
            or not backend.reuse(cg, limits.memory_bytes, limits.max_procs, core, arming=True)
        ):
            return
        try:
            supervise.arm(zygote, spawn, cg)
        except (ZygoteUnavailable, OSError):
            pass

    def _release_cgroup(self, cg: RunCgroup, keep: bool, discarded: list[str]) -> list[int]:
        """Step "cgroup", after the run: groups left empty by a run that was watched to its
        end (``keep``) are kept for the seat's next run; otherwise whatever is still inside
        is killed and the groups removed.  Returns the pids that were still inside."""
        if keep:
            self._cg = cg
            return []
        removed, stragglers = cg.destroy()
        if not removed:
            discarded.append(
                f"note: the run's cgroup {list(cg.dirs.values())} could not be removed"
            )
        return stragglers

    def reset(self) -> None:
        """New round: remove the keep file too (it starts absent: the referee's ruling R15)."""
        with self._lock:
            if self._closed:
                raise RuntimeError(f"seat {self.name!r} is closed")
            self._clean(keep=False, report=None)

    # ------------------------------------------------------------ closing
    def _teardown(self) -> None:
        try:
            if self._zygote is not None:
                self._zygote.close()
            if self._wine is not None:
                self._wine.close()
            if self._cg is not None:
                self._cg.destroy()
                self._cg = None
            if self._lease is not None and self._lease.held:
                try:
                    supervise.sweep_uid(self._m.helper, self._lease.uid, self._lease.gid)
                except (OSError, SandboxError):
                    pass
            if self._ns is not None:
                self._ns.close()
        finally:
            if self._mounted:  # its memory back, whatever failed above
                unmount(self.rw)
                self._mounted = False
            if self._rw_apart:  # its memory back, whatever modes its program left
                remove_own_folder(self.rw)
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


class _Once:
    """A run's ``starting`` callback, called at most once (none: nothing to call)."""

    __slots__ = ("_call",)

    def __init__(self, call: Callable[[], None] | None) -> None:
        self._call = call

    def __call__(self) -> None:
        call, self._call = self._call, None
        if call is not None:
            call()
