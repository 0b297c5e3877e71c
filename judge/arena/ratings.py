"""The ladder's ratings (pure): OpenSkill as ``judge league`` rates, shown so nobody misreads them.

The model, its start and its update are :mod:`judge.league.ratings`' (one
Plackett-Luce model for the whole judge); a seat-swapped pair is one game,
scored by :func:`judge.league.run.pair_points` as the league scores it.

What the arena adds:

* **A new version keeps its team's mu and starts from a wide sigma** (the
  model's starting sigma, as Halite resets it on every upload): a team that
  fixes a bug is not sent back to the bottom, and its rating moves fast while
  the ladder learns the new bot.
* **A game whose versions have since been replaced moves no rating.**  The
  game is kept (its replays, its result) but its result is thrown away for the
  ratings, as Halite throws it away: it says nothing of the version that plays
  now, and the old version no longer plays.
* **Challenges are never rated.**
* **Shown as the conservative rating** (mu - 3 sigma, the sort key) **with
  mu +- sigma and the number of games**, so a new bot's low place reads as
  "not known yet", not as "weak".
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from judge.league.ratings import DEFAULT_SIGMA, Rater, Rating
from judge.league.run import pair_points

__all__ = [
    "NEW_VERSION_SIGMA",
    "Rater",
    "Rating",
    "Standing",
    "Unrated",
    "new_version_rating",
    "rate_pair",
    "standings",
    "unrated_because",
]

#: A new version's sigma: the model's own starting uncertainty.
NEW_VERSION_SIGMA = DEFAULT_SIGMA


def new_version_rating(previous: Rating | None) -> Rating:
    """A newly accepted version's start: its team's mu, if it had a version before, and a
    wide sigma."""
    if previous is None:
        return Rating()
    return Rating(previous.mu, max(previous.sigma, NEW_VERSION_SIGMA))


class Unrated(str, enum.Enum):
    """Why a finished pair moved no rating."""

    CHALLENGE = "challenge"  #: asked for by a team: never rated
    REPLACED = "replaced"  #: a version of it was replaced before it ended
    ABANDONED = "abandoned"  #: the judge could not play either round (nobody's fault)


def unrated_because(
    challenge: bool, versions_current: bool, outcomes: Sequence[str | None]
) -> Unrated | None:
    """Why a finished pair is not rated, or None when it is.

    ``versions_current``: both its versions are still their teams' current ones
    (a house bot always is); ``outcomes``: bot A's outcome of each round ('win',
    'draw', 'loss'; None for a round the judge abandoned).
    """
    if challenge:
        return Unrated.CHALLENGE
    if not versions_current:
        return Unrated.REPLACED
    if all(o is None for o in outcomes):
        return Unrated.ABANDONED
    return None


def rate_pair(
    rater: Rater, a: Rating, b: Rating, outcomes: Sequence[str | None]
) -> tuple[Rating, Rating, float]:
    """Both ratings after a pair, and A's points for it (1, 0.5 or 0): the rounds the judge
    abandoned left out, the rest one game (``unrated_because`` said it is rated)."""
    played = [o for o in outcomes if o is not None]
    points = pair_points(played)
    na, nb = rater.rate(a, b, points)
    return na, nb, points


@dataclass(frozen=True)
class Standing:
    """One line of the ladder, as pages and ``/api/standings`` show it."""

    team: str
    version: int | None  # the team's version number; None for the reference or a house bot
    mu: float
    sigma: float
    rating: float  # mu - 3 sigma: what the ladder sorts by
    games: int
    house: bool = False
    #: when its rating last moved (ISO 8601), None before its first rated game
    last_change: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "team": self.team,
            "version": self.version,
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.rating,
            "games": self.games,
            "house": self.house,
            "last_change": self.last_change,
        }


@dataclass(frozen=True)
class Player:
    """A rated entrant as the store holds it (a team's current version, or a house bot)."""

    team: str
    version: int | None
    rating: Rating
    games: int
    house: bool = False
    last_change: str | None = None


def standings(players: Sequence[Player]) -> list[Standing]:
    """The ladder, best first: the conservative rating, then mu, then the name (a total
    order, the same on every machine)."""
    ordered = sorted(
        players,
        key=lambda p: (-p.rating.conservative, -p.rating.mu, p.team.casefold(), p.team),
    )
    return [
        Standing(
            p.team,
            p.version,
            round(p.rating.mu, 2),
            round(p.rating.sigma, 2),
            round(p.rating.conservative, 2),
            p.games,
            p.house,
            p.last_change,
        )
        for p in ordered
    ]
