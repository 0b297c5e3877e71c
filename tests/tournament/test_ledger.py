"""The ledger: one transaction per round, a schema with a version, round trips on ':memory:'."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from judge.tournament.ledger import SCHEMA_VERSION, Ledger, LedgerError, LedgerRound
from tests.records_support import a_result

ROOT = Path(__file__).resolve().parents[2]


def a_round(match: str = "A-vs-B", idx: int = 1, winner: int | None = 1) -> LedgerRound:
    seats = ("B", "A") if match == "A-vs-B" else ("C", "A")
    gold = (12, 30) if winner == 1 else (20, 20)
    return LedgerRound(
        match=match,
        round=idx,
        result=a_result(seats, gold, shield=(True, False)),
        finished_at="2026-01-01T00:00:00+00:00",
    )


def test_round_trip_in_memory() -> None:
    with Ledger.create(":memory:", "hash1", {"seed": 1, "teams": []}) as ledger:
        assert ledger.rounds() == [] and ledger.done() == set()
        rounds = [a_round(idx=2), a_round(idx=1, winner=None), a_round("A-vs-C", 1)]
        for r in rounds:
            ledger.record(r)
        assert ledger.rounds() == sorted(rounds, key=lambda r: r.key)
        assert ledger.done() == {("A-vs-B", 1), ("A-vs-B", 2), ("A-vs-C", 1)}
        assert ledger.config_hash == "hash1" and ledger.config == {"seed": 1, "teams": []}
        assert ledger.meta("schema_version") == str(SCHEMA_VERSION)
        got = ledger.rounds()[1]
        assert got.result.winner == 1 and got.seats == ("B", "A")
        assert got.result.shield == (True, False)  # seat order, though stored in team order
        row = ledger._conn.execute(
            "SELECT seat0, gold0, gold1, winner, result_json FROM rounds "
            "WHERE match = 'A-vs-B' AND round = 2"
        ).fetchone()
        assert row[:4] == ("B", 12, 30, "A")
        listed = json.loads(row[4])  # the round as A-vs-B's result.json lists it: A first
        assert listed["gold"] == [30, 12] and listed["winner"] == 0
        assert listed["seats"] == ["B", "A"] and listed["shield"] == [False, True]


def test_a_round_is_recorded_once() -> None:
    with Ledger.create(":memory:", "h", {}) as ledger:
        ledger.record(a_round())
        with pytest.raises(LedgerError, match="round 1 of A-vs-B"):
            ledger.record(a_round())
        assert len(ledger.rounds()) == 1
        ledger.record(a_round(idx=2))  # the ledger is still usable
        assert len(ledger.rounds()) == 2


def test_a_failed_insert_leaves_nothing() -> None:
    with Ledger.create(":memory:", "h", {}) as ledger:
        bad = a_round()
        object.__setattr__(bad, "round", 0)  # breaks CHECK (round >= 1)
        with pytest.raises(LedgerError):
            ledger.record(bad)
        bad = a_round(match="X-vs-Y")  # its seats are not the match's teams
        with pytest.raises(LedgerError):
            ledger.record(bad)
        assert ledger.rounds() == []


def test_the_winner_must_be_one_of_the_seats() -> None:
    with Ledger.create(":memory:", "h", {}) as ledger:
        conn = ledger._conn
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO rounds VALUES ('X-vs-Y', 1, 'm', 1, 'X', 'Y', 0, 0, 0, 0, "
                "'Z', 'turns', 2, '{}', 'now')"
            )


def test_on_disk_it_survives_reopening_and_knows_its_version(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Ledger.create(path, "h", {"seed": 5}) as ledger:
        ledger.record(a_round())
    with Ledger.open(path) as again:
        assert again.rounds() == [a_round()]
        assert again.config == {"seed": 5}
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with pytest.raises(LedgerError, match="already exists"):
        Ledger.create(path, "h", {})


def test_open_refuses_other_schemas_and_non_ledgers(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no ledger"):
        Ledger.open(tmp_path / "missing.sqlite")
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(LedgerError, match="version 99"):
        Ledger.open(other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(LedgerError, match="not a ledger"):
        Ledger.open(junk)


def test_which_run_played_a_round_is_kept_and_a_ledger_without_it_still_reads(
    tmp_path: Path,
) -> None:
    """round_runs came later: a ledger of 0.1.0 (or any judge before it) has no such table;
    it is read as it is and gets the table when it is next resumed."""
    from judge.records import LedgerRun

    run = LedgerRun("", "v", False, False, (), {"A": "h"}, 1)
    path = tmp_path / "ledger.sqlite"
    shutil.copy(ROOT / "tests/fixtures/v0.1.0/tournament/ledger.sqlite", path)
    with Ledger.open(path) as old:
        done = old.done()
        assert old.round_runs() == {} and done
    with Ledger.open(path, read_only=True) as reader:
        assert reader.round_runs() == {}
    with Ledger.open(path) as ledger:
        assert ledger.record_run(run) == 1
        gone = sorted(done)[0]
        assert ledger.record_run(run, discard=[gone]) == 2  # taken out in the same transaction
        assert ledger.done() == done - {gone}
        ledger.record(dataclasses.replace(ledger.rounds()[0], match=gone[0], round=gone[1]))
        assert ledger.round_runs() == {gone: 2}
    with Ledger.open(path) as again:
        assert [r.programs for r in again.runs()] == [{"A": "h"}, {"A": "h"}]
        assert again.round_runs() == {gone: 2} and again.done() == done
