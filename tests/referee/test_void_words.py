"""log.txt tells a void cell as check-bot does, and a person's seat gets no coding guess.

Played with the in-process fakes (tests/referee/fakes.py): milliseconds a round.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


# ------------------------------------------- the STATE.OUT a void move started with


ODD_STATE_BOT = """\
import os
placing = open("MAP.INP").read().split()[3] == "0"
link = os.path.islink("STATE.OUT")
state = open("STATE.OUT").read() if os.path.isfile("STATE.OUT") and not link else ""
if placing:
    open("MOVE.OUT", "w").write("1 1\\n")
    open("STATE.OUT", "w").write("1")
elif state == "1":  # a void move; then STATE.OUT made a link
    open("MOVE.OUT", "w").write("9 9\\n")
    os.remove("STATE.OUT")
    os.symlink("/etc/hostname", "STATE.OUT")
else:
    open("MOVE.OUT", "w").write("8 8\\n")
"""


@pytest.mark.slow
def test_the_state_out_a_void_move_started_with_is_kept_as_the_seat_kept_it(
    tmp_path: Path,
) -> None:
    """The referee's copy is what the seat handed the run: a link is none (and said once)."""
    from judge.bots import resolve_bot
    from judge.sandbox import Sandbox

    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "bot.py").write_text(ODD_STATE_BOT)
    (folder / "bot.yaml").write_text("command: [python3, bot.py]\n")
    gm = map_from_text(TALL, "tall", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="tall.txt", seed=3)
    other = tmp_path / "still"
    other.mkdir()
    (other / "bot.py").write_text('open("MOVE.OUT", "w").write("6 5\\n")\n')
    (other / "bot.yaml").write_text("command: [python3, bot.py]\n")
    bots = [resolve_bot(str(folder)), resolve_bot(str(other))]
    with Sandbox() as sb:
        play_round(cfg, bots, ["a", "b"], sb, tmp_path / "round-1")
    lines = [
        json.loads(x) for x in (tmp_path / "round-1" / "replay.jsonl").read_text().splitlines()
    ]
    turn2, turn3 = lines[2], lines[3]
    assert turn2["why"][0] == "outside"
    kept = turn2["state_in"][0]
    assert (tmp_path / "round-1" / kept).read_bytes() == b"1"
    # the link left at turn 2: discarded, said once by the seat, not again by the referee's read
    notes = turn2["discarded"][0]
    assert [n for n in notes if n.startswith("STATE.OUT")] == [
        "STATE.OUT was a symbolic link: discarded (never followed)"
    ]
    # so turn 3's run started without one (and its move, none, is void)
    assert turn3["why"][0] is not None and turn3["state_in"][0] == ""


def test_the_kept_state_out_copies_add_no_fsync_to_a_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy is written at each void move, inside the turn: forcing it to disk there
    (tens of ms on a loaded disk) would slow every turn of a bot that fails them all."""
    import os

    from tests.checkbot.test_checkbot_from import counting

    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])

    def played(moves: list[str | None], where: str) -> int:
        synced.clear()
        gm = map_from_text(TALL, "tall", allow_invalid=True)
        cfg = RoundConfig(game_map=gm, map_label="tall.txt", seed=3)
        sb = FakeSandbox({"a": counting(moves, []), "b": scripted(["6 5"] * 6)})
        play_round(cfg, [spec("a"), spec("b")], ["a", "b"], sb, tmp_path / where)
        return len(synced)

    good = played(["1 1", "1 2", "1 3", "1 4", "1 5", "2 5"], "good")
    void = played(["1 1", "9 9"], "void")  # 5 void moves, each with a new STATE.OUT
    assert len(list((tmp_path / "void" / "a" / "states").iterdir())) == 5
    assert void == good
