"""``arena.sqlite``: the arena's one record (teams, sessions, versions, tasks), and its records.

SQLite in WAL mode (the server's pages read while a check writes), every write in
one transaction (``BEGIN IMMEDIATE``), ``synchronous = FULL`` (a committed
version survives a power cut).  The schema's version is in ``PRAGMA user_version``
and in ``meta`` (``schema_version``), as the tournament's ledger does; the schema
itself is a list of numbered steps (:data:`MIGRATIONS`): a new store runs them
all, an older one the steps it lacks, in one transaction each, so a later part of
the arena adds its tables as the next step without touching the ones before.  A
store of a later schema than this judge knows is refused, never changed.

Tables (step 1)::

    meta(key, value)                  schema_version, created_at, phase, session_secret
    accounts(id, role, name, name_key, members, password_hash, token_hash,
             session_version, created_at)             teams and the organiser
    sessions(token_hash, account_id, session_version, csrf, created_at, expires_at)
    login_failures(id, team_key, address, at)
    versions(id, team_id, number, sha256, size, uploaded_at, uploaded_ts, original_name,
             kind, status, reason, log, path, source_path, source_name, report_path,
             report_name, checked_at)
    tasks(id, kind, payload, priority, state, owner, lease_until, attempts, result,
          created_at, finished_at)

Tables (step 2, the ladder's; see :mod:`judge.arena.games`)::

    players(key, version_id, house, mu, sigma, games, wins, draws, losses,
            joined_at, last_game_at, last_change)      a rated entrant: a version or a house bot
    ladder_rounds(number, started_at, finished_at, pairs)
    challenges(id, team_id, opponent, pairs, created_at)
    games(id, kind, ladder_round, challenge, a, b, plan, task_id, state, rounds,
          points_a, rated, unrated, a_before, b_before, a_after, b_after,
          created_at, finished_at)                     a pair: one map, seats swapped
    map_choices(team_id, map, sea, chosen_at)          each team's map for the final

One :class:`Store` is shared by the server's threads: one connection, used under
a lock (every statement is short).
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import __version__, sqlitefiles
from judge.arena import ArenaError
from judge.inputfiles import InputFileError
from judge.records import Json

STORE_FILE = "arena.sqlite"


class Phase(str, enum.Enum):
    """Where the arena stands: uploads only while ``open`` (enforced by every upload handler)."""

    OPEN = "open"
    FROZEN = "frozen"
    FINAL = "final"


class Status(str, enum.Enum):
    """A version's check: waiting, under way, or its verdict."""

    QUEUED = "queued"
    CHECKING = "checking"
    ACCEPTED = "accepted"
    REJECTED = "rejected"

    @property
    def final(self) -> bool:
        return self in (Status.ACCEPTED, Status.REJECTED)


class Role(str, enum.Enum):
    TEAM = "team"
    ORGANISER = "organiser"


@dataclass(frozen=True)
class Account:
    """A team (or the organiser): its name as written (NFC) and its members."""

    id: int
    role: Role
    name: str
    members: str
    session_version: int

    @property
    def organiser(self) -> bool:
        return self.role is Role.ORGANISER


#: A team is an account of role ``team``.
Team = Account


@dataclass(frozen=True)
class Version:
    """One upload of a team: its number, its file (by content hash) and its check."""

    id: int
    team_id: int
    number: int
    sha256: str
    size: int
    uploaded_at: str
    original_name: str  # as the team's computer named it: text only, never a path used
    kind: str  # "exe" | "zip"
    status: Status
    reason: str
    log: str
    path: str  # the stored file, relative to the arena folder (store/<aa>/<sha256>/...)
    source_path: str | None = None
    source_name: str | None = None
    report_path: str | None = None
    report_name: str | None = None
    checked_at: str | None = None

    def to_json(self, team: str) -> Json:
        """The version as the API gives it (``GET /api/submissions/ID``)."""
        return {
            "id": self.id,
            "team": team,
            "version": self.number,
            "status": self.status.value,
            "reason": self.reason,
            "log": self.log,
            "sha256": self.sha256,
            "size": self.size,
            "uploaded_at": self.uploaded_at,
            "file": self.original_name,
            "kind": self.kind,
            "source": self.source_name,
            "report": self.report_name,
            "checked_at": self.checked_at,
        }


VERSION_COLUMNS = (
    "id, team_id, number, sha256, size, uploaded_at, original_name, kind, status, reason, "
    "log, path, source_path, source_name, report_path, report_name, checked_at"
)


def version_of(row: Sequence[Any]) -> Version:
    values = list(row)
    values[8] = Status(values[8])
    return Version(*values)


_STEP_1 = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE accounts (
    id              INTEGER PRIMARY KEY,
    role            TEXT    NOT NULL CHECK (role IN ('team', 'organiser')),
    name            TEXT    NOT NULL,
    name_key        TEXT    NOT NULL UNIQUE,
    members         TEXT    NOT NULL DEFAULT '',
    password_hash   TEXT    NOT NULL,
    token_hash      TEXT    UNIQUE,
    session_version INTEGER NOT NULL DEFAULT 1,
    created_at      TEXT    NOT NULL
);
CREATE TABLE sessions (
    token_hash      TEXT    PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    session_version INTEGER NOT NULL,
    csrf            TEXT    NOT NULL,
    created_at      REAL    NOT NULL,
    expires_at      REAL    NOT NULL
);
CREATE TABLE login_failures (
    id       INTEGER PRIMARY KEY,
    team_key TEXT    NOT NULL,
    address  TEXT    NOT NULL,
    at       REAL    NOT NULL
);
CREATE INDEX login_failures_team ON login_failures(team_key, at);
CREATE INDEX login_failures_address ON login_failures(address, at);
CREATE TABLE versions (
    id            INTEGER PRIMARY KEY,
    team_id       INTEGER NOT NULL REFERENCES accounts(id),
    number        INTEGER NOT NULL CHECK (number >= 1),
    sha256        TEXT    NOT NULL,
    size          INTEGER NOT NULL,
    uploaded_at   TEXT    NOT NULL,
    uploaded_ts   REAL    NOT NULL,
    original_name TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('exe', 'zip')),
    status        TEXT    NOT NULL CHECK (status IN ('queued', 'checking', 'accepted', 'rejected')),
    reason        TEXT    NOT NULL DEFAULT '',
    log           TEXT    NOT NULL DEFAULT '',
    path          TEXT    NOT NULL,
    source_path   TEXT,
    source_name   TEXT,
    report_path   TEXT,
    report_name   TEXT,
    checked_at    TEXT,
    UNIQUE (team_id, number)
);
CREATE TABLE tasks (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    payload     TEXT    NOT NULL,
    priority    INTEGER NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    owner       TEXT,
    lease_until REAL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    result      TEXT,
    created_at  REAL    NOT NULL,
    finished_at REAL
);
CREATE INDEX tasks_ready ON tasks(state, priority DESC, id);
"""

_STEP_2 = """
CREATE TABLE players (
    key          TEXT    PRIMARY KEY,
    version_id   INTEGER UNIQUE REFERENCES versions(id),
    house        TEXT    UNIQUE,
    mu           REAL    NOT NULL,
    sigma        REAL    NOT NULL,
    games        INTEGER NOT NULL DEFAULT 0,
    wins         INTEGER NOT NULL DEFAULT 0,
    draws        INTEGER NOT NULL DEFAULT 0,
    losses       INTEGER NOT NULL DEFAULT 0,
    joined_at    REAL    NOT NULL,
    last_game_at REAL,
    last_change  TEXT,
    CHECK ((version_id IS NULL) <> (house IS NULL))
);
CREATE TABLE ladder_rounds (
    number      INTEGER PRIMARY KEY,
    started_at  REAL    NOT NULL,
    finished_at REAL,
    pairs       INTEGER NOT NULL
);
CREATE TABLE challenges (
    id         INTEGER PRIMARY KEY,
    team_id    INTEGER NOT NULL REFERENCES accounts(id),
    opponent   TEXT    NOT NULL,
    pairs      INTEGER NOT NULL,
    created_at REAL    NOT NULL
);
CREATE INDEX challenges_team ON challenges(team_id, created_at);
CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    kind         TEXT    NOT NULL CHECK (kind IN ('placement', 'challenge', 'ladder')),
    ladder_round INTEGER REFERENCES ladder_rounds(number),
    challenge    INTEGER REFERENCES challenges(id),
    a            TEXT    NOT NULL REFERENCES players(key),
    b            TEXT    NOT NULL REFERENCES players(key),
    plan         TEXT    NOT NULL,
    task_id      INTEGER REFERENCES tasks(id),
    state        TEXT    NOT NULL CHECK (state IN ('queued', 'done', 'dropped')),
    rounds       TEXT,
    points_a     REAL,
    rated        INTEGER NOT NULL DEFAULT 0,
    unrated      TEXT,
    a_before     TEXT,
    b_before     TEXT,
    a_after      TEXT,
    b_after      TEXT,
    created_at   REAL    NOT NULL,
    finished_at  REAL
);
CREATE INDEX games_state ON games(state, kind);
CREATE INDEX games_a ON games(a);
CREATE INDEX games_b ON games(b);
CREATE TABLE map_choices (
    team_id   INTEGER PRIMARY KEY REFERENCES accounts(id),
    map       TEXT    NOT NULL UNIQUE,
    sea       TEXT    NOT NULL UNIQUE,
    chosen_at TEXT    NOT NULL
);
"""

#: The schema, step by step: step N brings a store from version N-1 to N.  Append only.
MIGRATIONS: list[str] = [_STEP_1, _STEP_2]


def schema_version() -> int:
    return len(MIGRATIONS)


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class Store:
    """The arena's store; :meth:`create` for a new arena, :meth:`open` for an existing one."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()

    # ---------------------------------------------------------------- opening
    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(path), timeout=10.0, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @classmethod
    def create(cls, path: Path, meta: dict[str, str] | None = None) -> Store:
        if path.exists():
            raise ArenaError(f"{path} already exists")
        store = cls(cls._connect(path), path)
        store.migrate()
        with store.transaction() as conn:
            rows = {"created_at": now_iso(), "phase": Phase.OPEN.value, **(meta or {})}
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", rows.items())
        return store

    @classmethod
    def open(cls, path: Path) -> Store:
        """An existing store, brought up to this judge's schema (ArenaError if it cannot be)."""
        if not path.is_file():
            raise ArenaError(f"{path}: no arena store there (make an arena with judge arena init)")
        try:
            sqlitefiles.check_files(path, "an arena store (an SQLite file)")
            conn = cls._connect(path)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except InputFileError as exc:
            raise ArenaError(str(exc)) from None
        except sqlite3.Error as exc:
            raise ArenaError(f"{path}: {sqlitefiles.why(exc, 'an arena store')}") from None
        if version > schema_version():
            conn.close()
            raise ArenaError(
                f"{path}: an arena store of schema version {version}; this judge (version "
                f"{__version__}) knows versions up to {schema_version()}: use a newer judge"
            )
        if version < 1:
            conn.close()
            raise ArenaError(f"{path}: not an arena store (schema version {version})")
        store = cls(conn, path)
        store.migrate()
        return store

    def migrate(self) -> None:
        """Run the steps this store lacks, each in one transaction with its version."""
        done = self._conn.execute("PRAGMA user_version").fetchone()[0]
        for number, step in enumerate(MIGRATIONS, start=1):
            if number <= done:
                continue
            with self.transaction() as conn:
                for statement in step.split(";"):  # not executescript: it would COMMIT first
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(number),),
                )
                conn.execute(f"PRAGMA user_version = {number}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------- statements
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (all of it or none of it); an SQLite error said in words."""
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except sqlite3.IntegrityError:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise ArenaError(
                    f"{self.path}: cannot be written: {sqlitefiles.why(exc, 'an arena store')}"
                ) from None
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def write(self, action: Callable[[sqlite3.Connection], Any]) -> Any:
        """``action(conn)`` in one transaction; its value."""
        with self.transaction() as conn:
            return action(conn)

    # ------------------------------------------------------------------ meta
    def meta(self, key: str) -> str | None:
        found = self.row("SELECT value FROM meta WHERE key = ?", (key,))
        return None if found is None else str(found[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def meta_json(self, key: str, default: Any = None) -> Any:
        text = self.meta(key)
        return default if text is None else json.loads(text)

    @property
    def phase(self) -> Phase:
        return Phase(self.meta("phase") or Phase.OPEN.value)

    def set_phase(self, phase: Phase) -> None:
        self.set_meta("phase", phase.value)

    # -------------------------------------------------------------- records
    def accounts(self, role: Role | None = Role.TEAM) -> list[Account]:
        sql = "SELECT id, role, name, members, session_version FROM accounts"
        params: tuple[Any, ...] = ()
        if role is not None:
            sql, params = sql + " WHERE role = ?", (role.value,)
        return [_account(r) for r in self.rows(sql + " ORDER BY id", params)]

    def teams(self) -> list[Team]:
        return self.accounts(Role.TEAM)

    def account(self, account_id: int) -> Account | None:
        found = self.row(
            "SELECT id, role, name, members, session_version FROM accounts WHERE id = ?",
            (account_id,),
        )
        return None if found is None else _account(found)

    def version(self, version_id: int) -> Version | None:
        found = self.row(f"SELECT {VERSION_COLUMNS} FROM versions WHERE id = ?", (version_id,))
        return None if found is None else version_of(found)

    def versions(self, team_id: int | None = None) -> list[Version]:
        if team_id is None:
            found = self.rows(f"SELECT {VERSION_COLUMNS} FROM versions ORDER BY id")
        else:
            found = self.rows(
                f"SELECT {VERSION_COLUMNS} FROM versions WHERE team_id = ? ORDER BY number",
                (team_id,),
            )
        return [version_of(r) for r in found]

    def current_version(self, team_id: int) -> Version | None:
        """The team's bot: its last accepted version (None before one is accepted)."""
        found = self.row(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE team_id = ? AND status = 'accepted' "
            "ORDER BY number DESC LIMIT 1",
            (team_id,),
        )
        return None if found is None else version_of(found)


def _account(row: Sequence[Any]) -> Account:
    return Account(int(row[0]), Role(row[1]), str(row[2]), str(row[3]), int(row[4]))


def store_path(folder: Path) -> Path:
    return folder / STORE_FILE


def fsync_dir(path: Path) -> None:
    """A rename into ``path`` made durable (the folder's entry written to disk)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
