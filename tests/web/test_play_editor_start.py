"""The position editor starts from the bot's own view of the turn being played (quick: the
round is played with the in-process fakes, and what the bot saw is compared)."""

from __future__ import annotations

from pathlib import Path

from judge.maps import map_from_text
from judge.referee import RoundConfig, play_round
from judge.sandbox import Limits
from judge.views.replayfile import load
from judge.web.play import HUMAN, PlaySession
from tests.checkbot.test_checkbot_from import counting
from tests.referee.fakes import FakeSandbox, spec
from tests.referee.test_match_e2e import SEA


def test_the_editor_starts_from_the_bots_map_inp_not_the_persons(tmp_path: Path) -> None:
    seen: list[tuple[str, bytes | None]] = []
    person = counting(["1 1", "1 2", "1 3", "2 3", "3 3"], [])
    bot = counting(["7 7", "7 6", "7 5", "6 5", "5 5"], seen)
    gm = map_from_text(SEA.format(k=6), "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="sea.txt", seed=2)
    sb = FakeSandbox({"human": person, "b": bot})
    play_round(cfg, [HUMAN, spec("b")], ["human", "b"], sb, tmp_path / "round-1")
    rnd = load(tmp_path).rounds[0]
    session = PlaySession(spec("b"), gm, "sea.txt", 0, sb, tmp_path, Limits(), 2)  # type: ignore[arg-type]
    assert session.bot_map_inp() is None  # before the first turn: the map's placement
    session.header = rnd.header
    for turn, rec in enumerate(rnd.records[:4], start=1):
        session.records.append(rec)
        # asked for turn + 1, the bot got this; the person's own view has their boat first
        assert session.bot_map_inp() == seen[turn][0], turn
    session.records = list(rnd.records)  # the round is over: its last turn
    assert session.bot_map_inp() == seen[len(rnd.records) - 1][0]


def test_the_editors_answer_is_judged_as_the_referee_judges_it() -> None:
    """A diagonal is void with why, a reef without a shield sinks, a stay stays."""
    from judge.protocol import read_map_inp
    from judge.records import SeatRun
    from judge.web.play import judged, what_it_does

    sea = "0 D 1\n1 1 1\n1 1 0\n"
    game = read_map_inp(f"3 3 4\n1 1 3 3\n0 0\n{sea}")

    def said(i: int, j: int) -> str:
        return what_it_does(game, judged(game, SeatRun(move=(i, j), verdict="OK")))

    assert said(2, 2) == "void: (2, 2) is not next to the boat at (1, 1)"
    assert said(1, 2) == "it moves to (1, 2): the boat sank on a reef at (1,2)"
    assert said(2, 1) == "it moves to (2, 1)"
    assert said(1, 1) == "it stays at (1, 1)"
    start = read_map_inp(f"3 3 4\n0 0 0 0\n0 0\n{sea}")
    assert what_it_does(start, judged(start, SeatRun(move=(1, 1), verdict="OK"))) == (
        "it starts at (1, 1)"
    )
    assert what_it_does(start, judged(start, SeatRun(move=(2, 1), verdict="OK"))) == (
        "void: the start (2, 1) holds 1 gold: a start must be a cell holding 0; the boat is "
        "placed at random"
    )


def test_a_collision_in_the_editor_is_said_to_depend_on_the_other_boat() -> None:
    """The editor runs the bot alone: a move onto the other boat sinks only if it stays."""
    from judge.protocol import read_map_inp
    from judge.records import SeatRun
    from judge.web.play import judged, what_it_does

    game = read_map_inp("3 3 4\n1 1 2 1\n0 0\n0 1 1\n1 1 1\n1 1 0\n")
    said = what_it_does(game, judged(game, SeatRun(move=(2, 1), verdict="OK")))
    assert said.startswith("it moves to (2, 1): ") and said.endswith(", if the other boat stays")
    assert "collision" in said
