"""The one reader of replay.jsonl: following a round while it is written says what the strict
read says, a little at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.records.replayread import ReplayError, ReplayFollower, read_header, read_replay
from tests.views._replays import eventful_round


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def _line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def test_following_reads_each_turn_once_and_ends_with_the_rename(tmp_path: Path) -> None:
    lines = eventful_round()
    part = tmp_path / "replay.jsonl.part"
    follower = ReplayFollower(tmp_path)
    assert not follower.poll().changed  # nothing written yet
    _append(part, _line(lines[0]))
    got = follower.poll()
    assert got.header is not None and got.records == [] and not got.finished
    text = _line(lines[1])
    _append(part, text[:20])  # a turn half written: it waits
    assert not follower.poll().changed
    _append(part, text[20:] + _line(lines[2]))
    assert [r.turn for r in follower.poll().records] == [1, 2]
    for obj in lines[3:]:
        _append(part, _line(obj))
    part.rename(tmp_path / "replay.jsonl")
    last = follower.poll()
    assert last.finished and [r.turn for r in last.records] == list(range(3, len(lines)))
    assert not follower.poll().changed  # over: nothing more
    whole = read_replay(tmp_path / "replay.jsonl")
    assert len(whole.records) == len(lines) - 1


def test_a_round_written_again_is_read_from_its_start(tmp_path: Path) -> None:
    lines = eventful_round()
    part = tmp_path / "replay.jsonl.part"
    follower = ReplayFollower(tmp_path)
    _append(part, "".join(_line(x) for x in lines[:4]))
    assert len(follower.poll().records) == 3
    part.unlink()
    _append(part, "".join(_line(x) for x in lines[:2]))  # a new file: the round played again
    again = follower.poll()
    assert again.reset and again.header is not None and [r.turn for r in again.records] == [1]


@pytest.mark.parametrize("bad", ["{not json", '{"turn": 9}'])
def test_a_damaged_line_stops_following_with_the_strict_reads_message(
    tmp_path: Path, bad: str
) -> None:
    lines = eventful_round()
    path = tmp_path / "replay.jsonl"
    path.write_text(_line(lines[0]) + _line(lines[1]) + bad + "\n" + _line(lines[2]))
    with pytest.raises(ReplayError) as strict:
        read_replay(path)
    got = ReplayFollower(tmp_path).poll()
    assert got.problem == str(strict.value) and "line 3" in got.problem
    assert [r.turn for r in got.records] == [1] and not got.finished  # the turns before it stand


def test_the_header_alone_is_read_with_the_strict_reads_checks(tmp_path: Path) -> None:
    """What plays in a round whose turns are damaged or still being written; a file that
    holds no header is refused as the strict read refuses it."""
    lines = eventful_round()
    part = tmp_path / "replay.jsonl.part"
    part.write_text("\n" + _line(lines[0]) + '{"turn": 9}\n{cut sho', encoding="utf-8")
    assert read_header(part).teams == read_replay(_whole(tmp_path, lines)).header.teams
    for text in ("", '{"schema": 1}\n'):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ReplayError) as strict:
            read_replay(bad)
        with pytest.raises(ReplayError) as alone:
            read_header(bad)
        assert str(alone.value) == str(strict.value)


def _whole(folder: Path, lines: list[Any]) -> Path:
    path = folder / "whole" / "replay.jsonl"
    path.parent.mkdir()
    path.write_text("".join(_line(x) for x in lines), encoding="utf-8")
    return path
