"""Reading saved rounds back: what a path may be, and a clear ReplayError for everything else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.records import ForeignEvent, event_from_json
from judge.views.replayfile import (
    SUPPORTED_SCHEMA,
    ReplayError,
    load,
    load_replay_file,
)

from ._replays import small_map, write_replay


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_match_folder_lists_rounds_in_order(match_dir: Path) -> None:
    m = load(match_dir)
    assert [r.index for r in m.rounds] == [1, 2]
    assert m.teams == ["alpha", "beta"]
    assert m.rounds[0].label == "maps/small.txt" and m.rounds[1].label == "maps/big15.txt"
    assert (m.rounds[0].rows, m.rounds[0].cols, m.rounds[0].turns) == (7, 7, 20)
    assert m.rounds[1].last_turn == 40 and m.rounds[1].first_turn == 1
    assert m.rounds[0].result is not None and m.rounds[0].result.gold == (23, 0)
    assert m.round(2) is m.rounds[1]
    with pytest.raises(ReplayError, match=r"has no round 3 \(rounds: 1, 2\)"):
        m.round(3)


@pytest.mark.parametrize("which", ["file", "round-folder", "result.json"])
def test_other_paths(match_dir: Path, which: str) -> None:
    path = {
        "file": match_dir / "round-2" / "replay.jsonl",
        "round-folder": match_dir / "round-2",
        "result.json": match_dir / "result.json",
    }[which]
    m = load(path)
    assert m.rounds[-1].last_turn == 40


def test_folder_without_result_json_finds_round_folders(match_dir: Path) -> None:
    (match_dir / "result.json").unlink()
    m = load(match_dir)
    assert [r.index for r in m.rounds] == [1, 2] and m.rounds[0].result is None


def test_unfinished_round_from_part_file(tmp_path: Path, eventful: list[dict[str, Any]]) -> None:
    """A crash leaves replay.jsonl.part, maybe with a half-written last line: still viewable."""
    part = tmp_path / "round-1" / "replay.jsonl.part"
    write_replay(part, eventful[:6])
    with open(part, "a") as f:
        f.write('{"turn": 6, "posit')
    m = load(tmp_path)
    r = m.rounds[0]
    assert r.partial and r.last_turn == 5
    assert any("did not finish" in n for n in r.notes)
    assert any("cut short" in n for n in r.notes)


def test_round_in_progress_beyond_result_json(
    match_dir: Path, eventful: list[dict[str, Any]]
) -> None:
    write_replay(match_dir / "round-3" / "replay.jsonl.part", eventful[:4])
    m = load(match_dir)
    assert [r.index for r in m.rounds] == [1, 2, 3]
    assert m.rounds[2].partial and m.rounds[2].last_turn == 3


def test_record_at(match_dir: Path) -> None:
    r = load(match_dir).round(1)
    assert r.record_at(3).turn == 3
    with pytest.raises(ReplayError, match=r"round 1 has no turn 21: its turns are 1\.\.20"):
        r.record_at(21)


def test_header_only_round_shows_the_bare_map(
    tmp_path: Path, eventful: list[dict[str, Any]]
) -> None:
    f = write_replay(tmp_path / "replay.jsonl", eventful[:1])
    r = load_replay_file(f)
    assert r.records == [] and r.frames()[0].turn == 0
    assert list(r.frames()[0].grid) == eventful[0]["map"]["grid"]


# ----------------------------------------------------------------- errors
def _broken(tmp_path: Path, eventful: list[dict[str, Any]], line: int, change: Any) -> Path:
    lines = [dict(x) for x in eventful]
    if callable(change):
        change(lines[line])
    else:
        lines[line] = change
    return write_replay(tmp_path / "replay.jsonl", lines)


@pytest.mark.parametrize(
    "line, change, message",
    [
        (0, {"type": "turn"}, r"line 1: the first line is not a replay header"),
        (0, lambda h: h.update(schema=SUPPORTED_SCHEMA + 1), r"written by a newer judge"),
        (0, lambda h: h.pop("schema"), r"no schema number"),
        (0, lambda h: h.update(teams=["only one"]), r"'teams' must be a list of 2 names"),
        (0, lambda h: h["map"].update(rows=8), r"'grid' must be a list of 8 rows"),
        (3, lambda r: r.update(gold=[1, "2"]), r"line 4: 'gold' must be a list of 2"),
        (3, lambda r: r.update(sunk=[0, 1]), r"line 4: 'sunk' must be a list of 2 true/false"),
        (
            3,
            lambda r: r.update(positions=[[9, 9], None]),
            r"line 4: positions\[0\] \[9, 9\] is outside",
        ),
        (3, lambda r: r.pop("grid"), r"line 4: the turn record has no 'grid'"),
        (3, lambda r: r["grid"].__setitem__(2, "0 0 X 0 0 0 0"), r"cell \(3,3\) is 'X'"),
        (3, lambda r: r["grid"].__setitem__(2, "0 0 0"), r"grid row 3 has 3 cells, expected 7"),
        (3, lambda r: r.update(turn=7), r"line 4: turn 7 where turn 3 was expected"),
        (3, lambda r: r.update(events=[{"seat": 0}]), r"'events' must be a list of objects"),
        (3, [1, 2, 3], r"line 4: a turn record must be a JSON object"),
    ],
)
def test_schema_errors_name_file_and_line(
    tmp_path: Path, eventful: list[dict[str, Any]], line: int, change: Any, message: str
) -> None:
    f = _broken(tmp_path, eventful, line, change)
    with pytest.raises(ReplayError, match=message) as info:
        load(f)
    assert str(f) in str(info.value)


def test_corrupt_json_line(tmp_path: Path, eventful: list[dict[str, Any]]) -> None:
    f = write_replay(tmp_path / "replay.jsonl", eventful)
    lines = _lines(f)
    lines[4] = lines[4][:30]
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=r"replay\.jsonl, line 5: not valid JSON"):
        load(f)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty file"),
        (b"\n\n", "empty file"),
        (b"\x00\x01\x02", "binary file"),
        (b"\xff\xfe\xfa garbage", "not a text file"),
        (b"hello\n", "line 1: not valid JSON"),
    ],
)
def test_not_a_replay(tmp_path: Path, content: bytes, message: str) -> None:
    f = tmp_path / "replay.jsonl"
    f.write_bytes(content)
    with pytest.raises(ReplayError, match=message):
        load(f)


def test_bad_paths(tmp_path: Path, match_dir: Path) -> None:
    with pytest.raises(ReplayError, match="no such file or folder"):
        load(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReplayError, match="not a match folder"):
        load(tmp_path / "empty")
    (match_dir / "result.json").write_text("{broken")
    with pytest.raises(ReplayError, match=r"result\.json: not valid JSON"):
        load(match_dir)
    (match_dir / "result.json").write_text('{"teams": []}')
    with pytest.raises(ReplayError, match="not a match result"):
        load(match_dir)


def test_result_json_naming_a_missing_replay(match_dir: Path) -> None:
    shutil.rmtree(match_dir / "round-2")
    with pytest.raises(ReplayError, match=r"round 2's replay .*round-2/replay\.jsonl is missing"):
        load(match_dir)


# ------------------------------------------------------------------ events
def test_events_read_back_as_the_rules_word_them(eventful: list[dict[str, Any]]) -> None:
    names = eventful[0]["teams"]
    seen = set()
    for rec in eventful[1:]:
        for e in rec["events"]:
            ev = event_from_json(e)
            assert not isinstance(ev, ForeignEvent)
            assert ev.as_dict() == e
            seen.add(e["kind"])
    assert {"placed", "collect", "shield", "sink", "treasure"} <= seen
    assert (
        event_from_json({"kind": "sink", "seat": 1, "pos": [4, 7], "cause": "reef"}).describe(names)
        == "beta sank on a reef at (4,7)"
    )


def test_unknown_event_kind_does_not_break_the_view() -> None:
    ev = event_from_json({"kind": "kraken", "seat": 0})
    assert isinstance(ev, ForeignEvent)
    assert ev.describe(["a", "b"]) == "kind=kraken seat=0"
    assert ev.as_dict() == {"kind": "kraken", "seat": 0}


# ---------------------------------------------- the referee's own output
def test_reads_what_the_referee_writes(tmp_path: Path) -> None:
    """The real play_round (with the in-process fake sandbox) writes what this reader accepts."""
    from judge import referee
    from tests.referee.fakes import FakeSandbox, scripted, spec

    assert referee.REPLAY_SCHEMA == SUPPORTED_SCHEMA
    cfg = referee.RoundConfig(game_map=small_map(), map_label="maps/small.txt", seed=5)
    sb = FakeSandbox(
        {"a": scripted(["4 1", "4 2", "3 2", "oops"]), "b": scripted(["7 3", "7 4", "6 4"])}
    )
    referee.play_round(cfg, [spec("a"), spec("b")], ["a", "b"], sb, tmp_path / "round-1")
    m = load(tmp_path / "round-1")
    r = m.rounds[0]
    assert r.names == ["a", "b"] and r.last_turn == 20
    assert [b.sunk for b in r.record_at(3).boats] == [False, True]
    line = json.loads(_lines(tmp_path / "round-1" / "replay.jsonl")[1])
    assert line["turn"] == 1
