"""``judge tournament`` on the terminal and on the web: the run as it goes, standings, index.html.

:class:`RunView` is the :class:`~judge.tournament.play.RunEvents` the command
gives the runner: a header, a progress bar, a line per recorded round and the
judge's failures.  Team names and paths are text, never markup.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from judge import voidwhy
from judge.bundled import MAPS, bundled_dir
from judge.names import folder_name
from judge.records import RoundResult
from judge.records.standings import StandingRow
from judge.tournament.pairings import Pairing, RoundSlot
from judge.tournament.play import RunStart
from judge.views.matchview import print_isolation


def standings_table(rows: Sequence[StandingRow], title: str = "standings") -> Table:
    """The standings with R18's four columns (points, rounds won, gold, name) and the rest."""
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("team")
    for col in ("points", "rounds won", "draws", "losses", "gold"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r.rank),
            Text(r.team),
            str(r.points),
            str(r.rounds_won),
            str(r.draws),
            str(r.losses),
            str(r.gold),
        )
    return table


def map_shown(label: str) -> str:
    """A round's map as the terminal names it: a bundled map by its name among the bundled
    ones (a configuration outside the project records it by its whole path), any other as
    the results record it (relative to the configuration)."""
    path = Path(label)
    if not path.is_absolute():
        return label  # a configuration's own map: no need to look for the bundled folder
    bundled = bundled_dir(MAPS)
    if bundled is not None:
        try:
            return f"{MAPS}/{path.resolve().relative_to(bundled.resolve()).as_posix()}"
        except (OSError, ValueError):
            pass
    return label


def round_line(slot: RoundSlot, rr: RoundResult) -> str:
    """One recorded round in words (``rr`` in seat order)."""
    who = "draw" if rr.winner is None else f"{slot.seats[rr.winner]} wins"
    return (
        f"{slot.match} round {slot.index} ({map_shown(rr.map_label)}): {who}, gold "
        f"{slot.seats[0]} {rr.gold[0]} - {rr.gold[1]} {slot.seats[1]}, points "
        f"{rr.points[0]}-{rr.points[1]}"
    )


def failure_lines(slot: RoundSlot, rr: RoundResult, out: Path) -> list[str]:
    """A team's crashes, time-outs and void moves in a round, in the words ``judge match``
    uses, with where its error output is when that tells why."""
    lines = []
    for s, team in enumerate(slot.seats):
        st = rr.stats[s]
        if not st.why_void:
            continue
        line = f"{team}: {voidwhy.summary(st.why_void, st.moves)}"
        if any(voidwhy.parse(k) in voidwhy.IN_STDERR for k in st.why_void):
            log = out / slot.match / f"round-{slot.index}" / folder_name(team) / "stderr.log"
            line += f" (its error output: {log})"
        lines.append(line)
    return lines


def resume_lines(run: RunStart) -> list[str]:
    """What a resume does first: the teams replaced or kept, the rounds played again."""
    plan = run.resume
    lines = []
    for team, n in plan.replaced_rounds:
        lines.append(
            f"--replace {team}: its matches are played again with its program as it is now "
            f"({n} of its rounds taken out of the ledger)"
        )
    for c in plan.changed:
        if c.team in plan.kept_changed:
            lines.append(
                f"keeping {c.team}'s {c.rounds} round(s) played by its old program "
                "(--keep-changed); the rest are played by the new one"
            )
    if plan.missing:
        shown = ", ".join(f"{m} round {r}" for m, r in plan.missing[:6])
        more = f" and {len(plan.missing) - 6} more" if len(plan.missing) > 6 else ""
        lines.append(
            f"played again: {shown}{more}, whose replay is gone from the folder (the ledger "
            "had them)"
        )
    return lines


class RunView:
    """The run on a console: the header, a progress bar and a line per round (unless quiet)."""

    def __init__(self, console: Console, progress: bool = True):
        self.console = console
        self.show = progress
        self._progress: Progress | None = None
        self._bar: TaskID | None = None
        self._run: RunStart | None = None
        self._started = 0.0
        self._played = 0

    def starting(self, run: RunStart) -> None:
        if self.show:
            self._header(run)
        if not self.show:  # said even with --quiet: these change what the ledger holds
            for line in resume_lines(run):
                self.console.print(line, markup=False, highlight=False)
        if run.protections_off:  # said even with --quiet: an official run should be isolated
            self.console.print(
                f"UNSANDBOXED (--unsandboxed): {len(run.protections_off)} sandbox protections "
                f"OFF ({', '.join(run.protections_off)}); this run is recorded as not isolated "
                "in the ledger and in standings.json",
                style="bold red",
                markup=False,
            )
        self._run, self._started, self._played = run, time.monotonic(), 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("rounds"),
            TextColumn("{task.fields[pace]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.show,
            transient=False,
        )
        self._progress.start()
        self._bar = self._progress.add_task(
            "tournament", total=run.total, completed=run.done_before, pace=""
        )

    def round_recorded(self, slot: RoundSlot, result: RoundResult) -> None:
        self._played += 1
        if self._progress is not None and self._bar is not None:
            self._progress.update(self._bar, advance=1, pace=escape(self._pace()))
        if self.show:
            self.console.print(round_line(slot, result), markup=False)
            out = self._run.out if self._run is not None else Path(".")
            for line in failure_lines(slot, result, out):
                # soft_wrap: the log's path stays whole, to be copied
                self.console.print(
                    Text.assemble(("  warning: ", "bold yellow"), line), soft_wrap=True
                )

    def _pace(self) -> str:
        """What plays the rounds (workers on a cluster) and rounds per minute so far."""
        minutes = max(time.monotonic() - self._started, 1e-3) / 60
        where = self._run.status() if self._run is not None else ""
        return f"{where + ', ' if where else ''}{self._played / minutes:.1f} rounds/min"

    def failed(self, message: str) -> None:
        self.console.print(
            f"[bold red]judge failure:[/] {escape(message)}; stopping", highlight=False
        )

    def finished(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def stopping(self, signal_name: str) -> None:
        """A first SIGINT/SIGTERM: what happens now, and how to stop waiting."""
        self.console.print(
            f"[bold yellow]{signal_name}: stopping: no new round starts; rounds in flight stop "
            "at their next turn (a second signal stops waiting)[/]",
            highlight=False,
        )

    def warning(self, message: str) -> None:
        self.console.print(f"[yellow]warning:[/] {escape(message)}", highlight=False)

    def _header(self, run: RunStart) -> None:
        c, cfg = self.console, run.cfg
        todo = run.total - run.done_before
        c.print(
            f"tournament: {len(cfg.teams)} teams, {run.matches} matches, "
            f"{run.total} rounds; seed {cfg.seed}",
            highlight=False,
        )
        for t in cfg.teams:
            c.print(f"  {t.name}: bot {t.bot.source}, map {t.map_spec}", markup=False)
        c.print(f"  organisers' map: {cfg.organiser_label}", markup=False)
        c.print(
            f"limits: {cfg.time_limit:g} s, {cfg.memory_limit_mb} MiB per run; "
            f"{run.status() or f'{run.jobs} round(s) at a time'}",
            highlight=False,
        )
        if run.programs:
            c.print(f"programs: {run.programs}", markup=False)
        if run.sandbox_isolation is not None:
            print_isolation(c, run.sandbox_isolation)  # one line, as judge match prints it
        else:
            c.print(f"isolation: {run.isolation}", markup=False)  # each worker's line
        for line in resume_lines(run):
            c.print(line, markup=False, highlight=False)
        if run.done_before:
            c.print(
                f"resuming: {run.done_before} rounds already in the ledger, {todo} to play",
                highlight=False,
            )
        c.print(f"output: {run.out}", markup=False)


def write_index(
    out: Path, schedule: Sequence[Pairing], rows: Sequence[StandingRow], title: str = ""
) -> Path:
    """The tournament's index.html (standings and links to every round's HTML replay).

    The page is :func:`judge.views.html.write_index_html`'s: its table has the
    columns of standings.json but ``rank`` (the page numbers the rows itself), and
    each team's failed runs (TLE, RE, MLE, OLE, IE) and void moves as badges linking
    to the round.  ``title``: the configuration's (default: a generic one).
    """
    from judge.views.html import write_index_html

    return write_index_html(
        out,
        [{k: v for k, v in row.to_json().items() if k != "rank"} for row in rows],
        [{"dir": p.folder, "title": f"{p.teams[0]} vs {p.teams[1]}"} for p in schedule],
        title=title or "Ocean Treasure tournament",
        failed_runs=True,
    )
