"""``judge match`` says why a bot is losing, through the real sandbox."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main

from .test_match_e2e import SEA, make_bot

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


def summary_of(tmp_path: Path, a: list[str], capsys: Any, k: int = 6, name: str = "a") -> str:
    bots = tmp_path / "bots"
    make_bot(bots, name, a)
    make_bot(bots, "b", ["7 7"])  # places at (7, 7), then names its own cell: stays
    sea = tmp_path / "sea.txt"
    sea.write_text(SEA.format(k=k))
    code = main(
        [
            "match",
            str(bots / name),
            str(bots / "b"),
            "--map",
            str(sea),
            "--allow-invalid-map",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 0
    return " ".join(capsys.readouterr().out.split())


def test_a_bot_printing_its_move_is_told_so(tmp_path: Path, capsys: Any) -> None:
    out = summary_of(tmp_path, ["1 1", "!stdout 1 2"], capsys)
    assert "a: 5 of 6 moves void: no MOVE.OUT — the move was printed on standard output" in out
    assert f"judge check-bot {tmp_path / 'bots' / 'a'}" in out
    assert "stderr.log" not in out  # nothing crashed: no log to read
    assert "warning: b:" not in out  # staying put is a legal move


def test_the_check_bot_hint_is_a_command_that_works_as_printed(tmp_path: Path, capsys: Any) -> None:
    """A team folder named with spaces and diacritics is quoted for the shell; the command
    runs the bot again on the match's failed turns (--from the match's folder)."""
    out = summary_of(tmp_path, ["1 1", "!stdout 1 2"], capsys, name="Rồng Biển")
    found = re.search(r"turn by turn: (judge check-bot '[^']*' --from \S+)", out)
    assert found is not None, out
    assert shlex.split(found[1]) == [
        "judge",
        "check-bot",
        str(tmp_path / "bots" / "Rồng Biển"),
        "--from",
        str(tmp_path / "out"),
    ]


def test_zero_based_coordinates_are_named(tmp_path: Path, capsys: Any) -> None:
    # Placement (0, 0) and then moves written 0-based: one more in both is legal each time.
    out = summary_of(tmp_path, ["0 0", "0 1", "0 0"], capsys)
    assert "a: 6 of 6 moves void:" in out
    assert "0-based coordinates?" in out


def test_a_crash_points_to_stderr_log(tmp_path: Path, capsys: Any) -> None:
    out = summary_of(tmp_path, ["1 1", "!crash 1 2"], capsys)
    assert "a: 5 of 6 moves void: the program crashed (RE)" in out
    log = tmp_path / "out" / "round-1" / "a" / "stderr.log"
    assert f"its error output is in {log}" in out
    assert log.is_file()
