"""``judge replay``: look at a saved round in the terminal, step through it, or write it as HTML."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judge.rules import EndReason, score
from judge.views.board import turn_view
from judge.views.live import stdin_line
from judge.views.replayfile import MatchReplay, ReplayError, RoundReplay, load

HELP = "show a saved round: the board at a turn, step through it, or write an HTML replay"
DESCRIPTION = """\
Show a round that `judge match` saved.  PATH is a match folder (result.json
and round-N/replay.jsonl), a round folder, or a replay.jsonl file.

Without --step, print the board at turn T (default: the last turn) and the
summary.  With --step, walk through the round: Enter = next turn, b = back,
a number = jump to that turn, q = quit.

--html FILE writes one self-contained HTML page (no network: it opens from a
USB stick) with every round of the match (or only --round N): play/pause,
step, a turn slider and speed; keys: left/right arrows, space, Home/End.

Exit status: 0 when shown or written; 2 for a bad path, a broken replay or a
turn/round that does not exist.

examples:
  judge replay matches/20250101-120000-greedy-vs-random
  judge replay matches/.../round-2/replay.jsonl --turn 15
  judge replay matches/... --round 3 --step
  judge replay matches/... --html final.html
"""

ReadLine = Callable[[], str | None]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        metavar="PATH",
        type=Path,
        help="a match folder, a round folder or a replay.jsonl file",
    )
    p.add_argument("--round", type=int, metavar="N", help="which round of a match (default 1)")
    p.add_argument(
        "--turn",
        type=int,
        metavar="T",
        help="the turn to show (default: the last; with --step/--html: where to start)",
    )
    p.add_argument(
        "--step",
        action="store_true",
        help="step through the round: Enter next, b back, a number jumps, q quits",
    )
    p.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="write a self-contained HTML replay to FILE instead",
    )


def run(args: argparse.Namespace, read_line: ReadLine = stdin_line) -> int:
    console = Console(highlight=False, markup=False)  # team names and paths may hold "[...]"
    err = Console(stderr=True, highlight=False)

    def fail(msg: str) -> int:
        # soft_wrap: a path in the message must stay whole, to be copied
        err.print(f"[bold red]judge replay:[/] {escape(msg)}", markup=True, soft_wrap=True)
        return 2

    if args.html is not None and args.step:
        return fail("--html writes a file and --step is interactive: use one of them")
    try:
        match = load(args.path)
        if args.html is not None:
            return _write_html(console, match, args)
        rnd = match.round(args.round if args.round is not None else 1)
        turn = args.turn if args.turn is not None else rnd.frames()[-1].turn
        rnd.record_at(turn)  # a clear error for a turn that is not there
    except ReplayError as exc:
        return fail(str(exc))
    if args.step:
        _step(console, match, rnd, turn, read_line)
    else:
        show(console, match, rnd, turn)
    return 0


def _write_html(console: Console, match: MatchReplay, args: argparse.Namespace) -> int:
    from judge.views.html import write_replay_html

    only = match.round(args.round) if args.round is not None else None
    if args.turn is not None:
        (only or match.rounds[0]).record_at(args.turn)
    try:
        out = write_replay_html(args.html, match, round_index=args.round, turn=args.turn)
    except OSError as exc:
        raise ReplayError(f"{args.html}: cannot be written: {exc.strerror or exc}") from None
    n = 1 if only else len(match.rounds)
    console.print(
        f"wrote {out} ({n} round{'s' if n != 1 else ''}); open it in a web browser", soft_wrap=True
    )
    return 0


def _label(match: MatchReplay, rnd: RoundReplay) -> str:
    of = f" of {len(match.rounds)}" if len(match.rounds) > 1 else ""
    return f"round {rnd.index}{of}: {rnd.label}"


def show(console: Console, match: MatchReplay, rnd: RoundReplay, turn: int) -> None:
    """The board at ``turn`` and what the round came to."""
    rec = rnd.record_at(turn)
    console.print(turn_view(rec, rnd.names, rnd.turns, console.width, label=_label(match, rnd)))
    console.print("")
    summary(console, match, rnd)


def round_line(rnd: RoundReplay, teams: Sequence[str] | None = None) -> str:
    """How a round ended, from result.json when there is one, else from its last record.

    result.json's numbers are named in the match's team order (``teams``; a
    tournament may swap seats between rounds); the replay's own records are
    in seat order and use the round's seat names.
    """
    names = rnd.names
    if rnd.result is not None:
        label = list(teams) if teams else names
        res = rnd.result.in_order(label)
        who = "draw" if res.winner is None else f"{label[res.winner]} wins"
        return (
            f"round {rnd.index} on {rnd.label}: {who}, gold {res.gold[0]}-{res.gold[1]}, "
            f"points {res.points[0]}-{res.points[1]}, "
            f"{res.turns_played}/{res.turns} turns, ended by {res.end_reason.value}"
        )
    last = rnd.frames()[-1]
    g = last.gold
    if rnd.partial or not last.ended:
        return (
            f"round {rnd.index} on {rnd.label}: unfinished, gold {g[0]}-{g[1]} after turn "
            f"{last.turn}/{rnd.turns}"
        )
    # No result.json beside a lone replay file: score the last record with the rules' own scoring.
    pts = score(g, EndReason.TURNS).points
    who = "draw" if g[0] == g[1] else f"{names[0 if g[0] > g[1] else 1]} wins"
    reason = last.end_reason.value if last.end_reason else None
    return (
        f"round {rnd.index} on {rnd.label}: {who}, gold {g[0]}-{g[1]}, "
        f"points {pts[0]}-{pts[1]}, {last.turn}/{rnd.turns} turns, "
        f"ended by {reason}"
    )


def summary(console: Console, match: MatchReplay, shown: RoundReplay) -> None:
    for note in shown.notes:
        console.print(f"note: {note}", style="yellow", soft_wrap=True)
    if len(match.rounds) == 1:
        console.print(round_line(shown, match.teams), soft_wrap=True)
        return
    table = Table(title=Text(f"{match.teams[0]} vs {match.teams[1]}"), title_justify="left")
    for col in ("round", "map", "gold", "points", "result"):
        table.add_column(col)
    for r in match.rounds:
        res = r.result.in_order(match.teams) if r.result is not None else None
        gold = res.gold if res is not None else r.frames()[-1].gold
        if res is None:
            outcome = "unfinished"
        else:
            outcome = "draw" if res.winner is None else f"{match.teams[res.winner]} wins"
        mark = " <" if r is shown else ""
        table.add_row(
            *(
                Text(x)
                for x in (
                    f"{r.index}{mark}",
                    r.label,
                    f"{gold[0]}-{gold[1]}",
                    f"{res.points[0]}-{res.points[1]}" if res is not None else "-",
                    outcome,
                )
            )
        )
    console.print(table)
    if match.result is not None:
        p = match.result.points
        console.print(f"match points: {match.teams[0]} {p[0]}, {match.teams[1]} {p[1]}")
    console.print(round_line(shown, match.teams), soft_wrap=True)


STEP_PROMPT = "Enter: next, b: back, a number: go to that turn, q: quit > "


def _step(
    console: Console, match: MatchReplay, rnd: RoundReplay, turn: int, read_line: ReadLine
) -> None:
    """Interactive stepping; reads one line per command so it works with any terminal or pipe."""
    frames = rnd.frames()
    first, last = frames[0].turn, frames[-1].turn
    i = turn - first
    msg = ""
    label = _label(match, rnd)
    while True:
        if console.is_terminal:
            console.clear()
        console.print(turn_view(frames[i], rnd.names, rnd.turns, console.width, label=label))
        if msg:
            console.print(msg, style="yellow")
        msg = ""
        console.print(STEP_PROMPT, end="", markup=False)
        console.file.flush()
        line = read_line()
        if line is None:
            console.print("")
            break
        cmd = line.strip().lower()
        if not console.is_terminal:
            console.print("")
        if cmd in ("q", "quit", "exit"):
            break
        if cmd in ("", "n", "next"):
            if i < len(frames) - 1:
                i += 1
            else:
                msg = f"turn {last} is the last turn (b: back, q: quit)"
        elif cmd in ("b", "back", "p"):
            if i > 0:
                i -= 1
            else:
                msg = f"turn {first} is the first turn"
        elif cmd.isdigit():
            t = int(cmd)
            if first <= t <= last:
                i = t - first
            else:
                msg = f"no turn {t}: the turns are {first}..{last}"
        else:
            msg = f"{cmd!r}: Enter = next, b = back, a number = go to turn, q = quit"
    console.print("")
    summary(console, match, rnd)
