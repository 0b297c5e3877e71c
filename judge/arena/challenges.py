"""Challenges (pure): a team asks for unrated pairs against a bot it chooses.

A challenge is ``pairs`` seat-swapped pairs between the asking team's current
version and another team's current version (or the reference, or a house
bot), on practice maps, played ahead of the ladder's round.  They are never
rated (:mod:`.ratings`).  Both teams see the result and the replays.

A team may ask for at most ``pairs_per_hour`` pairs in any hour (counted over
the last 60 minutes, so the limit cannot be doubled at the turn of an
hour), and at most ``max_pairs`` at once: a class of teams challenging each
other must not starve the ladder.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.inputfiles import excerpt

#: The window the hourly limit counts over.
HOUR_S = 3600.0


@dataclass(frozen=True)
class ChallengeRules:
    """``challenges:`` of arena.yaml."""

    pairs_per_hour: int = 10
    max_pairs: int = 5


@dataclass(frozen=True)
class Ask:
    """A team's request, as the API received it."""

    team: str
    opponent: str  # a team's name, "reference" or a house bot's name
    pairs: int


def refusal(
    ask: Ask,
    rules: ChallengeRules,
    asked_last_hour: int,
    opponents: frozenset[str],
    has_version: bool,
) -> tuple[int, str] | None:
    """Why the request is refused, as (HTTP status, reason), or None when it may be played.

    ``asked_last_hour``: the pairs the team asked for in the last hour;
    ``opponents``: the names that can be challenged now (teams with an accepted
    version, the reference, the house bots); ``has_version``: the asking team
    has an accepted version to play with.
    """
    if not has_version:
        return 409, "your team has no accepted version yet: upload a bot first"
    if ask.opponent == ask.team:
        return 400, "a team cannot challenge itself; pick another team or 'reference'"
    if ask.opponent not in opponents:
        return 404, (
            f"no bot {excerpt(ask.opponent)} to challenge: give a team with an accepted "
            "version, or 'reference'"
        )
    if not 1 <= ask.pairs <= rules.max_pairs:
        return 400, f"pairs: ask for 1 to {rules.max_pairs} pairs at a time"
    left = rules.pairs_per_hour - asked_last_hour
    if ask.pairs > left:
        return 429, (
            f"at most {rules.pairs_per_hour} challenge pairs an hour; "
            f"{max(0, left)} left in the last 60 minutes"
        )
    return None
