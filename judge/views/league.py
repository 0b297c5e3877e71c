"""``judge league`` on the terminal and on the web: the leaderboard table and ``index.html``.

Presentation only: the rows are :class:`~judge.records.leaderboard.LeaderboardRow`
records made by :meth:`judge.league.run.League.leaderboard`.  Bot names are
text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from judge.league.run import PairLink
from judge.records.leaderboard import COLUMNS, LeaderboardRow
from judge.views.html import write_index_html

TITLE = "Ocean Treasure league"


def leaderboard_table(rows: Sequence[LeaderboardRow], title: str) -> Table:
    """The leaderboard: rank, bot, rating, uncertainty, conservative rating, rounds, win rate."""
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for col in ("rating", "uncertainty", "conservative", "rounds", "win rate"):
        table.add_column(col, justify="right")
    for r in rows:
        rate = "-" if r.win_rate is None else f"{100 * r.win_rate:.1f}%"
        table.add_row(
            str(r.rank),
            escape(r.bot),
            f"{r.rating:.2f}",
            f"{r.uncertainty:.2f}",
            f"{r.conservative:.2f}",
            str(r.rounds),
            rate,
        )
    return table


def _cell(key: str, value: object) -> object:
    """A leaderboard value as the page shows it: ratings to two places, the win rate in
    per cent, '-' for a missing value."""
    if value is None:
        return "-"
    if key == "win_rate" and isinstance(value, float):
        return f"{100 * value:.1f}%"
    if isinstance(value, float):
        return f"{value:.2f}"
    return value


def write_index(out: Path, rows: Sequence[LeaderboardRow], pairs: Sequence[PairLink]) -> Path:
    """The league's index.html: the leaderboard (every column of leaderboard.csv but the
    rank, which the page numbers itself; '-' for a missing value) and the latest pairs."""
    table = [{k: _cell(k, v) for k, v in r.to_json().items() if k != COLUMNS[0]} for r in rows]
    links = [{"dir": p.folder, "title": p.title} for p in pairs]
    return write_index_html(out, table, links, title=TITLE)
