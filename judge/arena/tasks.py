"""A task table with leases: what the arena's workers do (checks now, games later), exactly once.

A task is queued with a kind, a JSON payload and a priority (higher first; checks
have the highest, so a team's upload is never stuck behind games).  A worker
*claims* one (``running``, with its name and a lease that ends ``lease_s`` from
now), *renews* the lease while it works, and *finishes* it with a result: the
finish succeeds only while the worker still holds the task, so a task is
finished once, however often it was claimed.  A worker that dies (a killed
server, a lost machine) stops renewing; once its lease ends
:func:`requeue_expired` gives the task back to the queue and another claim runs
it again.  The caller's own writes for a finished task (a verdict, a game's
result) go in the same transaction as the finish (``also``), so they are
recorded exactly when the task is.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judge.arena.store import Store
from judge.records import Json

#: Priorities: a check before any game.
CHECK_PRIORITY = 100
GAME_PRIORITY = 0


@dataclass(frozen=True)
class Task:
    id: int
    kind: str
    payload: Json
    priority: int
    state: str  # queued | running | done
    owner: str | None
    lease_until: float | None
    attempts: int
    result: Json | None


_COLUMNS = "id, kind, payload, priority, state, owner, lease_until, attempts, result"


def _task(row: Sequence[Any]) -> Task:
    return Task(
        int(row[0]),
        str(row[1]),
        json.loads(row[2]),
        int(row[3]),
        str(row[4]),
        row[5],
        row[6],
        int(row[7]),
        json.loads(row[8]) if row[8] is not None else None,
    )


def enqueue_in(conn: sqlite3.Connection, kind: str, payload: Json, priority: int) -> int:
    """Queue a task inside the caller's transaction (with the writes it belongs to)."""
    cur = conn.execute(
        "INSERT INTO tasks(kind, payload, priority, state, created_at) VALUES (?, ?, ?, 'queued', ?)",
        (kind, json.dumps(payload, sort_keys=True), priority, time.time()),
    )
    return int(cur.lastrowid or 0)


def enqueue(store: Store, kind: str, payload: Json, priority: int = GAME_PRIORITY) -> int:
    return int(store.write(lambda conn: enqueue_in(conn, kind, payload, priority)))


def claim(
    store: Store, owner: str, kinds: Sequence[str], lease_s: float, now: float | None = None
) -> Task | None:
    """The queued task of these kinds to run next (highest priority, then oldest), now
    ``owner``'s until its lease ends; None when there is none."""
    if not kinds:
        return None
    t = time.time() if now is None else now
    marks = ", ".join("?" for _ in kinds)

    def take(conn: sqlite3.Connection) -> Task | None:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM tasks WHERE state = 'queued' AND kind IN ({marks}) "
            "ORDER BY priority DESC, id LIMIT 1",
            tuple(kinds),
        ).fetchone()
        if row is None:
            return None
        conn.execute(
            "UPDATE tasks SET state = 'running', owner = ?, lease_until = ?, "
            "attempts = attempts + 1 WHERE id = ?",
            (owner, t + lease_s, row[0]),
        )
        found = conn.execute(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (row[0],)).fetchone()
        return _task(found)

    result: Task | None = store.write(take)
    return result


def renew(store: Store, task_id: int, owner: str, lease_s: float, now: float | None = None) -> bool:
    """Extend ``owner``'s lease; False when the task is no longer its own."""
    t = time.time() if now is None else now

    def extend(conn: sqlite3.Connection) -> bool:
        cur = conn.execute(
            "UPDATE tasks SET lease_until = ? WHERE id = ? AND owner = ? AND state = 'running'",
            (t + lease_s, task_id, owner),
        )
        return cur.rowcount == 1

    return bool(store.write(extend))


def finish(
    store: Store,
    task_id: int,
    owner: str,
    result: Json,
    also: Callable[[sqlite3.Connection], None] | None = None,
) -> bool:
    """Record the task done with ``result`` (and ``also``'s writes, in the same transaction),
    only while ``owner`` holds it; False (nothing written) otherwise."""

    def done(conn: sqlite3.Connection) -> bool:
        cur = conn.execute(
            "UPDATE tasks SET state = 'done', result = ?, finished_at = ?, lease_until = NULL "
            "WHERE id = ? AND owner = ? AND state = 'running'",
            (json.dumps(result, sort_keys=True), time.time(), task_id, owner),
        )
        if cur.rowcount != 1:
            return False
        if also is not None:
            also(conn)
        return True

    return bool(store.write(done))


def release(store: Store, task_id: int, owner: str) -> bool:
    """Give a task back to the queue (its worker stops without a result: it runs again)."""

    def back(conn: sqlite3.Connection) -> bool:
        cur = conn.execute(
            "UPDATE tasks SET state = 'queued', owner = NULL, lease_until = NULL "
            "WHERE id = ? AND owner = ? AND state = 'running'",
            (task_id, owner),
        )
        return cur.rowcount == 1

    return bool(store.write(back))


def requeue_expired(store: Store, now: float | None = None) -> list[Task]:
    """Every running task whose lease has ended, queued again; those tasks (as they were)."""
    t = time.time() if now is None else now

    def back(conn: sqlite3.Connection) -> list[Task]:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM tasks WHERE state = 'running' AND lease_until < ?", (t,)
        ).fetchall()
        conn.execute(
            "UPDATE tasks SET state = 'queued', owner = NULL, lease_until = NULL "
            "WHERE state = 'running' AND lease_until < ?",
            (t,),
        )
        return [_task(r) for r in rows]

    result: list[Task] = store.write(back)
    return result


def requeue_all_running(
    store: Store, also: Callable[[sqlite3.Connection], None] | None = None
) -> int:
    """At a server's start: every task still marked running was its dead predecessor's
    (one server holds an arena folder at a time), so each is queued again now rather
    than when its lease would end."""

    def back(conn: sqlite3.Connection) -> int:
        cur = conn.execute(
            "UPDATE tasks SET state = 'queued', owner = NULL, lease_until = NULL "
            "WHERE state = 'running'"
        )
        if also is not None:
            also(conn)
        return int(cur.rowcount)

    return int(store.write(back))


def get(store: Store, task_id: int) -> Task | None:
    row = store.row(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (task_id,))
    return None if row is None else _task(row)


def tasks(store: Store, kind: str | None = None) -> list[Task]:
    if kind is None:
        return [_task(r) for r in store.rows(f"SELECT {_COLUMNS} FROM tasks ORDER BY id")]
    return [
        _task(r)
        for r in store.rows(f"SELECT {_COLUMNS} FROM tasks WHERE kind = ? ORDER BY id", (kind,))
    ]
