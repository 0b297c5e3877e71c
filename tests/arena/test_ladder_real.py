"""The ladder on the real sandbox: bundled bots of known order come out in that order."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from judge.arena import games, tasks
from judge.arena.ladder import PracticeMaps
from judge.arena.ladderconfig import HouseBot, LadderSettings
from judge.arena.ladderloop import Ladder
from judge.arena.ratings import Player, standings
from judge.arena.store import Store
from judge.sandbox import Limits, Sandbox
from judge.scheduler import ThreadExecutor
from tests.arena.ladder_support import MAPS

pytestmark = pytest.mark.slow  # real programs


def test_a_ladder_of_bundled_bots_rates_random_below_greedy_below_reference(
    tmp_path: Path,
) -> None:
    store = Store.create(tmp_path / "arena.sqlite")
    house = (
        HouseBot("reference", "reference"),
        HouseBot("greedy", "greedy"),
        HouseBot("random", "random"),
    )
    settings = LadderSettings(seed=3, house_bots=house)
    maps = PracticeMaps.load([MAPS / "m1.txt", MAPS / "m2.txt"], ((5, 5),), turns=6)
    ladder = Ladder(store, settings, maps)
    bots = games.HouseBots(tmp_path, {h.name: h.bot for h in house})
    setup = games.GameSetup(tmp_path, Limits(time_s=5.0), lambda p: bots.spec(p.team))
    with Sandbox() as sandbox:
        executor = ThreadExecutor(sandbox, 2)
        for _ in range(2):
            ladder.step()
            while (task := tasks.claim(store, "w", [games.GAME_KIND], 120)) is not None:
                assert games.run_task(store, setup, task, "w", executor, threading.Event())
    board = standings(
        [Player(p.team, None, p.rating, p.games, True) for p in games.players(store, True)]
    )
    assert [s.team for s in board] == ["reference", "greedy", "random"], board
    played = games.games(store)
    assert len(played) == 6 and all(g.state == "done" and g.rated for g in played)
    for g in played:
        for r in g.rounds or []:
            assert r["status"] == "played" and (tmp_path / r["replay"]).is_file()
