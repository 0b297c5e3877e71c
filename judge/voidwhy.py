"""Why a move was void, in words a student understands.

A move is void when the boat did not go where its program asked (ruling
R10): the run failed, MOVE.OUT was missing or unreadable, or the cell was not
a legal one.  The referee records a :class:`Why` per seat and turn (the
replay's ``why`` field, the round's ``why_void`` counts); ``log.txt``, the
``judge match`` summary, the terminal board and the HTML replay all turn it
into words here, so a student reads the same sentence everywhere and never an
internal code such as ``run_failed``.

Some reasons are guesses from the evidence, and say so with a question mark:
a move that is illegal as written but legal with one added to both
coordinates is most likely written 0-based.  Those guesses are made here
alone (:func:`slips`): the referee records the first that fits, and
``judge check-bot`` explains each that fits, so the match summary, the pages
and check-bot never tell one bad move two ways.  A person's seat (``judge
play``) gets no guess: a person who presses an arrow off the sea made no
coding mistake.

Where a view has the turn's record, a void cell is told as check-bot tells
it: the cell, where the boat was, the size of the sea (:class:`Where`).

Pure: no files, no processes (the referee passes what the sandbox saw).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.maps import cell_token
from judge.protocol import parse_move_out
from judge.records import SeatRun, TurnRecord
from judge.rules import Game, MoveStatus, Pos


class Why(str, enum.Enum):
    """The reason a move was void; ``str`` so that it is written as-is into replays."""

    NO_MOVE_OUT = "no_move_out"
    ON_STDOUT = "move_on_stdout"
    EMPTY_ON_STDOUT = "empty_move_out_on_stdout"
    NOT_TWO_INTEGERS = "not_two_integers"
    UNREADABLE = "unreadable"
    OUTSIDE = "outside"
    NOT_ADJACENT = "not_adjacent"
    ZERO_BASED = "zero_based"
    SWAPPED = "swapped"
    INVALID_START = "invalid_start"
    REASKS_EXHAUSTED = "reasks_exhausted"
    TIME = "time_limit"
    MEMORY = "memory_limit"
    CRASH = "crashed"
    FILE_SIZE = "file_size"
    CRLF = "crlf"
    RUN_FAILED = "run_failed"  # a failed run of a replay written before reasons were kept


WORDS: dict[Why, str] = {
    Why.NO_MOVE_OUT: "no MOVE.OUT — the program wrote no file MOVE.OUT in its current folder",
    Why.ON_STDOUT: "no MOVE.OUT — the move was printed on standard output",
    Why.EMPTY_ON_STDOUT: "MOVE.OUT is empty — the move was printed on standard output",
    Why.NOT_TWO_INTEGERS: "MOVE.OUT's first line is not two integers",
    Why.UNREADABLE: "MOVE.OUT is not text",
    Why.OUTSIDE: "the cell is outside the map",
    Why.NOT_ADJACENT: "the cell is not next to the boat",
    Why.ZERO_BASED: "the cell is off by one — 0-based coordinates? rows and columns count from 1",
    Why.SWAPPED: "the cell has i and j swapped — write the row first, then the column",
    Why.INVALID_START: "the start cell does not hold 0 — the boat was placed at random",
    Why.REASKS_EXHAUSTED: "the same start as the other boat after 3 re-asks — placed at random",
    Why.TIME: "the program ran out of time (TLE)",
    Why.MEMORY: "the program used too much memory (MLE)",
    Why.CRASH: "the program crashed (RE)",
    Why.FILE_SIZE: "a file the program wrote grew too big (OLE)",
    Why.CRLF: "the program could not start — its first line ends with a Windows line ending "
    "(CRLF): save it with LF line endings",
    Why.RUN_FAILED: "the run failed",
}

#: What became of a move that was not void, in words.
DONE_WORDS = {
    MoveStatus.MOVED.value: "moved",
    MoveStatus.PLACED.value: "placed",
    MoveStatus.STAYED.value: "stayed",
    MoveStatus.SUNK.value: "not run (sunk)",
}

_VERDICT_WHY = {"TLE": Why.TIME, "MLE": Why.MEMORY, "OLE": Why.FILE_SIZE, "RE": Why.CRASH}
_STATUS_WHY = {
    MoveStatus.NO_MOVE_OUT: Why.NO_MOVE_OUT,
    MoveStatus.NOT_TWO_INTEGERS: Why.NOT_TWO_INTEGERS,
    MoveStatus.UNREADABLE: Why.UNREADABLE,
    MoveStatus.OUTSIDE: Why.OUTSIDE,
    MoveStatus.NOT_ADJACENT: Why.NOT_ADJACENT,
    MoveStatus.INVALID_START: Why.INVALID_START,
    MoveStatus.REASKS_EXHAUSTED: Why.REASKS_EXHAUSTED,
    MoveStatus.RUN_FAILED: Why.RUN_FAILED,
}
#: "/usr/bin/env: 'python3\r': No such file or directory" and its cousins.
_CRLF = re.compile(r"\r['\"]?: (?:No such file|not found)|\\r['\"]?: (?:No such file|not found)")


#: Standard output that starts with two integers, as a move would.
_TWO_INTEGERS = re.compile(r"\s*[+-]?\d+\s+[+-]?\d+")


def printed_move(stdout: bytes) -> str | None:
    """The start of standard output when it holds what MOVE.OUT should have (two integers
    first on it, whatever follows), else None."""
    out = stdout.decode("utf-8", "replace")
    if parse_move_out(stdout.lstrip()).target is None and not _TWO_INTEGERS.match(out):
        return None
    return out.strip().splitlines()[0][:40]


def looks_like_a_move(stdout: bytes) -> bool:
    """Whether standard output starts with what MOVE.OUT should have held."""
    return printed_move(stdout) is not None


def for_run(
    verdict: str,
    status: MoveStatus | None,
    stdout: bytes = b"",
    stderr: bytes = b"",
    move_out: bytes | None = None,
) -> Why | None:
    """The reason from the run alone (verdict and MOVE.OUT, ``move_out`` its bytes);
    None when the move is readable."""
    if verdict != "OK":
        if verdict == "RE" and _CRLF.search(stderr.decode("utf-8", "replace")):
            return Why.CRLF
        return _VERDICT_WHY.get(verdict, Why.RUN_FAILED)
    if status is MoveStatus.NO_MOVE_OUT and looks_like_a_move(stdout):
        return Why.ON_STDOUT
    blank = move_out is not None and not move_out.strip()
    if status is MoveStatus.NOT_TWO_INTEGERS and blank and looks_like_a_move(stdout):
        return Why.EMPTY_ON_STDOUT
    return _STATUS_WHY.get(status) if status is not None else None


@dataclass(frozen=True)
class Slip:
    """A likely mistake that turns the cell meant into the cell written."""

    #: "zero_based", "swapped", "zero_based_swapped" or "one_too_many"
    tag: str
    meant: Pos


#: The slips tried, in the order they are told; "zero_based_swapped" only when no single one fits.
SLIP_TAGS = ("zero_based", "swapped", "zero_based_swapped", "one_too_many")
_COMBINED = "zero_based_swapped"


def _meant(tag: str, t: Pos) -> Pos:
    i, j = t
    return {
        "zero_based": (i + 1, j + 1),
        "swapped": (j, i),
        "zero_based_swapped": (j + 1, i + 1),
        "one_too_many": (i - 1, j - 1),
    }[tag]


def slips(game: Game, seat: int, target: Pos, placement: bool) -> list[Slip]:
    """The mistakes that explain an illegal ``target``: each cell it may have meant that
    would have been legal (a valid start; a move or a stay).  Single slips first; the
    combined one only if none fits; a cell counts once (i == j makes "swapped" a no-op).
    A corner of the boat's cell is a diagonal move, not a slip that meant to stay."""
    boat = None if placement else game.position(seat)
    diagonal = boat is not None and abs(target[0] - boat[0]) == abs(target[1] - boat[1]) == 1

    def fits(c: Pos) -> bool:
        if placement:
            return game.valid_start(c)
        if diagonal and c == boat:
            return False
        return game.classify(seat, c) in (MoveStatus.MOVED, MoveStatus.STAYED)

    seen: set[Pos] = set()
    single: list[Slip] = []
    combined: list[Slip] = []
    for tag in SLIP_TAGS:
        c = _meant(tag, target)
        if c in seen or not fits(c):
            continue
        seen.add(c)
        (combined if tag == _COMBINED else single).append(Slip(tag, c))
    return single or combined


def for_cell(
    game: Game, seat: int, target: Pos, status: MoveStatus, placement: bool, guess: bool = True
) -> Why:
    """The reason for an illegal cell, with the likely mistake when one explains it
    (``guess`` False: a person's seat, whose slips are no coding mistake)."""
    if guess and status in (MoveStatus.INVALID_START, MoveStatus.OUTSIDE, MoveStatus.NOT_ADJACENT):
        for slip in slips(game, seat, target, placement):
            if slip.tag == "zero_based":
                return Why.ZERO_BASED
            if slip.tag == "swapped":
                return Why.SWAPPED
    return _STATUS_WHY.get(status, Why.RUN_FAILED)


# ------------------------------------------------------------ the cell in words


@dataclass(frozen=True)
class Where:
    """What a seat's MAP.INP showed when its move was void: the sea and the boat's cell
    (None at placement).  A void move leaves the boat where it was and placement takes
    no cell, so the turn's own record (or the game after it) tells it."""

    rows: int
    cols: int
    grid: tuple[tuple[str, ...], ...]  # the cells' tokens, row by row
    boat: Pos | None

    @classmethod
    def of_record(cls, record: TurnRecord, seat: int) -> Where:
        boat = record.positions[seat] if record.turn > 1 else None
        return cls(record.rows, record.cols, tuple(tuple(r) for r in record.cells()), boat)

    @classmethod
    def of_game(cls, game: Game, seat: int) -> Where:
        b = game.board
        grid = tuple(
            tuple(cell_token(v) for v in game.grid[r * b.cols : (r + 1) * b.cols])
            for r in range(b.rows)
        )
        return cls(b.rows, b.cols, grid, game.position(seat) if game.placed else None)

    def inside(self, pos: Pos) -> bool:
        return 1 <= pos[0] <= self.rows and 1 <= pos[1] <= self.cols

    def token(self, pos: Pos) -> str:
        return self.grid[pos[0] - 1][pos[1] - 1]


def cell(pos: Pos) -> str:
    """``(3, 4)``: a cell as every message writes it."""
    return f"({pos[0]}, {pos[1]})"


def outside_words(t: Pos, rows: int, cols: int, note_zero: bool = True) -> str:
    """``(0, 3) is outside the 7 x 11 map``, saying there is no row 0 when a 0 is in it
    (``note_zero`` False for a person, who wrote no coordinates)."""
    zero = (
        " (rows and columns count from 1: there is no row or column 0)"
        if note_zero and 0 in t
        else ""
    )
    return f"{cell(t)} is outside the {rows} x {cols} map{zero}"


def not_next_words(t: Pos, boat: Pos) -> str:
    return f"{cell(t)} is not next to the boat at {cell(boat)}"


def token_words(token: str) -> str:
    """What a cell holds: ``is a reef (D)``, ``holds 3 gold``."""
    if token in ("D", "W", "-1"):
        return "is a reef (D)"
    if token in ("S", "-2"):
        return "is a shield (S)"
    if token.isdigit() and int(token) > 0:
        return f"holds {int(token)} gold"
    return "holds 0"


def start_words(t: Pos, where: Where, note_zero: bool = True) -> str:
    """Why ``t`` is no start: ``the start (1, 1) holds 2 gold: a start must be a cell holding 0``."""
    if not where.inside(t):
        return f"the start {outside_words(t, where.rows, where.cols, note_zero)}"
    return f"the start {cell(t)} {token_words(where.token(t))}: a start must be a cell holding 0"


_GUESS_WORDS = {
    Why.ZERO_BASED: "0-based coordinates? rows and columns count from 1",
    Why.SWAPPED: "i and j swapped? write the row first, then the column",
}


def explain(run: SeatRun, where: Where | None = None, person: bool = False) -> str | None:
    """Why a seat's move was void, in one sentence (None: it was not void).

    With ``where``, a cell is told as ``judge check-bot`` tells it: ``(2, 1) is not
    next to the boat at (3, 3)``; without it (a summary of many turns), the reason's
    words.  ``person``: no guess of a coding mistake, and none recorded is shown.
    """
    why = of_run(run)
    if why is None:
        return None
    if person and why in _GUESS_WORDS:
        why = _STATUS_WHY.get(run.status, why) if run.status is not None else why
    fact = _cell_fact(run, where, person) if where is not None else None
    if fact is None:
        return words(why)
    if why in _GUESS_WORDS:
        return f"{fact} — {_GUESS_WORDS[why]}"
    return fact


def _cell_fact(run: SeatRun, where: Where, person: bool) -> str | None:
    """The illegal cell in check-bot's words (None: the move named no cell)."""
    t, status = run.move, run.status
    if t is None:
        return None
    if status is MoveStatus.INVALID_START:
        return start_words(t, where, not person) + "; the boat is placed at random"
    if status is MoveStatus.OUTSIDE:
        return outside_words(t, where.rows, where.cols, not person)
    if status is MoveStatus.NOT_ADJACENT and where.boat is not None:
        return not_next_words(t, where.boat)
    return None


def parse(value: Any) -> Why | None:
    """A recorded reason, or None for anything else (a newer judge's reason, garbage)."""
    try:
        return Why(value) if isinstance(value, str) else None
    except ValueError:
        return None


def of_run(run: SeatRun) -> Why | None:
    """The reason a replay gives for a seat's void move (older replays: derived)."""
    if run.why is not None:
        found = parse(run.why)
        if found is not None:
            return found
    status = run.status
    if status is None or status.value in DONE_WORDS:
        return None
    if run.verdict not in (None, "OK"):
        return _VERDICT_WHY.get(str(run.verdict), Why.RUN_FAILED)
    return _STATUS_WHY.get(status, Why.RUN_FAILED)


def words(why: Why | str) -> str:
    """The sentence for a reason (an unknown one is shown as it was recorded)."""
    found = why if isinstance(why, Why) else parse(why)
    return WORDS[found] if found is not None else str(why)


def status_words(run: SeatRun, where: Where | None = None, person: bool = False) -> str:
    """What became of a seat's move this turn: ``moved``, or ``void: <reason>`` (told
    with the cell and the boat's when ``where`` is given: :func:`explain`)."""
    said = explain(run, where, person)
    if said is not None:
        return f"void: {said}"
    if run.status is None:
        return ""
    return DONE_WORDS.get(run.status.value, run.status.value)


def summary(counts: Mapping[str, int], moves: int) -> str:
    """``39 of 40 moves void: no MOVE.OUT — ...`` (several reasons: most frequent first)."""
    total = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) == 1:
        reasons = words(ranked[0][0])
    else:
        reasons = "; ".join(f"{n} × {words(k)}" for k, n in ranked)
    return f"{total} of {moves} moves void: {reasons}"


#: Reasons whose cause is in the team's stderr.log.
IN_STDERR = {Why.CRASH, Why.CRLF, Why.MEMORY, Why.FILE_SIZE, Why.RUN_FAILED}
