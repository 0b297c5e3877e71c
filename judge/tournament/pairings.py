"""Who plays whom, on which map, in which seat: the round robin (pure).

Every pair of teams plays one match of three rounds: the first team's map,
the second team's map, then the organisers' map.  Seat 0 alternates between
rounds (first team, second team, first team), so neither team is always
seat 0.  Which team of a pair is "first" is balanced over the tournament as
in a regular tournament graph (each team is first in ``(N-1)/2`` of its
matches for odd N, within one of that for even N), so every team sits in seat
0 in half of its ``3(N-1)`` rounds, give or take one.

Randomness comes only from an injected :class:`random.Random` (as Pelita's
round robin does): who is first where and the order of the matches.  The
order only decides what is played first; results never depend on it, because
each round's seed derives from the tournament seed and the match's identity
(see :func:`match_seed`), not from when the round is played.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from judge import names
from judge.inputfiles import excerpt
from judge.seeds import derive

ROUNDS_PER_MATCH = 3


@dataclass(frozen=True)
class RoundSlot:
    """One round to play: its match, its index (1..3), its map and its seats."""

    match: str  # the match folder, ``<first>-vs-<second>`` (folder forms of the names)
    index: int
    map_owner: str | None  # the team whose map it is; None = the organisers' map
    seats: tuple[str, str]  # team in seat 0, team in seat 1

    @property
    def key(self) -> tuple[str, int]:
        return (self.match, self.index)


@dataclass(frozen=True)
class Pairing:
    """One match: two teams and its three rounds."""

    number: int  # 1-based position in the schedule
    teams: tuple[str, str]  # (first, second): result.json's team order
    rounds: tuple[RoundSlot, ...]

    @property
    def folder(self) -> str:
        return match_folder(*self.teams)


def match_folder(first: str, second: str) -> str:
    """``<A>-vs-<B>`` with the teams' folder forms (:mod:`judge.names`)."""
    return names.match_folder(first, second)


def match_teams(folder: str, seats: tuple[str, str]) -> tuple[str, str]:
    """The match's team order (first, second), from its folder and the seats of one of its rounds.

    A tournament refuses two teams with the same folder form, so only one
    order of the two names gives the folder's name.
    """
    for teams in (seats, (seats[1], seats[0])):
        if match_folder(*teams) == folder:
            return teams
    raise ValueError(f"{excerpt(list(seats))} are not the teams of the match {excerpt(folder)}")


def match_seed(tournament_seed: int, first: str, second: str) -> int:
    """A match's seed from the tournament seed and the two teams (never from play order)."""
    return derive("ocean-match", tournament_seed, first, second)


def _oriented_pairs(order: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair once, oriented so each team is first in as many matches as can be."""
    n = len(order)
    pairs = []
    for d in range(1, n // 2 + 1):
        for i in range(n):
            j = (i + d) % n
            if 2 * d == n:  # even n: the opposite pairs, each met once, orientation alternating
                if i >= n // 2:
                    continue
                pairs.append((order[i], order[j]) if i % 2 == 0 else (order[j], order[i]))
            else:
                pairs.append((order[i], order[j]))
    return pairs


def round_robin(teams: Sequence[str], rng: random.Random) -> list[Pairing]:
    """The schedule: one :class:`Pairing` per pair of teams, in the order to play them."""
    if len(teams) < 2:
        raise ValueError(f"a round robin needs at least 2 teams, not {len(teams)}")
    if len(set(teams)) != len(teams):
        raise ValueError("team names must be unique")
    order = list(teams)
    rng.shuffle(order)
    pairs = _oriented_pairs(order)
    rng.shuffle(pairs)
    schedule = []
    for number, (a, b) in enumerate(pairs, start=1):
        folder = match_folder(a, b)
        rounds = (
            RoundSlot(folder, 1, a, (a, b)),
            RoundSlot(folder, 2, b, (b, a)),
            RoundSlot(folder, 3, None, (a, b)),
        )
        schedule.append(Pairing(number, (a, b), rounds))
    return schedule


def rounds_in_play_order(schedule: Sequence[Pairing]) -> list[RoundSlot]:
    """Round 1 of every match, then every round 2, then every round 3.

    Playing by round index first lets each match's ``result.json`` fill up in
    order, and spreads a team's rounds over the run rather than bunching them.
    """
    return [p.rounds[i] for i in range(ROUNDS_PER_MATCH) for p in schedule]
