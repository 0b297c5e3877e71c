"""Rule scenarios on small hand-written seas: §2–§5 and rulings R2–R9, R11–R13.

Seat 0 is boat A, seat 1 is boat B.  Positions are 1-based (row, column).
"""

from __future__ import annotations

import random

import pytest

from judge.maps import REEF, SHIELD
from judge.rules import (
    MAX_REASKS,
    EndReason,
    Event,
    EventKind,
    Game,
    MoveStatus,
    SinkCause,
    resolve,
    score,
)

from ._scenario import game, sea, state

OPEN5 = ["0 0 0 0 0"] * 5

# A 5x5 sea with some of everything.  Centre (3,3) is 0.
#        1 2 3 4 5
MIXED = [
    "0 2 D 0 S",  # 1
    "3 0 0 0 0",  # 2
    "0 0 0 0 4",  # 3
    "D 0 0 D 0",  # 4
    "S 0 1 0 0",  # 5
]


def kinds(events: list[Event]) -> list[EventKind]:
    return [e.kind for e in events]


def sinks(events: list[Event]) -> list[tuple[int | None, tuple[int, int] | None, SinkCause | None]]:
    return [(e.seat, e.pos, e.cause) for e in events if e.kind is EventKind.SINK]


# --------------------------------------------------------------------- §2 start


def test_start_valid_cells_are_exactly_the_zero_cells() -> None:
    g = Game(sea(MIXED))
    assert g.valid_start((2, 2))
    assert not g.valid_start((1, 2))  # gold
    assert not g.valid_start((1, 3))  # D
    assert not g.valid_start((1, 5))  # S
    assert not g.valid_start((0, 1)) and not g.valid_start((6, 1)) and not g.valid_start((1, 6))
    assert set(g.start_cells()) == {
        (i, j) for i in range(1, 6) for j in range(1, 6) if g.cell((i, j)) == 0
    }


def test_placement_both_valid_and_different_are_placed_as_asked() -> None:
    g = Game(sea(MIXED))
    p = g.decide_placement(((2, 2), (4, 3)), 0, random.Random(1))
    assert not p.reask
    assert p.positions == ((2, 2), (4, 3))
    assert p.statuses == (MoveStatus.PLACED, MoveStatus.PLACED)
    assert p.random_placed == (False, False)
    assert kinds(list(p.events)) == [EventKind.PLACED, EventKind.PLACED]


@pytest.mark.parametrize(
    "bad",
    [(1, 2), (1, 3), (1, 5), (0, 0), (6, 3), (3, 0), (-1, 2), None],
    ids=["gold", "reef", "shield", "zero-zero", "below", "left", "negative", "no-move"],
)
def test_placement_one_invalid_goes_at_random_on_a_valid_cell_not_the_others(bad: object) -> None:
    g = Game(sea(MIXED))
    for seed in range(40):
        p = g.decide_placement((bad, (2, 2)), 0, random.Random(seed))  # type: ignore[arg-type]
        assert not p.reask and p.positions is not None
        a, b = p.positions
        assert b == (2, 2)
        assert g.valid_start(a) and a != b
        assert p.statuses == (MoveStatus.INVALID_START, MoveStatus.PLACED)
        assert p.random_placed == (True, False)
        assert kinds(list(p.events)) == [EventKind.RANDOM_PLACED, EventKind.PLACED]
        # and the other seat
        p = g.decide_placement(((2, 2), bad), 0, random.Random(seed))  # type: ignore[arg-type]
        assert p.positions is not None and p.positions[0] == (2, 2)
        assert g.valid_start(p.positions[1]) and p.positions[1] != (2, 2)


def test_placement_one_invalid_never_lands_on_the_other_boat() -> None:
    # Only two start cells: the random boat must take the one the other did not ask for.
    g = Game(sea(["1 1 1 1 1", "1 1 1 1 1", "1 0 0 1 1", "1 1 1 1 1", "1 1 1 1 1"]))
    for seed in range(20):
        p = g.decide_placement(((3, 2), (1, 1)), 0, random.Random(seed))
        assert p.positions == ((3, 2), (3, 3))


def test_placement_both_invalid_go_at_random_on_two_different_valid_cells() -> None:
    g = Game(sea(MIXED))
    seen = set()
    for seed in range(60):
        p = g.decide_placement(((1, 3), None), 0, random.Random(seed))
        assert not p.reask and p.positions is not None
        a, b = p.positions
        assert a != b and g.valid_start(a) and g.valid_start(b)
        assert p.statuses == (MoveStatus.INVALID_START, MoveStatus.INVALID_START)
        assert p.random_placed == (True, True)
        seen.add(p.positions)
    assert len(seen) > 10  # really drawn, not a fixed pair


def test_r12_equal_starts_are_asked_again_up_to_three_times() -> None:
    g = Game(sea(MIXED))
    rng = random.Random(5)
    for done in range(MAX_REASKS):
        p = g.decide_placement(((2, 2), (2, 2)), done, rng)
        assert p.reask and p.positions is None
        assert [(e.kind, e.pos, e.value) for e in p.events] == [(EventKind.REASK, (2, 2), done + 1)]
    assert MAX_REASKS == 3
    # Still equal after the 3rd re-ask: both at random on two different valid cells.
    p = g.decide_placement(((2, 2), (2, 2)), MAX_REASKS, rng)
    assert not p.reask and p.positions is not None
    a, b = p.positions
    assert a != b and g.valid_start(a) and g.valid_start(b)
    assert p.random_placed == (True, True)


def test_r12_reask_resolved_when_the_new_answers_differ() -> None:
    g = Game(sea(MIXED))
    p = g.decide_placement(((2, 2), (2, 3)), 2, random.Random(0))
    assert p.positions == ((2, 2), (2, 3)) and p.random_placed == (False, False)


def test_r12_equal_but_invalid_starts_are_not_reasked() -> None:
    g = Game(sea(MIXED))
    p = g.decide_placement(((1, 3), (1, 3)), 0, random.Random(0))
    assert not p.reask and p.random_placed == (True, True)


def test_r12_a_reask_leaves_the_state_unchanged() -> None:
    from judge.protocol import render_map_inp

    g = Game(sea(MIXED))
    before = [render_map_inp(g, s) for s in (0, 1)]
    g.decide_placement(((2, 2), (2, 2)), 0, random.Random(0))
    assert [render_map_inp(g, s) for s in (0, 1)] == before
    assert g.turn == 0 and not g.placed


def test_placement_is_one_turn() -> None:
    g = Game(sea(MIXED, turns=10))
    assert g.turns_left == 10
    g.place(((2, 2), (4, 3)))
    assert g.turn == 1 and g.turns_left == 9
    assert g.position(0) == (2, 2) and g.position(1) == (4, 3)
    with pytest.raises(ValueError):
        g.place(((2, 2), (4, 3)))


def test_r13_random_placement_same_seed_same_cells() -> None:
    g = Game(sea(MIXED))
    for asked in [(None, None), ((1, 3), (2, 2)), ((2, 2), (2, 2))]:
        done = MAX_REASKS if asked == ((2, 2), (2, 2)) else 0
        runs = {g.decide_placement(asked, done, random.Random(42)).positions for _ in range(5)}  # type: ignore[arg-type]
        assert len(runs) == 1
    draws = {g.decide_placement((None, None), 0, random.Random(s)).positions for s in range(30)}
    assert len(draws) > 5


def test_r13_random_placement_ignores_the_global_random_state() -> None:
    g = Game(sea(MIXED))
    random.seed(1)
    a = g.decide_placement((None, None), 0, random.Random(7)).positions
    random.seed(2)
    b = g.decide_placement((None, None), 0, random.Random(7)).positions
    assert a == b


# -------------------------------------------------------------------- §3 moving


def test_r2_boat_moves_to_an_edge_adjacent_cell() -> None:
    g = game(OPEN5, (3, 3), (1, 1))
    for target in [(2, 3), (2, 2), (3, 2), (4, 2)]:  # up, left, down, right in turn
        assert g.classify(0, target) is MoveStatus.MOVED
        g.step((target, None))
        assert g.position(0) == target
    assert g.position(1) == (1, 1)


@pytest.mark.parametrize(
    "target, status",
    [
        ((0, 1), MoveStatus.OUTSIDE),
        ((1, 0), MoveStatus.OUTSIDE),
        ((6, 1), MoveStatus.OUTSIDE),
        ((-1, -1), MoveStatus.OUTSIDE),
        ((10**9, 1), MoveStatus.OUTSIDE),
        ((3, 1), MoveStatus.NOT_ADJACENT),
        ((2, 2), MoveStatus.NOT_ADJACENT),  # diagonal
        ((5, 5), MoveStatus.NOT_ADJACENT),
        ((1, 1), MoveStatus.STAYED),  # own cell
        (None, MoveStatus.NOT_TWO_INTEGERS),
    ],
    ids=["row0", "col0", "row6", "negative", "huge", "two-away", "diagonal", "far", "own", "none"],
)
def test_r2_invalid_moves_leave_the_boat_where_it_is(target: object, status: MoveStatus) -> None:
    g = game(OPEN5, (1, 1), (5, 5))
    assert g.classify(0, target) is status  # type: ignore[arg-type]
    events = g.step((target, None))  # type: ignore[arg-type]
    assert g.position(0) == (1, 1) and not g.sunk[0]
    assert events == []
    assert g.turn == 2


def test_r2_invalid_move_onto_a_gold_cell_far_away_collects_nothing() -> None:
    g = game(MIXED, (2, 2), (3, 3))
    g.step(((3, 5), None))  # 4 gold, not adjacent
    assert g.gold == [0, 0] and g.cell((3, 5)) == 4


def test_r2_moves_are_simultaneous_a_boat_may_follow_into_a_cell_being_left() -> None:
    g = game(OPEN5, (3, 1), (3, 2))
    g.step(((3, 2), (3, 3)))  # A enters B's old cell while B moves on
    assert g.position(0) == (3, 2) and g.position(1) == (3, 3)
    assert g.sunk == [False, False]


def test_r2_each_move_is_judged_against_the_state_before_the_turn() -> None:
    # B's target (2,3) is adjacent to where B is, not to where A is going: both fine.
    g = game(OPEN5, (3, 3), (2, 2))
    g.step(((3, 2), (2, 3)))
    assert g.position(0) == (3, 2) and g.position(1) == (2, 3)


def test_r3_both_boats_into_the_same_cell_both_sink_there() -> None:
    g = game(OPEN5, (3, 2), (3, 4))
    ev = g.step(((3, 3), (3, 3)))
    assert g.sunk == [True, True]
    assert g.position(0) == g.position(1) == (3, 3)
    assert sinks(ev) == [(0, (3, 3), SinkCause.COLLISION), (1, (3, 3), SinkCause.COLLISION)]
    assert g.ended and g.reason is EndReason.BOTH_SUNK


def test_r3_collision_sinks_even_with_shields() -> None:
    g = game(["0 S 0 S 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"], (2, 2), (2, 4))
    g.step(((1, 2), (1, 4)))
    assert g.shield == [True, True]
    g.step(((1, 3), (1, 3)))
    assert g.sunk == [True, True]


def test_r3_move_onto_staying_boat_sinks_both() -> None:
    g = game(OPEN5, (3, 2), (3, 3))
    ev = g.step(((3, 3), (3, 3)))  # B asks for its own cell: stays
    assert g.sunk == [True, True]
    assert g.position(0) == g.position(1) == (3, 3)
    assert sinks(ev) == [(0, (3, 3), SinkCause.COLLISION), (1, (3, 3), SinkCause.COLLISION)]


def test_r3_move_onto_a_boat_whose_move_is_invalid_sinks_both() -> None:
    g = game(OPEN5, (3, 2), (3, 3))
    g.step(((3, 3), (5, 5)))  # B's move is not adjacent: B stays
    assert g.sunk == [True, True] and g.position(0) == (3, 3)


def test_r3_move_onto_a_boat_with_no_move_sinks_both() -> None:
    g = game(OPEN5, (3, 2), (3, 3))
    g.step((None, (3, 2)))
    assert g.sunk == [True, True] and g.position(1) == (3, 2)


def test_r3_collision_collects_nothing() -> None:
    g = game(["0 0 0 0 0", "0 0 5 0 0", "0 0 0 0 0", "0 0 S 0 0", "0 0 0 0 0"], (2, 2), (2, 4))
    g.step(((2, 3), (2, 3)))
    assert g.gold == [0, 0] and g.cell((2, 3)) == 5
    g2 = game(["0 0 0 0 0", "0 0 5 0 0", "0 0 0 0 0", "0 0 S 0 0", "0 0 0 0 0"], (4, 2), (4, 4))
    ev = g2.step(((4, 3), (4, 3)))
    assert g2.shield == [False, False] and g2.cell((4, 3)) == SHIELD
    assert kinds(ev) == [EventKind.SINK, EventKind.SINK]


def test_r4_swap_sinks_both_on_own_start_cells_nothing_collected() -> None:
    g = game(MIXED, (2, 2), (2, 3))
    gold_before = g.gold_on_map()
    ev = g.step(((2, 3), (2, 2)))
    assert g.sunk == [True, True]
    assert g.position(0) == (2, 2) and g.position(1) == (2, 3)
    assert sinks(ev) == [(0, (2, 2), SinkCause.SWAP), (1, (2, 3), SinkCause.SWAP)]
    assert g.gold == [0, 0] and g.gold_on_map() == gold_before
    assert g.ended and g.reason is EndReason.BOTH_SUNK


def test_r4_swap_sinks_even_with_shields() -> None:
    g = game(["0 S 0 S 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"], (2, 2), (2, 4))
    g.step(((1, 2), (1, 4)))
    assert g.shield == [True, True]
    g.step(((1, 3), (2, 4)))
    g.step((None, (2, 3)))
    assert g.position(0) == (1, 3) and g.position(1) == (2, 3) and g.sunk == [False, False]
    ev = g.step(((2, 3), (1, 3)))  # swap
    assert sinks(ev) == [(0, (1, 3), SinkCause.SWAP), (1, (2, 3), SinkCause.SWAP)]
    assert g.reason is EndReason.BOTH_SUNK


def test_r5_move_into_a_wreck_sinks_on_that_cell() -> None:
    g = game(MIXED, (2, 3), (4, 3))
    ev = g.step(((1, 3), None))  # A hits the reef at (1,3)
    assert sinks(ev) == [(0, (1, 3), SinkCause.REEF)]
    g.step((None, (3, 3)))
    g.step((None, (2, 3)))
    ev = g.step((None, (1, 3)))  # B enters the wreck
    assert sinks(ev) == [(1, (1, 3), SinkCause.WRECK)]
    assert g.position(1) == (1, 3) and g.gold == [0, 0]
    assert g.ended and g.reason is EndReason.BOTH_SUNK


def test_r5_a_wreck_sinks_even_a_shielded_boat_that_reefs_would_not() -> None:
    rows = ["0 0 0 0 0", "0 0 0 0 0", "0 D 0 S 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (3, 1), (3, 5))
    g.step(((3, 2), (3, 4)))  # A sinks on the reef, B takes the shield
    assert g.sunk == [True, False] and g.shield == [False, True]
    g.step((None, (3, 3)))
    ev = g.step((None, (3, 2)))
    assert sinks(ev) == [(1, (3, 2), SinkCause.WRECK)]


def test_sunk_boat_never_moves_again() -> None:
    g = game(MIXED, (2, 3), (5, 5))
    g.step(((1, 3), None))
    assert g.sunk[0]
    for target in [(2, 3), (1, 2), (1, 4), (1, 3)]:
        assert g.classify(0, target) is MoveStatus.SUNK
        g.step((target, None))
        assert g.position(0) == (1, 3)
    assert not g.ended


def test_r11_a_sunk_seat_is_classified_sunk_and_its_move_is_ignored() -> None:
    g = game(MIXED, (2, 3), (5, 5))
    g.step(((1, 3), None))
    assert g.classify(0, (2, 3)) is MoveStatus.SUNK
    assert g.classify(0, None) is MoveStatus.SUNK
    assert MoveStatus.SUNK.void
    g.step(((1, 2), (4, 5)))  # whatever it would have said
    assert g.position(0) == (1, 3) and g.gold[0] == 0


def test_arriving_on_gold_collects_all_of_it_and_the_cell_becomes_zero() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    ev = g.step(((1, 2), (5, 3)))
    assert g.gold == [2, 1]
    assert g.cell((1, 2)) == 0 and g.cell((5, 3)) == 0
    assert [(e.kind, e.seat, e.pos, e.value) for e in ev] == [
        (EventKind.COLLECT, 0, (1, 2), 2),
        (EventKind.COLLECT, 1, (5, 3), 1),
    ]


def test_gold_collected_before_sinking_is_kept() -> None:
    g = game(MIXED, (2, 2), (5, 5))
    g.step(((2, 1), None))  # 3 gold
    g.step(((1, 1), None))
    g.step(((1, 2), None))  # 2 gold
    g.step(((1, 3), None))  # reef
    assert g.sunk[0] and g.gold[0] == 5


def test_r8_collection_only_on_arrival_staying_collects_nothing() -> None:
    g = game(MIXED, (2, 2), (5, 5))
    g.step(((2, 1), None))
    assert g.gold[0] == 3
    for _ in range(3):
        g.step(((2, 1), None))  # own cell: stays
    assert g.gold[0] == 3


def test_r8_boat_on_centre_at_treasure_time_collects_only_after_leaving_and_returning() -> None:
    rows = ["5 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (1, 2), (3, 3), turns=6)  # half time after turn 3
    g.step(((1, 1), None))  # turn 2: A has 5
    ev = g.step((None, (3, 3)))  # turn 3: B stays on the centre; treasure floor(15/4) = 3
    assert [(e.kind, e.pos, e.value) for e in ev] == [(EventKind.TREASURE, (3, 3), 3)]
    assert g.gold == [5, 0] and g.cell((3, 3)) == 3
    g.step((None, (3, 3)))  # turn 4: still there, still not collected
    assert g.gold[1] == 0 and g.cell((3, 3)) == 3
    g.step((None, (3, 4)))  # turn 5: leaves
    assert g.gold[1] == 0
    ev = g.step((None, (3, 3)))  # turn 6: comes back and collects
    assert g.gold[1] == 3 and g.cell((3, 3)) == 0 and g.treasure_by == 1
    assert (EventKind.COLLECT, 1, (3, 3), 3) in [(e.kind, e.seat, e.pos, e.value) for e in ev]
    assert g.ended and g.reason is EndReason.TURNS


# ------------------------------------------------------------ §4 reefs, shields


def test_boats_start_without_a_shield() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    assert g.shield == [False, False]


def test_r6_reef_without_shield_sinks_the_boat_on_the_reef() -> None:
    g = game(MIXED, (2, 3), (5, 5))
    ev = g.step(((1, 3), None))
    assert g.sunk == [True, False] and g.position(0) == (1, 3)
    assert sinks(ev) == [(0, (1, 3), SinkCause.REEF)]
    assert g.cell((1, 3)) == REEF


def test_r6_reef_with_shield_floats_reef_stays_and_shield_is_not_used_up() -> None:
    rows = ["0 0 0 0 0", "0 S D D 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5))
    g.step(((2, 2), None))
    assert g.shield[0]
    for target in [(2, 3), (2, 4), (2, 3)]:  # two reefs, then back onto the first
        ev = g.step((target, None))
        assert not g.sunk[0] and g.position(0) == target and ev == []
        assert g.shield[0]
    assert g.cell((2, 3)) == REEF and g.cell((2, 4)) == REEF


def test_r7_entering_a_shield_cell_equips_the_boat_and_the_cell_becomes_zero() -> None:
    g = game(MIXED, (2, 5), (5, 2))
    ev = g.step(((1, 5), (5, 1)))
    assert g.shield == [True, True]
    assert g.cell((1, 5)) == 0 and g.cell((5, 1)) == 0
    assert [(e.kind, e.seat, e.pos) for e in ev] == [
        (EventKind.SHIELD, 0, (1, 5)),
        (EventKind.SHIELD, 1, (5, 1)),
    ]


def test_r7_shield_is_taken_even_by_a_boat_that_has_one() -> None:
    rows = ["0 0 0 0 0", "0 S S 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5))
    g.step(((2, 2), None))
    ev = g.step(((2, 3), None))
    assert g.shield[0] and g.cell((2, 3)) == 0
    assert kinds(ev) == [EventKind.SHIELD]
    assert SHIELD not in g.grid


def test_shield_gives_no_protection_against_the_other_boat() -> None:
    rows = ["0 0 0 0 0", "0 S 0 S 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (2, 5))
    g.step(((2, 2), (2, 4)))
    assert g.shield == [True, True]
    g.step(((2, 3), (2, 3)))
    assert g.sunk == [True, True]


# ------------------------------------------------------------- §5 end, treasure


def test_round_ends_at_once_when_both_boats_have_sunk() -> None:
    g = game(MIXED, (2, 3), (4, 3))
    g.step(((1, 3), (4, 4)))  # both on reefs in the same turn
    assert g.ended and g.reason is EndReason.BOTH_SUNK and g.turn == 2
    with pytest.raises(ValueError):
        g.step((None, None))


def test_round_goes_on_while_one_boat_floats() -> None:
    g = game(MIXED, (2, 3), (5, 5), turns=10)
    g.step(((1, 3), None))
    while not g.ended:
        g.step((None, None))
    assert g.reason is EndReason.TURNS and g.turn == 10


def test_r9_half_time_check_happens_exactly_after_turn_k_half() -> None:
    g = game(OPEN5, (1, 1), (5, 5), turns=8)
    for turn in (2, 3):
        ev = g.step((None, None))
        assert g.turn == turn and g.treasure is None and ev == []
    ev = g.step((None, None))  # turn 4 = K/2
    assert g.turn == 4 and g.treasure == 0
    assert kinds(ev) == [EventKind.TREASURE]
    for _ in range(4):
        assert g.step((None, None)) == []  # once only
    assert g.ended and g.turn == 8 and g.reason is EndReason.TURNS


def test_r9_k2_the_placement_turn_is_half_time() -> None:
    g = Game(sea(["3 0 0 0 0"] + ["0 0 0 0 0"] * 4, turns=2))
    ev = g.place(((2, 2), (4, 4)))
    assert g.turn == 1 and g.treasure == 0
    assert [(e.kind, e.pos, e.value) for e in ev] == [(EventKind.TREASURE, (3, 3), 0)]
    assert not g.ended
    g.step(((1, 2), None))
    assert g.ended and g.reason is EndReason.TURNS


def test_treasure_value_is_floor_three_quarters_of_the_gap() -> None:
    # The original text's example: 5 and 10 gold -> floor(3/4 * 5) = 3.
    for a_gold, b_gold, value in [
        (5, 10, 3),
        (10, 5, 3),
        (1, 0, 0),
        (7, 0, 5),
        (20, 0, 15),
        (4, 4, 0),
    ]:
        row1 = f"{a_gold} 0 0 0 {b_gold}"
        g = game([row1] + ["0 0 0 0 0"] * 4, (2, 1), (2, 5), turns=4)
        g.step(((1, 1), (1, 5)))  # turn 2 = K/2
        assert g.gold == [a_gold, b_gold]
        assert g.treasure == value and g.cell((3, 3)) == value


def test_r9_treasure_of_value_zero_still_counts_as_appeared() -> None:
    g = game(OPEN5, (1, 1), (5, 5), turns=4)
    ev = g.step((None, None))
    assert g.treasure == 0 and g.treasure is not None
    assert [(e.kind, e.value) for e in ev] == [(EventKind.TREASURE, 0)]
    assert g.cell((3, 3)) == 0
    g.step(((1, 2), None))
    g.step(((1, 3), None))
    assert g.treasure == 0 and g.gold == [0, 0]


def test_treasure_is_collected_on_arrival_like_gold() -> None:
    rows = ["0 0 0 0 0", "0 4 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5), turns=8)
    g.step(((2, 2), None))  # turn 2
    g.step(((2, 3), None))  # turn 3
    ev = g.step(((3, 3), None))  # turn 4 = K/2: A arrives at the centre, then the treasure appears
    assert g.gold[0] == 4 and g.treasure == 3 and g.cell((3, 3)) == 3
    assert kinds(ev) == [EventKind.TREASURE]
    g.step(((3, 2), None))
    g.step(((3, 3), None))
    assert g.gold[0] == 7 and g.treasure_by == 0 and g.cell((3, 3)) == 0


def test_treasure_stays_until_collected_or_the_round_ends() -> None:
    rows = ["4 0 0 0 0"] + ["0 0 0 0 0"] * 4
    g = game(rows, (1, 2), (5, 5), turns=6)
    g.step(((1, 1), None))
    g.step((None, None))  # turn 3 = K/2: treasure 3
    while not g.ended:
        g.step((None, None))
    assert g.cell((3, 3)) == 3 and g.treasure_by is None


def test_gold_gap_over_20_at_half_time_ends_the_round() -> None:
    rows = ["5 5 5 5 1", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5), turns=12)
    for target in [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]:
        ev = g.step((target, None))
    assert g.turn == 6 and g.gold == [21, 0]
    assert g.ended and g.reason is EndReason.GOLD_GAP
    assert [(e.kind, e.value) for e in ev][-1] == (EventKind.GAP_END, 21)
    assert g.treasure is None and g.cell((3, 3)) == 0


def test_gold_gap_of_exactly_20_does_not_end_the_round() -> None:
    rows = ["5 5 5 5 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5), turns=12)
    for target in [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]:
        g.step((target, None))
    assert g.turn == 6 and g.gold == [20, 0]
    assert not g.ended and g.treasure == 15 and g.cell((3, 3)) == 15


def test_gold_gap_is_checked_only_at_half_time() -> None:
    rows = ["5 5 5 5 5", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0"]
    g = game(rows, (2, 1), (5, 5), turns=4)
    g.step(((2, 2), None))  # turn 2 = K/2: gap 0
    g.step(((1, 2), None))
    assert g.gold == [5, 0] and not g.ended
    g = game(rows, (2, 1), (5, 5), turns=20)
    for target in [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]:
        g.step((target, None))
    assert g.gold == [25, 0] and not g.ended  # turn 6 < K/2 = 10


def test_r9_both_sunk_in_the_half_time_turn_ends_as_both_sunk() -> None:
    g = game(OPEN5, (3, 2), (3, 4), turns=4)
    ev = g.step(((3, 3), (3, 3)))  # turn 2 = K/2: collision
    assert g.ended and g.reason is EndReason.BOTH_SUNK
    assert g.treasure is None and kinds(ev) == [EventKind.SINK, EventKind.SINK]


def test_r9_both_sunk_with_a_big_gap_in_the_half_time_turn_is_both_sunk_not_gap() -> None:
    rows = ["5 5 5 5 1", "0 0 0 0 D", "0 0 0 0 0", "0 0 0 0 0", "D 0 0 0 0"]
    g = game(rows, (2, 1), (4, 1), turns=14)
    for target in [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]:
        g.step((target, None))
    assert g.turn == 6 and g.gold == [21, 0] and not g.ended
    ev = g.step(((2, 5), (5, 1)))  # turn 7 = K/2: both sink on reefs
    assert g.ended and g.reason is EndReason.BOTH_SUNK
    assert not any(e.kind in (EventKind.GAP_END, EventKind.TREASURE) for e in ev)


def test_r9_one_boat_sinking_in_the_half_time_turn_still_gets_the_gap_check() -> None:
    rows = ["5 5 5 5 5", "0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0", "D 0 0 0 0"]
    g = game(rows, (2, 1), (4, 1), turns=12)
    for target in [(1, 1), (1, 2), (1, 3), (1, 4)]:
        g.step((target, None))
    assert g.turn == 5 and g.gold == [20, 0]
    ev = g.step(((1, 5), (5, 1)))  # turn 6 = K/2: A reaches 25, B sinks on the reef
    assert g.sunk == [False, True] and g.ended and g.reason is EndReason.GOLD_GAP
    assert kinds(ev) == [EventKind.COLLECT, EventKind.SINK, EventKind.GAP_END]


def test_last_turn_ends_the_round_with_reason_turns() -> None:
    g = game(OPEN5, (1, 1), (5, 5), turns=4)
    left = [g.turns_left]
    while not g.ended:
        g.step((None, None))
        left.append(g.turns_left)
    assert g.turn == 4 and g.reason is EndReason.TURNS and left == [3, 2, 1, 0]


# ------------------------------------------------------------------ scoring


def test_score_win_20_loss_0() -> None:
    o = score([7, 3], EndReason.TURNS)
    assert o.winner == 0 and o.points == (20, 0) and o.reason is EndReason.TURNS
    o = score([0, 1], EndReason.GOLD_GAP)
    assert o.winner == 1 and o.points == (0, 20)


def test_score_draw_with_gold_gives_10_each() -> None:
    o = score([5, 5], EndReason.TURNS)
    assert o.winner is None and o.points == (10, 10)
    assert score([1, 1], EndReason.BOTH_SUNK).points == (10, 10)


def test_score_draw_at_zero_gold_gives_0_each() -> None:
    o = score([0, 0], EndReason.BOTH_SUNK)
    assert o.winner is None and o.points == (0, 0)


def test_outcome_is_known_only_when_the_round_has_ended() -> None:
    g = game(MIXED, (2, 2), (4, 3), turns=4)
    assert g.outcome() is None
    g.step(((1, 2), None))
    g.step((None, None))
    g.step((None, None))
    o = g.outcome()
    assert o is not None and o.winner == 0 and o.points == (20, 0) and o.reason is EndReason.TURNS


# ------------------------------------------------------------------ events, purity


def test_events_explain_what_happened() -> None:
    e = Event(EventKind.SINK, 1, (4, 7), 0, SinkCause.REEF)
    assert e.describe() == "B sank on a reef at (4,7)"
    assert e.as_dict() == {"kind": "sink", "seat": 1, "pos": [4, 7], "cause": "reef"}
    assert "collision" in Event(EventKind.SINK, 0, (1, 1), 0, SinkCause.COLLISION).describe()
    assert "swapping" in Event(EventKind.SINK, 0, (1, 1), 0, SinkCause.SWAP).describe()
    assert "wreck" in Event(EventKind.SINK, 0, (1, 1), 0, SinkCause.WRECK).describe()
    assert Event(EventKind.COLLECT, 0, (1, 2), 3).describe(("red", "blue")) == (
        "red collected 3 gold at (1,2)"
    )
    assert "worth 0" in Event(EventKind.TREASURE, None, (3, 3), 0).describe()
    assert "21" in Event(EventKind.GAP_END, None, None, 21).describe()
    assert "re-ask 2 of 3" in Event(EventKind.REASK, None, (2, 2), 2).describe()
    for kind in EventKind:
        assert Event(kind, 0, (1, 1), 1, SinkCause.REEF).describe()


def test_resolve_is_pure() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    before = state(g)
    nxt, ev = resolve(g, ((1, 2), (5, 3)))
    assert state(g) == before
    assert nxt.gold == [2, 1] and kinds(ev) == [EventKind.COLLECT, EventKind.COLLECT]


def test_copy_is_independent() -> None:
    g = game(MIXED, (2, 2), (4, 3))
    c = g.copy()
    c.step(((1, 2), None))
    assert g.gold == [0, 0] and g.cell((1, 2)) == 2 and g.turn == 1
