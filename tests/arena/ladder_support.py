"""Shared pieces of the ladder's tests: a store with teams, fake bots of known strength, a worker."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

from judge.arena import games, tasks
from judge.arena.ladder import PracticeMaps
from judge.arena.ladderconfig import LadderSettings
from judge.arena.ladderloop import Ladder
from judge.arena.store import Store
from judge.bots import BotSpec
from judge.names import folder_name
from judge.sandbox import Limits
from judge.scheduler import ThreadExecutor
from tests.referee.fakes import FakeBot, FakeSandbox, FakeSeat
from tests.tournament._helpers import _parse

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "maps"


def add_team(store: Store, name: str) -> int:
    def write(conn):  # type: ignore[no-untyped-def]
        cur = conn.execute(
            "INSERT INTO accounts(role, name, name_key, password_hash, created_at) "
            "VALUES ('team', ?, ?, 'x', 'now')",
            (name, name.casefold()),
        )
        return cur.lastrowid

    return int(store.write(write))


def add_version(store: Store, team_id: int, status: str = "accepted") -> int:
    def write(conn):  # type: ignore[no-untyped-def]
        (n,) = conn.execute(
            "SELECT coalesce(max(number), 0) + 1 FROM versions WHERE team_id = ?", (team_id,)
        ).fetchone()
        cur = conn.execute(
            "INSERT INTO versions(team_id, number, sha256, size, uploaded_at, uploaded_ts, "
            "original_name, kind, status, path) VALUES (?, ?, ?, 1, 'now', ?, 'bot.exe', 'exe', ?, 'x')",
            (team_id, n, f"{team_id}-{n}", time.time(), status),
        )
        return cur.lastrowid

    return int(store.write(write))


def still() -> FakeBot:
    """Places on the first empty cell, then never moves: the weakest bot there is."""

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        m, n, me, _other, _shield, grid = _parse(map_inp)
        if me == (0, 0):
            zeros = [(i + 1, j + 1) for i in range(m) for j in range(n) if grid[i][j] == "0"]
            return f"{zeros[0][0]} {zeros[0][1]}\n".encode(), state, "OK"
        return f"{me[0]} {me[1]}\n".encode(), state, "OK"

    return bot


def wanderer(seed: int) -> FakeBot:
    """Random moves to a neighbour (reefs and all): between `still` and greedy."""

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        m, n, me, _other, _shield, grid = _parse(map_inp)
        count = int(state or b"0")
        rng = random.Random(f"{seed}:{count}:{map_inp}")
        if me == (0, 0):
            zeros = [(i + 1, j + 1) for i in range(m) for j in range(n) if grid[i][j] == "0"]
            cell = rng.choice(zeros)
        else:
            di, dj = rng.choice([(-1, 0), (1, 0), (0, -1), (0, 1)])
            cell = (me[0] + di, me[1] + dj)
        return f"{cell[0]} {cell[1]}\n".encode(), str(count + 1).encode(), "OK"

    return bot


class TeamSandbox(FakeSandbox):
    """Seats named ``Team v3`` (or a house bot's name) play their team's fake bot."""

    def __init__(self, bots: dict[str, FakeBot]):
        super().__init__(bots)

    def seat(
        self, name: str, program_dir=None, keep: str = "STATE.OUT", keep_bytes: int = 1 << 20
    ) -> FakeSeat:  # type: ignore[no-untyped-def, override]
        team = name.rsplit("_v", 1)[0] if name not in self.bots else name
        s = FakeSeat(self.bots[team])
        self.seats.append(s)
        return s


def setup_for(arena_dir: Path) -> games.GameSetup:
    def bot_for(p: games.Player) -> BotSpec:
        return BotSpec(p.label, p.label, None, ("fake",))

    return games.GameSetup(arena_dir, Limits(time_s=1.0), bot_for)


def small_maps() -> PracticeMaps:
    return PracticeMaps.load([MAPS / "m1.txt", MAPS / "m2.txt"], ((5, 5), (7, 7)), turns=10)


def ladder(store: Store, **overrides) -> Ladder:  # type: ignore[no-untyped-def]
    settings = LadderSettings(seed=7, **overrides)
    return Ladder(store, settings, small_maps())


def work(
    store: Store,
    arena_dir: Path,
    bots: dict[str, FakeBot],
    limit: int | None = None,
    owner: str = "w1",
    before: Callable[[tasks.Task], None] | None = None,
) -> int:
    """Play queued game tasks one at a time, as a worker does, until none is left (or
    ``limit``); the number played."""
    executor = ThreadExecutor(TeamSandbox({folder_name(k): v for k, v in bots.items()} | bots), 2)
    setup = setup_for(arena_dir)
    played = 0
    while limit is None or played < limit:
        task = tasks.claim(store, owner, [games.GAME_KIND], 60)
        if task is None:
            break
        if before is not None:
            before(task)
        games.run_task(store, setup, task, owner, executor, threading.Event())
        played += 1
    return played
