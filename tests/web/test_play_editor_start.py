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
