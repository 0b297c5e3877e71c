"""The public board (judge.arena.scoreboard): nothing that tells a result while hidden."""

from __future__ import annotations

import json

from judge.arena.ratings import Standing
from judge.arena.scoreboard import ScoreboardRules, is_hidden, public_board

LADDER = [
    Standing("Zeta", 4, 31.2, 1.1, 27.9, 88, last_change="2026-03-01T10:00:00+00:00"),
    Standing("reference", None, 29.0, 1.0, 26.0, 90, house=True),
    Standing("Ánh Dương", 2, 20.5, 2.0, 14.5, 41, last_change="2026-03-01T09:00:00+00:00"),
]


def test_the_board_is_hidden_from_the_freeze_until_the_release_when_asked() -> None:
    hide = ScoreboardRules(hidden=True)
    assert not is_hidden("open", hide, False)
    assert is_hidden("frozen", hide, False) and is_hidden("final", hide, False)
    assert not is_hidden("final", hide, True)
    assert not is_hidden("final", ScoreboardRules(hidden=False), False)


def test_a_hidden_board_has_names_and_versions_only_in_name_order() -> None:
    board = public_board("final", True, LADDER, final=[{"rank": 1, "team": "Zeta", "points": 80}])
    assert board["phase"] == "final" and board["hidden"] is True and "final" not in board
    assert [r["team"] for r in board["standings"]] == ["Ánh Dương", "reference", "Zeta"]
    for row in board["standings"]:
        assert {k for k, v in row.items() if v is not None} <= {"team", "version", "house"}
    text = json.dumps(board)
    for leak in ("31.2", "88", "27.9", "2026-03", "points"):
        assert leak not in text


def test_an_open_or_released_board_shows_everything() -> None:
    board = public_board("open", False, LADDER)
    assert [r["team"] for r in board["standings"]] == ["Zeta", "reference", "Ánh Dương"]
    assert board["standings"][0] == {
        "team": "Zeta",
        "version": 4,
        "mu": 31.2,
        "sigma": 1.1,
        "rating": 27.9,
        "games": 88,
        "house": False,
        "last_change": "2026-03-01T10:00:00+00:00",
    }
    released = public_board("final", False, LADDER, final=[{"rank": 1, "team": "Zeta"}])
    assert released["final"] == [{"rank": 1, "team": "Zeta"}]
