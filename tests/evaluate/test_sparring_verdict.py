"""benchmarks/sparring.py's figures: distinct games, the share of decided ones won and its interval."""

from __future__ import annotations

from types import ModuleType

import pytest

from judge.evaluate import EvalRound, RoundSpec, plan_maps, round_specs, summarize, wilson_interval
from judge.sandbox import Limits
from tests.benchmark_module import load_benchmark
from tests.records_support import a_result


@pytest.fixture(scope="module")
def sp() -> ModuleType:
    """The benchmark script as a module (benchmarks/ is no package), loaded once."""
    return load_benchmark("sparring")


def test_the_interval_counts_each_distinct_game_once(sp: ModuleType) -> None:
    # 34 of 54 decided distinct games: a pair that replayed one game is already one
    # game there, so each counts as one sample.
    rate, lo, hi = sp.decided_rate(34, 20)
    assert rate == 34 / 54
    assert lo < rate < hi
    assert (lo, hi) == wilson_interval(34, 54)


def test_the_verdict_line_shows_the_interval(sp: ModuleType) -> None:
    lo, hi = wilson_interval(34, 54)
    assert sp.rate_with_interval(34, 20) == f"63.0%, 95% {100 * lo:.0f}-{100 * hi:.0f}%"
    assert sp.decided_rate(0, 0) is None
    assert sp.rate_with_interval(0, 0) == "-"


def test_a_partners_row_adds_its_books_distinct_games_and_pairs(sp: ModuleType) -> None:
    """Two books: one of mirrored pairs (one game each), one of pairs of two games."""
    specs = round_specs(plan_maps(2, [(5, 5)], [6], seed=0))

    def outcome(spec: RoundSpec, for_a: str, trace: str) -> EvalRound:
        winner = {"win": spec.a_seat, "loss": 1 - spec.a_seat, "draw": None}[for_a]
        gold = (5, 5) if winner is None else ((9, 1) if winner == 0 else (1, 9))
        return EvalRound(spec, a_result(None, gold, map_label="m", replay="r", seed=1), trace=trace)

    plans = [specs[0].plan, specs[2].plan]
    mirrored = [outcome(specs[0], "win", "a"), outcome(specs[1], "win", "a"),
                outcome(specs[2], "loss", "b"), outcome(specs[3], "loss", "b")]  # fmt: skip
    apart = [outcome(specs[0], "win", "a"), outcome(specs[1], "draw", "b"),
             outcome(specs[2], "win", "c"), outcome(specs[3], "loss", "d")]  # fmt: skip
    books = [
        summarize(o, ["x", "y"], ["x", "y"], 0, plans, [(5, 5)], [6], Limits(), 1, None)
        for o in (mirrored, apart)
    ]
    one = sp.row_of(books[:1])
    assert one.games == (1, 0, 1) and (one.mirrored, one.pairs) == (2, 2)
    both = sp.row_of(books)
    assert both.games == (3, 1, 2) and (both.mirrored, both.pairs) == (2, 4)
    assert both.penta.counts == (1, 0, 1, 1, 1)
    assert sp.cells(both)[:4] == ["6", "3", "1", "2"]


def test_a_larger_sample_holds_every_smaller_one(sp: ModuleType) -> None:
    """From 3 maps a style up, asking for more adds maps and changes none, so a
    figure measured on the old default sample (3 a style) stays part of a larger one."""
    small = sp.map_cases(3, sp.SEED, True)
    big = sp.map_cases(5, sp.SEED, True)
    labels = [c.label for c in big]
    assert len(set(labels)) == len(labels) == len(small) + 2 * len(sp.STYLES)
    for style in sp.STYLES:
        s3 = [c.label for c in small if c.style == style]
        s5 = [c.label for c in big if c.style == style]
        assert len(s3) == 3 and s5[:3] == s3
    # The hand maps keep their placement seeds too.
    assert [(c.label, c.seed) for c in small if c.style == "hand"] == [
        (c.label, c.seed) for c in big if c.style == "hand"
    ]
    # A map of the old default sample.
    assert "classic-13x9-k100-s663207979" in {c.label for c in small}


def test_the_default_weighs_every_style_the_same(sp: ModuleType) -> None:
    cases = sp.map_cases(sp.MAPS_PER_STYLE, sp.SEED, True)
    counts = {s: sum(c.style == s for c in cases) for s in [*sp.STYLES, "hand"]}
    assert set(counts.values()) == {sp.MAPS_PER_STYLE}
