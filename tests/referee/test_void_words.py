"""log.txt tells a void cell as check-bot does, and a person's seat gets no coding guess.

Played with the in-process fakes (tests/referee/fakes.py): milliseconds a round.
"""

from __future__ import annotations

import json
from pathlib import Path

from judge.bots import BotSpec
from judge.maps import map_from_text
from judge.referee import RoundConfig, play_round
from tests.referee.fakes import FakeSandbox, scripted, spec

#: 6 rows, 5 columns: from the right edge, the swapped cell of a step east is a step south.
TALL = """6 5 6
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
0 0 0 0 0
"""


def _round(tmp_path: Path, a: list[str | None], b: list[str | None], person: bool = False):
    gm = map_from_text(TALL, "tall", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="tall.txt", seed=3)
    first = BotSpec("a", "a person", None, ("human",), person=True) if person else spec("a")
    sb = FakeSandbox({"a": scripted(a), "b": scripted(b)})
    result = play_round(cfg, [first, spec("b")], ["a", "b"], sb, tmp_path / "round-1")
    lines = (tmp_path / "round-1" / "replay.jsonl").read_text().splitlines()
    log = (tmp_path / "round-1" / "log.txt").read_text()
    return result, [json.loads(x) for x in lines], log


def test_log_txt_says_where_the_boat_was(tmp_path: Path) -> None:
    _, _, log = _round(tmp_path, ["3 3", "1 1", "9 4"], ["1 1", "1 1", "1 1"])
    assert "a: asked (1, 1), void: (1, 1) is not next to the boat at (3, 3); run OK" in log
    assert "a: asked (9, 4), void: (9, 4) is outside the 6 x 5 map; run OK" in log


def test_a_person_at_the_edge_is_told_outside_not_swapped(tmp_path: Path) -> None:
    moves: list[str | None] = ["5 5", "5 6", "4 5", "3 5"]
    _, bot_lines, bot_log = _round(tmp_path / "bot", moves, ["1 1"] * 4)
    assert bot_lines[2]["why"][0] == "swapped"  # a program: the likely coding mistake
    assert "i and j swapped?" in bot_log
    _, lines, log = _round(tmp_path / "person", moves, ["1 1"] * 4, person=True)
    assert lines[0]["people"] == [0] and "people" not in bot_lines[0]
    assert lines[2]["move_status"][0] == "outside" and lines[2]["why"][0] == "outside"
    assert "a: asked (5, 6), void: (5, 6) is outside the 6 x 5 map; run OK" in log
    assert "swapped" not in log and "0-based" not in log
