"""Wine as a seat's companion: what a seat's run does for a Windows program, step by step.

From the seat's first ``.exe`` run on, every run of the seat goes through its wine
(:class:`~judge.sandbox.companion.Companion`'s points, in a run's order):

* **resolve**: an ``.exe`` runs through wine's loader (the 32-bit one for a PE32);
* **before**: a wineserver that stopped, or a prefix the program tampered with, is
  made afresh before the run's folder is prepared (a restart cleans the folder);
* **core**: the seat's wineserver works for the run: on its core, not another run's;
* **cgroup**: where the run's pressure group is one of its own (cgroup v1 with the
  unified hierarchy: no limits there) the server joins it for the run, so the
  group's PSI counts exactly the time neither could run; elsewhere the server's
  own waiting is added (:class:`~judge.sandbox.cpuwait.ServiceMeter`);
* **release**: the server leaves groups about to be removed (their removal kills
  what is inside); kept groups may keep it until the next run;
* **after**: what the run added to the seat's wine folders is removed, and a new
  server is made on the template's registry, on the run's core;
* **verdict**: wine's lines are taken out of the program's stderr, a crash is told
  in Windows words, and a run wine failed is IE (see :meth:`WineCompanion.judge`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.sandbox import supervise
from judge.sandbox.companion import Companion
from judge.sandbox.folders import remove_tree
from judge.sandbox.request import Command, RunContext, TurnFailed
from judge.sandbox.supervise import Services
from judge.sandbox.types import Limits, ProgramUnreachable, RunResult, SandboxError, Verdict
from judge.sandbox.wine.install import refusal, windows_target
from judge.sandbox.wine.seat import NPROC_SLACK, WineSeat
from judge.sandbox.wine.server import SERVER_MEMORY, SERVER_PROCS
from judge.sandbox.wine.support import WineSupport
from judge.sandbox.wine.words import explain

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.helper import Helper
    from judge.sandbox.launcher import Spawn
    from judge.sandbox.record import RawRun
    from judge.sandbox.seatfolder import SeatFolder
    from judge.sandbox.seatgroups import SeatGroups

#: How long the judge's own runs through wine (its test program) may take.
CHECK_TIME_S = 20.0
#: Run once when a seat's wine starts: proves the prefix, server and view work.
PROBE_COMMAND = ("C:\\windows\\system32\\cmd.exe", "/c", "exit 0")


@dataclass(frozen=True)
class Host:
    """What a seat's wine uses of its seat: its name (for messages), its exec helper,
    how it makes a run (``spawn(argv, limits, core)``: its uid, namespaces, folder),
    its groups and its folders."""

    name: str
    helper: Helper
    spawn: Callable[[list[str], Limits, int | None], Spawn]
    groups: SeatGroups
    folder: SeatFolder


class WineCompanion(Companion):
    """A seat's wine: its prefix and wineserver (:class:`~.seat.WineSeat`), and what each
    of the seat's runs does for them."""

    lives_on = True  # the seat's wineserver, of the seat's uid
    nproc_slack = NPROC_SLACK
    tree_only_kill = True  # the seat's wineserver shares the uid: a run kills its own tree

    def __init__(self, support: WineSupport, host: Host, view: bool) -> None:
        owner = host.folder.owner
        self.wine: WineSeat = WineSeat(
            support,
            host.folder.base,
            owner[0] if owner else None,
            owner[1] if owner else None,
            host.folder.tmpdir,
            view=view,
        )
        self._host = host
        #: runs of the seat's round whose wineserver stopped during them (see judge)
        self._failures = 0
        #: the seat's last run was wine's failure before it loaded the program, its server
        #: alive (see judge)
        self._failed_at_start = False
        #: the server is in the current run's pressure group (see join)
        self._lent = False

    # ---------------------------------------------------------- the seat's wine made
    def start(self) -> None:
        """Before turn 1: the seat's prefix, its wineserver, one trivial program run.
        SandboxError: wine cannot run a program here (nothing of it is left)."""
        wine = self.wine
        try:
            wine.prepare()
            self._start_server()
        except BaseException as exc:
            wine.close()
            remove_tree(wine.dir)  # the next attempt starts from nothing
            if isinstance(exc, OSError):
                raise SandboxError(f"seat {self._host.name!r}: cannot prepare wine: {exc}") from exc
            raise

    def _server_cgroup(self) -> RunCgroup | None:
        """A cgroup of its own for the seat's wineserver (None: no cgroups here)."""
        return self._host.groups.make("wineserver", SERVER_MEMORY, SERVER_PROCS)

    def _server_spawn(self, core: int | None) -> Callable[[list[str]], Spawn]:
        """How the seat's wineserver is started (on ``core``, at the bots' priority)."""
        return lambda argv: self._host.spawn(argv, Limits(), core)

    def _start_server(self) -> None:
        """Start (or restart) the seat's wineserver, check a program runs, then give the
        seat a fresh server: every run, the first included, starts on a server that
        nothing ran on before (the judge's test program ran on the first one)."""
        wine, helper = self.wine, self._host.helper
        wine.start(helper, self._server_spawn(None), self._server_cgroup)
        why = self._probe()
        if why is not None:
            # Once more before saying wine cannot: now and then wine's loader exits with
            # status 1 without a word before it has loaded anything, and runs the same
            # program a moment later.
            again = self._probe()
            if again is not None:
                told = "the same twice" if again == why else f"then {again}"
                raise SandboxError(
                    f"seat {self._host.name!r}: wine cannot run a program here: {why} ({told})"
                )
        self._host.folder.clean(keep=True, notes=None, spare=self.tmp_spare())
        wine.refresh(helper, self._server_spawn(None), self._server_cgroup, [])

    def _probe(self) -> str | None:
        """Run the judge's own trivial Windows program (cmd.exe): why wine cannot run
        it, or None when it ran."""
        probe = [self.wine.install.loader64, *PROBE_COMMAND]
        raw = supervise.run(
            self._host.helper,
            self._host.spawn(probe, Limits(time_s=CHECK_TIME_S), None),
            time_s=CHECK_TIME_S,
            memory_bytes=2**40,
            output_bytes=4096,
            cg=None,
            poll_s=1.0,
            kill_uid=None,
        )
        st = raw.main_status
        if raw.internal_error or st is None or not os.WIFEXITED(st) or os.WEXITSTATUS(st):
            child = raw.record.child if raw.record is not None else None
            return (
                raw.internal_error
                or (child.error if child is not None else None)
                or (f"status {st}: {raw.stderr.data.decode('utf-8', 'replace').strip()[-300:]}")
            )
        return None

    def _refresh(self, core: int | None, notes: list[str]) -> None:
        """After a run, on its core: a new wineserver with the template's registry, so
        nothing the program left in wine reaches its next run."""
        wine = self.wine
        try:
            wine.refresh(
                self._host.helper, self._server_spawn(core), self._server_cgroup, notes, core
            )
        except (OSError, SandboxError) as exc:
            wine.stop()  # made afresh, and proven, before the next run
            notes.append(f"wine: could not be made afresh after this run: {exc}")
            return
        # Lent to the seat's kept pressure group now, not at the next run's start: a
        # cgroup move waits for an RCU grace period when none happened for a while, and
        # the refresh's own (the server after next armed) is a few ms old now.  Idle till
        # the run, the server adds nothing to the group's counters, which the run counts
        # from its own start.
        cg = self._host.groups.kept
        if cg is not None and cg.pressure_only_dir is not None:
            wine.lend_server(cg.pressure_only_dir)

    # ---------------------------------------------------------- a run's points
    def env(self, base: dict[str, str]) -> dict[str, str]:
        return self.wine.env(base)

    def command(self, argv: list[str]) -> Command:
        if windows_target(argv) is None:
            return Command(argv)
        return Command(self.wine.argv(argv), windows=True)

    def before_run(self, command: Command, ctx: RunContext) -> None:
        """Step "before": a fresh wineserver when the last one cannot serve another run
        (before the inputs: a restart cleans the folder); TurnFailed if it cannot be made."""
        if not command.windows:
            return
        wine = self.wine
        with ctx.timed("before"):
            if not wine.needs_restart():
                return
            try:
                ctx.notes.append(wine.restart_note())
                wine.stop()
                wine.reset_if_needed()
                self._start_server()
            except (OSError, SandboxError) as exc:
                raise TurnFailed(f"cannot restart wine: {exc}") from exc

    def pin(self, command: Command, core: int | None) -> None:
        if command.windows and core is not None:
            self.wine.pin_server(core)

    def join(self, command: Command, cg: RunCgroup | None, ctx: RunContext) -> Services:
        self._lent = False
        if not command.windows:
            return Services()
        pids = tuple(self.wine.server_pids())
        if cg is not None and cg.pressure_only_dir is not None:
            self._lent = self.wine.lend_server(cg.pressure_only_dir)
        return Services(pids, in_group=self._lent)

    def leave(self, kept: bool, ctx: RunContext) -> None:
        """The seat's groups are kept when the run left them empty; its wineserver may
        then stay in the pressure group: the refresh after the run ends it, and the next
        run counts the group's pressure from its own start.  Groups about to be removed
        give it back first (their removal kills what is left inside)."""
        if self._lent and not kept:
            self.wine.take_server_back()
        self._lent = False

    def evict(self) -> None:
        if self.wine.lent:
            self.wine.take_server_back()

    def after_run(self, command: Command, core: int | None, ctx: RunContext) -> None:
        """Step "after": what the run added to the seat's wine folders removed (any run of
        the seat: its uid can write there), and, after a Windows run, a new server."""
        with ctx.timed("after"):
            self.wine.after_run(ctx.notes)
            if command.windows:
                self._refresh(core, ctx.notes)

    def judge(self, command: Command, raw: RawRun, result: RunResult, ctx: RunContext) -> RunResult:
        """Wine's words out of the program's stderr (:func:`~.words.explain`), and a run
        wine failed (not the program: :meth:`WineSeat.failure`) is IE, so the referee runs
        it again.  Once more, and the judge first runs its own test program: if wine runs
        that, wine works here and the failure is this program's doing: RE, naming what
        wine said; if not, wine is broken here: IE again, and the round stops.

        Once more means: a server that stopped during a run for the second time in the
        seat's round (a program that stops its wineserver cannot throw away one unwanted
        run a turn), and wine giving up before it loaded the program twice in a row.  None
        of the program's code ran then, and wine's loader fails so on its own now and then
        (exit status 1, not a word): counted over the round, two such failures of chance
        hours apart would be held against the program; twice in a row, on wine made afresh
        after the first, they are the program's (wine cannot load it)."""
        if not command.windows:
            return result
        result = explain(result)
        if result.verdict not in (Verdict.OK, Verdict.RE):
            # Only a run that ended by itself is looked at: a time-out, a broken memory
            # or file cap stand as they are, and an IE (kept waiting) is retried as one.
            self._failed_at_start = False
            return result
        why = self.wine.failure(raw.stderr.head, raw.stderr.data, result.exit_code)
        if why is None:
            self._failed_at_start = False
            return result
        if self.wine.died_in_run:
            self._failures += 1
            again, when = self._failures > 1, "for the second time this round"
        else:
            again, when = self._failed_at_start, "twice in a row"
            self._failed_at_start = True
        if not again:
            return _judged(
                result, Verdict.IE, f"judge internal error: wine failed, not the program: {why}"
            )
        return self._failed_again(result, why, when, ctx)

    def _failed_again(self, result: RunResult, why: str, when: str, ctx: RunContext) -> RunResult:
        """Wine failed this program once more: RE if wine runs the judge's own test
        program here, else IE (the round stops)."""
        if not self.wine.alive:
            # Not made afresh after the run (why is in the run's notes): the test
            # program would run on a server wine started by itself, nobody's to stop,
            # and the judge cannot show that its wine works here.
            return _judged(
                result,
                Verdict.IE,
                f"judge internal error: wine failed again ({why}), and the judge could "
                "not make it afresh to run its own test program",
            )
        try:
            broken = self._probe()  # on the server made afresh after the run
        finally:
            self._refresh(None, ctx.notes)  # nothing of the test program's stays either
        if broken is not None:
            return _judged(
                result,
                Verdict.IE,
                f"judge internal error: wine failed again ({why}), and it cannot run "
                f"the judge's own test program either: {broken}",
            )
        return _judged(
            result,
            Verdict.RE,
            f"{why}, {when}, while wine runs the judge's own test program here: counted "
            "as the program's failure",
        )

    def tmp_spare(self) -> frozenset[str]:
        return self.wine.tmp_spare()

    def server_pids(self) -> list[int]:
        return self.wine.server_pids()

    def close(self) -> None:
        self.wine.close()


def wine_needed(argv: list[str], current: Companion, support: WineSupport | None) -> bool:
    """Whether a seat whose companion is ``current`` must start its wine before it runs
    ``argv``: its first Windows program.  ProgramUnreachable: ``argv`` is a Windows program
    wine cannot run here (no wine, a 32-bit program without wine32, a DLL...), the
    reason said, whether or not the seat's wine runs already."""
    idx = windows_target(argv)
    if idx is None:
        return False
    why = refusal(argv[idx], support.install if support is not None else None)
    if why is not None:
        raise ProgramUnreachable(argv[idx], why)
    return current.wine is None


def _judged(result: RunResult, verdict: Verdict, message: str) -> RunResult:
    """``result`` with the verdict wine's failure earns (never "kept waiting" or the disk's)."""
    return dataclasses.replace(
        result, verdict=verdict, kept_waiting=False, stalled_on_disk=False, message=message
    )
