"""Why a move was void, in words: one wording for every view."""

from __future__ import annotations

import pytest

from judge import voidwhy
from judge.maps import map_from_text
from judge.records import SeatRun
from judge.rules import Game, MoveStatus
from judge.voidwhy import Why

SEA = """5 5 10
1 1 1 1 1
1 0 1 0 1
1 0 0 0 1
1 0 1 0 1
1 1 1 1 1
"""


def game_at(pos0: tuple[int, int], pos1: tuple[int, int]) -> Game:
    g = Game(map_from_text(SEA, "sea", allow_invalid=True), 10)
    g.place((pos0, pos1))
    return g


def test_every_reason_has_words_without_internal_codes() -> None:
    for why in Why:
        text = voidwhy.words(why)
        assert text and "_" not in text, (why, text)


@pytest.mark.parametrize(
    ("verdict", "status", "stdout", "stderr", "expected"),
    [
        ("OK", MoveStatus.NO_MOVE_OUT, b"3 4\n", b"", Why.ON_STDOUT),
        ("OK", MoveStatus.NO_MOVE_OUT, b"  2\t5\r\n", b"", Why.ON_STDOUT),
        ("OK", MoveStatus.NO_MOVE_OUT, b"thinking...\n", b"", Why.NO_MOVE_OUT),
        ("OK", MoveStatus.NO_MOVE_OUT, b"", b"", Why.NO_MOVE_OUT),
        ("OK", MoveStatus.NOT_TWO_INTEGERS, b"", b"", Why.NOT_TWO_INTEGERS),
        ("OK", None, b"", b"", None),
        ("TLE", None, b"", b"", Why.TIME),
        ("MLE", None, b"", b"", Why.MEMORY),
        ("OLE", None, b"", b"", Why.FILE_SIZE),
        ("RE", None, b"", b"Traceback ...\nZeroDivisionError", Why.CRASH),
        (
            "RE",
            None,
            b"",
            b"/usr/bin/env: 'python3\r': No such file or directory",
            Why.CRLF,
        ),
    ],
)
def test_reason_from_the_run(
    verdict: str, status: MoveStatus | None, stdout: bytes, stderr: bytes, expected: Why | None
) -> None:
    assert voidwhy.for_run(verdict, status, stdout, stderr) is expected


def test_zero_based_and_swapped_cells_are_recognised() -> None:
    g = game_at((2, 2), (4, 4))
    # From (2, 2) the legal moves are (1,2), (3,2), (2,1), (2,3).
    assert voidwhy.for_cell(g, 0, (0, 1), MoveStatus.OUTSIDE, False) is Why.ZERO_BASED
    assert voidwhy.for_cell(g, 0, (4, 2), MoveStatus.NOT_ADJACENT, False) is Why.NOT_ADJACENT
    assert voidwhy.for_cell(g, 0, (9, 9), MoveStatus.OUTSIDE, False) is Why.OUTSIDE
    fresh = Game(map_from_text(SEA, "sea", allow_invalid=True), 10)
    # (1, 1) holds gold: not a start; (2, 2) one more in both is one.
    assert voidwhy.for_cell(fresh, 0, (1, 1), MoveStatus.INVALID_START, True) is Why.ZERO_BASED
    assert voidwhy.for_cell(fresh, 0, (5, 5), MoveStatus.INVALID_START, True) is Why.INVALID_START


def test_old_replays_get_words_from_status_and_verdict() -> None:
    tle = SeatRun(verdict="TLE", status=MoveStatus.RUN_FAILED)
    assert voidwhy.of_run(tle) is Why.TIME
    assert voidwhy.of_run(SeatRun(verdict="OK", status=MoveStatus.NO_MOVE_OUT)) is Why.NO_MOVE_OUT
    assert voidwhy.status_words(tle) == "void: the program ran out of time (TLE)"
    assert voidwhy.of_run(SeatRun(status=MoveStatus.MOVED)) is None
    assert voidwhy.status_words(SeatRun(status=MoveStatus.SUNK)) == "not run (sunk)"
    # A reason from a newer judge falls back to what the status says.
    warp = SeatRun(verdict="OK", status=MoveStatus.OUTSIDE, why="warp")
    assert voidwhy.of_run(warp) is Why.OUTSIDE


def test_summary_names_counts_and_reasons() -> None:
    assert voidwhy.summary({"move_on_stdout": 39}, 40) == (
        "39 of 40 moves void: no MOVE.OUT — the move was printed on standard output"
    )
    two = voidwhy.summary({"crashed": 3, "time_limit": 9}, 40)
    assert two.startswith("12 of 40 moves void: 9 × the program ran out of time (TLE); 3 × ")
