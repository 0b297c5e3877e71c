"""The pentanomial statistics against values computed independently.

Three independent sources:

* published figures of another implementation (fastchess's own unit tests,
  a C++ code base that follows fishtest), quoted with their precision;
* a brute-force maximum-likelihood search written here (a compass search over
  the free probabilities, no secular equation), for the GSPRT's LLR;
* the Elo, interval and LOS recomputed from the raw list of pair scores with
  the standard library's ``statistics``, and a sample built from a known
  per-round model, whose Elo is known in closed form.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import pytest

from judge.pentanomial import (
    PAIR_SCORES,
    Pentanomial,
    Sprt,
    SprtVerdict,
    elo_from_score,
    estimate,
    llr,
    mle_with_mean,
    pair_index,
    round_points,
    score_from_elo,
)

# fastchess app/tests: Stats(LL, LD, WL, DD, WD, WW) -> our cells (LL, LD, WL+DD, WD, WW)
FASTCHESS_LLR = [
    ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, -3.07),
    ((871, 26175, 55003 + 980, 26678, 821), 0.0, 2.0, -4.98),
]
FASTCHESS_ELO = [
    ((34, 54, 31 + 32, 64, 75), 55.58, 27.65, 1.0),
    ((332, 433, 457 + 41, 333, 334), -8.64, 10.33, 0.0505),
    ((7895, 8757, 5485 + 200, 568, 9999), -21.04, 2.95, None),
]


# ------------------------------------------------------------------ counting


def test_pair_scores_fill_the_five_cells() -> None:
    p = Pentanomial.from_pair_scores([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert p.counts == (1, 1, 2, 1, 3)
    assert p.pairs == 8 and p.points == 10.0 and p.score == 10 / 16
    assert p.add(0.5).counts == (1, 2, 2, 1, 3)
    assert round_points("win") + round_points("draw") + round_points("loss") == 1.5
    for bad in (0.25, -0.5, 2.5):
        with pytest.raises(ValueError):
            pair_index(bad)
    with pytest.raises(ValueError):
        Pentanomial((1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        round_points("abandoned")


def test_elo_and_score_are_inverse() -> None:
    for e in (-500.0, -35.0, 0.0, 10.0, 191.0):
        assert elo_from_score(score_from_elo(e)) == pytest.approx(e)
    assert score_from_elo(0) == 0.5
    assert elo_from_score(1.0) == pytest.approx(1200, abs=1)  # clamped, not infinite


# ------------------------------------------------------------ Elo, interval, LOS


@pytest.mark.parametrize("counts, elo, pm, los", FASTCHESS_ELO)
def test_elo_interval_and_los_match_published_values(
    counts: tuple[int, int, int, int, int], elo: float, pm: float, los: float | None
) -> None:
    e = estimate(Pentanomial(counts))
    assert e is not None
    assert e.elo == pytest.approx(elo, abs=0.01)
    assert e.elo_pm == pytest.approx(pm, abs=0.01)
    if los is not None:
        assert e.los == pytest.approx(los, abs=0.0001)


def _expand(counts: Sequence[int]) -> list[float]:
    """The raw pair scores (per round: pair score / 2) behind some counts."""
    return [PAIR_SCORES[i] / 2 for i, n in enumerate(counts) for _ in range(n)]


@pytest.mark.parametrize(
    "counts", [(3, 10, 20, 12, 5), (0, 4, 9, 7, 30), (12, 1, 0, 3, 2), (1, 1, 1, 1, 1)]
)
def test_estimate_agrees_with_a_direct_computation_from_raw_pairs(
    counts: tuple[int, int, int, int, int],
) -> None:
    raw = _expand(counts)
    n = len(raw)
    mu = statistics.fmean(raw)
    sd = statistics.pstdev(raw)
    se = sd / math.sqrt(n)
    z = statistics.NormalDist().inv_cdf(0.975)

    def to_elo(s: float) -> float:
        return 400 * math.log10(s / (1 - s))

    e = estimate(Pentanomial(counts))
    assert e is not None
    # the regularisation (1e-3 of a pair in empty cells) moves these only slightly
    tol = 0.05 if 0 in counts else 1e-9
    assert e.score == pytest.approx(mu, abs=tol / 100)
    assert e.elo == pytest.approx(to_elo(mu), abs=tol)
    assert e.elo_lo == pytest.approx(to_elo(mu - z * se), abs=tol * 4)
    assert e.elo_hi == pytest.approx(to_elo(mu + z * se), abs=tol * 4)
    assert e.los == pytest.approx(statistics.NormalDist().cdf((mu - 0.5) / se), abs=1e-3)


def test_a_sample_of_known_elo() -> None:
    """Independent rounds won 50%, drawn 20%, lost 30%: score 0.6, Elo 400 log10(1.5)."""
    w, d, lo = 0.5, 0.2, 0.3
    probs = (lo * lo, 2 * lo * d, 2 * w * lo + d * d, 2 * w * d, w * w)
    counts = tuple(round(1000 * q) for q in probs)
    assert counts == (90, 120, 340, 200, 250)
    e = estimate(Pentanomial(counts))  # type: ignore[arg-type]
    assert e is not None
    assert e.score == pytest.approx(0.6)
    assert e.elo == pytest.approx(400 * math.log10(1.5))  # 70.437...
    # pair variance of independent rounds: per-round score variance / 2
    var_round = w * 0.4**2 + d * 0.1**2 + lo * 0.6**2
    se = math.sqrt(var_round / 2 / 1000)
    assert e.score_hi - e.score == pytest.approx(1.959964 * se, rel=1e-5)
    assert e.los > 0.9999


def test_no_pairs_no_estimate_and_narrower_with_more_pairs() -> None:
    assert estimate(Pentanomial()) is None
    small = estimate(Pentanomial((1, 2, 4, 3, 2)))
    big = estimate(Pentanomial((10, 20, 40, 30, 20)))
    assert small is not None and big is not None
    assert small.elo == pytest.approx(big.elo)
    assert big.elo_pm < small.elo_pm
    assert estimate(Pentanomial((0, 0, 7, 0, 0))) is not None  # zero variance: regularised


def test_correlated_pairs_give_a_wider_interval_than_independent_rounds() -> None:
    """A pair that always splits (one win, one loss) has no pair variance at all,
    while pairs that go both ways have the most: the interval sees the difference."""
    split = estimate(Pentanomial((0, 0, 40, 0, 0)))
    swing = estimate(Pentanomial((20, 0, 0, 0, 20)))
    assert split is not None and swing is not None
    assert split.elo == pytest.approx(0, abs=1e-6) and swing.elo == pytest.approx(0, abs=1e-6)
    assert split.elo_pm < 5 < 100 < swing.elo_pm


# ------------------------------------------------------------------- GSPRT


def _brute_force_max_loglik(counts: Sequence[float], mean: float) -> float:
    """max sum n_i log p_i over {p >= 0, sum p = 1, sum p_i a_i = mean} by compass search.

    Free coordinates p0, p1, p2; p3 and p4 follow from the two constraints.
    No secular equation, no Lagrange multiplier: just the definition.
    """
    a = [s / 2 for s in PAIR_SCORES]

    def complete(x: Sequence[float]) -> list[float] | None:
        r = 1 - x[0] - x[1] - x[2]
        m = mean - (a[0] * x[0] + a[1] * x[1] + a[2] * x[2])
        p4 = (m - a[3] * r) / (a[4] - a[3])
        p = [x[0], x[1], x[2], r - p4, p4]
        return p if all(q > 0 for q in p) else None

    def f(x: Sequence[float]) -> float:
        p = complete(x)
        if p is None:
            return -math.inf
        return sum(n * math.log(q) for n, q in zip(counts, p, strict=True))

    # start from the uniform-ish point that meets the mean
    x = [0.2, 0.2, 0.2]
    for _ in range(2000):
        if complete(x) is not None:
            break
        x = [v * 0.9 for v in x]
    best, step = f(x), 0.05
    while step > 1e-11:
        moved = False
        for i in range(3):
            for sgn in (1, -1):
                y = list(x)
                y[i] += sgn * step
                v = f(y)
                if v > best:
                    x, best, moved = y, v, True
        if not moved:
            step /= 2
    return best


@pytest.mark.slow
@pytest.mark.parametrize(
    "counts, elo0, elo1",
    [
        ((3, 10, 20, 12, 5), 0.0, 10.0),
        ((0, 4, 9, 7, 30), 0.0, 50.0),
        ((12, 1, 3, 3, 2), -20.0, 20.0),
        ((1, 0, 0, 0, 9), 0.0, 100.0),
    ],
)
def test_llr_equals_a_brute_force_likelihood_ratio(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float
) -> None:
    reg = [c if c else 1e-3 for c in counts]
    expected = _brute_force_max_loglik(reg, score_from_elo(elo1)) - _brute_force_max_loglik(
        reg, score_from_elo(elo0)
    )
    assert llr(Pentanomial(counts), elo0, elo1) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("counts, elo0, elo1, expected", FASTCHESS_LLR)
def test_llr_matches_published_values(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float, expected: float
) -> None:
    assert llr(Pentanomial(counts), elo0, elo1) == pytest.approx(expected, abs=0.005)


def test_mle_keeps_the_mean_and_is_a_distribution() -> None:
    values = [s / 2 for s in PAIR_SCORES]
    probs = [0.1, 0.2, 0.3, 0.25, 0.15]
    for mean in (0.3, 0.5, 0.7):
        p = mle_with_mean(values, probs, mean)
        assert sum(p) == pytest.approx(1)
        assert sum(q * a for q, a in zip(p, values, strict=True)) == pytest.approx(mean)
        assert all(q > 0 for q in p)


def test_sprt_bounds_and_verdicts() -> None:
    t = Sprt(0, 10, 0.05, 0.05)
    assert t.lower == pytest.approx(math.log(0.05 / 0.95))  # -2.944
    assert t.upper == pytest.approx(math.log(0.95 / 0.05))  # +2.944
    assert t.verdict(3.0) is SprtVerdict.H1
    assert t.verdict(-3.0) is SprtVerdict.H0
    assert t.verdict(0.1) is SprtVerdict.CONTINUE
    assert t.verdict(0.1, finished=True) is SprtVerdict.INCONCLUSIVE
    assert llr(Pentanomial(), 0, 10) == 0.0
    # a run of won pairs pushes the LLR up, lost pairs push it down; how fast
    # depends on the gap between the hypotheses (10 Elo needs far more pairs)
    wide = Sprt(0, 100)
    assert wide.llr(Pentanomial((0, 0, 1, 2, 20))) > wide.upper
    assert wide.llr(Pentanomial((20, 2, 1, 0, 0))) < wide.lower
    assert 0 < t.llr(Pentanomial((0, 0, 1, 2, 20))) < wide.llr(Pentanomial((0, 0, 1, 2, 20)))
    for bad in ((10, 0, 0.05, 0.05), (0, 10, 0.0, 0.05), (0, 10, 0.05, 0.6), (0, math.inf)):
        with pytest.raises(ValueError):
            Sprt(*bad)
