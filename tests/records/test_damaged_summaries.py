"""A damaged standings.json or leaderboard.json is a RecordError that names the bad field.

The records read their fields through one reader (``records.fields.JsonObject``),
as eval.json's do: never a KeyError or TypeError from a hand-edited file.
"""

from __future__ import annotations

import re

import pytest

from judge.records import RecordError
from judge.records.leaderboard import Leaderboard
from judge.records.standings import Standings

ROW = {"rank": 1, "team": "Rồng Biển", "points": 4, "rounds_won": 2, "draws": 0, "losses": 0, "gold": 9}  # fmt: skip
BOARD_ROW = {"rank": 1, "bot": "greedy", "version": "ab12", "rating": 27.1, "uncertainty": 3.2,
             "conservative": 17.5, "rounds": 4, "wins": 3, "draws": 0, "losses": 1, "win_rate": 0.75}  # fmt: skip
RETIRED = {"bot": "old", "version": "cd34", "rating": 20.0, "uncertainty": 5.0, "rounds": 2}


def test_good_rows_read_back_as_written() -> None:
    assert Standings.from_json({"standings": [ROW]}).to_json() == {"standings": [ROW]}
    assert Standings.from_json([ROW]).rows[0].team == "Rồng Biển"  # judge 0.1.0: rows alone
    board = {"leaderboard": [BOARD_ROW, {**BOARD_ROW, "win_rate": None}], "retired": [RETIRED]}
    assert Leaderboard.from_json(board).to_json() == board


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ({"standings": [{**ROW, "points": "4"}]}, "standings.json.standings[0].points"),
        ({"standings": [{**ROW, "team": None}]}, "standings.json.standings[0].team"),
        ([ROW, {**ROW, "gold": True}], "standings.json[1].gold"),
        ({"standings": ["x"]}, "standings.json.standings[0] must be an object"),
    ],
)
def test_a_damaged_standings_row_names_its_field(data: object, names: str) -> None:
    with pytest.raises(RecordError, match=re.escape(names)):
        Standings.from_json(data)


@pytest.mark.parametrize(
    ("data", "names"),
    [
        (
            {"leaderboard": [{**BOARD_ROW, "rating": "high"}], "retired": []},
            "leaderboard[0].rating",
        ),
        (
            {"leaderboard": [{**BOARD_ROW, "win_rate": "1"}], "retired": []},
            "leaderboard[0].win_rate",
        ),
        ({"leaderboard": [], "retired": [{**RETIRED, "rounds": 2.5}]}, "retired[0].rounds"),
        ({"leaderboard": [BOARD_ROW], "retired": [{**RETIRED, "bot": 7}]}, "retired[0].bot"),
    ],
)
def test_a_damaged_leaderboard_row_names_its_field(data: object, names: str) -> None:
    with pytest.raises(RecordError, match=re.escape("leaderboard.json." + names)):
        Leaderboard.from_json(data)
