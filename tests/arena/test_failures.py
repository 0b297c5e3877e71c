"""A team's failures (judge.arena.board.failures): its time-outs, crashes and void moves, with
check-bot's words and the very MAP.INP its bot was given that turn."""

from __future__ import annotations

import threading
from pathlib import Path

from judge.arena import board, games, tasks
from judge.arena.store import Store
from judge.scheduler import ThreadExecutor
from tests.arena.ladder_support import TeamSandbox, add_team, add_version, ladder, setup_for
from tests.referee.fakes import FakeBot
from tests.tournament._helpers import _parse, fake_greedy


def clumsy() -> FakeBot:
    """Times out on its third run, asks for a cell off the map on its fifth, else greedy."""
    greedy = fake_greedy(1)
    runs = {"n": 0}

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        runs["n"] += 1
        if runs["n"] % 7 == 3:
            return None, state, "TLE"
        m, n, me, _o, _s, _g = _parse(map_inp)
        if runs["n"] % 7 == 5 and me != (0, 0):
            return f"{m + 1} {n + 1}\n".encode(), state, "OK"
        return greedy(map_inp, state)

    return bot


def test_a_teams_failures_name_the_turn_the_words_and_its_map_inp(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "arena.sqlite")
    ids = {name: add_team(store, name) for name in ("Alpha", "Clumsy")}
    for team_id in ids.values():
        add_version(store, team_id)
    ladder(store).step()
    sandbox = TeamSandbox(
        {"Alpha": fake_greedy(0), "Clumsy": clumsy(), "reference": fake_greedy(2)}
    )
    executor = ThreadExecutor(sandbox, 1)
    while (task := tasks.claim(store, "w", [games.GAME_KIND], 60)) is not None:
        games.run_task(store, setup_for(tmp_path), task, "w", executor, threading.Event())
    found = board.failures(tmp_path, store, ids["Clumsy"])
    assert found, "the clumsy bot's failures are listed"
    timeouts = [f for f in found if f["verdict"] == "TLE"]
    voids = [f for f in found if f["verdict"] == "OK"]
    assert timeouts and voids
    assert all("did not finish in time" in f["checkbot"] for f in timeouts)
    assert all(f["why"] for f in voids)
    assert any(f["why"] == "the cell is outside the map" for f in voids)
    given = {text for seat in sandbox.seats for text in seat.calls}
    assert all(f["map_inp"] in given for f in found)  # the very MAP.INP of that turn
    assert all(f["version"] == 1 and f["replay"].startswith("/games/") for f in found)
    # Alpha only ever met Clumsy's start cell at placement: a void start, no failed run
    alpha = board.failures(tmp_path, store, ids["Alpha"])
    assert all(f["verdict"] == "OK" and "same start" in f["why"] for f in alpha)
