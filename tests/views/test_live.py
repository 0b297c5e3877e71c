"""``judge match --watch/--step``: the observer the referee calls every turn."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from judge.records import ReplayHeader
from judge.views.live import PROMPT, WatchSession

from ._replays import small_map, typed


def console(terminal: bool = False) -> Console:
    return Console(
        file=io.StringIO(),
        width=80,
        force_terminal=terminal,
        color_system="standard" if terminal else None,
    )


def out_of(c: Console) -> str:
    return c.file.getvalue()  # type: ignore[attr-defined]


def feed(session: WatchSession, lines: list[dict[str, Any]], idx: int = 1) -> None:
    w = session.round(idx, lines[0]["map"]["path"])
    w.start(ReplayHeader.from_json(lines[0]))
    for rec in lines[1:]:
        w.turn(typed(rec))


def answers(*lines: str | None) -> Any:
    it: Iterator[str | None] = iter(lines)
    calls: list[int] = []

    def read() -> str | None:
        calls.append(1)
        return next(it, None)

    read.calls = calls  # type: ignore[attr-defined]
    return read


def test_plain_output_prints_every_turn_without_ansi(eventful: list[dict[str, Any]]) -> None:
    c = console()
    feed(WatchSession(c, ["alpha", "beta"]), eventful)
    out = out_of(c)
    assert "\x1b" not in out
    for t in range(1, 21):
        assert f"turn {t}/20" in out
    assert "beta sank on a reef at (6,4)" in out
    assert "round 1: maps/small.txt" in out
    assert max(len(x) for x in out.splitlines()) <= 80


def test_terminal_redraws_in_place(eventful: list[dict[str, Any]]) -> None:
    c = console(terminal=True)
    feed(WatchSession(c, ["alpha", "beta"], frame_s=0), eventful)
    out = out_of(c)
    assert out.count("\x1b[2J") == 21  # cleared at the start and before each of the 20 turns
    assert "\x1b[" in out and "turn 20/20" in out


def test_step_waits_for_enter_and_q_stops_watching(eventful: list[dict[str, Any]]) -> None:
    c = console()
    read = answers("\n", "\n", "q\n")
    ses = WatchSession(c, ["alpha", "beta"], step=True, read_line=read)
    feed(ses, eventful)
    out = out_of(c)
    assert len(read.calls) == 3
    assert out.count(PROMPT.strip()) == 3
    assert "turn 3/20" in out and "turn 4/20" not in out
    assert "stopped watching" in out
    feed(ses, eventful, idx=2)  # the next round of the match is not drawn either
    assert "round 2" not in out_of(c)


def test_end_of_input_keeps_drawing_without_waiting(eventful: list[dict[str, Any]]) -> None:
    c = console()
    read = answers("\n")
    feed(WatchSession(c, ["alpha", "beta"], step=True, read_line=read), eventful)
    assert len(read.calls) == 2
    assert "turn 20/20" in out_of(c)


def _match_args(**kw: Any) -> argparse.Namespace:
    base = dict(quiet=False, watch=False, step=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _play(observer: Any, tmp_path: Path) -> Any:
    """A real round through the referee (fake in-process sandbox), watched by ``observer``."""
    from judge.referee import RoundConfig, play_round
    from tests.referee.fakes import FakeSandbox, scripted, spec

    cfg = RoundConfig(game_map=small_map(), map_label="maps/small.txt", seed=5)
    sb = FakeSandbox(
        {"alpha": scripted(["4 1", "4 2", "3 2", "3 3"]), "beta": scripted(["7 3", "7 4", "6 4"])}
    )
    return play_round(
        cfg,
        [spec("alpha"), spec("beta")],
        ["alpha", "beta"],
        sb,
        tmp_path / "round-1",
        observer=observer,
    )


def test_match_watch_plugs_the_board_into_the_round(tmp_path: Path) -> None:
    from judge.match import RoundPlan
    from judge.views import matchview

    c = console()
    make = matchview.observers(_match_args(watch=True), c, ["alpha", "beta"])
    _play(make(1, RoundPlan(small_map(), "maps/small.txt")), tmp_path)
    out = out_of(c)
    assert "turn 1/20" in out and "turn 20/20" in out
    assert "beta sank on a reef at (6,4)" in out
    assert "round 1 on maps/small.txt: alpha wins" in out  # the progress line is kept


def test_match_without_watch_prints_only_the_progress_line(tmp_path: Path) -> None:
    from judge.match import RoundPlan
    from judge.views import matchview

    c = console()
    make = matchview.observers(_match_args(), c, ["alpha", "beta"])
    _play(make(1, RoundPlan(small_map(), "maps/small.txt")), tmp_path)
    out = out_of(c).strip()
    assert out.startswith("round 1 on maps/small.txt: alpha wins") and "turn 1/20" not in out
    assert "events:" not in out
    assert matchview.observers(_match_args(quiet=True), c, ["a", "b"]) is None


def test_match_step_option_reads_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.cli import build_parser
    from judge.match import RoundPlan
    from judge.views import matchview

    args = build_parser().parse_args(["match", "a", "b", "--map", "m1", "--step"])
    assert args.step and not args.watch
    monkeypatch.setattr("sys.stdin", io.StringIO("\nq\n"))
    c = console()
    make = matchview.observers(args, c, ["alpha", "beta"])
    _play(make(1, RoundPlan(small_map(), "maps/small.txt")), tmp_path)
    out = out_of(c)
    assert "turn 2/20" in out and "turn 3/20" not in out
    assert "round 1 on maps/small.txt: alpha wins" in out
