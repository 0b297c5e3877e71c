"""The file protocol: MAP.INP as the judge writes it, MOVE.OUT as a bot writes it.

Only text in, text out: no files are touched here (the sandbox moves bytes,
the referee decides what a failed run means).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.maps import REEF, SHIELD, GameMap, cell_token
from judge.rules import Game, MoveStatus, Pos

#: The protocol's files, in the team's folder: the judge writes MAP.INP before each run,
#: the bot writes MOVE.OUT; STATE.OUT is the bot's own, kept between turns (up to 1 MiB).
MAP_INP = "MAP.INP"
MOVE_OUT = "MOVE.OUT"
STATE_OUT = "STATE.OUT"
STATE_MAX_BYTES = 1 * 2**20

#: How much of MOVE.OUT's first line a replay keeps.
RAW_CAP = 80


def render_map_inp(game: Game, seat: int, reef_symbol: str = "D") -> str:
    """MAP.INP for ``seat``: own boat first, K = turns left including this one."""
    b = game.board
    own, opp = game.position(seat), game.position(1 - seat)
    if own is None or opp is None:
        line2 = "0 0 0 0"
    else:
        line2 = f"{own[0]} {own[1]} {opp[0]} {opp[1]}"
    lines = [
        f"{b.rows} {b.cols} {game.turns_left}",
        line2,
        f"{game.gold[seat]} {1 if game.shield[seat] else 0}",
    ]
    grid, cols = game.grid, b.cols
    for r in range(b.rows):
        lines.append(" ".join(cell_token(v, reef_symbol) for v in grid[r * cols : (r + 1) * cols]))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ParsedMove:
    """MOVE.OUT read under ruling R10: a target, or why there is none."""

    target: Pos | None
    status: MoveStatus | None  # None when the target is usable; else the reason it is void
    raw: str | None  # the first line, capped (None when there was no file)


def parse_move_out(data: bytes | None) -> ParsedMove:
    """Exactly two integers on the first line; whitespace, tabs, CRLF and a BOM are fine."""
    if data is None:
        return ParsedMove(None, MoveStatus.NO_MOVE_OUT, None)
    first = data.split(b"\n", 1)[0]  # only the first line counts (R10), whatever follows
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        return ParsedMove(None, MoveStatus.UNREADABLE, first[:RAW_CAP].decode("latin-1"))
    if text.startswith("\ufeff"):
        text = text[1:]
    first_line = text.rstrip("\r")
    raw = first_line[:RAW_CAP]
    tokens = first_line.split()
    if len(tokens) != 2:
        return ParsedMove(None, MoveStatus.NOT_TWO_INTEGERS, raw)
    try:
        values = [_strict_int(t) for t in tokens]
    except ValueError:
        return ParsedMove(None, MoveStatus.NOT_TWO_INTEGERS, raw)
    return ParsedMove((values[0], values[1]), None, raw)


def _strict_int(tok: str) -> int:
    """An integer written with ASCII digits and an optional sign (no '1e3', no '٣')."""
    body = tok[1:] if tok[:1] in "+-" else tok
    if not body or not all("0" <= ch <= "9" for ch in body):
        raise ValueError(tok)
    return int(tok)


#: The largest sea a MAP.INP may describe when read back (the rules allow 15 x 15).
_MAX_SIDE = 99


def read_map_inp(text: str) -> Game:
    """A MAP.INP (as :func:`render_map_inp` writes it) back as the game it shows, seen by
    its reader: own boat seat 0, the other boat seat 1 (whose gold and shield it does not
    show).  Read strictly, for text a person typed: a ValueError says what is wrong."""
    lines = [ln.split() for ln in text.replace("\ufeff", "").splitlines() if ln.strip()]
    if len(lines) < 4:
        raise ValueError("a MAP.INP has 3 lines of numbers, then the rows of the sea")
    head = _ints(lines[0], 3, "line 1 (M N K)")
    rows, cols, k = head
    if not (1 <= rows <= _MAX_SIDE and 1 <= cols <= _MAX_SIDE) or k < 1:
        raise ValueError(f"line 1: a {rows} x {cols} sea with K = {k} cannot be played")
    boats = _ints(lines[1], 4, "line 2 (i1 j1 i2 j2)")
    gold, shield = _ints(lines[2], 2, "line 3 (G B)")
    if gold < 0 or shield not in (0, 1):
        raise ValueError("line 3: G is the gold so far (0 or more), B is 0 or 1")
    grid = lines[3:]
    if len(grid) != rows or any(len(r) != cols for r in grid):
        raise ValueError(f"the sea must be {rows} rows of {cols} cells (line 1 says so)")
    cells = tuple(_cell(tok) for row in grid for tok in row)
    placement = boats == [0, 0, 0, 0]
    game = Game(GameMap(rows, cols, k, cells, "MAP.INP"), k if placement else k + 1)
    if placement:
        return game
    own, opp = (boats[0], boats[1]), (boats[2], boats[3])
    if not (game.board.inside(own) and game.board.inside(opp)) or own == opp:
        raise ValueError(f"line 2: boats at {own} and {opp} are not two cells of the sea")
    game.pos = [game.board.flat(own), game.board.flat(opp)]
    game.turn = 1
    game.gold = [gold, 0]
    game.shield = [shield == 1, False]
    return game


def _ints(tokens: list[str], n: int, what: str) -> list[int]:
    try:
        values = [_strict_int(t) for t in tokens]
    except ValueError:
        values = []
    if len(values) != n:
        raise ValueError(f"{what} must be {n} integers")
    return values


def _cell(tok: str) -> int:
    if tok in ("D", "W"):
        return REEF
    if tok == "S":
        return SHIELD
    try:
        value = _strict_int(tok)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{tok[:10]!r} is not a cell (a number of gold, D, W or S)")
    return value
