"""Damaged files and odd inputs of the judge's own: a clear message, nothing lost.

Every file the judge reads is an input.  The cases are generated, not listed by
hand: every reader is given every odd kind of file (a FIFO, a folder, a device,
a link to each, a missing file), every text format a good file cut at several
points and a file far over its cap, and each SQLite store (the tournament's
ledger, the league's database) every table missing, every column of every
table holding a value of the wrong type, another schema, another version, a
truncated copy and a file that is not SQLite at all.  Each must give a
JudgeError (a message naming the file, exit status 2 or 3), never another
exception or a hang, and must leave the file as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import judge.tournament.ledger as ledger_module
from judge.bots import BotSpec, resolve_bot
from judge.errors import JudgeError
from judge.evalbook import load_book
from judge.inputfiles import excerpt
from judge.league.config import LeagueBot, LeagueConfig, load_league
from judge.league.run import League
from judge.league.store import DB_FILE, RoundRow, Store
from judge.maps import load_map
from judge.tournament.config import load_config
from judge.tournament.ledger import LEDGER_FILE
from judge.tournament.play import open_for_resume
from judge.views.replayfile import load_replay_file, load_result
from tests.tournament._helpers import make_config, run_fake, write_config

ROOT = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str:
    """What the file is now: its content's hash (its size, time and inode when large)."""
    if not path.is_file():
        return ""
    st = path.stat()
    if st.st_size > 8 * 2**20:
        return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refuses(call: Callable[[], Any], path: Path, seconds: float = 10.0) -> JudgeError:
    """``call`` must raise a JudgeError naming ``path`` within ``seconds``, leaving the file
    as it was (a hang or any other exception fails)."""
    before = _digest(path)
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - judged below
            outcome.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert outcome, f"reading {path} hung for {seconds} s"
    exc = outcome[0]
    assert isinstance(exc, JudgeError), f"{path}: {type(exc).__name__}: {exc}"
    assert str(path) in str(exc) or path.name in str(exc), str(exc)
    assert len(str(exc)) < 2000, f"a message of {len(str(exc))} characters"
    assert _digest(path) == before, f"{path} was changed"
    return exc


# ------------------------------------------------------------------ text files
def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _folder(p: Path) -> None:
    p.mkdir()


def _link_to_fifo(p: Path) -> None:
    os.mkfifo(p.with_name(p.name + ".fifo"))
    p.symlink_to(p.with_name(p.name + ".fifo"))


def _link_to_folder(p: Path) -> None:
    p.with_name(p.name + ".d").mkdir()
    p.symlink_to(p.with_name(p.name + ".d"))


def _device(p: Path) -> None:
    p.symlink_to("/dev/zero")  # a device that never ends


ODD_KINDS: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "folder": _folder,
    "link to a fifo": _link_to_fifo,
    "link to a folder": _link_to_folder,
    "device": _device,
    "missing": lambda p: None,
}


#: name -> (reader of a path, a good file's text)
def _readers(tmp: Path) -> dict[str, tuple[Callable[[Path], object], str]]:
    good_map = (ROOT / "maps" / "m1.txt").read_text()
    config = write_config(tmp / "good-config", {"seed": 1}).read_text()
    replay_src = next(iter((ROOT / "tests" / "fixtures" / "v0.1.0").rglob("replay.jsonl")))
    result_src = next(iter((ROOT / "tests" / "fixtures" / "v0.1.0").rglob("result.json")))
    return {
        "map": (load_map, good_map),
        "configuration": (lambda p: load_config(p, build=False), config),
        "league file": (lambda p: load_league(p, build=False), "seed: 1\nbots: []\n"),
        "book": (load_book, "gen 5x5 10 1\n"),
        "replay": (load_replay_file, replay_src.read_text()),
        "result.json": (load_result, result_src.read_text()),
        "bot.yaml": (lambda p: resolve_bot(str(p.parent)), "command: [./bot]\n"),
    }


READERS = ["map", "configuration", "league file", "book", "replay", "result.json", "bot.yaml"]


@pytest.mark.parametrize("kind", sorted(ODD_KINDS))
@pytest.mark.parametrize("reader", READERS)
def test_an_odd_file_is_refused_in_words_at_once(reader: str, kind: str, tmp_path: Path) -> None:
    read, _ = _readers(tmp_path)[reader]
    folder = tmp_path / "bot"
    folder.mkdir()
    path = folder / ("bot.yaml" if reader == "bot.yaml" else "input.txt")
    ODD_KINDS[kind](path)
    refuses(lambda: read(path), path)


@pytest.mark.parametrize("reader", READERS)
def test_a_file_cut_short_anywhere_is_a_message(reader: str, tmp_path: Path) -> None:
    read, text = _readers(tmp_path)[reader]
    data = text.encode("utf-8")
    for i, cut in enumerate(sorted({1, 2, len(data) // 3, len(data) // 2, len(data) - 2})):
        folder = tmp_path / f"cut-{i}"
        folder.mkdir()
        path = folder / ("bot.yaml" if reader == "bot.yaml" else "input.txt")
        path.write_bytes(data[:cut] + b"\xff\x00" * (i % 2))  # some also end in binary junk
        try:
            read(path)
        except JudgeError as exc:
            assert len(str(exc)) < 2000
        # (a prefix may still be valid: then it is simply read)


@pytest.mark.parametrize("reader", READERS)
def test_a_file_far_over_its_cap_is_refused_at_once(reader: str, tmp_path: Path) -> None:
    read, _ = _readers(tmp_path)[reader]
    folder = tmp_path / "big"
    folder.mkdir()
    path = folder / ("bot.yaml" if reader == "bot.yaml" else "input.txt")
    with open(path, "wb") as f:
        f.truncate(80 * 2**20)  # 80 MB of nothing, without writing it
    took: list[float] = []

    def timed() -> object:
        t0 = time.monotonic()
        try:
            return read(path)
        finally:
            took.append(time.monotonic() - t0)

    exc = refuses(timed, path)
    assert took[0] < 2.0, took  # refused by its size, without reading it
    assert "at most" in str(exc)


def test_a_huge_cell_and_a_huge_name_are_quoted_short(tmp_path: Path) -> None:
    cell = "7" * 400_000
    rows = ["0 0 0 0 0"] * 5
    rows[2] = f"0 0 x{cell} 0 0"
    bad = tmp_path / "cell.txt"
    bad.write_text("5 5 10\n" + "\n".join(rows) + "\n")
    exc = refuses(lambda: load_map(bad), bad)
    assert "400,001 characters" in str(exc)
    name = "Đ" * 100_000
    teams = [
        {"name": name, "bot": "greedy", "map": "m1"},
        {"name": "B", "bot": "greedy", "map": "m2"},
    ]
    data = {"seed": 1, "maps_dir": str(ROOT / "maps"), "teams": teams}
    data["organiser_map"] = str(ROOT / "maps" / "organiser" / "final.txt")
    cfg = write_config(tmp_path / "c", data)
    exc = refuses(lambda: load_config(cfg, build=False), cfg)
    assert "100,000 characters" in str(exc) and len(str(exc)) < 2000


def test_excerpt_reads_as_repr_when_short_and_says_the_length_when_long() -> None:
    assert excerpt("Rồng [b]") == repr("Rồng [b]")
    long = excerpt("x\x1b[31m" + "y" * 1000)
    assert long.startswith("'x\\x1b[31m") and "1,0" in long and len(long) < 80


# ------------------------------------------------------------------ the ledger
@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished tournament (on in-process bots): its configuration and its folder."""
    tmp = tmp_path_factory.mktemp("tournament")
    cfg = make_config(tmp / "cfg")
    out = tmp / "out"
    report = run_fake(cfg, out)
    assert report.complete
    return tmp / "cfg" / "judge.yaml", out


def _copy(tournament: tuple[Path, Path], tmp: Path) -> tuple[Path, Path]:
    cfg_path, out = tournament
    dst = tmp / "out"
    shutil.copytree(out, dst)
    return cfg_path, dst


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for s in statements:
            conn.execute(s)
    finally:
        conn.close()


LEDGER_COLUMNS = ledger_module._COLUMNS  # every table and column the judge writes
WRONG_VALUES = ["x'00ff'", "3.5", "'text'", "NULL", "-1", "99", "1e308", "'{\"a\": [1'"]


def _ledger_damages() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {f"no {t} table": [f"DROP TABLE {t}"] for t in LEDGER_COLUMNS}
    out["another schema version"] = ["PRAGMA user_version = 7"]
    out["rounds of another shape"] = [
        "ALTER TABLE rounds RENAME TO old_rounds",
        "CREATE TABLE rounds (match TEXT, round INTEGER, score TEXT)",
    ]
    out["a column added by hand"] = ["ALTER TABLE rounds ADD COLUMN note TEXT"]
    for col in LEDGER_COLUMNS["rounds"]:
        for value in WRONG_VALUES:
            out[f"rounds.{col} = {value}"] = [
                "PRAGMA ignore_check_constraints = ON",
                f"UPDATE OR IGNORE rounds SET {col} = {value}",
            ]
    return out


LEDGER_DAMAGES = _ledger_damages()


def _resume(cfg_path: Path, out: Path) -> None:
    """What `judge tournament --resume` reads of a ledger."""
    ledger = open_for_resume(load_config(cfg_path, build=False), out)
    try:
        ledger.done()
        ledger.rounds()
        ledger.runs()
    finally:
        ledger.close()


@pytest.mark.parametrize("damage", sorted(LEDGER_DAMAGES))
def test_a_damaged_ledger_is_a_message(
    damage: str, tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    _sql(path, *LEDGER_DAMAGES[damage])
    try:
        _resume(cfg_path, out)
    except JudgeError as exc:
        assert "Traceback" not in str(exc) and len(str(exc)) < 2000
        return
    # Some damage leaves a ledger the judge reads: then it is read right (a value SQLite
    # turns back into the same one, say); never a traceback.


@pytest.mark.parametrize("cut", [0, 100, 1000, 4096, 10000])
def test_a_ledger_cut_short_or_not_sqlite_at_all(
    cut: int, tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut else b"this is not a database\n" * 40)
    refuses(lambda: _resume(cfg_path, out), path)


@pytest.mark.parametrize("kind", ["fifo", "folder", "link to a fifo", "device"])
def test_a_ledger_that_is_not_a_file(
    kind: str, tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    path.unlink()
    ODD_KINDS[kind](path)
    refuses(lambda: _resume(cfg_path, out), path)


def test_an_unreadable_record_of_the_configuration_after_a_change(
    tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    _sql(path, "UPDATE meta SET value = '{not json' WHERE key = 'config'")
    changed = cfg_path.read_text().replace("seed: 2026", "seed: 2027")
    new_cfg = write_config(tmp_path / "changed", changed)
    exc = refuses(lambda: _resume(new_cfg, out), path)
    assert "another configuration" in str(exc) and "not JSON" in str(exc)


def test_a_ledger_of_another_version_says_which_judge_wrote_it(
    tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    _sql(path, "PRAGMA user_version = 2")
    exc = refuses(lambda: _resume(cfg_path, out), path)
    assert "schema version 2" in str(exc) and "written by judge" in str(exc)
    assert "reads schema version 1" in str(exc)


# ------------------------------------------------------------------ the league
@pytest.fixture(scope="module")
def league_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league database with a few rated pairs (in-process results)."""
    tmp = tmp_path_factory.mktemp("league")

    def play(tasks: Any, on_round: Any, stop: Any) -> None:
        for task in tasks:
            for seat in task.a_seats:
                on_round(task, RoundRow(task.pair, seat, "win", 5, 3, "turns", None))

    bots = tuple(
        LeagueBot(n, BotSpec(n, n, None, ("true",)), "1", "fresh") for n in ("a", "b", "c")
    )
    cfg = LeagueConfig(Path("l.yaml"), 1, Path("out"), ((5, 5),), (6,), 3, 3, 2.0, 512, 1, bots)
    league = League(cfg, tmp / "league", play)
    league.run(resume=False)
    league.close()
    return tmp / "league" / DB_FILE


STORE_COLUMNS = {
    "bots": ("name", "version", "source", "mu", "sigma", "rounds", "wins", "active", "parent"),
    "pairs": ("batch", "a", "b", "map_json", "applied"),
    "rounds": ("outcome", "gold_a", "gold_b", "end_reason", "replay", "error"),
}


def _store_damages() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {
        f"no {t} table": [f"DROP TABLE {t}"] for t in (*STORE_COLUMNS, "runs")
    }
    out["another schema version"] = ["PRAGMA user_version = 9"]
    out["a column added by hand"] = ["ALTER TABLE bots ADD COLUMN note TEXT"]
    for table, cols in STORE_COLUMNS.items():
        for col in cols:
            for value in WRONG_VALUES:
                out[f"{table}.{col} = {value}"] = [
                    "PRAGMA ignore_check_constraints = ON",
                    "PRAGMA foreign_keys = OFF",
                    f"UPDATE OR IGNORE {table} SET {col} = {value}",
                ]
    for plan in (
        "[1, 2]",
        '{"index": 1}',
        '{"index": "1", "rows": 5, "cols": 5, "turns": 6, '
        '"map_seed": 1, "round_seed": 2, "colour": "red"}',
    ):
        out[f"pairs.map_json = {plan}"] = [f"UPDATE pairs SET map_json = '{plan}'"]
    return out


STORE_DAMAGES = _store_damages()


def _read_league(path: Path) -> None:
    """What `judge league` reads of its database before it plays."""
    store = Store(path)
    try:
        store.bots()
        for p in store.pairs():
            store.rounds(p.id)
        store.last_run()
    finally:
        store.close()


@pytest.mark.parametrize("damage", sorted(STORE_DAMAGES))
def test_a_damaged_league_database_is_a_message(
    damage: str, league_db: Path, tmp_path: Path
) -> None:
    path = tmp_path / DB_FILE
    shutil.copy(league_db, path)
    _sql(path, *STORE_DAMAGES[damage])
    try:
        _read_league(path)
    except JudgeError as exc:
        assert len(str(exc)) < 2000
        return


@pytest.mark.parametrize("cut", [0, 100, 1000, 4096])
def test_a_league_database_cut_short_or_not_sqlite(
    cut: int, league_db: Path, tmp_path: Path
) -> None:
    path = tmp_path / DB_FILE
    data = league_db.read_bytes()
    path.write_bytes(data[:cut] if cut else b"not a database at all\n" * 50)
    refuses(lambda: _read_league(path), path)


@pytest.mark.parametrize("kind", ["fifo", "folder", "link to a fifo", "device"])
def test_a_league_database_that_is_not_a_file(kind: str, tmp_path: Path) -> None:
    path = tmp_path / DB_FILE
    ODD_KINDS[kind](path)
    refuses(lambda: _read_league(path), path)


def test_league_values_of_the_wrong_type_are_named(league_db: Path, tmp_path: Path) -> None:
    path = tmp_path / DB_FILE
    shutil.copy(league_db, path)
    _sql(path, "UPDATE bots SET mu = 'high' WHERE id = 1")
    exc = refuses(lambda: _read_league(path), path)
    assert "bots row id 1: mu is 'high', not a number" in str(exc)
    shutil.copy(league_db, path)
    _sql(path, "UPDATE pairs SET map_json = '{broken' WHERE id = 1")
    exc = refuses(lambda: _read_league(path), path)
    assert "pairs row id 1: map_json is not JSON" in str(exc)


def test_json_records_of_wrong_types_are_messages(tmp_path: Path) -> None:
    """result.json with each field of another type: a message, never a traceback."""
    src = next(iter((ROOT / "tests" / "fixtures" / "v0.1.0").rglob("result.json")))
    data = json.loads(src.read_text())
    for key in list(data):
        for wrong in (None, 7, "x", [], {}, 2.5, True):
            bad = dict(data, **{key: wrong})
            path = tmp_path / f"{key}-{type(wrong).__name__}.json"
            path.write_text(json.dumps(bad))
            try:
                load_result(path)
            except JudgeError as exc:
                assert len(str(exc)) < 2000


def test_judge_validate_given_a_fifo_answers_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from judge.cli import main

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    codes: list[int] = []
    t = threading.Thread(target=lambda: codes.append(main(["validate", str(fifo)])), daemon=True)
    t.start()
    t.join(10)
    assert codes, "judge validate hung on a FIFO"
    out = capsys.readouterr()
    assert codes[0] != 0 and "FIFO" in out.out + out.err


# ------------------------------------------------------------------ review findings
@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text", ["[" * 100_000, "{'a': " * 5_000, "9" * 6_000])
def test_text_nested_too_deep_or_a_number_too_long_is_a_message(
    reader: str, text: str, tmp_path: Path
) -> None:
    read, _ = _readers(tmp_path)[reader]
    folder = tmp_path / "deep"
    folder.mkdir()
    path = folder / ("bot.yaml" if reader == "bot.yaml" else "input.txt")
    path.write_text(text)
    try:
        read(path)
    except JudgeError as exc:
        assert len(str(exc)) < 2000


def _killed_mid_write(path: Path) -> None:
    """A judge killed inside a transaction: it leaves a hot journal beside the database."""
    code = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "c.execute(\"INSERT INTO meta(key, value) VALUES ('half', 'written')\")\n"
        "c.execute(\"UPDATE meta SET value = 'changed' WHERE key = 'created_at'\")\n"
        "os._exit(9)\n"
    )
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", code, str(path)], check=False)


def test_a_ledger_a_killed_judge_left_mid_write_resumes(
    tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    _killed_mid_write(path)
    assert (out / (LEDGER_FILE + "-journal")).is_file()  # the write to finish (roll back)
    _resume(cfg_path, out)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'half'").fetchone() == (0,)
    finally:
        conn.close()


@pytest.mark.parametrize("side", ["-journal", "-wal", "-shm"])
def test_a_fifo_beside_a_store_is_a_message_not_a_hang(
    side: str, tournament: tuple[Path, Path], league_db: Path, tmp_path: Path
) -> None:
    cfg_path, out = _copy(tournament, tmp_path)
    os.mkfifo(str(out / LEDGER_FILE) + side)
    exc = refuses(lambda: _resume(cfg_path, out), out / LEDGER_FILE)
    assert "FIFO" in str(exc) and side in str(exc)
    db = tmp_path / "league" / DB_FILE
    db.parent.mkdir()
    shutil.copy(league_db, db)
    os.mkfifo(str(db) + side)
    exc = refuses(lambda: _read_league(db), db)
    assert "FIFO" in str(exc) and side in str(exc)


class _Impatient:
    """sqlite3 as judge.sqlitefiles sees it, waiting 0.2 s for a busy file instead of 5 s
    (what is tested is the message once the wait is over, not the wait)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sqlite3, name)

    @staticmethod
    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return sqlite3.connect(*args, **{**kwargs, "timeout": 0.2})


def test_a_ledger_another_judge_is_writing_is_said_so(
    tournament: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge import sqlitefiles

    monkeypatch.setattr(sqlitefiles, "sqlite3", _Impatient())
    cfg_path, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = refuses(lambda: _resume(cfg_path, out), path, seconds=30)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "another judge is writing it" in str(exc) and "not a ledger" not in str(exc)


def test_a_damaged_record_of_runs_is_refused_not_replaced(
    tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    from judge.records.standings import LedgerRun
    from judge.tournament.ledger import Ledger

    _, out = _copy(tournament, tmp_path)
    path = out / LEDGER_FILE
    _sql(path, "UPDATE meta SET value = '{\"not\": \"a list\"}' WHERE key = 'runs'")
    with Ledger.open(path) as ledger:
        with pytest.raises(JudgeError, match="meta 'runs'"):
            ledger.record_run(LedgerRun("", "x", False, False, (), {}, 1))
    conn = sqlite3.connect(path)
    try:
        kept = conn.execute("SELECT value FROM meta WHERE key = 'runs'").fetchone()[0]
    finally:
        conn.close()
    assert kept == '{"not": "a list"}'


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE runs SET target = 'many'",
        "UPDATE runs SET target = 9223372036854775807",
        "UPDATE runs SET finished_at = NULL, target = 'x'",
        "UPDATE pairs SET a = 77 WHERE id = 1",
        "UPDATE bots SET mu = 1e308",
        "UPDATE bots SET sigma = 0",
        "UPDATE rounds SET a_seat = 5 WHERE a_seat = 1",
    ],
)
def test_league_values_that_pass_a_type_check_but_cannot_be_are_messages(
    damage: str, league_db: Path, tmp_path: Path
) -> None:
    path = tmp_path / DB_FILE
    shutil.copy(league_db, path)
    _sql(path, "PRAGMA ignore_check_constraints = ON", "PRAGMA foreign_keys = OFF", damage)
    refuses(lambda: _read_league(path), path)
