"""Games as tasks with leases (judge.arena.games) and the ladder's loop (judge.arena.ladderloop),
played in process on fake bots of known strength."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from judge.arena import games, tasks
from judge.arena.ladder import PairKind
from judge.arena.ratings import NEW_VERSION_SIGMA, standings
from judge.arena.ratings import Player as Shown
from judge.arena.store import Phase, Store
from judge.league.ratings import Rating
from judge.scheduler import ThreadExecutor
from tests.arena.ladder_support import (
    TeamSandbox,
    add_team,
    add_version,
    ladder,
    setup_for,
    still,
    wanderer,
    work,
)
from tests.tournament._helpers import fake_greedy

BOTS = {"Alpha": fake_greedy(0), "Beta": wanderer(1), "Gamma": still(), "reference": fake_greedy(2)}


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    return Store.create(tmp_path / "arena.sqlite")


def three_teams(store: Store) -> dict[str, int]:
    ids = {name: add_team(store, name) for name in ("Alpha", "Beta", "Gamma")}
    for team_id in ids.values():
        add_version(store, team_id)
    return ids


def test_a_new_version_joins_with_a_placement_burst_then_rounds_of_a_round_robin(
    store: Store, tmp_path: Path
) -> None:
    three_teams(store)
    lad = ladder(store)
    first = lad.step()
    assert sorted(first.joined) == ["Alpha v1", "Beta v1", "Gamma v1"]
    assert first.placement == 1 + 2 + 3  # the reference, then up to 3 nearest, as each joins
    assert first.round_started == 1
    queued = games.games(store, "WHERE state = 'queued'")
    ladder_games = [x for x in queued if x.kind is PairKind.LADDER]
    assert len(ladder_games) == 6  # 4 players: every pair once
    assert {frozenset((x.a, x.b)) for x in ladder_games} == {
        frozenset((p, q))
        for p in ("v1", "v2", "v3", "house:reference")
        for q in ("v1", "v2", "v3", "house:reference")
        if p < q
    }
    # placement is claimed before the round's games
    task = tasks.claim(store, "w", [games.GAME_KIND], 60)
    assert task is not None and games.game(store, task.payload["game"]).kind is PairKind.PLACEMENT
    tasks.release(store, task.id, "w")
    assert lad.step().round_started is None  # the round is not over
    work(store, tmp_path, BOTS)
    assert lad.step().round_started == 2


def test_the_ladder_orders_bots_of_known_strength(store: Store, tmp_path: Path) -> None:
    three_teams(store)
    lad = ladder(store)
    for _ in range(4):
        lad.step()
        work(store, tmp_path, BOTS)
    board = standings(
        [Shown(p.team, p.number, p.rating, p.games, p.house) for p in games.players(store, True)]
    )
    order = [s.team for s in board]
    assert order.index("Alpha") < order.index("Beta") < order.index("Gamma"), board
    assert all(s.games >= 4 * 3 for s in board)


def test_every_game_is_counted_once_and_the_same_seed_plays_the_same_game(
    store: Store, tmp_path: Path
) -> None:
    three_teams(store)
    lad = ladder(store)
    lad.step()
    task = tasks.claim(store, "dead", [games.GAME_KIND], 60)
    assert task is not None
    gid = task.payload["game"]
    # a worker dies mid-game: its round folder is half written, its task still running
    (tmp_path / games.game(store, gid).folder / "round-1").mkdir(parents=True)
    (tmp_path / games.game(store, gid).folder / "round-1" / "replay.jsonl").write_text("half")
    assert tasks.requeue_all_running(store) == 1
    work(store, tmp_path, BOTS)
    first = games.game(store, gid)
    assert first.state == "done" and first.rounds is not None
    replay = (tmp_path / first.rounds[0]["replay"]).read_text()
    assert replay != "half"
    # the dead worker comes back and finishes: refused, nothing counted twice
    assert not tasks.finish(store, task.id, "dead", {"game": gid}, also=lambda c: None)
    again = store.write(lambda conn: games.record_in(conn, gid, {"rounds": first.rounds}))
    assert again is False
    total = sum(p.games for p in games.players(store))
    rated = len(games.games(store, "WHERE rated = 1"))
    assert total == 2 * rated
    # the same game played again elsewhere: the same replay, turn for turn
    other = tmp_path / "elsewhere"
    a, b = games.player(store, first.a), games.player(store, first.b)
    again_result = games.play_game(
        setup_for(other), first, a, b, ThreadExecutor(TeamSandbox(BOTS), 2), threading.Event()
    )
    assert again_result is not None
    for r in again_result["rounds"]:
        assert (other / r["replay"]).read_text() == (tmp_path / r["replay"]).read_text()


def test_a_replaced_versions_games_move_no_rating(store: Store, tmp_path: Path) -> None:
    ids = three_teams(store)
    lad = ladder(store)
    lad.step()
    # Alpha's v1 is being played when v2 is accepted
    task = tasks.claim(store, "w", [games.GAME_KIND], 60)
    gid = task.payload["game"]
    g = games.game(store, gid)
    assert g.a == "v1"
    v1_before = games.player(store, "v1").rating
    add_version(store, ids["Alpha"])  # v4: Alpha's second version
    report = lad.step()
    assert report.joined == ["Alpha v2"] and report.dropped > 0
    v2 = games.player(store, "v4")
    assert v2.rating == Rating(v1_before.mu, NEW_VERSION_SIGMA)
    dropped = games.games(store, "WHERE state = 'dropped'")
    assert dropped and all("v1" in (x.a, x.b) for x in dropped)
    tasks.release(store, task.id, "w")
    task = tasks.claim(store, "w", [games.GAME_KIND], 60)
    assert task.payload["game"] == gid  # the game in flight is still played
    opponent = games.player(store, g.b).rating
    games.run_task(
        store,
        setup_for(tmp_path),
        task,
        "w",
        ThreadExecutor(TeamSandbox(BOTS), 2),
        threading.Event(),
    )
    done = games.game(store, gid)
    assert done.state == "done" and not done.rated and done.unrated == "replaced"
    assert games.player(store, "v4").rating == v2.rating
    assert games.player(store, g.b).rating == opponent
    assert games.player(store, "v1").rating == v1_before and not games.player(store, "v1").current


def test_a_challenge_moves_no_rating(store: Store, tmp_path: Path) -> None:
    ids = three_teams(store)
    lad = ladder(store)
    lad.step()
    work(store, tmp_path, BOTS)
    assert lad.step().round_started == 2
    before = {p.key: p.rating for p in games.players(store)}
    status, queued = lad.challenge(ids["Gamma"], "Gamma", "Alpha", 2)
    assert status == 202 and len(queued) == 2
    claimed = [tasks.claim(store, "w", [games.GAME_KIND], 60) for _ in queued]
    assert sorted(t.payload["game"] for t in claimed) == sorted(queued)  # ahead of round 2
    for t in claimed:
        tasks.release(store, t.id, "w")
    lad.challenge(ids["Beta"], "Beta", "reference", 1)
    for _ in range(3):
        task = tasks.claim(store, "w", [games.GAME_KIND], 60)
        assert games.game(store, task.payload["game"]).kind is PairKind.CHALLENGE
        games.run_task(
            store,
            setup_for(tmp_path),
            task,
            "w",
            ThreadExecutor(TeamSandbox(BOTS), 2),
            threading.Event(),
        )
    played = games.games(store, "WHERE kind = 'challenge'")
    assert len(played) == 3 and all(x.state == "done" and not x.rated for x in played)
    assert all(x.unrated == "challenge" and x.points_a is not None for x in played)
    assert {p.key: p.rating for p in games.players(store)} == before
    assert lad.challenge(ids["Gamma"], "Gamma", "Alpha", 5)[0] == 202  # 7 pairs this hour
    status, why = lad.challenge(ids["Gamma"], "Gamma", "Alpha", 5)
    assert status == 429 and "3 left" in str(why)


def test_the_deadline_freezes_the_ladder_and_writes_down_the_finals_versions(
    store: Store, tmp_path: Path
) -> None:
    import json

    from judge.arena.ladderloop import Ladder
    from judge.arena.phases import FROZEN_VERSIONS
    from tests.arena.ladder_support import small_maps

    ids = three_teams(store)
    lad = ladder(store)
    lad.step()
    passed = Ladder(store, lad.settings, small_maps(), deadline_passed=lambda: True)
    report = passed.step()
    assert report.froze and store.phase is Phase.FROZEN and report.dropped > 0
    assert json.loads(store.meta(FROZEN_VERSIONS) or "{}") == {str(i): i for i in ids.values()}
    assert games.games(store, "WHERE state = 'queued'") == []
    add_version(store, ids["Alpha"])  # accepted after the freeze: never joins
    assert passed.step().joined == [] and lad.step().round_started is None
