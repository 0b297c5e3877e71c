"""A real `judge arena serve` killed (SIGKILL) in the middle of a game: the restarted server
plays that game again, and every game is counted once."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.arena.store import STORE_FILE, Store
from tests.arena.arena_support import add_bot_version, make_test_arena

pytestmark = pytest.mark.slow  # a real server and real bots

GAMES = 6  # two teams and the reference: 1 + 2 placement pairs, then a round of 3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(root: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judge",
            "arena",
            "serve",
            str(root),
            "--port",
            str(free_port()),
            "--jobs",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )


def query(root: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{root / STORE_FILE}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_for(what: str, test, timeout: float = 120.0):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = test()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_killed_server_plays_the_game_again_and_counts_each_game_once(tmp_path: Path) -> None:
    root, _creds = make_test_arena(tmp_path, ["Rồng Biển", "Beta"])
    with (root / "arena.yaml").open("a", encoding="utf-8") as f:
        f.write("ladder:\n  seed: 9\n  generated: [5x5]\n  turns: 4\n")
    with Store.open(root / STORE_FILE) as store:
        add_bot_version(root, store, "Rồng Biển", "greedy")
        add_bot_version(root, store, "Beta", "random")
    first = serve(root)
    try:
        # Killed once a game's first round is under way (its replay being written).
        def mid_game() -> int | None:
            rows = query(
                root,
                "SELECT g.id FROM games g JOIN tasks t ON t.id = g.task_id WHERE t.state = 'running'",
            )
            for (gid,) in rows:
                if list((root / "games" / f"{gid:06d}").glob("round-*/replay.jsonl*")):
                    return int(gid)  # type: ignore[call-overload]
            return None

        killed = wait_for("a game under way", mid_game)
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            first.kill()
    assert query(root, f"SELECT state FROM games WHERE id = {killed}") == [("queued",)]
    second = serve(root)
    try:
        wait_for(
            "every game played",
            lambda: query(root, "SELECT count(*) FROM games WHERE state = 'done'")[0][0] >= GAMES,
            timeout=300,
        )
    finally:
        second.send_signal(signal.SIGINT)
        try:
            out, _ = second.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            second.kill()
            out, _ = second.communicate()
    done = query(root, "SELECT id, state, rated FROM games ORDER BY id")
    assert [(gid, state) for gid, state, _ in done[:GAMES]] == [
        (i, "done") for i in range(1, GAMES + 1)
    ], out
    attempts = dict(
        query(root, "SELECT g.id, t.attempts FROM games g JOIN tasks t ON t.id = g.task_id")
    )
    assert attempts[killed] == 2  # played again after the kill ...
    (games_counted,) = query(root, "SELECT sum(games) FROM players")[0]
    (rated,) = query(root, "SELECT count(*) FROM games WHERE rated = 1")[0]
    assert games_counted == 2 * rated and rated >= GAMES  # ... and counted once
    folder = root / "games" / f"{killed:06d}"
    assert sorted(p.name for p in folder.iterdir()) == ["round-1", "round-2"]
    for r in ("round-1", "round-2"):
        assert (folder / r / "replay.jsonl").is_file() and not list((folder / r).glob("*.part"))
