"""The ledger: an SQLite database holding every finished round of a tournament.

It is the only record a tournament trusts.  A round is written to it as soon
as it ends, in one transaction (all of the round or none of it), so killing
the judge -- even with SIGKILL -- loses at most the rounds that were in
flight, and ``--resume`` plays exactly the rounds the ledger lacks.  Result
files (``result.json``, standings) are derived from it and can always be
rewritten.

Schema (version in ``PRAGMA user_version`` and in ``meta``)::

    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
        schema_version, config_hash, config (JSON fingerprint), created_at,
        runs (JSON list, one entry per start or resume: when, the judge's version,
        the protections that were off, whether --unsandboxed allowed that, each
        team's program hash, and the teams replaced or kept with a changed program;
        older ledgers have no such key)
    rounds(match TEXT, round INTEGER, map TEXT, seed INTEGER,
           seat0 TEXT, seat1 TEXT, gold0 INTEGER, gold1 INTEGER,
           points0 INTEGER, points1 INTEGER, winner TEXT NULL (a team name),
           end_reason TEXT, turns_played INTEGER,
           result_json TEXT (the round as result.json shows it), finished_at TEXT,
           PRIMARY KEY (match, round))
    round_runs(match TEXT, round INTEGER, run INTEGER (1 = the first entry of runs),
           PRIMARY KEY (match, round))

``round_runs`` says which run played each round, so that the standings can
say which program played it.  It came after schema version 1 was in use and
is optional: a ledger without it (judge 0.1.0 and the versions up to this
one) is read as it is, its rounds' runs unknown, and gets the table on its
next resume, with ``meta``'s ``round_runs_from``: the number of that run, the
first whose rounds the table names (the rounds it does not name were played
by the runs before); a judge that does not know the table leaves it alone.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from judge import __version__, sqlitefiles
from judge.errors import JudgeError
from judge.inputfiles import InputFileError, excerpt, parse_json
from judge.records import Json, RecordError, RoundResult
from judge.records.standings import LedgerRun
from judge.tournament.pairings import ROUNDS_PER_MATCH, match_teams

SCHEMA_VERSION = 1
LEDGER_FILE = "ledger.sqlite"

_SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE rounds (
    match        TEXT    NOT NULL,
    round        INTEGER NOT NULL CHECK (round >= 1),
    map          TEXT    NOT NULL,
    seed         INTEGER NOT NULL,
    seat0        TEXT    NOT NULL,
    seat1        TEXT    NOT NULL,
    gold0        INTEGER NOT NULL,
    gold1        INTEGER NOT NULL,
    points0      INTEGER NOT NULL,
    points1      INTEGER NOT NULL,
    winner       TEXT,
    end_reason   TEXT    NOT NULL,
    turns_played INTEGER NOT NULL,
    result_json  TEXT    NOT NULL,
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (match, round),
    CHECK (winner IS NULL OR winner = seat0 OR winner = seat1)
);
"""
_ROUND_RUNS = """
CREATE TABLE IF NOT EXISTS round_runs (
    match TEXT    NOT NULL,
    round INTEGER NOT NULL,
    run   INTEGER NOT NULL CHECK (run >= 1),
    PRIMARY KEY (match, round)
)
"""


#: The columns of each table, as this judge writes them (a ledger of another shape is refused).
_COLUMNS = {
    "meta": ("key", "value"),
    "rounds": (
        "match",
        "round",
        "map",
        "seed",
        "seat0",
        "seat1",
        "gold0",
        "gold1",
        "points0",
        "points1",
        "winner",
        "end_reason",
        "turns_played",
        "result_json",
        "finished_at",
    ),
}
#: Tables a ledger may lack (see the module's docstring); when present, of these columns.
_OPTIONAL_COLUMNS = {"round_runs": ("match", "round", "run")}
_FIX = (
    "resume it with the judge that started it, or start the tournament again in a new "
    "folder (--out NEW_FOLDER); the ledger was not changed"
)


class LedgerError(JudgeError, RuntimeError):
    """The ledger cannot be used (missing, of another schema, or a round recorded twice)."""


@dataclass(frozen=True)
class LedgerRound:
    """One finished round as the ledger keeps it: the round's result, in seat order.

    ``result.seats`` names the teams in seat 0 and 1; the row's
    ``result_json`` holds the round as the match's ``result.json`` lists it
    (pairs in the match's team order: the order of the two names that gives
    the match folder's name).
    """

    match: str
    round: int
    result: RoundResult
    finished_at: str = ""

    @property
    def key(self) -> tuple[str, int]:
        return (self.match, self.round)

    @property
    def seats(self) -> tuple[str, str]:
        assert self.result.seats is not None
        return self.result.seats


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class Ledger:
    """A tournament's ledger.  Use :meth:`create` for a new tournament, :meth:`open` to resume."""

    def __init__(self, conn: sqlite3.Connection, path: str):
        self._conn = conn
        self.path = path
        #: the run this judge started (1-based, see :meth:`record_run`): its rounds say so
        self._run: int | None = None

    # ---------------------------------------------------------------- opening
    @staticmethod
    def _connect(path: str | Path) -> sqlite3.Connection:
        # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
        conn = sqlite3.connect(str(path), isolation_level=None)
        conn.execute("PRAGMA synchronous = FULL")  # a committed round survives a power cut
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @classmethod
    def create(cls, path: str | Path, config_hash: str, config: Json) -> Ledger:
        """A new, empty ledger for a tournament of this configuration."""
        if str(path) != ":memory:" and Path(path).exists():
            raise LedgerError(f"{path} already exists; resume it, or start in a new folder")
        conn = cls._connect(path)
        try:
            conn.execute("BEGIN IMMEDIATE")
            for statement in [*_SCHEMA.split(";"), _ROUND_RUNS]:  # not executescript: it
                if statement.strip():  # would COMMIT first
                    conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("config_hash", config_hash),
                    ("config", json.dumps(config, sort_keys=True)),
                    ("created_at", _now()),
                ],
            )
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.close()
            raise
        return cls(conn, str(path))

    @classmethod
    def open(cls, path: str | Path, read_only: bool = False) -> Ledger:
        """An existing ledger, checked to be one this judge can read: a regular file, an
        SQLite database of this schema version with its tables and columns.  Anything
        else is a LedgerError that says what is wrong and what to do; nothing is written.

        ``read_only``: for a reader beside the judge that writes it (``judge serve``):
        it never writes, and waits a moment for a round being committed."""
        if not os.path.lexists(path):
            raise LedgerError(f"{path}: no ledger there (nothing to resume)")
        try:
            sqlitefiles.check_files(path, "a ledger (an SQLite file)")
        except InputFileError as exc:
            raise LedgerError(f"{exc}; {_FIX}") from None
        try:
            # Opened for writing (unless read_only): a write a killed judge left unfinished
            # is rolled back by SQLite here, so a killed tournament resumes.
            conn = sqlitefiles.connect(path, read_only)
        except sqlite3.Error as exc:
            raise LedgerError(f"{path}: cannot be opened ({exc}); {_FIX}") from None
        try:
            problem = _shape_problem(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise LedgerError(f"{path}: {sqlitefiles.why(exc, 'a ledger')}") from None
        if problem:
            conn.close()
            raise LedgerError(f"{path}: {problem}; {_FIX}")
        if not read_only:
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
        return cls(conn, str(path))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ meta
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction: rolled back on any failure, and an SQLite error said in words."""
        try:
            yield
        except sqlite3.IntegrityError:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise LedgerError(
                f"{self.path}: cannot be written: {sqlitefiles.why(exc, 'a ledger')}"
            ) from None
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A damaged page found while reading is a LedgerError, never an sqlite3 traceback."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise LedgerError(
                f"{self.path}: cannot be read ({exc}): the file is damaged; {_FIX}"
            ) from None

    def meta(self, key: str) -> str | None:
        with self._reading():
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def config_hash(self) -> str:
        return self.meta("config_hash") or ""

    @property
    def config(self) -> Json:
        """The configuration's fingerprint as the ledger recorded it (LedgerError if damaged)."""
        text = self.meta("config")
        try:
            value = parse_json(text) if text else {}
        except ValueError as exc:
            raise LedgerError(
                f"{self.path}: its record of the configuration (meta 'config') is damaged: "
                f"not JSON ({exc}); the ledger was not changed"
            ) from None
        if not isinstance(value, dict):
            raise LedgerError(
                f"{self.path}: its record of the configuration (meta 'config') is damaged: "
                f"{type(value).__name__}, not an object; the ledger was not changed"
            )
        return value

    @property
    def created_at(self) -> str:
        return self.meta("created_at") or ""

    def runs(self) -> list[LedgerRun]:
        """Every start and resume recorded so far (see :meth:`record_run`), oldest first."""
        runs = parse_json(self.meta("runs") or "[]")
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            # Refused, not replaced: the audit trail is what an organiser checks later.
            raise LedgerError(
                f"{self.path}: its record of the runs (meta 'runs') is damaged: "
                f"{excerpt(self.meta('runs'))} is not a list of runs; {_FIX}"
            )
        return [LedgerRun.from_json(r) for r in runs]

    def record_run(self, run: LedgerRun, discard: Sequence[tuple[str, int]] = ()) -> int:
        """Add one start or resume to the audit trail, before any of its rounds is played;
        return its number (1 for the first run).  The rounds recorded after this say
        that this run played them.

        ``run`` says how it is played: the judge's version, the sandbox protections that
        are off and whether ``--unsandboxed`` allowed that, each team's program hash, the
        teams replaced.  Its ``started_at`` is set here (now).  ``discard``: recorded
        rounds (match, round) that no longer count and are played again (a replaced
        team's, one whose replay is gone): removed in the same transaction, so a judge
        killed at any moment leaves either the old rounds and no run, or both changed.
        """
        runs = [r.to_json() for r in [*self.runs(), replace(run, started_at=_now())]]
        with self._writing():
            self._conn.execute("BEGIN IMMEDIATE")
            if not _has_table(self._conn, "round_runs"):  # a ledger of an earlier judge
                self._conn.execute(_ROUND_RUNS)
                self._conn.execute(  # the runs before this one kept no such record
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('round_runs_from', ?)",
                    (str(len(runs)),),
                )
            self._conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('runs', ?)",
                (json.dumps(runs, sort_keys=True),),
            )
            for table in ("rounds", "round_runs"):
                self._conn.executemany(
                    f"DELETE FROM {table} WHERE match = ? AND round = ?", list(discard)
                )
            self._conn.execute("COMMIT")
        self._run = len(runs)
        return self._run

    def round_runs(self) -> dict[tuple[str, int], int]:
        """Which run (1-based) played each recorded round, as far as the ledger knows:
        a round recorded by a judge that did not keep it is absent."""
        with self._reading():
            if not _has_table(self._conn, "round_runs"):
                return {}
            rows = self._conn.execute("SELECT match, round, run FROM round_runs").fetchall()
        return {
            (m, r): run
            for m, r, run in rows
            if isinstance(m, str) and isinstance(r, int) and isinstance(run, int)
        }

    def round_runs_from(self) -> int:
        """The first run whose rounds :meth:`round_runs` names: a recorded round it does not
        name was played by one of the runs before (by a judge that did not keep which)."""
        with self._reading():
            has_table = _has_table(self._conn, "round_runs")
        value = self.meta("round_runs_from")
        if value is not None and value.isdigit():
            return int(value)
        return 1 if has_table else len(self.runs()) + 1

    # ---------------------------------------------------------------- rounds
    def record(self, rnd: LedgerRound) -> None:
        """Record one finished round in a single transaction."""
        rr = rnd.result
        if rr.seats is None:
            raise LedgerError(f"round {rnd.round} of {rnd.match} does not name its seats")
        try:
            listed = rr.to_json(match_teams(rnd.match, rr.seats))
        except ValueError as exc:
            raise LedgerError(
                f"round {rnd.round} of {rnd.match} cannot be recorded: {exc}"
            ) from None
        winner = None if rr.winner is None else rr.seats[rr.winner]
        row = (
            rnd.match,
            rnd.round,
            rr.map_label,
            rr.seed,
            rr.seats[0],
            rr.seats[1],
            rr.gold[0],
            rr.gold[1],
            rr.points[0],
            rr.points[1],
            winner,
            rr.end_reason.value,
            rr.turns_played,
            json.dumps(listed, sort_keys=True),
            rnd.finished_at or _now(),
        )
        try:
            with self._writing():
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.execute(
                    "INSERT INTO rounds(match, round, map, seed, seat0, seat1, gold0, gold1, "
                    "points0, points1, winner, end_reason, turns_played, result_json, "
                    "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                if self._run is not None:  # the table exists: record_run made it
                    self._conn.execute(
                        "INSERT INTO round_runs(match, round, run) VALUES (?, ?, ?)",
                        (rnd.match, rnd.round, self._run),
                    )
                self._conn.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            raise LedgerError(
                f"round {rnd.round} of {rnd.match} cannot be recorded: {exc}"
            ) from None

    def rounds(self) -> list[LedgerRound]:
        """Every recorded round, by match and round index."""
        with self._reading():
            cur = self._conn.execute(
                "SELECT match, round, seat0, seat1, result_json, finished_at FROM rounds "
                "ORDER BY match, round"
            ).fetchall()
        out = []
        for match, idx, seat0, seat1, result_json, finished in cur:
            try:
                if not all(isinstance(v, str) for v in (match, seat0, seat1, result_json)):
                    raise ValueError("a text column holds something else")
                if not isinstance(idx, int) or not 1 <= idx <= ROUNDS_PER_MATCH:
                    raise ValueError(f"a match has rounds 1 to {ROUNDS_PER_MATCH}, not this one")
                teams = match_teams(match, (seat0, seat1))
                result = RoundResult.from_json(parse_json(result_json), teams)
            except (ValueError, TypeError, RecordError) as exc:
                raise LedgerError(
                    f"{self.path}: round {excerpt(idx)} of {excerpt(match)} cannot be read "
                    f"back: {exc}; the ledger was not changed"
                ) from None
            out.append(LedgerRound(match, idx, result, str(finished or "")))
        return out

    def done(self) -> set[tuple[str, int]]:
        """The (match, round) keys already recorded: these are never played again."""
        return {r.key for r in self.rounds()}


def _shape_problem(conn: sqlite3.Connection) -> str:
    """Why an SQLite file is not a ledger this judge reads ('' when it is one)."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = {
            table: tuple(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))
            for table in (*_COLUMNS, *_OPTIONAL_COLUMNS)
        }
        meta = (
            dict(conn.execute("SELECT key, value FROM meta").fetchall()) if columns["meta"] else {}
        )
    except sqlite3.OperationalError as exc:
        if any(w in str(exc) for w in ("locked", "busy", "readonly")):
            raise  # said by the caller: not a damaged file
        return sqlitefiles.why(exc, "a ledger")
    except sqlite3.DatabaseError as exc:
        return sqlitefiles.why(exc, "a ledger")
    writer = _writer(meta)
    if version != SCHEMA_VERSION:
        return (
            f"a ledger of schema version {version}{writer}; this judge (version "
            f"{__version__}) reads schema version {SCHEMA_VERSION}"
        )
    for table, want in {**_COLUMNS, **_OPTIONAL_COLUMNS}.items():
        got = columns[table]
        if not got and table in _OPTIONAL_COLUMNS:
            continue
        if not got:
            return f"not a ledger: it has no '{table}' table"
        if got != want:
            return (
                f"its '{table}' table has the columns {', '.join(got)}, not those a ledger of "
                f"schema version {SCHEMA_VERSION} has ({', '.join(want)}){writer}"
            )
    return ""


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return row is not None


def _writer(meta: dict[object, object]) -> str:
    """`` (written by judge X)`` from a ledger's meta, as far as it tells."""
    versions: list[str] = []
    try:
        runs = parse_json(str(meta.get("runs") or "[]"))
        versions = [str(r.get("judge_version")) for r in runs if isinstance(r, dict)]
    except (ValueError, AttributeError, TypeError):
        pass
    versions = [v for v in versions if v and v != "None"]
    return f" (written by judge {excerpt(versions[-1])})" if versions else ""
