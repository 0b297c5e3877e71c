"""Engine-testing statistics for rounds played in seat-swapped pairs (pure: no I/O).

Two bots play each map twice, seats swapped, and the pair is scored from
BOT_A's view: 1 per round won, 1/2 per draw, so a pair scores 0, 1/2, 1, 3/2
or 2.  Rounds of one pair are not independent (the same map, and for
deterministic bots the same game mirrored), but pairs are: so the unit of
the statistics is the pair, and its distribution has five outcomes -- the
*pentanomial* model used by chess-engine testing (fishtest, fastchess).

Everything follows fishtest's published method (learned from its
``stat_util``/``LLRcalc``; the code here is our own):

* **Score** ``mu``: mean points per round, in [0, 1].  **Elo** is the logistic
  difference ``-400 log10(1/mu - 1)``.
* **Interval**: ``mu`` +- z * sigma / sqrt(pairs), where sigma is the standard
  deviation of the per-round score of a pair (half the pair score), then
  mapped to Elo.  The variance comes from the pentanomial counts, so the
  correlation between a pair's two rounds is accounted for.
* **LOS** (likelihood of superiority): Phi((mu - 1/2) / (sigma / sqrt(pairs))).
* **GSPRT**: the generalised log-likelihood ratio of H1 (Elo = ELO1) against
  H0 (Elo = ELO0).  Under each hypothesis the pentanomial probabilities are the
  maximum-likelihood ones whose mean is the hypothesis's score; they are
  ``p_i / (1 + x (a_i - s))`` with x the root of a one-dimensional "secular"
  equation, solved here by bisection.  The LLR is
  ``sum_i n_i log(p1_i / p0_i)``; the test stops at Wald's bounds
  ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.
  fishtest also corrects the bounds for overshoot (Siegmund); we do not, so our
  error rates are at most the nominal ones (slightly conservative).

An empty cell is replaced by 1e-3 pairs before any of this (fishtest's
regularisation): it keeps the variance positive and the MLE defined, and
moves nothing visibly once a few pairs are in.  Scores are clamped to
[1e-3, 1 - 1e-3] before the Elo conversion, so an all-won sample reads about
+1200 Elo rather than infinity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from statistics import NormalDist

#: Pair scores in pentanomial order: LL, LD, (WL or DD), WD, WW from BOT_A's view.
PAIR_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)
#: Stand-in for an empty cell (fishtest's regularisation).
EMPTY_CELL = 1e-3
#: Scores are clamped to [SCORE_CLAMP, 1 - SCORE_CLAMP] before conversion to Elo.
SCORE_CLAMP = 1e-3
_NORMAL = NormalDist()


class SprtVerdict(str, Enum):
    """Where a sequential test stands."""

    H1 = "H1"  # LLR reached the upper bound: better by at least ELO1
    H0 = "H0"  # LLR reached the lower bound: not better by ELO1 (at most ELO0)
    CONTINUE = "continue"  # between the bounds: more pairs needed
    INCONCLUSIVE = "inconclusive"  # between the bounds and no more pairs will come


def round_points(outcome: str) -> float:
    """BOT_A's points for one round: 'win' 1, 'draw' 1/2, 'loss' 0."""
    try:
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome]
    except KeyError:
        raise ValueError(f"a round outcome is win, draw or loss, not {outcome!r}") from None


def pair_index(pair_score: float) -> int:
    """The pentanomial cell (0..4) of a pair score (0, 0.5, 1, 1.5 or 2)."""
    doubled = pair_score * 2
    if doubled != int(doubled) or not 0 <= doubled <= 4:
        raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2, not {pair_score!r}")
    return int(doubled)


@dataclass(frozen=True)
class Pentanomial:
    """Counts of pairs by pair score: ``counts[i]`` pairs scored ``i / 2`` points."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(c < 0 for c in self.counts):
            raise ValueError(f"a pentanomial is five counts >= 0, not {self.counts!r}")

    @classmethod
    def from_pair_scores(cls, scores: Iterable[float]) -> Pentanomial:
        """Count pair scores (each 0, 0.5, 1, 1.5 or 2)."""
        c = [0, 0, 0, 0, 0]
        for s in scores:
            c[pair_index(s)] += 1
        return cls((c[0], c[1], c[2], c[3], c[4]))

    def add(self, pair_score: float) -> Pentanomial:
        """These counts plus one pair."""
        c = list(self.counts)
        c[pair_index(pair_score)] += 1
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def points(self) -> float:
        """BOT_A's total points over all pairs' rounds."""
        return sum(n * a for n, a in zip(self.counts, PAIR_SCORES, strict=True))

    @property
    def score(self) -> float | None:
        """Mean points per round (0..1), unregularised; None without pairs."""
        return self.points / (2 * self.pairs) if self.pairs else None

    def as_list(self) -> list[int]:
        return list(self.counts)


# --------------------------------------------------------------- conversions


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of an expected score; clamped to about +-1200."""
    s = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of an Elo difference (the logistic curve)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _distribution(p: Pentanomial) -> tuple[list[float], list[float], float]:
    """(values per round, regularised probabilities, regularised pair count).

    The values are the per-round score of a pair (pair score / 2): 0, 1/4 ... 1.
    """
    counts = [float(c) if c > 0 else EMPTY_CELL for c in p.counts]
    n = sum(counts)
    return [a / 2 for a in PAIR_SCORES], [c / n for c in counts], n


def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(q * a for a, q in zip(values, probs, strict=True))
    var = sum(q * (a - mu) ** 2 for a, q in zip(values, probs, strict=True))
    return mu, var


# -------------------------------------------------------------- the estimate


@dataclass(frozen=True)
class EloEstimate:
    """Score and Elo of BOT_A with a two-sided interval, and its LOS."""

    pairs: int
    score: float  # regularised mean points per round
    score_lo: float
    score_hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    los: float  # probability that BOT_A is the stronger, 0..1
    confidence: float

    @property
    def elo_pm(self) -> float:
        """Half the interval's width in Elo (the "+-" figure fishtest and fastchess print)."""
        return (self.elo_hi - self.elo_lo) / 2


def estimate(p: Pentanomial, confidence: float = 0.95) -> EloEstimate | None:
    """Elo, its interval from the pentanomial variance, and LOS; None without pairs."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if p.pairs == 0:
        return None
    values, probs, n = _distribution(p)
    mu, var = _mean_var(values, probs)
    se = math.sqrt(var / n)  # standard error of the mean per-round score
    z = _NORMAL.inv_cdf(0.5 + confidence / 2)
    lo, hi = mu - z * se, mu + z * se
    return EloEstimate(
        pairs=p.pairs,
        score=mu,
        score_lo=lo,
        score_hi=hi,
        elo=elo_from_score(mu),
        elo_lo=elo_from_score(lo),
        elo_hi=elo_from_score(hi),
        los=_NORMAL.cdf((mu - 0.5) / se),
        confidence=confidence,
    )


# -------------------------------------------------------------------- GSPRT


def _secular_root(shifted: Sequence[float], probs: Sequence[float]) -> float:
    """The root x of sum_i q_i b_i / (1 + x b_i) = 0 with every 1 + x b_i > 0.

    The function decreases in x on that interval and runs from +inf to -inf,
    so bisection always finds the one root.
    """
    lo_b, hi_b = min(shifted), max(shifted)
    if not lo_b < 0 < hi_b:
        raise ValueError("the hypothesised score is outside the observed range")
    lo, hi = -1.0 / hi_b, -1.0 / lo_b

    def f(x: float) -> float:
        return sum(q * b / (1 + x * b) for b, q in zip(shifted, probs, strict=True))

    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mle_with_mean(values: Sequence[float], probs: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` closest in likelihood to ``probs`` with the given mean.

    Maximises sum_i q_i log p_i subject to sum p_i = 1 and sum p_i a_i = mean.
    """
    shifted = [a - mean for a in values]
    x = _secular_root(shifted, probs)
    return [q / (1 + x * b) for b, q in zip(shifted, probs, strict=True)]


def llr(p: Pentanomial, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of Elo = elo1 against Elo = elo0 (0 without pairs)."""
    if p.pairs == 0:
        return 0.0
    values, probs, n = _distribution(p)
    p0 = mle_with_mean(values, probs, score_from_elo(elo0))
    p1 = mle_with_mean(values, probs, score_from_elo(elo1))
    return n * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(probs, p0, p1, strict=True))


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0: Elo = elo0 against H1: Elo = elo1 (BOT_A's gain over BOT_B)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name, v in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not math.isfinite(v) or abs(v) > 1000:
                raise ValueError(f"{name} must be a number of Elo from -1000 to 1000, not {v}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"ELO0 must be below ELO1 (got {self.elo0} and {self.elo1})")
        for name, v in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < v < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {v}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, p: Pentanomial) -> float:
        return llr(p, self.elo0, self.elo1)

    def verdict(self, value: float, finished: bool = False) -> SprtVerdict:
        """Where the test stands at LLR ``value``; ``finished``: no more pairs will come."""
        if value >= self.upper:
            return SprtVerdict.H1
        if value <= self.lower:
            return SprtVerdict.H0
        return SprtVerdict.INCONCLUSIVE if finished else SprtVerdict.CONTINUE
