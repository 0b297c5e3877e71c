"""The league's SQLite database: bots and their ratings, chosen pairs, finished rounds.

It is the league's only record.  A round is written as soon as it ends (one
transaction); the ratings move when a whole batch of pairs is done, in pair
order, in one transaction with the batch marked applied -- so results do not
depend on which round finished first, and a killed run loses at most the
rounds in flight: the next run plays the missing rounds of the open batch
first.

Schema (version in ``PRAGMA user_version``)::

    bots(id, name, version, source, mu, sigma, rounds, wins, draws, losses,
         active (1 = in the league file now), parent (the version it replaced),
         joined_at)
    pairs(id, batch, a, b, map_json (the map plan), applied)
    runs(id, target (pairs in the league when the run is done), started_at, finished_at)
    rounds(pair, a_seat, outcome ('win' | 'draw' | 'loss' for bot a; NULL =
           abandoned by the judge), gold_a, gold_b, end_reason, replay, error,
           finished_at)
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import __version__, sqlitefiles
from judge.errors import JudgeError
from judge.evaluate import MapPlan
from judge.inputfiles import InputFileError, excerpt, parse_json
from judge.league.ratings import Rating

SCHEMA_VERSION = 1
DB_FILE = "league.sqlite"

_SCHEMA = """
CREATE TABLE bots (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL,
    version   TEXT    NOT NULL,
    source    TEXT    NOT NULL,
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    rounds    INTEGER NOT NULL DEFAULT 0,
    wins      INTEGER NOT NULL DEFAULT 0,
    draws     INTEGER NOT NULL DEFAULT 0,
    losses    INTEGER NOT NULL DEFAULT 0,
    active    INTEGER NOT NULL DEFAULT 1,
    parent    INTEGER REFERENCES bots(id),
    joined_at TEXT    NOT NULL,
    UNIQUE (name, version)
);
CREATE TABLE pairs (
    id       INTEGER PRIMARY KEY,
    batch    INTEGER NOT NULL,
    a        INTEGER NOT NULL REFERENCES bots(id),
    b        INTEGER NOT NULL REFERENCES bots(id),
    map_json TEXT    NOT NULL,
    applied  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    target      INTEGER NOT NULL,
    started_at  TEXT    NOT NULL,
    finished_at TEXT
);
CREATE TABLE rounds (
    pair        INTEGER NOT NULL REFERENCES pairs(id),
    a_seat      INTEGER NOT NULL CHECK (a_seat IN (0, 1)),
    outcome     TEXT CHECK (outcome IS NULL OR outcome IN ('win', 'draw', 'loss')),
    gold_a      INTEGER,
    gold_b      INTEGER,
    end_reason  TEXT,
    replay      TEXT,
    error       TEXT,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (pair, a_seat)
);
"""


class StoreError(JudgeError, RuntimeError):
    """The database cannot be used (of another schema, or not a league database)."""


@dataclass(frozen=True)
class BotRow:
    id: int
    name: str
    version: str
    source: str
    rating: Rating
    rounds: int
    wins: int
    draws: int
    losses: int
    active: bool
    parent: int | None


@dataclass(frozen=True)
class PairRow:
    id: int
    batch: int
    a: int
    b: int
    plan: MapPlan
    applied: bool


@dataclass(frozen=True)
class RoundRow:
    pair: int
    a_seat: int
    outcome: str | None
    gold_a: int | None
    gold_b: int | None
    end_reason: str | None
    replay: str | None
    error: str | None = None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class Store:
    """An open league database (one connection, used from the calling thread)."""

    def __init__(self, path: Path):
        self.path = path
        fresh = not os.path.lexists(path)
        if not fresh:
            # Checked before SQLite touches them: a FIFO would hang it.
            try:
                sqlitefiles.check_files(path, "a league database (an SQLite file)")
            except InputFileError as exc:
                raise StoreError(f"{exc}; {_FIX}") from None
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # Opened for writing: a write a killed judge left unfinished is rolled back here.
            conn = sqlitefiles.connect(path)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot be opened ({exc}); {_FIX}") from None
        self.db = _Guarded(conn, path)
        if not fresh:
            problem = _shape_problem(conn)
            if problem:
                conn.close()
                raise StoreError(f"{path}: {problem}; {_FIX}")
        # Only now, the file known to be ours, may its journal mode change.
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        if fresh:
            self.db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")

    def close(self) -> None:
        self.db.close()

    def _tx(self) -> Any:
        return _Transaction(self.db)

    # ------------------------------------------------------------------ bots
    def bots(self, active_only: bool = False) -> list[BotRow]:
        q = "SELECT id, name, version, source, mu, sigma, rounds, wins, draws, losses, active, parent FROM bots"  # fmt: skip
        if active_only:
            q += " WHERE active = 1"
        out = []
        for r in self.db.execute(q + " ORDER BY id"):
            where = f"{self.path}: bots row id {excerpt(r[0])}"
            _check(where, r, ((0, "id", int), (1, "name", str), (2, "version", str), (3, "source", str)))  # fmt: skip
            _check(where, r, ((4, "mu", float), (5, "sigma", float)))
            if not (abs(r[4]) <= MAX_RATING and 0 < r[5] <= MAX_RATING):
                raise StoreError(f"{where}: mu {excerpt(r[4])} or sigma {excerpt(r[5])} is not a rating (|mu| and sigma at most {MAX_RATING:g}, sigma above 0); {_FIX}")  # fmt: skip
            _check(where, r, ((6, "rounds", int), (7, "wins", int), (8, "draws", int), (9, "losses", int), (10, "active", int)))  # fmt: skip
            if r[11] is not None:
                _check(where, r, ((11, "parent", int),))
            out.append(
                BotRow(
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    Rating(float(r[4]), float(r[5])),
                    r[6],
                    r[7],
                    r[8],
                    r[9],
                    bool(r[10]),
                    r[11],
                )  # fmt: skip
            )
        return out

    def add_bot(self, name: str, version: str, source: str, rating: Rating, parent: int | None) -> int:  # fmt: skip
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO bots (name, version, source, mu, sigma, parent, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?)",  # fmt: skip
                (name, version, source, rating.mu, rating.sigma, parent, _now()),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def set_active(self, bot_id: int, active: bool, source: str | None = None) -> None:
        with self._tx():
            self.db.execute("UPDATE bots SET active = ? WHERE id = ?", (int(active), bot_id))
            if source is not None:
                self.db.execute("UPDATE bots SET source = ? WHERE id = ?", (source, bot_id))

    # ------------------------------------------------------------------ runs
    def last_run(self) -> tuple[int, int, bool] | None:
        """(id, target, finished) of the latest run, if any."""
        r = self.db.execute("SELECT id, target, finished_at FROM runs ORDER BY id DESC LIMIT 1").fetchone()  # fmt: skip
        if r is None:
            return None
        at = f"{self.path}: runs row id {excerpt(r[0])}"
        _check(at, r, ((0, "id", int), (1, "target", int)))
        if not 0 <= r[1] <= MAX_PAIRS or (r[2] is not None and not isinstance(r[2], str)):
            raise StoreError(f"{at}: target {excerpt(r[1])} or finished_at {excerpt(r[2])} is not one a league run writes; {_FIX}")  # fmt: skip
        return (r[0], r[1], r[2] is not None)

    def start_run(self, target: int) -> int:
        with self._tx():
            cur = self.db.execute("INSERT INTO runs (target, started_at) VALUES (?, ?)", (target, _now()))  # fmt: skip
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(self, run_id: int) -> None:
        with self._tx():
            self.db.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (_now(), run_id))

    def pair_count(self) -> int:
        return self._number("SELECT count(*) FROM pairs", "the number of pairs")

    # ----------------------------------------------------------------- pairs
    def next_batch(self) -> int:
        return self._number("SELECT coalesce(max(batch), 0) + 1 FROM pairs", "the next batch")

    def next_pair_id(self) -> int:
        return self._number("SELECT coalesce(max(id), 0) + 1 FROM pairs", "the next pair id")

    def _number(self, query: str, what: str) -> int:
        row = self.db.execute(query).fetchone()
        value = row[0] if row else None
        if not isinstance(value, int) or isinstance(value, bool):
            raise StoreError(f"{self.path}: {what} is {excerpt(value)}, not a whole number: the pairs table holds values of the wrong type; {_FIX}")  # fmt: skip
        return value

    def add_pairs(self, batch: int, pairs: list[tuple[int, int, int, MapPlan]]) -> None:
        """Record a chosen batch (pair id, a, b, map) before any of it is played."""
        with self._tx():
            self.db.executemany(
                "INSERT INTO pairs (id, batch, a, b, map_json) VALUES (?, ?, ?, ?, ?)",
                [(i, batch, a, b, json.dumps(dataclasses.asdict(p))) for i, a, b, p in pairs],
            )

    def pairs(self, where: str = "", args: tuple[Any, ...] = ()) -> list[PairRow]:
        rows = self.db.execute(
            "SELECT id, batch, a, b, map_json, applied FROM pairs " + where + " ORDER BY id", args
        )
        known = {r[0] for r in self.db.execute("SELECT id FROM bots")}
        out = []
        for r in rows:
            at = f"{self.path}: pairs row id {excerpt(r[0])}"
            if r[2] not in known or r[3] not in known:
                raise StoreError(f"{at}: its bots {excerpt(r[2])} and {excerpt(r[3])} are not both in the bots table; {_FIX}")  # fmt: skip
            _check(at, r, ((0, "id", int), (1, "batch", int), (2, "a", int), (3, "b", int), (4, "map_json", str), (5, "applied", int)))  # fmt: skip
            out.append(PairRow(r[0], r[1], r[2], r[3], _map_plan(at, r[4]), bool(r[5])))
        return out

    def open_pairs(self) -> list[PairRow]:
        return self.pairs("WHERE applied = 0")

    def drop_pairs(self, ids: list[int]) -> None:
        with self._tx():
            for i in ids:
                self.db.execute("DELETE FROM rounds WHERE pair = ?", (i,))
                self.db.execute("DELETE FROM pairs WHERE id = ?", (i,))

    # ---------------------------------------------------------------- rounds
    def add_round(self, r: RoundRow) -> None:
        with self._tx():
            self.db.execute(
                "INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    r.pair,
                    r.a_seat,
                    r.outcome,
                    r.gold_a,
                    r.gold_b,
                    r.end_reason,
                    r.replay,
                    r.error,
                    _now(),
                ),  # fmt: skip
            )

    def rounds(self, pair: int) -> dict[int, RoundRow]:
        rows = self.db.execute(
            "SELECT pair, a_seat, outcome, gold_a, gold_b, end_reason, replay, error FROM rounds WHERE pair = ?",  # fmt: skip
            (pair,),
        )
        out = {}
        for r in rows:
            at = f"{self.path}: rounds row of pair {excerpt(r[0])}, seat {excerpt(r[1])}"
            for i, name, kind in ((2, "outcome", str), (3, "gold_a", int), (4, "gold_b", int), (5, "end_reason", str), (6, "replay", str), (7, "error", str)):  # fmt: skip
                if r[i] is not None:
                    _check(at, r, ((i, name, kind),))
            if r[1] not in (0, 1) or r[2] not in (None, "win", "draw", "loss"):
                raise StoreError(f"{at}: a_seat {excerpt(r[1])} or outcome {excerpt(r[2])} is not one a round writes (seat 0 or 1; win, draw, loss or none); {_FIX}")  # fmt: skip
            out[r[1]] = RoundRow(*r)
        return out

    def apply(self, updates: dict[int, tuple[Rating, int, int, int]], pair_ids: list[int]) -> None:
        """New ratings and round counts (wins, draws, losses added) and the pairs marked applied."""
        with self._tx():
            for bot_id, (rating, w, d, lo) in updates.items():
                self.db.execute(
                    "UPDATE bots SET mu = ?, sigma = ?, rounds = rounds + ?, wins = wins + ?, "
                    "draws = draws + ?, losses = losses + ? WHERE id = ?",
                    (rating.mu, rating.sigma, w + d + lo, w, d, lo, bot_id),
                )
            self.db.executemany("UPDATE pairs SET applied = 1 WHERE id = ?", [(i,) for i in pair_ids])  # fmt: skip


#: No rating comes near this (OpenSkill's start is 25 +- 8.3): a larger one is damage.
MAX_RATING = 1e6
#: A league run never plans more pairs than this (a damaged target would play for ever).
MAX_PAIRS = 10_000_000
_FIX = "the league database was not changed; restore it from a copy, or start the league in a new folder"  # fmt: skip
#: The columns of each table as this judge writes them.
_COLUMNS = {
    "bots": (
        "id",
        "name",
        "version",
        "source",
        "mu",
        "sigma",
        "rounds",
        "wins",
        "draws",
        "losses",
        "active",
        "parent",
        "joined_at",
    ),  # fmt: skip
    "pairs": ("id", "batch", "a", "b", "map_json", "applied"),
    "runs": ("id", "target", "started_at", "finished_at"),
    "rounds": (
        "pair",
        "a_seat",
        "outcome",
        "gold_a",
        "gold_b",
        "end_reason",
        "replay",
        "error",
        "finished_at",
    ),  # fmt: skip
}


def _shape_problem(conn: sqlite3.Connection) -> str:
    """Why an existing file is not a league database this judge reads ('' if it is one)."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = {t: tuple(r[1] for r in conn.execute(f"PRAGMA table_info({t})")) for t in _COLUMNS}  # fmt: skip
    except sqlite3.Error as exc:
        return sqlitefiles.why(exc, "a league database")
    if version == 0 and not any(columns.values()):
        return "an SQLite file that is not a league database"
    if version != SCHEMA_VERSION:
        return f"a league database of schema version {version}; this judge (version {__version__}) reads schema version {SCHEMA_VERSION}"  # fmt: skip
    for table, want in _COLUMNS.items():
        if not columns[table]:
            return f"not a league database: it has no '{table}' table"
        if columns[table] != want:
            return f"its '{table}' table has the columns {', '.join(columns[table])}, not those of schema version {SCHEMA_VERSION} ({', '.join(want)})"  # fmt: skip
    return ""


class _Rows:
    """A query's rows, all read at once (so a damaged page is found inside the guard)."""

    def __init__(self, rows: list[tuple[Any, ...]], lastrowid: int | None) -> None:
        self.rows, self.lastrowid = rows, lastrowid

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def __iter__(self) -> Any:
        return iter(self.rows)


class _Guarded:
    """The database connection, every SQLite error a StoreError in words (a busy database
    is another judge at work, not a damaged file)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path

    def _fail(self, exc: sqlite3.Error) -> StoreError:
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        return StoreError(f"{self.path}: {sqlitefiles.why(exc, 'a league database')}; {_FIX}")

    def execute(self, query: str, args: Any = ()) -> _Rows:
        try:
            cur = self.conn.execute(query, args)
            return _Rows(cur.fetchall(), cur.lastrowid)
        except sqlite3.Error as exc:
            raise self._fail(exc) from None

    def executemany(self, query: str, args: Any) -> None:
        try:
            self.conn.executemany(query, args)
        except sqlite3.Error as exc:
            raise self._fail(exc) from None

    def executescript(self, script: str) -> None:
        try:
            self.conn.executescript(script)
        except sqlite3.Error as exc:
            raise self._fail(exc) from None

    def close(self) -> None:
        self.conn.close()


def _check(where: str, row: tuple[Any, ...], fields: tuple[tuple[int, str, type], ...]) -> None:
    """Each named column of a row holds a value of its type (a float column may hold an int)."""
    for i, name, kind in fields:
        v = row[i]
        ok = isinstance(v, kind) and not isinstance(v, bool)
        if kind is float:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if not ok:
            raise StoreError(
                f"{where}: {name} is {excerpt(v)}, not {'a number' if kind is float else 'a whole number' if kind is int else 'text'}; {_FIX}"  # fmt: skip
            )


def _map_plan(where: str, text: str) -> MapPlan:
    """A pair's map plan from its JSON column, checked key by key."""
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise StoreError(f"{where}: map_json is not JSON ({exc}); {_FIX}") from None  # fmt: skip
    fields = {f.name: f for f in dataclasses.fields(MapPlan)}
    if not isinstance(data, dict) or set(data) - set(fields) or {k for k, f in fields.items() if f.default is dataclasses.MISSING} - set(data):  # fmt: skip
        raise StoreError(
            f"{where}: map_json is {excerpt(text)}, not a map plan with the keys {', '.join(fields)}; {_FIX}"  # fmt: skip
        )
    for key in ("index", "rows", "cols", "turns", "map_seed", "round_seed"):
        v = data[key]
        if not isinstance(v, int) or isinstance(v, bool):
            raise StoreError(f"{where}: map_json's {key} is {excerpt(v)}, not a whole number; {_FIX}")  # fmt: skip
    for key in ("path", "name"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise StoreError(f"{where}: map_json's {key} is {excerpt(data[key])}, not text; {_FIX}")  # fmt: skip
    return MapPlan(**data)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (all or nothing)."""

    def __init__(self, db: _Guarded):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        elif self.db.conn.in_transaction:  # a failed statement may have rolled back already
            self.db.execute("ROLLBACK")
