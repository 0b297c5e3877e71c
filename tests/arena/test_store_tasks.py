"""The arena's store and its task table: schema steps, leases, a task finished exactly once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judge.arena import ArenaError, tasks
from judge.arena import store as store_mod
from judge.arena.store import Phase, Store


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    return Store.create(tmp_path / "arena.sqlite")


def test_a_new_store_is_wal_and_of_this_schema(store: Store, tmp_path: Path) -> None:
    assert store.rows("PRAGMA journal_mode")[0][0] == "wal"
    assert store.rows("PRAGMA user_version")[0][0] == store_mod.schema_version()
    assert store.meta("schema_version") == str(store_mod.schema_version())
    assert store.phase is Phase.OPEN
    store.close()
    with Store.open(tmp_path / "arena.sqlite") as again:
        assert again.phase is Phase.OPEN


def test_a_later_step_is_run_on_an_older_store(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.close()
    steps = [*store_mod.MIGRATIONS, "CREATE TABLE probe (id INTEGER PRIMARY KEY, note TEXT)"]
    monkeypatch.setattr(store_mod, "MIGRATIONS", steps)
    with Store.open(tmp_path / "arena.sqlite") as again:
        assert again.rows("PRAGMA user_version")[0][0] == len(steps)
        assert again.meta("schema_version") == str(len(steps))
        again.write(lambda c: c.execute("INSERT INTO probe(note) VALUES ('x')"))


def test_a_store_of_a_later_schema_is_refused_unchanged(store: Store, tmp_path: Path) -> None:
    store.write(lambda c: c.execute("PRAGMA user_version = 99"))
    store.close()
    with pytest.raises(ArenaError, match="schema version 99"):
        Store.open(tmp_path / "arena.sqlite")
    conn = sqlite3.connect(tmp_path / "arena.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99


def test_checks_are_claimed_before_games(store: Store) -> None:
    game = tasks.enqueue(store, "game", {"n": 1}, tasks.GAME_PRIORITY)
    check = tasks.enqueue(store, "check", {"version": 7}, tasks.CHECK_PRIORITY)
    first = tasks.claim(store, "w1", ["check", "game"], 30)
    second = tasks.claim(store, "w2", ["check", "game"], 30)
    assert first is not None and second is not None
    assert (first.id, first.payload, second.id) == (check, {"version": 7}, game)
    assert tasks.claim(store, "w3", ["check", "game"], 30) is None
    assert tasks.claim(store, "w3", ["other"], 30) is None


def test_a_task_is_finished_once_and_only_by_its_holder(store: Store) -> None:
    tid = tasks.enqueue(store, "check", {}, tasks.CHECK_PRIORITY)
    t = tasks.claim(store, "w1", ["check"], 30, now=1000.0)
    assert t is not None and t.attempts == 1
    # the lease ends; another worker takes it again
    assert [x.id for x in tasks.requeue_expired(store, now=1031.0)] == [tid]
    again = tasks.claim(store, "w2", ["check"], 30, now=1031.0)
    assert again is not None and again.attempts == 2
    assert not tasks.renew(store, tid, "w1", 30)
    written: list[int] = []
    assert not tasks.finish(store, tid, "w1", {"late": True}, also=lambda c: written.append(1))
    assert tasks.finish(store, tid, "w2", {"ok": True}, also=lambda c: written.append(2))
    assert not tasks.finish(store, tid, "w2", {"ok": True}, also=lambda c: written.append(3))
    assert written == [2]
    done = tasks.get(store, tid)
    assert done is not None and done.state == "done" and done.result == {"ok": True}


def test_the_writes_of_a_finish_are_rolled_back_with_it(store: Store) -> None:
    tid = tasks.enqueue(store, "check", {}, tasks.CHECK_PRIORITY)
    assert tasks.claim(store, "w1", ["check"], 30) is not None

    def fails(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO meta(key, value) VALUES ('half', 'written')")
        raise RuntimeError("the verdict could not be written")

    with pytest.raises(RuntimeError):
        tasks.finish(store, tid, "w1", {}, also=fails)
    t = tasks.get(store, tid)
    assert t is not None and t.state == "running" and store.meta("half") is None


def test_running_tasks_are_queued_again_at_a_start(store: Store) -> None:
    tid = tasks.enqueue(store, "check", {}, tasks.CHECK_PRIORITY)
    assert tasks.claim(store, "dead-server", ["check"], 3600) is not None
    assert tasks.requeue_all_running(store) == 1
    t = tasks.get(store, tid)
    assert t is not None and t.state == "queued" and t.owner is None
