"""``judge match`` on the terminal: the header, a line per round (or the live board), the summary.

Presentation only: what is shown comes from the typed records the match
returns (:class:`~judge.records.MatchResult`); names, paths and what bots
wrote are text, never markup.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judge import isolation as protections
from judge import voidwhy
from judge.bots import BotSpec
from judge.match import RoundPlan
from judge.names import distinct_folders
from judge.records import MatchResult, ReplayHeader, RoundResult, TurnRecord
from judge.sandbox import Isolation, Limits
from judge.stats import median
from judge.views.board import final_board
from judge.views.tables import print_table


def observers(args: argparse.Namespace, console: Console, names: list[str]) -> Any:
    """Per-round observers: a progress line per round, and the live board with --watch/--step."""
    watch = None
    speed = getattr(args, "speed", None)
    if getattr(args, "watch", False) or getattr(args, "step", False) or speed is not None:
        from judge.views.live import WatchSession

        frame_s = None if speed is None else (1.0 / speed if speed > 0 else 0.0)
        watch = WatchSession(console, names, step=args.step, frame_s=frame_s)
    if args.quiet and watch is None:
        return None

    class Progress:
        def __init__(self, idx: int, plan: RoundPlan):
            self.idx, self.plan = idx, plan
            self.live = watch.round(idx, plan.map_label) if watch is not None else None

        def start(self, header: ReplayHeader) -> None:
            if self.live is not None:
                self.live.start(header)

        def turn(self, record: TurnRecord) -> None:
            if self.live is not None:
                self.live.turn(record)

        def end(self, rr: RoundResult) -> None:
            if self.live is not None:
                self.live.end(rr)
            if args.quiet:
                return
            who = "draw" if rr.winner is None else f"{names[rr.winner]} wins"
            console.print(
                Text(
                    f"round {self.idx} on {self.plan.map_label}: {who} — "
                    f"gold {rr.gold[0]}–{rr.gold[1]}, points {rr.points[0]}–{rr.points[1]}, "
                    f"{rr.turns_played}/{rr.turns} turns, ended by {rr.end_reason.value}"
                )
            )

    return lambda idx, plan: Progress(idx, plan)


def header(
    console: Console,
    bots: list[BotSpec],
    names: list[str],
    plans: list[RoundPlan],
    seed: int,
    limits: Limits,
    isolation: Isolation,
    out: Path,
    programs: str = "",
) -> None:
    """The match's header; ``programs``: how many programs run at once, on which cores."""
    console.print(
        f"[bold]{escape(names[0])}[/] (seat 0, {escape(bots[0].source)}) vs "
        f"[bold]{escape(names[1])}[/] (seat 1, {escape(bots[1].source)})",
        highlight=False,
    )
    console.print(Text(f"maps: {', '.join(p.map_label for p in plans)}; seed {seed}"))
    if limits.time_s is None:
        console.print(
            "[bold yellow]TIME LIMIT LIFTED (--time-limit 0): for debugging only; "
            "recorded in the replay[/]"
        )
    else:
        console.print(
            f"limits: {limits.time_s:g} s, {limits.memory_bytes // 2**20} MiB per run",
            highlight=False,
        )
    if programs:
        console.print(Text(programs))
    print_isolation(console, isolation)
    console.print(Text(f"output: {out}"))


def print_isolation(console: Console, report: Isolation) -> None:
    """One line for the sandbox (the rest is ``judge sandbox-info``'s), and a line per
    protection that is off, with why: what a header says of the isolation."""
    off = protections.off_with_reasons(report)
    head = report.describe().splitlines()[0]  # the sandbox's own count, as sandbox-info says
    console.print(Text(f"isolation: {head} (details: judge sandbox-info)"))
    for name, detail in off:
        console.print(f"  [yellow]OFF[/] {escape(name)}: {escape(detail)}", highlight=False)


def result_line(result: MatchResult) -> str:
    p = result.points
    if result.winner is None:
        head = "draw"
    else:
        head = f"{result.teams[result.winner]} wins"
    gold = result.gold
    return (
        f"{head}: {result.teams[0]} {p[0]} points ({gold[0]} gold), "
        f"{result.teams[1]} {p[1]} points ({gold[1]} gold)"
    )


def void_lines(result: MatchResult, s: int, out: Path, source: str) -> list[str]:
    """Why a team's moves were void, in words, and where to look next (check-bot, stderr.log)."""
    counts: dict[str, int] = {}
    moves = 0
    logs: list[Path] = []
    folder = distinct_folders(result.teams)[s]
    for idx, r in enumerate(result.rounds, start=1):
        st = r.stats[s]
        moves += st.moves
        for k, n in st.why_void.items():
            counts[k] = counts.get(k, 0) + n
        if any(voidwhy.parse(k) in voidwhy.IN_STDERR for k in st.why_void):
            logs.append(out / f"round-{idx}" / folder / "stderr.log")
    if not counts:
        return []
    lines = [f"{result.teams[s]}: {voidwhy.summary(counts, moves)}"]
    # check-bot runs the bot again on those very turns (their MAP.INP and STATE.OUT), and
    # finds the team by the bot as the match was given it
    hints = [
        "to run it again on the turns it failed and see why, turn by turn: "
        f"judge check-bot {shlex.quote(source)} --from {shlex.quote(str(out))}"
    ]
    if logs:
        more = f" (and {len(logs) - 1} more round(s))" if len(logs) > 1 else ""
        hints.append(f"its error output is in {logs[0]}{more}")
    lines[0] += "\n  " + "\n  ".join(hints)
    return lines


def summary(
    console: Console, result: MatchResult, out: Path, bots: list[BotSpec] | None = None
) -> None:
    if result.rounds:
        last = result.rounds[-1]
        board = final_board(out / last.replay, result.teams)
        if board is not None:
            console.print(board)
    table = Table(title="match summary")
    table.add_column("team")
    for col in ("gold", "points", "shield", "sunk", "verdicts", "time p50/max ms", "peak MiB"):
        table.add_column(col, justify="right")
    warnings = []
    for s in (0, 1):
        verdicts: dict[str, int] = {}
        walls: list[float] = []
        peak = 0.0
        for r in result.rounds:
            st = r.stats[s]
            for v, n in st.verdicts.items():
                verdicts[v] = verdicts.get(v, 0) + n
            walls += st.wall_ms
            peak = max(peak, st.peak_mem_mb)
        walls.sort()
        mid = median(walls)
        p50 = f"{mid:.0f}" if mid is not None else "-"
        mx = f"{walls[-1]:.0f}" if walls else "-"
        table.add_row(
            Text(result.teams[s]),
            " / ".join(str(r.gold[s]) for r in result.rounds),
            str(result.points[s]),
            " / ".join("yes" if r.shield[s] else "no" for r in result.rounds),
            " / ".join("yes" if r.sunk[s] else "no" for r in result.rounds),
            ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
            f"{p50}/{mx}",
            f"{peak:.1f}",
        )
        warnings += void_lines(result, s, out, bots[s].source if bots else result.teams[s])
    print_table(console, table)
    for w in warnings:
        # soft_wrap: a path or a command in the hint must stay whole, to be copied
        console.print(f"[bold yellow]warning:[/] {escape(w)}", highlight=False, soft_wrap=True)
    console.print(Text(result_line(result), style="bold"))
    console.print(Text(f"written to {out}/result.json"))
    sys.stdout.flush()
