"""Ruling R18: standings by points, then rounds won, then total gold, then name (all four shown)."""

from __future__ import annotations

import io

from rich.console import Console

from judge.records import RoundResult
from judge.records.standings import COLUMNS, StandingRow
from judge.tournament.standings import standings
from judge.views.tournament import standings_table
from tests.records_support import a_result


def rnd(a: str, b: str, ga: int, gb: int) -> RoundResult:
    """A round scored as the rules do: 20/0, or 10/10 for a draw with gold on both sides."""
    return a_result((a, b), (ga, gb))


def order(rows: list[StandingRow]) -> list[str]:
    return [r.team for r in rows]


def test_rows_have_the_published_columns_and_ranks_are_positions() -> None:
    rows = standings(["A", "B"], [rnd("A", "B", 30, 10)])
    assert all(list(r.to_json()) == list(COLUMNS) for r in rows)
    assert rows == [StandingRow(1, "A", 20, 1, 0, 0, 30), StandingRow(2, "B", 0, 0, 0, 1, 10)]
    assert [StandingRow.from_json(r.to_json()) for r in rows] == rows


def test_points_first() -> None:
    # B: more gold and as many rounds won, but fewer points (a 0-gold draw gives 0).
    rounds = [rnd("A", "C", 12, 12), rnd("B", "C", 0, 0), rnd("A", "B", 1, 90), rnd("B", "A", 0, 5)]
    rows = standings(["A", "B", "C"], rounds)
    pts = {r.team: r.points for r in rows}
    assert pts == {"A": 30, "B": 20, "C": 10}
    assert order(rows) == ["A", "B", "C"]


def test_rounds_won_break_a_tie_on_points() -> None:
    # A: 2 wins (40), B: 4 draws with gold (40), and B has more gold.
    rounds = [
        rnd("A", "C", 5, 1),
        rnd("C", "A", 1, 5),
        rnd("B", "D", 50, 50),
        rnd("B", "D", 50, 50),
        rnd("D", "B", 50, 50),
        rnd("D", "B", 50, 50),
    ]
    rows = standings(["B", "A", "C", "D"], rounds)
    assert [(r.team, r.points, r.rounds_won, r.draws, r.gold) for r in rows][:2] == [
        ("A", 40, 2, 0, 10),
        ("B", 40, 0, 4, 200),
    ]


def test_total_gold_breaks_a_tie_on_points_and_rounds_won() -> None:
    rounds = [rnd("A", "B", 30, 10), rnd("B", "A", 40, 10)]
    rows = standings(["A", "B"], rounds)
    assert [(r.team, r.points, r.rounds_won, r.gold) for r in rows] == [
        ("B", 20, 1, 50),
        ("A", 20, 1, 40),
    ]


def test_name_breaks_a_tie_on_everything_else() -> None:
    rounds = [rnd("Zed", "amy", 20, 10), rnd("amy", "Zed", 20, 10), rnd("Bob", "Cat", 7, 7)]
    rows = standings(["Zed", "amy", "Cat", "Bob"], rounds)
    # Zed and amy: 20 points, 1 win, 30 gold each: amy first (names compared ignoring case).
    assert order(rows) == ["amy", "Zed", "Bob", "Cat"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_name_order_is_total_even_for_names_equal_but_for_case() -> None:
    rows = standings(["b", "B", "a"], [])
    assert order(rows) == ["a", "B", "b"]


def test_draws_and_losses_are_counted_and_add_up_to_rounds_played() -> None:
    rounds = [rnd("A", "B", 0, 0), rnd("B", "A", 3, 3), rnd("A", "B", 1, 2)]
    rows = {r.team: r for r in standings(["A", "B"], rounds)}
    assert (rows["A"].draws, rows["A"].losses, rows["A"].rounds_won) == (2, 1, 0)
    assert (rows["B"].draws, rows["B"].losses, rows["B"].rounds_won) == (2, 0, 1)
    assert rows["A"].points == 10 and rows["B"].points == 30  # the 0-0 draw gave nothing
    assert rows["A"].gold == 4 and rows["B"].gold == 5


def test_seats_do_not_matter_only_teams() -> None:
    a = standings(["A", "B"], [rnd("A", "B", 9, 3), rnd("B", "A", 2, 8)])
    b = standings(["A", "B"], [rnd("B", "A", 3, 9), rnd("A", "B", 8, 2)])
    assert a == b


def test_teams_without_rounds_are_listed() -> None:
    rows = standings(["A", "B", "C"], [rnd("A", "B", 2, 1)])
    assert order(rows) == ["A", "B", "C"] and rows[2].points == 0


def test_an_unknown_team_is_an_error() -> None:
    import pytest

    with pytest.raises(ValueError, match="X"):
        standings(["A"], [rnd("A", "X", 1, 0)])


def test_the_terminal_table_prints_all_four_r18_columns() -> None:
    rows = standings(["A", "B"], [rnd("A", "B", 30, 10)])
    buf = io.StringIO()
    Console(file=buf, width=100).print(standings_table(rows))
    text = buf.getvalue()
    for col in ("points", "rounds won", "gold", "team"):
        assert col in text
    a_line = next(line for line in text.splitlines() if " A " in line)
    assert "20" in a_line and "30" in a_line and "1" in a_line
