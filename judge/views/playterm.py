"""``judge play --terminal``: the person's round on the terminal.

The board is drawn from the MAP.INP the person's seat gets each turn (their own
boat ``@``, the bot's ``B``), with what the bot did the turn before and why a
move was void, in the same words as everywhere else.  Moves: arrow keys or
w/a/s/d on a terminal, or a cell typed as ``row col``; the start cell is typed.
Without a terminal (a pipe) each move is a line: ``row col``, or up/down/left/right.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

DIRECTIONS = {
    "up": (-1, 0), "w": (-1, 0), "k": (-1, 0),
    "down": (1, 0), "s": (1, 0), "j": (1, 0),
    "left": (0, -1), "a": (0, -1), "h": (0, -1),
    "right": (0, 1), "d": (0, 1), "l": (0, 1),
}  # fmt: skip
ARROWS = {"\x1b[A": "up", "\x1b[B": "down", "\x1b[D": "left", "\x1b[C": "right"}


def board_text(map_inp: str) -> Text:
    """The person's view of the sea: their boat @, the bot's B, reefs D, shields S, gold."""
    lines = [ln.split() for ln in map_inp.splitlines() if ln.strip()]
    rows, cols, left = (int(x) for x in lines[0])
    pos = [int(x) for x in lines[1]]
    gold, shield = lines[2]
    me, bot = (pos[0], pos[1]), (pos[2], pos[3])
    out = Text()
    out.append(f"turns left {left}, your gold {gold}{', shield' if shield == '1' else ''}\n")
    out.append("    " + "".join(f"{c:>3}" for c in range(1, cols + 1)) + "\n")
    for r in range(1, rows + 1):
        out.append(f"{r:>3} ")
        for c in range(1, cols + 1):
            tok = lines[2 + r][c - 1]
            if (r, c) == me:
                out.append("  @", style="bold red")
            elif (r, c) == bot:
                out.append("  B", style="bold yellow")
            elif tok == "D":
                out.append("  D", style="color(94)")
            elif tok == "S":
                out.append("  S", style="green")
            elif tok == "0":
                out.append("  .", style="blue")
            else:
                out.append(f"{tok:>3}", style="yellow")
        out.append("\n")
    return out


def parse_move(text: str, map_inp: str) -> tuple[int, int] | None:
    """A typed move: ``row col``, or a direction (a word, a w/a/s/d or h/j/k/l key)."""
    words = text.strip().lower().replace(",", " ").split()
    if len(words) == 2 and all(w.lstrip("-").isdigit() for w in words):
        return int(words[0]), int(words[1])
    if len(words) == 1 and words[0] in DIRECTIONS:
        pos = [int(x) for x in map_inp.splitlines()[1].split()]
        if pos[0] == 0:
            return None  # no boat yet: the start cell is typed
        d = DIRECTIONS[words[0]]
        return pos[0] + d[0], pos[1] + d[1]
    return None


def _read_key() -> str:
    """One key on a terminal (an arrow is three bytes), without waiting for Enter."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        ch = os.read(fd, 1).decode("utf-8", "replace")
        if ch == "\x1b":
            ch += os.read(fd, 2).decode("utf-8", "replace")
        return ARROWS.get(ch, ch)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


def play_in_terminal(
    session: Any, console: Console, read_line: Callable[[], str | None] | None = None
) -> None:
    """Follow the session's events; ask for each move; end with the result."""
    keys = read_line is None and sys.stdin.isatty()

    def line() -> str | None:
        if read_line is not None:
            return read_line()
        got = sys.stdin.readline()
        return got if got else None

    n, head = 0, None
    while True:
        for ev in session.events_after(n, 1.0):
            n += 1
            kind = ev["kind"]
            if kind == "start":
                head = ev
                console.print(Text(f"{ev['teams'][0]} vs {ev['teams'][1]} on {ev['map']}"))
            elif kind == "turn" and head is not None:
                f, bot = ev["frame"], 1 - head["human_seat"]
                raw = f["raw"][bot]
                said = f"wrote {raw!r}" if raw is not None else "wrote nothing"
                why = (f.get("why_text") or [None, None])[bot]
                console.print(
                    Text(
                        f"turn {f['turn']}: {head['teams'][bot]} {said}"
                        + (f" ({why})" if why else "")
                    )
                )
                mine = (f.get("why_text") or [None, None])[head["human_seat"]]
                if mine:
                    console.print(Text(f"  you: {mine}"))
                for t in f.get("text") or []:
                    console.print(Text(f"  {t}"))
            elif kind == "your_turn":
                console.print(board_text(ev["map_inp"]))
                _ask(session, console, ev, keys, line)
            elif kind in ("end", "error", "stopped"):
                if kind == "end" and head is not None:
                    w = ev["winner"]
                    who = (
                        "a draw"
                        if w is None
                        else ("you win" if w == head["human_seat"] else f"{head['teams'][w]} wins")
                    )
                    console.print(
                        Text(
                            f"round over: {who}, gold {ev['gold'][0]}-{ev['gold'][1]}; replay: judge replay {session.out}"
                        )
                    )
                elif kind == "error":
                    console.print(Text(f"the judge stopped: {ev['message']}"))
                return


def _ask(
    session: Any, console: Console, ev: Any, keys: bool, line: Callable[[], str | None]
) -> None:
    prompt = (
        "your start cell (row col): "
        if ev["placement"]
        else "your move (arrows/wasd, or row col): "
    )
    while True:
        if keys and not ev["placement"]:
            console.print(prompt, end="")
            key = _read_key()
            text = key if key in DIRECTIONS else None
            if key in ("\r", "\n") or text is None:
                console.print()
                typed = line()
                text = (key if key.isdigit() else "") + (typed or "")
            console.print(text)
        else:
            console.print(prompt, end="")
            text = line()
            if text is None:  # no more input: the round is stopped
                session.stop.set()
                return
        move = parse_move(text, ev["map_inp"])
        if move is not None:
            session.move(*move)
            return
        console.print(Text(f"{text.strip()!r}: give a row and a column, e.g. 3 4, or a direction"))
