"""The arena's workers: slots that claim tasks from the store and run them by kind.

``judge arena serve --jobs N`` runs N slots in threads of the server.  Each slot
claims the next task of a kind it knows (checks first: they have the highest
priority), renews its lease while the task runs, and finishes it with the kind's
outcome, whose writes go in the same transaction as the finish.  A kind is
registered by name (:class:`TaskKind`): ``check`` here, ``game`` by the ladder.

What can go wrong, and what then:

* the server is killed: the tasks it held are still ``running`` in the store; the
  next server queues them again at its start (one server holds a folder at a
  time), each kind's ``on_restart`` putting its own records back (a version being
  checked is ``queued`` again), and they run again;
* the judge cannot do a task now (:class:`Retry`: a sandbox failure, never the
  bot's fault): it goes back to the queue, until ``max_attempts`` claims; then the
  kind's ``give_up`` outcome is recorded;
* the server stops (Ctrl-C): running tasks see ``stop`` and go back to the queue;
* a handler fails unexpectedly: its traceback goes to the server's log and the
  task is treated as a Retry.
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.arena.config import ArenaConfig
from judge.arena.store import Store
from judge.arena.tasks import (
    Task,
    claim,
    finish,
    release,
    renew,
    requeue_all_running,
    requeue_expired,
)
from judge.records import Json

log = logging.getLogger("judge.arena")

#: How long a claim lasts without a renewal.
LEASE_S = 60.0
#: How often an idle slot looks for work (it is also woken by a new task).
POLL_S = 0.5


class Retry(Exception):
    """The task could not be done now through no fault of its own data: run it again."""


@dataclass(frozen=True)
class Outcome:
    """What a finished task records: its result and the kind's own writes."""

    result: Json
    also: Callable[[sqlite3.Connection], None] | None = None


@dataclass
class Context:
    """What a handler works with."""

    root: Path
    store: Store
    config: ArenaConfig
    stop: threading.Event
    #: this machine's sandbox (checks always run here)
    sandbox: Any = None
    #: a cluster's executor (``--cluster``), for the kinds that play rounds there; None: here
    cluster: Any = None
    #: set when the task's lease was lost (another worker has it now): stop early
    lost: threading.Event = field(default_factory=threading.Event)
    #: the slot holding the task (tasks.finish needs it)
    owner: str = ""


@dataclass(frozen=True)
class TaskKind:
    name: str
    run: Callable[[Task, Context], Outcome]
    #: writes made at a server's start, when the dead server's tasks are queued again
    on_restart: Callable[[sqlite3.Connection], None] | None = None
    max_attempts: int = 3
    #: the outcome recorded once a task was claimed ``max_attempts`` times without one
    give_up: Callable[[Task, str], Outcome] | None = None


class Service:
    """The slots of one server."""

    def __init__(
        self,
        root: Path,
        store: Store,
        config: ArenaConfig,
        kinds: list[TaskKind],
        slots: int,
        sandbox: Any = None,
        cluster: Any = None,
        lease_s: float = LEASE_S,
        poll_s: float = POLL_S,
    ):
        self.root, self.store, self.config = root, store, config
        self.kinds = {k.name: k for k in kinds}
        self.slots, self.sandbox, self.cluster = slots, sandbox, cluster
        self.lease_s, self.poll_s = lease_s, poll_s
        self.stop = threading.Event()
        self._wake = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._name = f"{socket.gethostname()}:{os.getpid()}"

    def recover(self) -> int:
        """Queue again what a dead server left running (before any slot starts)."""

        def restart(conn: sqlite3.Connection) -> None:
            for kind in self.kinds.values():
                if kind.on_restart is not None:
                    kind.on_restart(conn)

        return requeue_all_running(self.store, also=restart)

    def start(self) -> None:
        self.recover()
        for i in range(self.slots):
            t = threading.Thread(
                target=self._slot, args=(f"{self._name}:{i}",), name=f"arena-{i}", daemon=True
            )
            t.start()
            self._threads.append(t)

    def close(self, timeout: float = 30.0) -> None:
        self.stop.set()
        self.wake()
        for t in self._threads:
            t.join(timeout)

    def wake(self) -> None:
        """A task was queued: an idle slot looks now rather than at its next poll."""
        with self._wake:
            self._wake.notify_all()

    # ---------------------------------------------------------------- a slot
    def _slot(self, owner: str) -> None:
        while not self.stop.is_set():
            try:
                requeue_expired(self.store)
                task = claim(self.store, owner, list(self.kinds), self.lease_s)
            except Exception:  # noqa: BLE001 - the store is busy or gone: said, tried again
                log.exception("the arena's store cannot be read")
                task = None
            if task is None:
                with self._wake:
                    self._wake.wait(self.poll_s)
                continue
            self.run_one(task, owner)

    def run_one(self, task: Task, owner: str) -> bool:
        """Run a claimed task to its end; True when its outcome was recorded."""
        kind = self.kinds[task.kind]
        ctx = Context(
            self.root, self.store, self.config, self.stop, self.sandbox, self.cluster, owner=owner
        )
        ended = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(task, owner, ctx, ended), daemon=True)
        renewer.start()
        try:
            outcome = kind.run(task, ctx)
        except Retry as exc:
            return self._retry(task, owner, kind, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug: kept in the log, the task run again
            log.error("task %s (%s) failed:\n%s", task.id, task.kind, traceback.format_exc())
            return self._retry(task, owner, kind, f"an internal error of the judge: {exc}")
        finally:
            ended.set()
            renewer.join()
        return finish(self.store, task.id, owner, outcome.result, outcome.also)

    def _retry(self, task: Task, owner: str, kind: TaskKind, why: str) -> bool:
        if self.stop.is_set() or task.attempts < kind.max_attempts or kind.give_up is None:
            release(self.store, task.id, owner)
            return False
        outcome = kind.give_up(task, why)
        return finish(self.store, task.id, owner, outcome.result, outcome.also)

    def _renew(self, task: Task, owner: str, ctx: Context, ended: threading.Event) -> None:
        while not ended.wait(self.lease_s / 3):
            try:
                if not renew(self.store, task.id, owner, self.lease_s):
                    ctx.lost.set()
                    return
            except Exception:  # noqa: BLE001 - tried again at the next beat
                log.exception("the lease of task %s could not be renewed", task.id)
