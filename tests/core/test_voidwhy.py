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


@pytest.mark.parametrize(
    ("move_out", "stdout", "expected"),
    [
        (b"", b"3 4\n", "empty_move_out_on_stdout"),
        (b"\r\n", b"3 4\n", "empty_move_out_on_stdout"),
        (b"", b"thinking...\n", "not_two_integers"),
        (b"go\n", b"3 4\n", "not_two_integers"),
        (None, b"3 4 (the best)\n", "move_on_stdout"),
    ],
)
def test_the_match_and_check_bot_see_a_move_on_stdout_alike(
    move_out: bytes | None, stdout: bytes, expected: str
) -> None:
    """A program that opens MOVE.OUT but prints its move (or prints two integers and more)
    is told so by the match as check-bot tells it, not 'not two integers' or 'no MOVE.OUT'."""
    from judge.checkbot import diagnose
    from judge.checkbot.situations import battery
    from judge.protocol import parse_move_out
    from judge.sandbox import Limits
    from tests.checkbot.test_checkbot import facts

    status = parse_move_out(move_out).status
    why = voidwhy.for_run("OK", status, stdout, b"", move_out)
    assert why is not None and why.value == expected
    sit = next(s for s in battery() if s.key == "placement")
    f = facts(move_out, stdout=stdout)
    tags = [x.tag for x in diagnose(sit, f, Limits(time_s=1.0)).findings]
    assert ("stdout" in tags) == ("on_stdout" in expected), tags
    if expected == "empty_move_out_on_stdout":
        assert voidwhy.words(why).startswith("MOVE.OUT is empty")


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


# ------------------------------------------------ one explanation, with the cell in words


def _void(move: tuple[int, int], status: MoveStatus, why: Why) -> SeatRun:
    return SeatRun(move=move, verdict="OK", status=status, why=why.value)


def test_a_void_cell_is_told_with_the_boat_and_the_sea_as_check_bot_tells_it() -> None:
    g = game_at((3, 3), (4, 4))
    where = voidwhy.Where.of_game(g, 0)
    far = _void((2, 1), MoveStatus.NOT_ADJACENT, Why.NOT_ADJACENT)
    assert voidwhy.status_words(far, where) == "void: (2, 1) is not next to the boat at (3, 3)"
    off = _void((0, 3), MoveStatus.OUTSIDE, Why.OUTSIDE)
    assert voidwhy.explain(off, where) == (
        "(0, 3) is outside the 5 x 5 map (rows and columns count from 1: there is no row or "
        "column 0)"
    )
    zero = _void((2, 2), MoveStatus.NOT_ADJACENT, Why.ZERO_BASED)
    assert voidwhy.explain(zero, where) == (
        "(2, 2) is not next to the boat at (3, 3) — 0-based coordinates? rows and columns "
        "count from 1"
    )
    # without the turn (a summary of many turns), the reason's own words
    assert voidwhy.explain(far) == "the cell is not next to the boat"
    fresh = voidwhy.Where.of_game(Game(map_from_text(SEA, "sea", allow_invalid=True), 10), 0)
    start = _void((1, 1), MoveStatus.INVALID_START, Why.INVALID_START)
    assert voidwhy.explain(start, fresh) == (
        "the start (1, 1) holds 1 gold: a start must be a cell holding 0; the boat is placed "
        "at random"
    )


def test_the_turns_record_tells_where_the_boat_was() -> None:
    """A void move leaves the boat where it was: the turn's own record is enough."""
    from judge.records import Boat, TurnRecord

    g = game_at((3, 3), (4, 4))
    run = _void((2, 1), MoveStatus.NOT_ADJACENT, Why.NOT_ADJACENT)
    rows = tuple(" ".join(str(v) for v in g.grid[r * 5 : (r + 1) * 5]) for r in range(5))
    rec = TurnRecord(4, 7, (run, SeatRun()), (), (Boat((3, 3)), Boat((4, 4))), rows)
    assert voidwhy.Where.of_record(rec, 0).boat == (3, 3)
    assert "at (3, 3)" in voidwhy.status_words(run, voidwhy.Where.of_record(rec, 0))


TALL = """6 5 10
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
"""


def test_a_persons_slip_is_no_coding_mistake() -> None:
    """judge play: → at the right edge, ↑ on row 1: outside, never 'swapped' or '0-based?'."""
    g = Game(map_from_text(TALL, "tall", allow_invalid=True), 10)
    g.place(((5, 5), (1, 1)))
    right = (5, 6)  # → from the right edge; (6, 5), the other way round, is a move
    assert voidwhy.for_cell(g, 0, right, MoveStatus.OUTSIDE, False) is Why.SWAPPED  # a bot's
    assert voidwhy.for_cell(g, 0, right, MoveStatus.OUTSIDE, False, guess=False) is Why.OUTSIDE
    up = (0, 1)  # ↑ from (1, 1); (1, 2), one more in both, is a move
    assert voidwhy.for_cell(g, 1, up, MoveStatus.OUTSIDE, False) is Why.ZERO_BASED
    assert voidwhy.for_cell(g, 1, up, MoveStatus.OUTSIDE, False, guess=False) is Why.OUTSIDE
    where = voidwhy.Where.of_game(g, 1)
    said = voidwhy.explain(_void(up, MoveStatus.OUTSIDE, Why.OUTSIDE), where, person=True)
    assert said == "(0, 1) is outside the 6 x 5 map"
    # a play recorded before: why "swapped" for a move outside; a person is not told it
    old = _void(right, MoveStatus.OUTSIDE, Why.SWAPPED)
    assert voidwhy.explain(old, where, person=True) == "(5, 6) is outside the 6 x 5 map"
    assert "swapped" in (voidwhy.explain(old, where) or "")


def test_check_bot_and_the_referee_guess_from_the_same_slips() -> None:
    """One guess of a coding mistake: check-bot's causes are voidwhy's slips, in order."""
    from judge.checkbot import diagnose
    from judge.checkbot.situations import battery
    from judge.sandbox import Limits
    from tests.checkbot.test_checkbot import facts

    sits = {s.key: s for s in battery()}
    for key, answer in (("placement", (0, 5)), ("placement", (6, 1)), ("reef", (3, 9))):
        sit = sits[key]
        d = diagnose(sit, facts(f"{answer[0]} {answer[1]}\n".encode()), Limits(time_s=1.0))
        slips = voidwhy.slips(sit.game, 0, answer, sit.placement)
        assert [f.tag for f in d.findings] == [s.tag for s in slips], (key, answer)
        status = MoveStatus.INVALID_START if sit.placement else sit.game.classify(0, answer)
        recorded = voidwhy.for_cell(sit.game, 0, answer, status, sit.placement)
        assert recorded.value == slips[0].tag


def test_a_diagonal_is_not_guessed_as_a_slip_that_stays() -> None:
    """A corner cell is a diagonal move, the usual beginner's mistake: not a 0-based,
    swapped or twice-shifted way of naming the boat's own cell."""
    g = game_at((3, 2), (1, 1))
    for corner in ((2, 1), (4, 3), (2, 3)):  # 0-based, 1 added twice, i and j swapped
        assert voidwhy.slips(g, 0, corner, False) == [], corner
        assert voidwhy.for_cell(g, 0, corner, MoveStatus.NOT_ADJACENT, False) is Why.NOT_ADJACENT
    # a stay is a legal answer: one written swapped from afar is still that slip
    far = game_at((2, 4), (1, 1))
    assert voidwhy.for_cell(far, 0, (4, 2), MoveStatus.NOT_ADJACENT, False) is Why.SWAPPED


def test_the_referee_reads_an_empty_move_out_beside_a_move_on_stdout() -> None:
    """log.txt and the summary say what check-bot says of that run."""
    from judge.referee import read_run
    from judge.sandbox import RunResult, TurnRun, Verdict

    result = RunResult(Verdict.OK, 0.01, 0.01, 1 << 20, 0, None, b"2 3\n", b"", "exited normally")
    run = read_run(TurnRun(result, {"MOVE.OUT": b"", "STATE.OUT": None}, ()))
    assert run.why == "empty_move_out_on_stdout"
    assert voidwhy.status_words(run) == (
        "void: MOVE.OUT is empty — the move was printed on standard output"
    )
