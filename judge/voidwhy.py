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
coordinates is most likely written 0-based.

Pure: no files, no processes (the referee passes what the sandbox saw).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any

from judge.protocol import parse_move_out
from judge.records import SeatRun
from judge.rules import Game, MoveStatus, Pos


class Why(str, enum.Enum):
    """The reason a move was void; ``str`` so that it is written as-is into replays."""

    NO_MOVE_OUT = "no_move_out"
    ON_STDOUT = "move_on_stdout"
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


def looks_like_a_move(stdout: bytes) -> bool:
    """Whether standard output starts with what MOVE.OUT should have held."""
    return parse_move_out(stdout.lstrip()).target is not None


def for_run(
    verdict: str, status: MoveStatus | None, stdout: bytes = b"", stderr: bytes = b""
) -> Why | None:
    """The reason from the run alone (verdict and MOVE.OUT); None when the move is readable."""
    if verdict != "OK":
        if verdict == "RE" and _CRLF.search(stderr.decode("utf-8", "replace")):
            return Why.CRLF
        return _VERDICT_WHY.get(verdict, Why.RUN_FAILED)
    if status is MoveStatus.NO_MOVE_OUT and looks_like_a_move(stdout):
        return Why.ON_STDOUT
    return _STATUS_WHY.get(status) if status is not None else None


def for_cell(game: Game, seat: int, target: Pos, status: MoveStatus, placement: bool) -> Why:
    """The reason for an illegal cell, with the likely mistake when one explains it."""
    i, j = target
    if placement:
        if status is MoveStatus.INVALID_START:
            if game.valid_start((i + 1, j + 1)):
                return Why.ZERO_BASED
            if i != j and game.valid_start((j, i)):
                return Why.SWAPPED
        return _STATUS_WHY.get(status, Why.RUN_FAILED)
    if status in (MoveStatus.OUTSIDE, MoveStatus.NOT_ADJACENT):
        if game.classify(seat, (i + 1, j + 1)) is MoveStatus.MOVED:
            return Why.ZERO_BASED
        if i != j and game.classify(seat, (j, i)) is MoveStatus.MOVED:
            return Why.SWAPPED
    return _STATUS_WHY.get(status, Why.RUN_FAILED)


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


def status_words(run: SeatRun) -> str:
    """What became of a seat's move this turn: ``moved``, or ``void: <reason>``."""
    why = of_run(run)
    if why is not None:
        return f"void: {words(why)}"
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
#: Reasons ``judge check-bot`` diagnoses in detail.
PROTOCOL = {
    Why.NO_MOVE_OUT,
    Why.ON_STDOUT,
    Why.NOT_TWO_INTEGERS,
    Why.UNREADABLE,
    Why.OUTSIDE,
    Why.NOT_ADJACENT,
    Why.ZERO_BASED,
    Why.SWAPPED,
    Why.INVALID_START,
    Why.CRASH,
    Why.CRLF,
    Why.TIME,
}
