"""Standings from finished rounds (pure): ruling R18.

Order: points, then rounds won, then total gold, then name.  The name is the
last key so that the order is total and the same on every machine: names are
compared case-insensitively first (``alpha`` and ``Beta`` sort as a person
expects), then exactly (so ``Alpha`` and ``alpha`` still have an order).
Ranks are positions 1..N: after the name no two rows are equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judge.records import RoundResult
from judge.records.standings import COLUMNS, StandingRow
from judge.rules import r18_key

__all__ = ["COLUMNS", "StandingRow", "sort_key", "standings"]


@dataclass
class _Tally:
    """A team's counts while the rounds are added up."""

    team: str
    points: int = 0
    rounds_won: int = 0
    draws: int = 0
    losses: int = 0
    gold: int = 0


def sort_key(row: _Tally | StandingRow) -> tuple[int, int, int, str, str]:
    """R18: more points, more rounds won, more gold first; then the name."""
    points, won, gold = r18_key(row.points, row.rounds_won, row.gold)
    return (-points, -won, -gold, row.team.casefold(), row.team)


def standings(teams: Sequence[str], rounds: Iterable[RoundResult]) -> list[StandingRow]:
    """One row per team (teams without a round yet included), best first.

    Every round names its ``seats`` (the teams in seat 0 and 1).

    ``draws`` counts every drawn round, including a draw that gave 0 points
    because a team had no gold; ``rounds_won + draws + losses`` is the number
    of rounds the team played.
    """
    rows = {t: _Tally(t) for t in teams}
    for r in rounds:
        if r.seats is None:
            raise ValueError(f"a round on {r.map_label} does not name its teams")
        for s in (0, 1):
            team = r.seats[s]
            if team not in rows:
                raise ValueError(f"a round names team {team!r}, which is not in the tournament")
            row = rows[team]
            row.points += r.points[s]
            row.gold += r.gold[s]
            if r.winner is None:
                row.draws += 1
            elif r.winner == s:
                row.rounds_won += 1
            else:
                row.losses += 1
    ordered = sorted(rows.values(), key=sort_key)
    return [
        StandingRow(i, t.team, t.points, t.rounds_won, t.draws, t.losses, t.gold)
        for i, t in enumerate(ordered, start=1)
    ]
