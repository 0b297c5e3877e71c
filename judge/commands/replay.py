"""``judge replay``: look at a saved round in the terminal, step through it, or write it as HTML."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from judge.commands.options import fail, make_console

if TYPE_CHECKING:
    from rich.console import Console

    from judge.views.replayfile import MatchReplay

HELP = "show a saved round: the board at a turn, step through it, or write an HTML replay"
DESCRIPTION = """\
Show a round that `judge match` saved.  PATH is a match folder (result.json
and round-N/replay.jsonl), a round folder, or a replay.jsonl file.

Without --step, print the board at turn T (default: the last turn) and the
summary.  With --step, walk through the round from turn T (default: turn 1):
Enter = next turn, b = back, a number = jump to that turn, q = quit.

A tournament folder (one folder per match) is listed: its matches, with the
command that shows each.

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
        help="the turn to show (default: the last; with --step: where to start, default 1; "
        "with --html: where the page opens)",
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


def run(args: argparse.Namespace, read_line: ReadLine | None = None) -> int:

    from judge.views.live import stdin_line
    from judge.views.replayfile import load
    from judge.views.replayterm import is_tournament, list_matches, show, step

    console = make_console(highlight=False, markup=False)  # team names and paths may hold "[...]"
    if args.html is not None and args.step:
        return fail("replay", "--html writes a file and --step is interactive: use one of them", 2)
    if args.html is None and is_tournament(args.path):
        list_matches(console, args.path)
        return 0
    # a ReplayError (a bad path, a broken replay, no such round or turn) is said by judge.cli
    match = load(args.path)
    if args.html is not None:
        return _write_html(console, match, args)
    rnd = match.round(args.round if args.round is not None else 1)
    if args.turn is not None:
        turn = args.turn
    else:  # stepping starts at the beginning; a single view shows how the round ended
        turn = rnd.frames()[0 if args.step else -1].turn
    rnd.record_at(turn)  # a clear error for a turn that is not there
    if args.step:
        step(console, match, rnd, turn, read_line or stdin_line)
    else:
        show(console, match, rnd, turn)
    return 0


def _write_html(console: Console, match: MatchReplay, args: argparse.Namespace) -> int:
    from judge.views.html import write_replay_html
    from judge.views.replayfile import ReplayError

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
