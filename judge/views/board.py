"""The board of one turn as rich renderables, for ``--watch``, ``judge replay`` and summaries.

Everything is drawn from a :class:`~judge.records.TurnRecord` (what the
referee writes per turn), so the live view and the replay view are the same code.  The glyphs
are ASCII and 3 characters a cell, so that without colour (a pipe, a log
file, a Windows console) the board still says everything, and a 15x15 board
(48 columns with the row labels) leaves 30 columns for the side panel in an
80-column terminal:

``" . "`` water, ``" 3 "`` gold, ``" # "`` reef, ``" S "`` shield, ``" 6*"`` the
treasure, ``" A "``/``" B "`` boats (seat 0/1), ``"[A]"`` a shielded boat,
``"xA "`` a wreck, ``"xAB"`` both wrecks on one cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from judge import voidwhy
from judge.grid import centre
from judge.records import TurnRecord
from judge.rules import MoveStatus
from judge.views import palette
from judge.views.replayfile import ReplayError, load_replay_file

SEAT_LETTERS = ("A", "B")
TEAM_COLOURS = palette.FILL  # blue, red: every page uses the same two
TEAM_STYLES = ("bold white on #1d4ed8", "bold white on #b91c1c")
WRECK_STYLES = ("bold #93c5fd on grey30", "bold #fca5a5 on grey30")
NAME_STYLES = tuple(f"bold {c}" for c in palette.TEXT)
#: Gold 1..5 from dim to bright; larger amounts (only the treasure) use the brightest.
GOLD_STYLES = (
    "bold #fde68a on #6b5a1e",
    "bold #fef3c7 on #8f7a22",
    "bold black on #b89a1c",
    "bold black on #dcb40f",
    "bold black on #ffd700",
)
WATER_STYLE = "#4b7fa8 on #0b2f4a"
REEF_STYLE = "bold #d4d4d4 on grey35"
SHIELD_STYLE = "bold white on green4"
TREASURE_STYLE = "bold black on #ff9800"
CELL_W = 3
LABEL_W = 3
#: The side panel gets what the board leaves (30 columns beside a 15x15 board in 80),
#: up to this; it goes below the board when fewer than PANEL_MIN_W columns are left.
PANEL_MAX_W = 60
PANEL_MIN_W = 24
LEGEND = "A/B boats  [A] shielded  xA wreck  # reef  S shield  n* treasure"


def board_width(cols: int) -> int:
    return LABEL_W + CELL_W * cols


def _treasure_cell(record: TurnRecord) -> tuple[int, int] | None:
    """The centre while the treasure lies there uncollected (a 0 treasure is never drawn)."""
    if record.treasure is None:
        return None
    ci, cj = centre(record.rows, record.cols)
    tok = record.grid[ci - 1].split()[cj - 1]
    return (ci, cj) if tok.isdigit() and int(tok) > 0 else None


def board_text(record: TurnRecord, names: Sequence[str] = SEAT_LETTERS) -> Text:
    """The grid of a turn record with row/column numbers and the boats drawn over it."""
    rows = record.cells()
    n_rows, n_cols = record.rows, record.cols
    boats: dict[tuple[int, int], list[int]] = {}
    for s, p in enumerate(record.positions):
        if p:
            boats.setdefault(p, []).append(s)
    treasure = _treasure_cell(record)
    text = Text(no_wrap=True, overflow="crop")
    text.append(" " * LABEL_W + "".join(f"{j:>2} " for j in range(1, n_cols + 1)), style="dim")
    text.append("\n")
    for i, row in enumerate(rows, start=1):
        text.append(f"{i:>2} ", style="dim")
        for j, tok in enumerate(row, start=1):
            here = boats.get((i, j))
            if here:
                _boat_cell(text, record, here)
            elif (i, j) == treasure:
                # The number where gold numbers are, the mark in the trailing space:
                # a leading mark made the treasure's row look shifted by one column.
                text.append(f"{tok:>2}*", style=TREASURE_STYLE)
            elif tok in ("D", "W"):
                text.append(" # ", style=REEF_STYLE)
            elif tok == "S":
                text.append(" S ", style=SHIELD_STYLE)
            elif tok == "0":
                text.append(" . ", style=WATER_STYLE)
            else:
                v = int(tok)
                text.append(f"{tok:>2} ", style=GOLD_STYLES[max(0, min(v, 5) - 1)])
        if i < n_rows:
            text.append("\n")
    return text


def _boat_cell(text: Text, record: TurnRecord, seats: list[int]) -> None:
    if len(seats) == 2:  # only wrecks share a cell (a collision sinks both there)
        text.append("x", style=WRECK_STYLES[0])
        text.append("A", style=WRECK_STYLES[0])
        text.append("B", style=WRECK_STYLES[1])
        return
    s = seats[0]
    letter = SEAT_LETTERS[s]
    boat = record.boats[s]
    if boat.sunk:
        text.append(f"x{letter} ", style=WRECK_STYLES[s])
    elif boat.shield:
        text.append(f"[{letter}]", style=TEAM_STYLES[s])
    else:
        text.append(f" {letter} ", style=TEAM_STYLES[s])


def _fmt_ms(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def seat_lines(record: TurnRecord, names: Sequence[str], s: int) -> Text:
    """One team in the side panel: gold, shield, afloat or sunk, verdict, time and move."""
    boat = record.boats[s]
    t = Text()
    t.append(f"{SEAT_LETTERS[s]} ", style=TEAM_STYLES[s])
    t.append(f" {names[s]}", style=NAME_STYLES[s])
    t.append("\n  ")
    t.append(f"gold {boat.gold}", style="bold")
    if boat.shield:
        t.append("  shield", style="green")
    if boat.sunk:
        t.append("  SUNK", style="bold red")
    if record.runs is None:
        return t
    run = record.runs[s]
    t.append("\n  ")
    if run.verdict is None:
        t.append("not run (sunk)" if run.status is MoveStatus.SUNK else "not run", style="dim")
    else:
        t.append(run.verdict, style="green" if run.verdict == "OK" else "bold red")
        t.append(f" {_fmt_ms(run.wall_ms)}")
        if run.move:
            t.append(f" ({run.move[0]},{run.move[1]})")
        elif run.raw:
            t.append(f" {run.raw[:12]!r}")
        if run.status is not None:
            void = voidwhy.of_run(run) is not None
            said = voidwhy.status_words(run, voidwhy.Where.of_record(record, s))
            t.append(f" {said}", style="bold yellow" if void else "dim")
    if run.message:
        t.append(f"\n  {run.message}", style="yellow")
    return t


def side_panel(
    record: TurnRecord, names: Sequence[str], turns: int | None = None, label: str | None = None
) -> Text:
    """Turn number, both teams and the turn's events in words."""
    t = Text()
    if label:
        t.append(f"{label}\n", style="dim")
    total = f"/{turns}" if turns else ""
    t.append(f"turn {record.turn}{total}", style="bold")
    if record.turns_left is not None and record.turn > 0:
        t.append(f"  (K left {record.turns_left})", style="dim")
    for s in (0, 1):
        t.append("\n")
        t.append_text(seat_lines(record, names, s))
    if record.treasure is not None:
        ci, cj = centre(record.rows, record.cols)
        value = record.treasure
        if _treasure_cell(record):
            what = f"treasure {value} at ({ci},{cj})"
        elif value:
            what = f"treasure {value} collected"
        else:
            what = "treasure worth 0 (nothing to take)"
        t.append(f"\n{what}", style="bold #ff9800")
    t.append("\nevents:", style="bold")
    if not record.events:
        t.append(" none", style="dim")
    for e in record.events:
        t.append(f"\n- {e.describe(names)}")
    if record.ended:
        reason = record.end_reason.value if record.end_reason else None
        t.append(f"\nround over ({reason})", style="bold")
    return t


def turn_view(
    record: TurnRecord,
    names: Sequence[str],
    turns: int | None = None,
    width: int = 80,
    label: str | None = None,
    legend: bool = True,
) -> RenderableType:
    """Board and side panel side by side when ``width`` allows, else one above the other."""
    board = board_text(record, names)
    panel = side_panel(record, names, turns, label)
    bw = board_width(record.cols)
    parts: list[RenderableType] = []
    if width >= bw + 2 + PANEL_MIN_W:
        grid = Table.grid(padding=(0, 0, 0, 2))
        grid.add_column(width=bw, no_wrap=True)
        grid.add_column(width=min(PANEL_MAX_W, width - bw - 2), overflow="fold")
        grid.add_row(board, panel)
        parts.append(grid)
    else:
        parts += [board, Text(""), panel]
    if legend:
        parts.append(Text(LEGEND, style="dim"))
    return Group(*parts)


def final_board(replay: Path, names: Sequence[str], legend: bool = True) -> RenderableType | None:
    """The board after the last turn of a replay file, with the legend under it (what
    ``A``, ``[A]``, ``xA``, ``#`` and ``n*`` mean), or None if it cannot be read."""
    try:
        frames = load_replay_file(replay).frames()
    except ReplayError:
        return None
    board = board_text(frames[-1], names)
    return Group(board, Text(LEGEND, style="dim")) if legend else board
