"""``judge replay`` on the terminal: the board at a turn, the round's summary, stepping.

Everything is drawn from the typed records of the replay
(:mod:`judge.views.replayfile`); names and paths are text, never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from judge.rules import EndReason, score
from judge.views.board import turn_view
from judge.views.replayfile import MatchReplay, RoundReplay, matches_in
from judge.views.tables import print_table

ReadLine = Callable[[], str | None]


def label(match: MatchReplay, rnd: RoundReplay) -> str:
    of = f" of {len(match.rounds)}" if len(match.rounds) > 1 else ""
    return f"round {rnd.index}{of}: {rnd.label}"


def show(console: Console, match: MatchReplay, rnd: RoundReplay, turn: int) -> None:
    """The board at ``turn`` and what the round came to."""
    rec = rnd.record_at(turn)
    console.print(turn_view(rec, rnd.names, rnd.turns, console.width, label=label(match, rnd)))
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
    print_table(console, table)
    if match.result is not None:
        p = match.result.points
        console.print(f"match points: {match.teams[0]} {p[0]}, {match.teams[1]} {p[1]}")
    console.print(round_line(shown, match.teams), soft_wrap=True)


STEP_PROMPT = "Enter: next, b: back, a number: go to that turn, q: quit > "


def step(
    console: Console, match: MatchReplay, rnd: RoundReplay, turn: int, read_line: ReadLine
) -> None:
    """Interactive stepping; reads one line per command so it works with any terminal or pipe."""
    frames = rnd.frames()
    first, last = frames[0].turn, frames[-1].turn
    i = turn - first
    msg = ""
    shown = label(match, rnd)
    while True:
        if console.is_terminal:
            console.clear()
        console.print(turn_view(frames[i], rnd.names, rnd.turns, console.width, label=shown))
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


def is_tournament(path: Path) -> bool:
    """A folder of match folders (a tournament's), not a match or a round itself."""
    return (
        path.is_dir()
        and not (path / "result.json").is_file()
        and not (path / "replay.jsonl").is_file()
        and bool(matches_in(path))
    )


def list_matches(console: Console, path: Path) -> None:
    """A tournament folder: its matches, each with the command that shows it."""
    found = matches_in(path)
    console.print(
        f"{path} is a tournament folder with {len(found)} match"
        f"{'es' if len(found) != 1 else ''}; show one with 'judge replay {path}/MATCH':",
        soft_wrap=True,
    )
    table = Table(box=None, pad_edge=False)
    for col in ("MATCH", "teams", "points", "rounds"):
        table.add_column(col, no_wrap=True)
    for folder, result in found:
        if result is None:
            table.add_row(Text(folder.name), Text("(result.json unreadable)"), Text(""), Text(""))
            continue
        done = len(result.rounds)
        planned = result.planned if result.planned is not None else done
        table.add_row(
            Text(folder.name),
            Text(" vs ".join(result.teams)),
            Text(f"{result.points[0]}-{result.points[1]}"),
            Text(f"{done}/{planned}"),
        )
    print_table(console, table)
    if (path / "index.html").is_file():
        console.print(f"(or open {path / 'index.html'} in a web browser)", soft_wrap=True)
