"""The arena's games: a pair of rounds as a task with a lease, recorded exactly once.

A *game* is one practice map played twice, seats swapped (a pair, rated as one
game).  Its row in ``games`` holds everything that decides it (the two
players, the map plan with its round seed), so it plays the same on this
machine and on a cluster's worker, the first time and after a crash.

Exactly once, whatever dies when:

* the game and its task are written in one transaction;
* a worker plays the task's two rounds into ``DIR/games/NNNNNN/``, clearing
  whatever a killed attempt left there first;
* the result, the game's row and the ratings are written in the task's
  finish transaction (:func:`judge.arena.tasks.finish`), which succeeds only
  while the worker holds the task, and :func:`record_in` refuses a game that
  is no longer queued: a game played twice (a lease that ended while it was
  still being played) is counted once.
* a killed server's running tasks are queued again at the next start (the
  service's :func:`~judge.arena.tasks.requeue_all_running`), and played again.

Players are keyed ``v<version id>`` (a team's version) or ``house:<name>`` (the
reference and the house bots): each version has its own rating, so a game of a
replaced version can never move its successor's.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.arena import tasks
from judge.arena.ladder import PairKind, Pick, PracticeMaps, practice_plan
from judge.arena.ratings import (
    Rater,
    Rating,
    Unrated,
    new_version_rating,
    rate_pair,
    unrated_because,
)
from judge.arena.store import Store, now_iso
from judge.bots import BotSpec, named, resolve_bot
from judge.evaluate import MapPlan
from judge.names import folder_name
from judge.records import Json
from judge.referee import RoundConfig
from judge.sandbox import Limits
from judge.scheduler import Executor, RoundDone, RoundStatus, RoundTask

GAME_KIND = "game"
GAMES_DIR = "games"
#: Task priorities of games (a check comes first, at tasks.CHECK_PRIORITY): a new version's
#: placement first, then the challenges teams wait for, then the ladder's round.
PRIORITY = {PairKind.PLACEMENT: 60, PairKind.CHALLENGE: 50, PairKind.LADDER: 10}

Db = Store | sqlite3.Connection


def _rows(db: Db, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    if isinstance(db, Store):
        return db.rows(sql, params)
    return list(db.execute(sql, params).fetchall())


def version_key(version_id: int) -> str:
    return f"v{version_id}"


def house_key(name: str) -> str:
    return f"house:{name}"


# ------------------------------------------------------------------ players
@dataclass(frozen=True)
class Player:
    """A rated entrant: a team's version or a house bot, with its team's name."""

    key: str
    version_id: int | None
    house: str | None
    rating: Rating
    games: int
    wins: int
    draws: int
    losses: int
    joined_at: float
    last_game_at: float | None
    last_change: str | None
    team: str  # the team's name (or the house bot's)
    team_id: int | None
    number: int | None  # the version's number
    current: bool  # its team's current version (a house bot always is)

    @property
    def label(self) -> str:
        """How replays and pages name it: ``Rồng Biển v3``, or the house bot's name."""
        return self.team if self.number is None else f"{self.team} v{self.number}"

    @property
    def idle_since(self) -> float:
        return self.last_game_at if self.last_game_at is not None else self.joined_at


_CURRENT = (
    "(SELECT c.id FROM versions c WHERE c.team_id = v.team_id AND c.status = 'accepted' "
    "ORDER BY c.number DESC LIMIT 1)"
)
_PLAYER_SQL = (
    "SELECT p.key, p.version_id, p.house, p.mu, p.sigma, p.games, p.wins, p.draws, p.losses, "
    "p.joined_at, p.last_game_at, p.last_change, coalesce(a.name, p.house), v.team_id, "
    f"v.number, CASE WHEN p.house IS NOT NULL OR p.version_id = {_CURRENT} THEN 1 ELSE 0 END "
    "FROM players p LEFT JOIN versions v ON v.id = p.version_id "
    "LEFT JOIN accounts a ON a.id = v.team_id"
)


def _player(r: Sequence[Any]) -> Player:
    return Player(
        str(r[0]),
        r[1],
        r[2],
        Rating(float(r[3]), float(r[4])),
        int(r[5]),
        int(r[6]),
        int(r[7]),
        int(r[8]),
        float(r[9]),
        r[10],
        r[11],
        str(r[12]),
        r[13],
        r[14],
        bool(r[15]),
    )


def players(db: Db, current_only: bool = False) -> list[Player]:
    found = [_player(r) for r in _rows(db, _PLAYER_SQL + " ORDER BY p.joined_at, p.key")]
    return [p for p in found if p.current] if current_only else found


def player(db: Db, key: str) -> Player | None:
    found = _rows(db, _PLAYER_SQL + " WHERE p.key = ?", (key,))
    return _player(found[0]) if found else None


def add_version_player(
    conn: sqlite3.Connection, version_id: int, team_id: int, now: float
) -> Player:
    """A newly accepted version joins: its team's last version's mu, a wide sigma."""
    before = _rows(
        conn,
        "SELECT p.mu, p.sigma FROM players p JOIN versions v ON v.id = p.version_id "
        "WHERE v.team_id = ? AND p.version_id <> ? ORDER BY v.number DESC LIMIT 1",
        (team_id, version_id),
    )
    start = new_version_rating(Rating(before[0][0], before[0][1]) if before else None)
    key = version_key(version_id)
    conn.execute(
        "INSERT INTO players(key, version_id, mu, sigma, joined_at) VALUES (?, ?, ?, ?, ?)",
        (key, version_id, start.mu, start.sigma, now),
    )
    found = player(conn, key)
    assert found is not None
    return found


def add_house_player(conn: sqlite3.Connection, name: str, now: float) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO players(key, house, mu, sigma, joined_at) VALUES (?, ?, ?, ?, ?)",
        (house_key(name), name, Rating().mu, Rating().sigma, now),
    )


# -------------------------------------------------------------------- games
@dataclass(frozen=True)
class Game:
    id: int
    kind: PairKind
    ladder_round: int | None
    challenge: int | None
    a: str
    b: str
    plan: MapPlan
    task_id: int | None
    state: str  # queued | done | dropped
    rounds: list[Json] | None
    points_a: float | None
    rated: bool
    unrated: str | None
    a_before: list[float] | None
    b_before: list[float] | None
    a_after: list[float] | None
    b_after: list[float] | None
    created_at: float
    finished_at: float | None

    @property
    def folder(self) -> str:
        """The game's folder, relative to the arena folder."""
        return f"{GAMES_DIR}/{self.id:06d}"


_GAME_COLUMNS = (
    "id, kind, ladder_round, challenge, a, b, plan, task_id, state, rounds, points_a, rated, "
    "unrated, a_before, b_before, a_after, b_after, created_at, finished_at"
)


def _loads(text: Any) -> Any:
    return None if text is None else json.loads(text)


def _game(r: Sequence[Any]) -> Game:
    return Game(
        int(r[0]),
        PairKind(r[1]),
        r[2],
        r[3],
        str(r[4]),
        str(r[5]),
        MapPlan(**json.loads(r[6])),
        r[7],
        str(r[8]),
        _loads(r[9]),
        r[10],
        bool(r[11]),
        r[12],
        _loads(r[13]),
        _loads(r[14]),
        _loads(r[15]),
        _loads(r[16]),
        float(r[17]),
        r[18],
    )


def game(db: Db, game_id: int) -> Game | None:
    found = _rows(db, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
    return _game(found[0]) if found else None


def games(
    db: Db, where: str = "", params: Sequence[Any] = (), limit: int | None = None
) -> list[Game]:
    sql = f"SELECT {_GAME_COLUMNS} FROM games {where} ORDER BY id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_game(r) for r in _rows(db, sql, params)]


def enqueue_picks(
    conn: sqlite3.Connection,
    picks: Sequence[Pick],
    maps: PracticeMaps,
    seed: int,
    now: float,
    ladder_round: int | None = None,
    challenge: int | None = None,
) -> list[int]:
    """Each pick as a game and its task, in the caller's transaction; the games' ids.

    A game's map is drawn from the arena's seed and the game's id alone
    (:func:`judge.arena.ladder.practice_plan`).
    """
    ids = []
    (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()
    for n, pick in enumerate(picks, start=int(last) + 1):
        plan = practice_plan(n, maps, seed)
        conn.execute(
            "INSERT INTO games(id, kind, ladder_round, challenge, a, b, plan, state, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?)",
            (
                n,
                pick.kind.value,
                ladder_round,
                challenge,
                pick.a,
                pick.b,
                json.dumps(dataclasses.asdict(plan)),
                now,
            ),
        )
        task = tasks.enqueue_in(conn, GAME_KIND, {"game": n}, PRIORITY[pick.kind])
        conn.execute("UPDATE games SET task_id = ? WHERE id = ?", (task, n))
        ids.append(n)
    return ids


def drop_queued(conn: sqlite3.Connection, why: str, stale_only: bool = True) -> list[int]:
    """Queued games no worker has started, dropped (their tasks done without playing):
    those of a player that is no longer current (``stale_only``), or all of them (a freeze)."""
    current = {p.key for p in players(conn, current_only=True)}
    rows = _rows(
        conn,
        "SELECT g.id, g.a, g.b, g.task_id FROM games g JOIN tasks t ON t.id = g.task_id "
        "WHERE g.state = 'queued' AND t.state = 'queued'",
    )
    dropped = []
    for gid, a, b, task_id in rows:
        if stale_only and a in current and b in current:
            continue
        conn.execute(
            "UPDATE games SET state = 'dropped', unrated = ?, finished_at = ? WHERE id = ?",
            (why, time.time(), gid),
        )
        conn.execute(
            "UPDATE tasks SET state = 'done', result = ?, finished_at = ? "
            "WHERE id = ? AND state = 'queued'",
            (json.dumps({"dropped": why}), time.time(), task_id),
        )
        dropped.append(int(gid))
    return dropped


# ---------------------------------------------------------------- recording
def record_in(
    conn: sqlite3.Connection, game_id: int, result: Json, now: float | None = None
) -> bool:
    """A played game's result, and the rating moves it makes, in the caller's transaction
    (the task's finish); False, nothing written, for a game that is not queued any more."""
    g = game(conn, game_id)
    if g is None or g.state != "queued":
        return False
    t = time.time() if now is None else now
    rounds = list(result.get("rounds") or [])
    outcomes = [r.get("outcome") for r in rounds]
    a, b = player(conn, g.a), player(conn, g.b)
    assert a is not None and b is not None
    why = unrated_because(g.kind is PairKind.CHALLENGE, a.current and b.current, outcomes)
    played = [o for o in outcomes if o is not None]
    points: float | None = None
    after: tuple[Rating, Rating] | None = None
    if why is None:
        na, nb, points = rate_pair(Rater(), a.rating, b.rating, outcomes)
        after = (na, nb)
        stamp = now_iso()
        for p, new, pts in ((a, na, points), (b, nb, 1.0 - points)):
            won, drew, lost = pts == 1.0, pts == 0.5, pts == 0.0
            conn.execute(
                "UPDATE players SET mu = ?, sigma = ?, games = games + 1, wins = wins + ?, "
                "draws = draws + ?, losses = losses + ?, last_change = ? WHERE key = ?",
                (new.mu, new.sigma, int(won), int(drew), int(lost), stamp, p.key),
            )
    elif played:
        from judge.league.run import pair_points

        points = pair_points(played)
    conn.execute("UPDATE players SET last_game_at = ? WHERE key IN (?, ?)", (t, a.key, b.key))
    conn.execute(
        "UPDATE games SET state = 'done', rounds = ?, points_a = ?, rated = ?, unrated = ?, "
        "a_before = ?, b_before = ?, a_after = ?, b_after = ?, finished_at = ? WHERE id = ?",
        (
            json.dumps(rounds),
            points,
            int(why is None),
            why.value if isinstance(why, Unrated) else None,
            json.dumps([a.rating.mu, a.rating.sigma]),
            json.dumps([b.rating.mu, b.rating.sigma]),
            json.dumps([after[0].mu, after[0].sigma]) if after else None,
            json.dumps([after[1].mu, after[1].sigma]) if after else None,
            t,
            game_id,
        ),
    )
    return True


# ------------------------------------------------------------------ playing
@dataclass(frozen=True)
class GameSetup:
    """What playing a game needs besides its row: where, under which limits, which programs."""

    arena_dir: Path
    limits: Limits
    #: a player's program (a version's stored bot, a house bot)
    bot_for: Callable[[Player], BotSpec]


class HouseBots:
    """The house bots' programs (resolved once each: a house bot never changes while the
    server runs)."""

    def __init__(self, arena_dir: Path, bots: Mapping[str, str]):
        self.arena_dir, self.bots = arena_dir, dict(bots)
        self._specs: dict[str, BotSpec] = {}
        self._lock = threading.Lock()

    def spec(self, name: str) -> BotSpec:
        with self._lock:
            if name not in self._specs:
                from judge.arena.ladderconfig import house_bot_path

                path = house_bot_path(self.arena_dir, self.bots.get(name, name))
                self._specs[name] = named(resolve_bot(path), name)
            return self._specs[name]


def round_tasks(setup: GameSetup, g: Game, a: Player, b: Player) -> list[RoundTask]:
    """The game's two rounds as scheduler tasks: A in seat 0, then in seat 1, on one map
    with one seed (both seats of both rounds run as in a tournament's round)."""
    folder = setup.arena_dir / g.folder
    sea = g.plan.game_map()
    out = []
    for n, a_seat in ((1, 0), (2, 1)):
        seats = (a, b) if a_seat == 0 else (b, a)
        cfg = RoundConfig(
            game_map=sea, map_label=g.plan.label, seed=g.plan.round_seed, limits=setup.limits
        )
        names = (seats[0].label, seats[1].label)
        out.append(
            RoundTask(
                key=f"{g.id}/{n}",
                config=cfg,
                bots=(setup.bot_for(seats[0]), setup.bot_for(seats[1])),
                names=names,
                out_dir=folder / f"round-{n}",
                replay_rel=f"round-{n}/replay.jsonl",
                folders=(folder_name(names[0]), folder_name(names[1])),
            )
        )
    return out


def _round_json(g: Game, n: int, a_seat: int, seats: tuple[str, str], d: RoundDone) -> Json:
    """One round as the game's row keeps it (seat order for the pairs, A's outcome)."""
    out: Json = {
        "round": n,
        "a_seat": a_seat,
        "seats": list(seats),
        "outcome": None,
        "replay": None,
        "error": d.error,
        "status": d.status.value,
    }
    r = d.result
    if d.status is RoundStatus.PLAYED and r is not None:
        out.update(
            outcome=r.result_for(a_seat),
            gold=list(r.gold),
            winner=r.winner,
            end_reason=r.end_reason.value,
            turns_played=r.turns_played,
            replay=f"{g.folder}/round-{n}/replay.jsonl",
            stats=[s.to_json() for s in r.stats],
            worker=d.worker,
        )
    return out


def play_game(
    setup: GameSetup,
    g: Game,
    a: Player,
    b: Player,
    executor: Executor,
    stop: threading.Event,
) -> Json | None:
    """Play the game's rounds; its result (``{"rounds": [...]}``), or None when ``stop`` cut
    it short (the task then goes back to the queue and is played again)."""
    folder = setup.arena_dir / g.folder
    if folder.exists():  # a killed attempt's rounds: the game is played again from the start
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    done: dict[str, RoundDone] = {}
    work = round_tasks(setup, g, a, b)
    executor.play(work, stop, lambda d: done.__setitem__(d.task.key, d))
    if stop.is_set() or len(done) < len(work):
        return None
    if any(d.status is RoundStatus.STOPPED for d in done.values()):
        return None
    rounds = []
    for n, (task, a_seat) in enumerate(zip(work, (0, 1), strict=True), start=1):
        rounds.append(_round_json(g, n, a_seat, (task.names[0], task.names[1]), done[task.key]))
    return {"rounds": rounds}


def claimed(store: Store, task: tasks.Task) -> tuple[Game, Player, Player] | None:
    """A claimed game task's game and players; None when the game is not queued any more
    (dropped, or recorded by a worker whose lease had run out)."""
    g = game(store, int(task.payload["game"]))
    if g is None or g.state != "queued":
        return None
    a, b = player(store, g.a), player(store, g.b)
    assert a is not None and b is not None
    return g, a, b


def recorder(game_id: int, result: Json) -> Callable[[sqlite3.Connection], None]:
    """The writes of a played game, for the finish's transaction (:func:`record_in`)."""

    def write(conn: sqlite3.Connection) -> None:
        record_in(conn, game_id, result)

    return write


def run_task(
    store: Store,
    setup: GameSetup,
    task: tasks.Task,
    owner: str,
    executor: Executor,
    stop: threading.Event,
) -> bool:
    """A claimed game task played and finished here (True), or given back (False: stopped,
    or the game is not queued any more) -- what a server's slot does, without the slot
    (:mod:`judge.arena.gametask`), for a caller that has its own executor."""
    found = claimed(store, task)
    if found is None:
        tasks.finish(store, task.id, owner, {"skipped": "the game is not queued"})
        return False
    result = play_game(setup, *found, executor, stop)
    if result is None:
        tasks.release(store, task.id, owner)
        return False
    gid = found[0].id
    return tasks.finish(store, task.id, owner, {"game": gid}, also=recorder(gid, result))
