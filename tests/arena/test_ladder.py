"""The ladder's choice of games (judge.arena.ladder): pure, so tested without a bot."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from judge.arena.ladder import (
    Entrant,
    LadderRules,
    NoPracticeMap,
    PairKind,
    PracticeMaps,
    choose_seed,
    matchmade,
    next_round,
    placement,
    practice_plan,
    round_robin,
    window,
)
from judge.league.ratings import Rating
from judge.mapgen import generate_map
from judge.maps import format_map, load_map
from judge.tournament.config import sea_key

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "maps"


def field(n: int, games: int = 0) -> list[Entrant]:
    return [Entrant(f"t{i:03d}", Rating(10.0 + i, 3.0), games, float(i)) for i in range(n)]


def test_a_class_round_is_every_pair_of_entrants_once() -> None:
    entrants = field(7)
    picks = round_robin(entrants, random.Random(1))
    pairs = [frozenset((p.a, p.b)) for p in picks]
    assert len(pairs) == 21 == len(set(pairs))
    assert all(p.kind is PairKind.LADDER and p.a != p.b for p in picks)
    assert picks == round_robin(list(reversed(entrants)), random.Random(1))  # order-free


def test_next_round_is_a_round_robin_up_to_the_class_size_then_matchmaking() -> None:
    rules = LadderRules(round_robin_max=40, pairs_per_entrant=0.5)
    assert len(next_round(field(40), rules, random.Random(2))) == 40 * 39 // 2
    big = next_round(field(200), rules, random.Random(2))
    assert len(big) == 100
    assert next_round(field(1), rules, random.Random(2)) == []


def test_the_window_is_usually_small_and_now_and_then_most_of_the_field() -> None:
    rng = random.Random(3)
    sizes = [window(rng) for _ in range(10_000)]
    assert min(sizes) >= 4
    assert sorted(sizes)[len(sizes) // 2] < 15  # the median: a handful of neighbours
    assert sum(s >= 50 for s in sizes) > 100  # and a few draws reach far (at most 99)


def test_the_seed_is_the_bot_that_needs_games_most() -> None:
    entrants = field(50, games=40)
    newbie = Entrant("new", Rating(), 0, 25.0)
    idle = Entrant("idle", Rating(), 40, -100.0)
    rng = random.Random(4)
    seeds = Counter(choose_seed([*entrants, newbie, idle], rng).key for _ in range(2000))
    assert 0.6 < seeds["new"] / 2000 < 0.75  # fewest games: the 65 % draw, nearly always
    assert 0.08 < seeds["idle"] / 2000 < 0.2  # longest idle: the 10 % draw, and some of the 25 %


def test_matchmaking_spreads_games_and_keeps_opponents_near_in_rating() -> None:
    entrants = field(200)
    picks = matchmade(entrants, 1000, random.Random(5))
    games = Counter(k for p in picks for k in (p.a, p.b))
    assert len(games) == 200 and max(games.values()) - min(games.values()) <= 12
    gaps = sorted(abs(int(p.a[1:]) - int(p.b[1:])) for p in picks)
    assert gaps[len(gaps) // 2] <= 6  # most opponents are neighbours in mu
    assert gaps[-1] > 50  # some reach far


def test_a_placement_burst_meets_the_reference_then_the_nearest_in_mu() -> None:
    others = [*field(10), Entrant("reference", Rating(30.0, 2.0), 50)]
    new = Entrant("new", Rating(14.2, 8.3), 0)
    picks = placement(new, [*others, new], "reference", 3)
    assert [p.b for p in picks] == ["reference", "t004", "t005", "t003"]
    assert all(p.a == "new" and p.kind is PairKind.PLACEMENT for p in picks)
    assert [p.b for p in placement(new, others, None, 2)] == ["t004", "t005"]


def test_practice_maps_never_include_the_organisers_sea(tmp_path: Path) -> None:
    listed = tmp_path / "maps"
    listed.mkdir()
    for name in ("m1", "m2"):
        shutil.copy(MAPS / f"{name}.txt", listed / f"{name}.txt")
    organiser = load_map(MAPS / "organiser" / "final.txt")
    # The organisers' sea mirrored, under a name of the list: still their sea.
    rows = format_map(organiser).splitlines()
    head, grid = rows[0], [r.split() for r in rows[1:]]
    (listed / "sneaky.txt").write_text("\n".join([head] + [" ".join(r[::-1]) for r in grid]) + "\n")
    maps = PracticeMaps.load(sorted(listed.glob("*.txt")), (), None, organiser)
    assert [p.stem for p, _ in maps.files] == ["m1", "m2"]
    plans = {practice_plan(i, maps, 7).name for i in range(40)}
    assert plans == {"m1", "m2"}
    with pytest.raises(NoPracticeMap):
        PracticeMaps.load([listed / "sneaky.txt"], (), None, organiser)


def test_a_generated_practice_sea_equal_to_the_organisers_is_drawn_again() -> None:
    maps = PracticeMaps((), ((7, 7),), 20)
    first = practice_plan(3, maps, 11)
    organiser = generate_map(7, 7, 20, seed=first.map_seed)
    guarded = PracticeMaps((), ((7, 7),), 20, organiser)
    again = practice_plan(3, guarded, 11)
    assert again.map_seed != first.map_seed
    assert sea_key(again.game_map()) != sea_key(organiser)
    assert practice_plan(3, guarded, 11) == again  # the same number, the same map


def test_a_pair_gets_the_same_map_and_seed_from_its_number_alone() -> None:
    maps = PracticeMaps.load([MAPS / "m1.txt", MAPS / "m2.txt"], ((5, 5), (9, 9)), 10)
    a = [practice_plan(i, maps, 5) for i in range(20)]
    assert a == [practice_plan(i, maps, 5) for i in range(20)]
    assert len({p.round_seed for p in a}) == 20
    assert {p.path is None for p in a} == {True, False}  # files and generated seas both
    assert all(p.turns == 10 for p in a)
