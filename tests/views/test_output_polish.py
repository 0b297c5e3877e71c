"""Output polish: the final board's legend, tables whole when piped,
human column names in index.html, a speed for --watch."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

from judge.cli import main
from judge.views import live
from judge.views.board import LEGEND
from judge.views.html import write_index_html
from judge.views.tables import print_table

ROOT = Path(__file__).resolve().parents[2]
LONG = "zerobased_coordinates_bot_with_a_long_name"


def test_tables_are_whole_when_piped() -> None:
    table = Table(title="standings")
    for col in ("team", "points", "rounds won", "draws", "losses", "gold", "time p50/max ms"):
        table.add_column(col)
    table.add_row(LONG, "40", "2", "0", "1", "77", "12/30")
    piped = Console(file=io.StringIO(), width=80, color_system=None)
    print_table(piped, table)
    out = piped.file.getvalue()  # type: ignore[attr-defined]
    assert LONG in out and "…" not in out
    assert piped.width == 80  # the console is left as it was
    # On a terminal rich fits the table to the screen, as a terminal user expects.
    term = Console(file=io.StringIO(), width=60, force_terminal=True, color_system=None)
    print_table(term, table)
    assert max(len(x) for x in term.file.getvalue().splitlines()) <= 60  # type: ignore[attr-defined]


@pytest.mark.slow
def test_match_summary_legend_and_whole_names(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    bot = tmp_path / "bots" / "long"
    shutil.copytree(ROOT / "bots" / "greedy", bot)
    (bot / "bot.yaml").write_text(f"name: {LONG}\ncommand: [python3, bot.py]\n")
    argv = [
        "match",
        str(bot),
        "random",
        "--map",
        "m1",
        "--turns",
        "4",
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert LEGEND in lines  # under the final board
    board_end = lines.index(LEGEND)
    assert lines[board_end - 1].startswith(" 5 ")  # the last row of the 5x5 board is just above
    row = next(x for x in lines if LONG in x and "│" in x)  # the summary table's row, whole
    assert "…" not in row


def test_index_html_has_human_column_names(tmp_path: Path) -> None:
    rows = [
        {"team": "Rồng Biển", "points": 20, "rounds_won": 1, "draws": 0, "losses": 0, "gold": 9}
    ]
    page = write_index_html(tmp_path, rows, []).read_text(encoding="utf-8")
    assert "<th>rounds won</th>" in page and "rounds_won" not in page
    assert "<td>Rồng Biển</td>" in page


@pytest.mark.slow
def test_watch_speed(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    waits: list[float] = []
    monkeypatch.setattr(live, "pause", lambda s: waits.append(s))
    base = ["match", "greedy", "random", "--map", "m1", "--turns", "6", "--quiet"]
    assert main([*base, "--speed", "4", "--out", str(tmp_path / "a")]) == 0
    assert waits and all(0 < w <= 0.25 for w in waits)  # 4 turns a second at most
    assert "turn 6/6" in capsys.readouterr().out  # --speed implies --watch
    waits.clear()
    assert main([*base, "--speed", "0", "--out", str(tmp_path / "b")]) == 0
    assert waits == []  # as fast as the bots play
    assert main([*base, "--speed", "-1"]) == 2
    assert "--speed -1: give turns a second" in capsys.readouterr().err
