"""Standings from finished rounds (pure): ruling R18.

Order: points, then rounds won, then total gold, then name.  The name is the
last key so that the order is total and the same on every machine: names are
compared case-insensitively first (``alpha`` and ``Beta`` sort as a person
expects), then exactly (so ``Alpha`` and ``alpha`` still have an order).
Ranks are positions 1..N: after the name no two rows are equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from judge.records import RoundResult
from judge.rules import r18_key

#: The columns of standings.json and standings.csv, in order.
COLUMNS = ("rank", "team", "points", "rounds_won", "draws", "losses", "gold")


def sort_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """R18: more points, more rounds won, more gold first; then the name."""
    points, won, gold = r18_key(row["points"], row["rounds_won"], row["gold"])
    return (-points, -won, -gold, row["team"].casefold(), row["team"])


def standings(teams: Sequence[str], rounds: Iterable[RoundResult]) -> list[dict[str, Any]]:
    """One row per team (teams without a round yet included), best first.

    Every round names its ``seats`` (the teams in seat 0 and 1).

    ``draws`` counts every drawn round, including a draw that gave 0 points
    because a team had no gold; ``rounds_won + draws + losses`` is the number
    of rounds the team played.
    """
    rows: dict[str, dict[str, Any]] = {
        t: {"team": t, "points": 0, "rounds_won": 0, "draws": 0, "losses": 0, "gold": 0}
        for t in teams
    }
    for r in rounds:
        if r.seats is None:
            raise ValueError(f"a round on {r.map_label} does not name its teams")
        for s in (0, 1):
            team = r.seats[s]
            if team not in rows:
                raise ValueError(f"a round names team {team!r}, which is not in the tournament")
            row = rows[team]
            row["points"] += r.points[s]
            row["gold"] += r.gold[s]
            if r.winner is None:
                row["draws"] += 1
            elif r.winner == s:
                row["rounds_won"] += 1
            else:
                row["losses"] += 1
    ordered = sorted(rows.values(), key=sort_key)
    return [
        {"rank": i, **{k: row[k] for k in COLUMNS[1:]}} for i, row in enumerate(ordered, start=1)
    ]
