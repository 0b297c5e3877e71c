"""What lives beside a seat's programs and works for them: nothing for a native program.

A seat's runs go through the same steps whatever the program (:mod:`.steps`); what
differs for a Windows program (its seat's wineserver, started at its first .exe run
and made afresh after each; wine's words in its stderr; wine's own failures) is done
by the seat's companion, at fixed points of the run.  This is the native one, which
does nothing at each of them; :class:`~judge.sandbox.wine.companion.WineCompanion`
is wine's.  Every ``if windows`` of a run is in there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.sandbox.request import Command, RunContext
from judge.sandbox.supervise import Services
from judge.sandbox.types import RunResult

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.record import RawRun
    from judge.sandbox.wine.seat import WineSeat


class Companion:
    """A native program's companion: nothing lives beside it."""

    #: the seat's wine (None: the seat has run no Windows program)
    wine: WineSeat | None = None
    #: something of the seat's uid lives on between runs (its folders are walked before
    #: each run: it may have written there)
    lives_on = False
    #: tasks of the seat's uid besides the program's (RLIMIT_NPROC counts them all)
    nproc_slack = 0
    #: a run kills its own process tree only, not every process of its uid
    tree_only_kill = False

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """The environment of every run of the seat."""
        return base

    def command(self, argv: list[str]) -> Command:
        """Step "resolve": the command that really runs for ``argv``."""
        return Command(argv)

    def before_run(self, command: Command, ctx: RunContext) -> None:
        """Step "before": what must be ready before the run's folder is (TurnFailed: it
        cannot be made ready)."""

    def pin(self, command: Command, core: int | None) -> None:
        """Step "core": what works for the run goes to its core too."""

    def join(self, command: Command, cg: RunCgroup | None, ctx: RunContext) -> Services:
        """Step "cgroup": what works for the run joins its groups where it can; the
        processes whose waiting for a CPU is the run's."""
        return Services()

    def leave(self, kept: bool, ctx: RunContext) -> None:
        """Step "release": what joined the run's groups leaves them, unless they are kept
        (``kept``: it may stay until the next run)."""

    def evict(self) -> None:
        """The seat's kept groups are about to be removed: whatever is in them leaves."""

    def after_run(self, command: Command, core: int | None, ctx: RunContext) -> None:
        """Step "after": what the run left beside it taken away, on the run's core."""

    def judge(self, command: Command, raw: RawRun, result: RunResult, ctx: RunContext) -> RunResult:
        """Step "verdict": the verdict as the companion sees the run."""
        return result

    def tmp_spare(self) -> frozenset[str]:
        """Names in the seat's /tmp the per-run cleaning must leave alone."""
        return frozenset()

    def server_pids(self) -> list[int]:
        """The processes that live beside the seat's programs now."""
        return []

    def close(self) -> None:
        """End whatever lives beside the seat's programs."""
