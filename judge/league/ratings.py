"""Ratings and match choice of the league (pure: no I/O).

Ratings are OpenSkill's Plackett-Luce model (the ``openskill`` package: a
maintained, published Bayesian rating system in the TrueSkill family, with no
dependencies; the formulas are not ours).  A rating is a mean ``mu`` and an
uncertainty ``sigma``; the leaderboard sorts by the conservative estimate
``mu - 3 sigma``, so a bot climbs only once the league is sure of it.

Match choice ("where a round tells most"): a batch of pairs is chosen at a
time.  The next bot to play is the one with the fewest rounds (new bots
first), then the most uncertain; its opponent is the one whose result is
hardest to predict (a win probability nearest 1/2, i.e. the closest rating),
with a bonus for an uncertain opponent and a penalty for one it already meets
in this batch.  Ties are broken by a seeded random draw, so the same database
and seed give the same choice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
#: A version that inherits its rating starts at least this uncertain (it may differ).
INHERIT_MIN_SIGMA = DEFAULT_SIGMA / 3.0


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the leaderboard's sort key."""
        return self.mu - 3.0 * self.sigma


def inherited(old: Rating) -> Rating:
    """A new version's start when it inherits: the old mean, widened uncertainty."""
    return Rating(old.mu, max(old.sigma, INHERIT_MIN_SIGMA))


class Rater:
    """OpenSkill's Plackett-Luce model for one-against-one rounds."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce  # imported on use: keeps `judge --help` fast

        self._model: Any = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)

    def rate(self, a: Rating, b: Rating, a_points: float) -> tuple[Rating, Rating]:
        """Both ratings after one round that A won (1), drew (0.5) or lost (0)."""
        ranks = {1.0: [1, 2], 0.5: [1, 1], 0.0: [2, 1]}[a_points]
        ra = self._model.rating(mu=a.mu, sigma=a.sigma)
        rb = self._model.rating(mu=b.mu, sigma=b.sigma)
        [[na], [nb]] = self._model.rate([[ra], [rb]], ranks=ranks)
        return Rating(na.mu, na.sigma), Rating(nb.mu, nb.sigma)

    def p_win(self, a: Rating, b: Rating) -> float:
        """The model's probability that A beats B."""
        ra = self._model.rating(mu=a.mu, sigma=a.sigma)
        rb = self._model.rating(mu=b.mu, sigma=b.sigma)
        return float(self._model.predict_win([[ra], [rb]])[0])


@dataclass(frozen=True)
class Entrant:
    """What match choice needs to know of a bot."""

    key: int
    rating: Rating
    rounds: int


def choose_pairs(
    entrants: Sequence[Entrant], n: int, rater: Rater, rng: random.Random
) -> list[tuple[int, int]]:
    """``n`` pairings (keys, the needier bot first) where the results tell most."""
    if len(entrants) < 2:
        return []
    tie = {e.key: rng.random() for e in entrants}
    games = {e.key: e.rounds for e in entrants}
    met: dict[int, int] = {}
    out: list[tuple[int, int]] = []
    for _ in range(n):
        a = min(entrants, key=lambda e: (games[e.key], -e.rating.sigma, tie[e.key]))

        def value(e: Entrant, a: Entrant = a) -> tuple[float, float]:
            closeness = 1.0 - 2.0 * abs(rater.p_win(a.rating, e.rating) - 0.5)
            score = closeness + 0.5 * e.rating.sigma / DEFAULT_SIGMA
            score -= met.get(e.key, 0) + 0.25 * max(0, games[e.key] - games[a.key]) / 100
            return (score, tie[e.key])

        b = max((e for e in entrants if e.key != a.key), key=value)
        out.append((a.key, b.key))
        for k in (a.key, b.key):
            games[k] += 2  # a pair is two rounds
            met[k] = met.get(k, 0) + 1
    return out
