"""benchmarks/sparring.py's verdict figures: the share of decided rounds and its interval."""

from __future__ import annotations

from types import ModuleType

import pytest

from judge.evaluate import wilson_interval
from tests.benchmark_module import load_benchmark


@pytest.fixture(scope="module")
def sp() -> ModuleType:
    """The benchmark script as a module (benchmarks/ is no package), loaded once."""
    return load_benchmark("sparring")


def test_the_interval_counts_each_map_once(sp: ModuleType) -> None:
    rate, lo, hi = sp.decided_rate(34, 20)
    assert rate == 34 / 54
    assert lo < rate < hi
    # Counted by round (54 trials) the interval would be narrower than the
    # truth: a deterministic pair of bots replays a map's game in both seats.
    by_round = wilson_interval(34, 54)
    assert hi - lo > by_round[1] - by_round[0]
    assert (lo, hi) == wilson_interval(17, 27)


def test_the_verdict_line_shows_the_interval(sp: ModuleType) -> None:
    lo, hi = wilson_interval(17, 27)
    assert sp.rate_with_interval(34, 20) == f"63.0%, 95% {100 * lo:.0f}-{100 * hi:.0f}%"
    assert sp.decided_rate(0, 0) is None
    assert sp.rate_with_interval(0, 0) == "-"


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
