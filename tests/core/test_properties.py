"""Property tests over random generated maps and random move sequences.

Besides invariants of judge.rules, every random round is replayed on
``RefRound``: an independent implementation of RULES-BRIEF.md §2–§5 and
rulings R2–R9 written here from the brief (it does not import judge.rules).
Both must agree on positions, gold, sunk, shield, grid, ended and reason
after every turn.
"""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.mapgen import generate_map
from judge.maps import GameMap, format_map, validate_text
from judge.protocol import parse_move_out
from judge.rules import Game

#: 100 examples a property keeps the suite fast; CORE_EXAMPLES=5000 for a deep run.
SETTINGS = settings(
    max_examples=int(os.environ.get("CORE_EXAMPLES", "100")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

Cell = tuple[int, int]


# --------------------------------------------------------- the independent model


class RefRound:
    """One round per the rule brief, on a grid of tokens: ints (gold), 'D' and 'S'."""

    def __init__(self, text: str, a: Cell, b: Cell) -> None:
        lines = [ln.split() for ln in text.strip().split("\n")]
        self.m, self.n, self.k = (int(t) for t in lines[0])
        self.sea: dict[Cell, object] = {}
        for i, row in enumerate(lines[1:], start=1):
            for j, tok in enumerate(row, start=1):
                self.sea[(i, j)] = tok if tok in ("D", "S") else int(tok)
        self.centre = ((self.m + 1) // 2, (self.n + 1) // 2)
        self.boat = [a, b]
        self.gold = [0, 0]
        self.shield = [False, False]
        self.sunk = [False, False]
        self.turn = 1  # the placement turn
        self.treasure: int | None = None
        self.ended = False
        self.reason: str | None = None
        self._end_of_turn()

    def _destination(self, who: int, target: Cell | None) -> Cell:
        here = self.boat[who]
        if self.sunk[who] or target is None:
            return here
        i, j = target
        inside = 1 <= i <= self.m and 1 <= j <= self.n
        touching = abs(i - here[0]) + abs(j - here[1]) == 1
        return (i, j) if inside and touching else here

    def play(self, t0: Cell | None, t1: Cell | None) -> None:
        assert not self.ended
        self.turn += 1
        before = list(self.boat)
        was_sunk = list(self.sunk)
        dest = [self._destination(0, t0), self._destination(1, t1)]
        if not self.sunk[0] and not self.sunk[1]:
            if dest[0] == dest[1]:  # same cell, or onto a boat that stays
                self.boat = [dest[0], dest[0]]
                self.sunk = [True, True]
                self._end_of_turn()
                return
            if dest[0] == before[1] and dest[1] == before[0]:  # swap
                self.sunk = [True, True]
                self._end_of_turn()
                return
        for who in (0, 1):
            if dest[who] == before[who]:
                continue  # did not move: nothing happens to it
            cell = dest[who]
            self.boat[who] = cell
            other = 1 - who
            if was_sunk[other] and before[other] == cell:
                self.sunk[who] = True  # into a wreck (sunk in an earlier turn)
                continue
            what = self.sea[cell]
            if what == "D":
                if not self.shield[who]:
                    self.sunk[who] = True
            elif what == "S":
                self.shield[who] = True
                self.sea[cell] = 0
            else:
                assert isinstance(what, int)
                self.gold[who] += what
                self.sea[cell] = 0
        self._end_of_turn()

    def _end_of_turn(self) -> None:
        if self.sunk[0] and self.sunk[1]:
            self.ended, self.reason = True, "both_sunk"
            return
        if 2 * self.turn == self.k:
            x = abs(self.gold[0] - self.gold[1])
            if x > 20:
                self.ended, self.reason = True, "gold_gap"
                return
            self.treasure = (3 * x) // 4
            self.sea[self.centre] = self.treasure
        if self.turn == self.k:
            self.ended, self.reason = True, "turns"

    def grid_tokens(self) -> list[object]:
        return [self.sea[(i, j)] for i in range(1, self.m + 1) for j in range(1, self.n + 1)]


def engine_grid_tokens(g: Game) -> list[object]:
    return [("D" if v == -1 else "S" if v == -2 else v) for v in g.grid]


def same(g: Game, ref: RefRound) -> None:
    assert [g.position(0), g.position(1)] == ref.boat
    assert g.gold == ref.gold
    assert g.sunk == ref.sunk
    assert g.shield == ref.shield
    assert g.turn == ref.turn
    assert g.treasure == ref.treasure
    assert g.ended == ref.ended
    assert (g.reason.value if g.reason else None) == ref.reason
    assert engine_grid_tokens(g) == ref.grid_tokens()


# ------------------------------------------------------------------ strategies

SIZES = [5, 7, 9, 11, 13, 15]
# Move codes. 0-3: the four neighbours; 4: own cell; 5: no move; 6: outside the map;
# 7: two cells away; 8: diagonal; 9: huge numbers; 10: a step towards the nearest gold
# (or treasure); 11: a step towards the other boat (collisions, swaps, wrecks);
# 12: a step towards the nearest shield.  Paths avoid reefs unless the boat has a shield.
# Each seat draws a policy: a mix of codes weighted towards one behaviour.
ANY = list(range(13))
POLICIES = {
    "any": ANY,
    "seek": [10] * 36 + [12] * 4 + ANY,
    "chase": [11] * 12 + ANY,
    "idle": [4, 5] * 6 + ANY,
}


ALL_TURNS = [2, 4, 6, 10, 20, 40, 60, 100]


SORTED_POLICIES = sorted(POLICIES)


@st.composite
def rounds(
    draw: st.DrawFn, turn_choices: list[int] = ALL_TURNS, policies: list[str] = SORTED_POLICIES
) -> tuple[GameMap, Cell, Cell, list[tuple[int, int]]]:
    rows = draw(st.sampled_from(SIZES))
    cols = draw(st.sampled_from(SIZES))
    seed = draw(st.integers(min_value=0, max_value=10_000))
    turns = draw(st.sampled_from(turn_choices))
    danger = draw(st.sampled_from([0.0, 0.12, 0.3]))
    gm = generate_map(rows, cols, turns, seed=seed, danger=danger)
    starts = [(i, j) for i in range(1, rows + 1) for j in range(1, cols + 1) if gm.cell(i, j) == 0]
    a = draw(st.sampled_from(starts))
    others = sorted(
        (c for c in starts if c != a), key=lambda c: abs(c[0] - a[0]) + abs(c[1] - a[1])
    )
    if draw(st.booleans()):
        others = others[:3]  # start close to each other
    b = draw(st.sampled_from(others))
    n = draw(st.one_of(st.just(turns), st.integers(min_value=0, max_value=turns)))
    p0 = POLICIES[draw(st.sampled_from(policies))]
    p1 = POLICIES[draw(st.sampled_from(policies))]
    c0 = draw(st.lists(st.sampled_from(p0), min_size=n, max_size=n))
    c1 = draw(st.lists(st.sampled_from(p1), min_size=n, max_size=n))
    return gm, a, b, list(zip(c0, c1, strict=False))


def _step_towards(g: Game, here: Cell, goal, through_reefs: bool) -> Cell | None:  # type: ignore[no-untyped-def]
    """First step of a shortest path from ``here`` to a cell where goal(cell)."""
    start = here
    seen = {start: start}
    todo = [start]
    while todo:
        nxt = []
        for cell in todo:
            if cell != start and goal(cell):
                while seen[cell] != start:
                    cell = seen[cell]
                return cell
            i, j = cell
            for nb in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
                if (
                    nb not in seen
                    and g.board.inside(nb)
                    and (through_reefs or g.cell(nb) != -1 or goal(nb))
                ):
                    seen[nb] = cell
                    nxt.append(nb)
        todo = nxt
    return None


def target_for(code: int, seat: int, g: Game) -> Cell | None:
    here, other = g.position(seat), g.position(1 - seat)
    assert here is not None and other is not None
    i, j = here
    if code < 4:
        return [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)][code]
    if code == 4:
        return here
    if code == 5:
        return None
    if code == 6:
        return (0, j) if i == 1 else (g.board.rows + 1, j)
    if code == 7:
        return (i + 2, j)
    if code == 8:
        return (i + 1, j + 1)
    if code == 9:
        return (10**9, -(10**9))
    shielded = g.shield[seat]
    if code == 10:
        return _step_towards(g, here, lambda c: g.cell(c) > 0, shielded)
    if code == 11:
        return _step_towards(g, here, lambda c: c == other, shielded)
    return _step_towards(g, here, lambda c: g.cell(c) == -2, shielded)


def play(gm: GameMap, a: Cell, b: Cell, moves: list[tuple[int, int]], check) -> Game:  # type: ignore[no-untyped-def]
    g = Game(gm)
    g.place((a, b))
    check(g, None)
    for c0, c1 in moves:
        if g.ended:
            break
        t = (target_for(c0, 0, g), target_for(c1, 1, g))
        g.step(t)
        check(g, t)
    return g


# ------------------------------------------------------------------ the properties


def cross_check(r: tuple[GameMap, Cell, Cell, list[tuple[int, int]]]) -> None:
    gm, a, b, moves = r
    ref = RefRound(format_map(gm), a, b)

    def check(g: Game, t: tuple[Cell | None, Cell | None] | None) -> None:
        if t is not None:
            ref.play(*t)
        same(g, ref)

    play(gm, a, b, moves, check)


@SETTINGS
@given(rounds())
def test_engine_agrees_with_an_independent_implementation_of_the_brief(
    r: tuple[GameMap, Cell, Cell, list[tuple[int, int]]],
) -> None:
    """Random rounds: invalid targets, collisions, swaps, wrecks, reefs, shields, K = 2..100."""
    cross_check(r)


@SETTINGS
@given(rounds(turn_choices=[40, 60, 100], policies=["seek", "idle"]))
def test_engine_agrees_with_the_independent_implementation_in_long_greedy_rounds(
    r: tuple[GameMap, Cell, Cell, list[tuple[int, int]]],
) -> None:
    """Long rounds where one boat hunts gold: gold-gap ends and treasures collected."""
    cross_check(r)


@SETTINGS
@given(rounds())
def test_invariants_hold_every_turn(r: tuple[GameMap, Cell, Cell, list[tuple[int, int]]]) -> None:
    gm, a, b, moves = r
    prev: list[tuple[bool, Cell | None, int, bool]] = []  # per seat, after the last turn

    def check(g: Game, t: object) -> None:
        # gold is conserved: on the map + collected = 100 + the treasure once it has appeared
        assert g.gold_on_map() + sum(g.gold) == 100 + (g.treasure or 0)
        now = [(g.sunk[s], g.position(s), g.gold[s], g.shield[s]) for s in (0, 1)]
        for s in (0, 1):
            sunk, pos, gold, shield = now[s]
            assert pos is not None and g.board.inside(pos)  # positions stay inside
            if prev:
                was_sunk, was_pos, was_gold, had_shield = prev[s]
                if was_sunk:  # a sunk boat never moves, and stays sunk with its gold
                    assert sunk and pos == was_pos and gold == was_gold
                assert gold >= was_gold  # collected gold is kept
                assert shield or not had_shield  # a shield is never lost
        prev[:] = now
        if not g.sunk[0] and not g.sunk[1]:
            assert g.position(0) != g.position(1)  # two afloat boats never share a cell
        if g.position(0) == g.position(1):
            assert g.sunk == [True, True]
        assert g.turn <= g.turns
        assert g.ended == (g.reason is not None)
        if g.ended and g.turn < g.turns:
            assert g.reason is not None and g.reason.value in ("both_sunk", "gold_gap")

    g = play(gm, a, b, moves, check)
    if g.ended:
        o = g.outcome()
        assert o is not None and o.points in ((20, 0), (0, 20), (10, 10), (0, 0))


@SETTINGS
@given(
    st.sampled_from(SIZES),
    st.sampled_from(SIZES),
    st.integers(0, 10**6),
    st.sampled_from([2, 10, 40, 100]),
)
def test_the_same_seed_gives_the_same_round(rows: int, cols: int, seed: int, turns: int) -> None:
    """A whole round from its seed: map, placement (random when asked badly) and random policies."""

    def one_round() -> tuple[object, ...]:
        gm = generate_map(rows, cols, turns, seed=seed)
        g = Game(gm)
        rng = random.Random(seed)
        asked = [(0, 0), (rng.randint(1, rows), rng.randint(1, cols))]
        p = g.decide_placement((asked[0], asked[1]), 0, rng)
        assert p.positions is not None
        log: list[object] = [p.events]
        log.append(g.place(p.positions))
        while not g.ended:
            here = [g.position(0), g.position(1)]
            t = tuple(
                rng.choice([(h[0] - 1, h[1]), (h[0] + 1, h[1]), (h[0], h[1] - 1), (h[0], h[1] + 1)])
                for h in here
                if h is not None
            )
            log.append(g.step((t[0], t[1])))
        return (
            format_map(gm),
            tuple(map(str, log)),
            g.position(0),
            g.position(1),
            tuple(g.gold),
            tuple(g.sunk),
            g.reason,
            g.turn,
        )

    assert one_round() == one_round()


@SETTINGS
@given(st.text(max_size=400))
def test_map_validation_never_raises(text: str) -> None:
    assert isinstance(validate_text(text), list)


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["5", "7", "0", "-1", "D", "W", "S", "x", "9", "\n", " ", "\t"]),
        max_size=200,
    )
)
def test_map_validation_never_raises_on_map_like_text(tokens: list[str]) -> None:
    assert isinstance(validate_text("5 5 2\n" + " ".join(tokens)), list)


@SETTINGS
@given(st.binary(max_size=200))
def test_move_out_parsing_never_raises(data: bytes) -> None:
    pm = parse_move_out(data)
    assert (pm.target is None) != (pm.status is None)
