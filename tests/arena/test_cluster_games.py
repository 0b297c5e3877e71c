"""A ladder game played on a Dask cluster's worker (judge arena serve --cluster) is the same
game, turn for turn, as on this machine: the same seed, the same moves."""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from judge.arena import games, tasks
from judge.arena.config import load_config
from judge.arena.gametask import GameRunner
from judge.arena.service import Context
from judge.arena.store import STORE_FILE, Store
from judge.sandbox import Sandbox
from judge.scheduler import ThreadExecutor
from tests.arena.arena_support import add_bot_version, make_test_arena
from tests.arena.ladder_support import ladder

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cluster")]
TIMES = {"wall_ms", "cpu_ms", "wait_ms", "mem_mb"}


def moves(path: Path) -> list[Any]:
    """A replay's turns without what a machine's speed decides (its run times)."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in TIMES}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return [strip(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_a_game_on_a_cluster_worker_is_the_game_played_here(tmp_path: Path) -> None:
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("needs the cluster extra (Dask)")
    from judge.cluster.session import cluster_venue

    root, _creds = make_test_arena(tmp_path, ["Alpha"])
    with (root / "arena.yaml").open("a", encoding="utf-8") as f:
        f.write("ladder:\n  seed: 3\n  generated: [5x5]\n  turns: 4\n")
    store = Store.open(root / STORE_FILE)
    add_bot_version(root, store, "Alpha", "greedy")
    ladder(store).step()  # Alpha's placement pair against the reference
    task = tasks.claim(store, "slot", [games.GAME_KIND], 600)
    assert task is not None
    config = load_config(root)
    with cluster_venue("local:1", None, require_full=True) as venue:
        ctx = Context(root, store, config, threading.Event(), None, venue.executor, owner="slot")
        outcome = GameRunner().run(task, ctx)
    assert tasks.finish(store, task.id, "slot", outcome.result, outcome.also)
    played = games.game(store, task.payload["game"])
    assert played is not None and played.state == "done" and played.rounds
    assert all(r["worker"] for r in played.rounds)  # played there, not here
    here = tmp_path / "here"
    a, b = games.player(store, played.a), games.player(store, played.b)
    runner = GameRunner()
    with Sandbox() as sandbox:
        setup = runner._setup(Context(root, store, config, threading.Event(), sandbox))
        local = games.play_game(
            games.GameSetup(here, setup.limits, setup.bot_for),
            played,
            a,
            b,
            ThreadExecutor(sandbox, 2),
            threading.Event(),
        )
    assert local is not None
    for there, mine in zip(played.rounds, local["rounds"], strict=True):
        assert there["outcome"] == mine["outcome"] and there["gold"] == mine["gold"]
        assert moves(root / there["replay"]) == moves(here / mine["replay"])
    store.close()
