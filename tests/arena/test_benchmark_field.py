"""benchmarks/arena.py's simulated field: the ladder's matchmaking and ratings order a large
field of known strengths (the matchmaking of a field larger than a class)."""

from __future__ import annotations

from tests.benchmark_module import load_benchmark


def test_a_simulated_large_field_is_ordered_by_its_strengths() -> None:
    bench = load_benchmark("arena")
    r = bench.simulate_field(teams=80, games=15, seed=4)
    assert r["games_min"] >= 15
    assert r["spearman_conservative"] > 0.85, r


def test_the_rank_correlations_are_right_on_small_cases() -> None:
    bench = load_benchmark("arena")
    assert bench.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert bench.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert bench.ranks([5.0, 1.0, 5.0]) == [2.5, 1.0, 2.5]
    assert bench.kendall([1, 2, 3], [1, 3, 2]) == (1 + 1 - 1) / 3
