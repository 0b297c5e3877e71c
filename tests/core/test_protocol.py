"""The file protocol: MAP.INP as the judge writes it, MOVE.OUT as a bot writes it (R1, R10, R12)."""

from __future__ import annotations

import re

import pytest

from judge.maps import map_from_text, parse_map_text, validate_text
from judge.protocol import RAW_CAP, ParsedMove, parse_move_out, render_map_inp
from judge.rules import Game, MoveStatus

from ._scenario import game, sea
from .test_maps import VALID7

MIXED = [
    "0 2 W 0 S",
    "3 0 0 0 0",
    "0 0 0 0 4",
    "W 0 0 W 0",
    "S 0 1 0 0",
]


def lines(text: str) -> list[str]:
    assert text.endswith("\n")
    return text[:-1].split("\n")


# ------------------------------------------------------------------ MAP.INP


def test_map_inp_before_placement_has_zero_positions_and_k_turns() -> None:
    g = Game(sea(MIXED, turns=20))
    for seat in (0, 1):
        out = lines(render_map_inp(g, seat))
        assert out[:3] == ["5 5 20", "0 0 0 0", "0 0"]
        assert len(out) == 3 + 5 and all(len(r.split()) == 5 for r in out[3:])


def test_r12_a_reask_gets_the_same_map_inp() -> None:
    import random

    g = Game(sea(MIXED, turns=20))
    first = [render_map_inp(g, s) for s in (0, 1)]
    assert first[0] == first[1]
    p = g.decide_placement(((2, 2), (2, 2)), 0, random.Random(0))
    assert p.reask
    assert [render_map_inp(g, s) for s in (0, 1)] == first


def test_map_inp_lists_own_boat_first() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    assert lines(render_map_inp(g, 0))[1] == "2 2 4 3"
    assert lines(render_map_inp(g, 1))[1] == "4 3 2 2"


def test_map_inp_k_counts_down_to_1_at_the_last_turn() -> None:
    g = Game(sea(["0 0 0 0 0"] * 5, turns=6))
    seen = [int(lines(render_map_inp(g, 0))[0].split()[2])]
    g.place(((1, 1), (5, 5)))
    while not g.ended:
        seen.append(int(lines(render_map_inp(g, 1))[0].split()[2]))
        g.step((None, None))
    assert seen == [6, 5, 4, 3, 2, 1]


def test_map_inp_gold_and_shield_line_is_per_seat() -> None:
    g = game(MIXED, (2, 2), (5, 2))
    g.step(((2, 1), (5, 1)))  # A collects 3, B takes the shield
    assert lines(render_map_inp(g, 0))[2] == "3 0"
    assert lines(render_map_inp(g, 1))[2] == "0 1"


def test_map_inp_shows_the_current_grid() -> None:
    g = game(MIXED, (2, 2), (5, 2))
    g.step(((2, 1), (5, 1)))
    grid = lines(render_map_inp(g, 0))[3:]
    assert grid[1].split()[0] == "0"  # gold taken
    assert grid[4].split()[0] == "0"  # shield taken
    assert grid[0].split() == ["0", "2", "D", "0", "S"]


def test_map_inp_shows_the_treasure_on_the_centre() -> None:
    g = game(["5 0 0 0 0"] + ["0 0 0 0 0"] * 4, (1, 2), (5, 5), turns=4)
    g.step(((1, 1), None))  # turn 2 = K/2: treasure floor(15/4) = 3
    assert lines(render_map_inp(g, 0))[3 + 2].split()[2] == "3"


def test_r1_map_inp_is_written_with_d_never_w() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    text = render_map_inp(g, 0)
    assert "W" not in text and text.count("D") == 3


def test_r1_map_inp_reef_symbol_can_be_switched() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    text = render_map_inp(g, 0, reef_symbol="W")
    assert "D" not in text and text.count("W") == 3


def test_map_inp_tokens_are_single_spaced_without_trailing_spaces() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    for ln in lines(render_map_inp(g, 0)):
        assert ln == " ".join(ln.split())


def test_map_inp_of_a_fresh_round_reads_back_as_the_map() -> None:
    gm = map_from_text(VALID7)
    text = render_map_inp(Game(gm), 0)
    assert validate_text(text) == []
    assert map_from_text(text) == gm
    assert parse_map_text(text).turns == 20


# ------------------------------------------------------------------ MOVE.OUT (R10)

OK_MOVES = [
    (b"3 4\n", (3, 4)),
    (b"3 4", (3, 4)),
    (b"3 4\r\n", (3, 4)),
    (b"\xef\xbb\xbf3 4\n", (3, 4)),
    (b"3\t4\n", (3, 4)),
    (b"   3    4   \n", (3, 4)),
    (b"\t 3 \t 4 \t\r\n", (3, 4)),
    (b"3 4\nwhatever follows\n", (3, 4)),
    (b"3 4\r\n5 6\r\n", (3, 4)),
    (b"+3 04\n", (3, 4)),
    (b"-1 4\n", (-1, 4)),  # an integer: the move is then judged as outside the map
    (b"0 0\n", (0, 0)),
    (b"15 15", (15, 15)),
    (b"123456789012 1\n", (123456789012, 1)),
]


@pytest.mark.parametrize("data, target", OK_MOVES, ids=[repr(d) for d, _ in OK_MOVES])
def test_r10_move_out_with_two_integers_on_line_1_is_read(
    data: bytes, target: tuple[int, int]
) -> None:
    pm = parse_move_out(data)
    assert pm.target == target and pm.status is None
    assert pm.raw is not None and "\r" not in pm.raw and "\ufeff" not in pm.raw


BAD_MOVES = [
    (b"3\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"1 2 3\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"a b\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"1.0 2\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"1,2\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"1e3 2\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"0x3 4\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"3 4a\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"- 4\n", MoveStatus.NOT_TWO_INTEGERS),
    ("٣ ٤\n".encode(), MoveStatus.NOT_TWO_INTEGERS),  # digits, but not ASCII
    ("３ ４\n".encode(), MoveStatus.NOT_TWO_INTEGERS),  # full-width digits
    (b"", MoveStatus.NOT_TWO_INTEGERS),
    (b"\n3 4\n", MoveStatus.NOT_TWO_INTEGERS),  # line 1 is empty
    (b"   \n", MoveStatus.NOT_TWO_INTEGERS),
    (b"3\n4\n", MoveStatus.NOT_TWO_INTEGERS),
    (b"\x00\x00\x00\x00", MoveStatus.NOT_TWO_INTEGERS),
    (b"\xff\xfe\x00\x013 4", MoveStatus.UNREADABLE),
    (b"\x89PNG\r\n\x1a\n\x00\x00", MoveStatus.UNREADABLE),
    (None, MoveStatus.NO_MOVE_OUT),
]


@pytest.mark.parametrize("data, status", BAD_MOVES, ids=[repr(d) for d, _ in BAD_MOVES])
def test_r10_move_out_that_is_not_two_integers_is_void(
    data: bytes | None, status: MoveStatus
) -> None:
    pm = parse_move_out(data)
    assert pm.target is None and pm.status is status
    assert status.void
    if data is None:
        assert pm.raw is None
    else:
        assert pm.raw is not None


def test_r10_move_out_raw_line_is_capped() -> None:
    pm = parse_move_out(b"9" * 10_000 + b" 1\n")
    assert pm.raw is not None and len(pm.raw) == RAW_CAP
    pm = parse_move_out(b"\xff" * 10_000)
    assert pm.status is MoveStatus.UNREADABLE and pm.raw is not None and len(pm.raw) <= RAW_CAP


def test_r10_integer_too_long_for_python_is_void_not_a_crash() -> None:
    pm = parse_move_out(b"1" * 100_000 + b" 2\n")
    assert pm == ParsedMove(None, MoveStatus.NOT_TWO_INTEGERS, "1" * RAW_CAP)


def test_r10_parsed_targets_are_then_judged_by_the_rules() -> None:
    g = game(["0 0 0 0 0"] * 5, (3, 3), (1, 1))
    cases = {
        b"3 4\n": MoveStatus.MOVED,
        b"3 3\n": MoveStatus.STAYED,
        b"0 3\n": MoveStatus.OUTSIDE,
        b"-1 4\n": MoveStatus.OUTSIDE,
        b"4 4\n": MoveStatus.NOT_ADJACENT,
        b"5 3\n": MoveStatus.NOT_ADJACENT,
    }
    for data, status in cases.items():
        assert g.classify(0, parse_move_out(data).target) is status
    g.step((parse_move_out(b"1.5 2").target, parse_move_out(b"1 2").target))
    assert g.position(0) == (3, 3) and g.position(1) == (1, 2)


def test_move_status_void_flags() -> None:
    assert not MoveStatus.MOVED.void and not MoveStatus.PLACED.void and not MoveStatus.STAYED.void
    for st in MoveStatus:
        if st not in (MoveStatus.MOVED, MoveStatus.PLACED, MoveStatus.STAYED):
            assert st.void


def test_r10_only_the_first_line_is_decoded() -> None:
    parsed = parse_move_out(b"1 2\n\xff\xfe garbage")
    assert parsed.target == (1, 2) and parsed.status is None


def test_a_map_inp_reads_back_as_the_game_it_shows() -> None:
    """The position editor's text: render -> read -> render is the same text, both seats."""
    from judge.checkbot.situations import battery
    from judge.protocol import read_map_inp, render_map_inp

    for sit in battery():
        if sit.follow_up is not None:
            continue
        for seat in (0, 1):
            text = render_map_inp(sit.game, seat)
            if seat == 1 and not sit.game.placed:
                continue
            back = read_map_inp(text)
            assert render_map_inp(back, 0) == text, (sit.key, seat)
            assert back.placed == sit.game.placed


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "3 lines of numbers"),
        ("2 2 3\n1 1 2 2\n0 0\n0 0\n", "the sea must be 2 rows of 2 cells"),
        ("2 2 3\n1 1\n0 0\n0 0\n0 0\n", "line 2 (i1 j1 i2 j2) must be 4 integers"),
        ("2 2 3\n1 1 9 9\n0 0\n0 0\n0 0\n", "line 2: boats at (1, 1) and (9, 9)"),
        ("2 2 3\n1 1 2 2\n0 7\n0 0\n0 0\n", "B is 0 or 1"),
        ("2 2 3\n1 1 2 2\n0 0\n0 X\n0 0\n", "'X' is not a cell"),
        ("2 2 0\n0 0 0 0\n0 0\n0 0\n0 0\n", "cannot be played"),
    ],
)
def test_a_map_inp_no_judge_would_write_is_refused_saying_why(text: str, says: str) -> None:
    from judge.protocol import read_map_inp

    with pytest.raises(ValueError, match=re.escape(says)):
        read_map_inp(text)
