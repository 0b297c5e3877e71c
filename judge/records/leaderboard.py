"""A league's leaderboard: ``leaderboard.json`` and ``leaderboard.csv``, as typed records.

:meth:`judge.league.run.League.leaderboard` makes the rows from the league's
database; the files, the terminal table and ``index.html`` read them.  Only
``to_json``/``from_json`` know the files' keys, which are those the judge has
always written (``tests/league/golden`` holds them byte for byte).  Ratings
are OpenSkill's (``mu``, ``sigma``), rounded to 2 places as the files show them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.records.fields import Json, JsonObject, RecordError, read_rows

#: The columns of leaderboard.json's rows and of leaderboard.csv, in order.
COLUMNS = ("rank", "bot", "version", "rating", "uncertainty", "conservative", "rounds",
           "wins", "draws", "losses", "win_rate")  # fmt: skip


@dataclass(frozen=True)
class LeaderboardRow:
    """An active bot, ranked by its conservative rating (``rating - 3 uncertainty``)."""

    rank: int
    bot: str
    version: str
    rating: float  # OpenSkill's mu
    uncertainty: float  # OpenSkill's sigma
    conservative: float  # mu - 3 sigma: the sort key
    rounds: int
    wins: int
    draws: int
    losses: int
    win_rate: float | None  # wins / rounds, 4 places; None before the first round

    def to_json(self) -> Json:
        return {
            "rank": self.rank,
            "bot": self.bot,
            "version": self.version,
            "rating": self.rating,
            "uncertainty": self.uncertainty,
            "conservative": self.conservative,
            "rounds": self.rounds,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.win_rate,
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "a leaderboard row") -> LeaderboardRow:
        o = JsonObject(d, where)
        return cls(
            o.whole("rank"),
            o.text("bot"),
            o.text("version"),
            o.num("rating"),
            o.num("uncertainty"),
            o.num("conservative"),
            o.whole("rounds"),
            o.whole("wins"),
            o.whole("draws"),
            o.whole("losses"),
            o.num_or_none("win_rate"),
        )


@dataclass(frozen=True)
class RetiredRow:
    """A bot (or a bot's older version) that no longer plays, with its last rating."""

    bot: str
    version: str
    rating: float
    uncertainty: float
    rounds: int

    def to_json(self) -> Json:
        return {
            "bot": self.bot,
            "version": self.version,
            "rating": self.rating,
            "uncertainty": self.uncertainty,
            "rounds": self.rounds,
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "a retired row") -> RetiredRow:
        o = JsonObject(d, where)
        return cls(
            o.text("bot"),
            o.text("version"),
            o.num("rating"),
            o.num("uncertainty"),
            o.whole("rounds"),
        )


@dataclass(frozen=True)
class Leaderboard:
    """leaderboard.json: the active bots, best first, and the retired ones."""

    rows: tuple[LeaderboardRow, ...]
    retired: tuple[RetiredRow, ...]

    def to_json(self) -> Json:
        return {
            "leaderboard": [r.to_json() for r in self.rows],
            "retired": [r.to_json() for r in self.retired],
        }

    @classmethod
    def from_json(cls, data: Any) -> Leaderboard:
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), list) for k in ("leaderboard", "retired")
        ):
            raise RecordError("leaderboard.json must be an object with 'leaderboard' and 'retired'")
        return cls(
            read_rows(
                LeaderboardRow.from_json, data["leaderboard"], "leaderboard.json.leaderboard"
            ),
            read_rows(RetiredRow.from_json, data["retired"], "leaderboard.json.retired"),
        )
