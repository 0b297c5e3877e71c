"""The terminal board, rendered to a string at a fixed width without colour."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, RenderableType

from judge.records import event_from_json
from judge.views import board
from judge.views.board import CELL_W, LABEL_W, final_board

from ._replays import typed


def board_text(rec: dict[str, Any], *args: Any) -> Any:
    return board.board_text(typed(rec), *args)


def turn_view(rec: dict[str, Any], *args: Any, **kwargs: Any) -> RenderableType:
    return board.turn_view(typed(rec), *args, **kwargs)


def render(obj: RenderableType, width: int = 80) -> str:
    c = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    c.print(obj)
    out = c.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b" not in out
    return out


def panel(out: str, cols: int) -> str:
    """The side panel's text, wrapped lines joined again (the panel starts 2 after the board)."""
    x = LABEL_W + CELL_W * cols + 2
    return " ".join(" ".join(line[x:].split()) for line in out.splitlines() if line[x:].strip())


def cell(lines: list[str], i: int, j: int, top: int = 0) -> str:
    """The 3 characters of cell (i, j): line 0 is the column numbers."""
    row = lines[top + i]
    x = LABEL_W + (j - 1) * CELL_W
    return row[x : x + CELL_W]


def rec_at(lines: list[dict[str, Any]], turn: int) -> dict[str, Any]:
    return next(r for r in lines[1:] if r["turn"] == turn)


def expected_cell(rec: dict[str, Any], i: int, j: int) -> str | None:
    tok = rec["grid"][i - 1].split()[j - 1]
    return {"0": " . ", "D": " # ", "S": " S "}.get(tok, f"{tok:>2} ")


def test_board_cells_and_boats_where_the_record_says(big: list[dict[str, Any]]) -> None:
    names = big[0]["teams"]
    for turn in (1, 7, 20, 40):
        rec = rec_at(big, turn)
        lines = render(board_text(rec, names)).splitlines()
        assert lines[0].split() == [str(j) for j in range(1, 16)]
        boats = {tuple(p): s for s, p in enumerate(rec["positions"])}
        for i in range(1, 16):
            assert lines[i][:LABEL_W].strip() == str(i)
            for j in range(1, 16):
                got = cell(lines, i, j)
                if (i, j) in boats:
                    assert got.strip("[] x") == "AB"[boats[(i, j)]], (turn, i, j, got)
                elif (i, j) == (8, 8) and rec["treasure"] and rec["grid"][7].split()[7] != "0":
                    assert got == f"{rec['treasure']:>2}*"
                else:
                    assert got == expected_cell(rec, i, j), (turn, i, j, got)


def test_15x15_fits_80_columns_side_by_side(big: list[dict[str, Any]]) -> None:
    rec = rec_at(big, 20)  # half time: the treasure appears
    assert rec["events"]
    out = render(turn_view(rec, big[0]["teams"], 40, 80, label="round 2: maps/big15.txt"))
    lines = out.splitlines()
    assert max(len(x) for x in lines) <= 80
    # the panel sits beside the board: the turn line shares a line with the board's first row
    assert "turn 20/40" in lines[1] and lines[1].startswith(" 1 ")
    side = panel(out, 15)
    assert f"gold {rec['gold'][0]}" in side and f"gold {rec['gold'][1]}" in side
    assert "A alpha" in side and "B beta" in side
    assert "OK 12 ms" in side
    for e in rec["events"]:
        assert event_from_json(e).describe(big[0]["teams"]) in side


def test_narrow_terminal_stacks_panel_below(big: list[dict[str, Any]]) -> None:
    rec = rec_at(big, 21)
    out = render(turn_view(rec, big[0]["teams"], 40, 60), width=60)
    lines = out.splitlines()
    assert max(len(x) for x in lines) <= 60
    board_end = next(k for k, x in enumerate(lines) if x.startswith("15 "))
    assert any("turn 21/40" in x for x in lines[board_end + 1 :])
    assert not any("turn 21/40" in x for x in lines[:board_end])


def test_shield_wreck_treasure_and_events_in_words(eventful: list[dict[str, Any]]) -> None:
    names = eventful[0]["teams"]
    out = render(turn_view(rec_at(eventful, 3), names, 20, 80))
    lines = out.splitlines()
    assert cell(lines, 4, 2) == "[A]"  # A took the shield on (4,2)
    assert cell(lines, 6, 4) == "xB "  # B's wreck on the reef
    assert "alpha picked up a shield at (4,2)" in out
    assert "beta sank on a reef at (6,4)" in out
    assert "SUNK" in out and "shield" in out

    before = render(board_text(rec_at(eventful, 9), names)).splitlines()
    assert cell(before, 4, 4) == " . "  # no treasure before half time
    at = render(turn_view(rec_at(eventful, 10), names, 20, 80))
    assert cell(at.splitlines(), 4, 4) == " 6*"  # the digit where gold digits are
    assert "a treasure worth 6 appeared at (4,4)" in at
    assert "treasure 6 at (4,4)" in at
    after = render(turn_view(rec_at(eventful, 19), names, 20, 80))
    assert cell(after.splitlines(), 4, 4) == "[A]"
    assert "alpha collected 6 gold at (4,4)" in after
    assert "treasure 6 collected" in after
    last = render(turn_view(rec_at(eventful, 20), names, 20, 80))
    assert "round over (turns)" in last and "not run (sunk)" in last


def test_both_wrecks_on_one_cell(eventful: list[dict[str, Any]]) -> None:
    rec = rec_at(eventful, 3)
    rec.update(
        positions=[[5, 5], [5, 5]],
        sunk=[True, True],
        events=[
            {"kind": "sink", "seat": 0, "pos": [5, 5], "cause": "collision"},
            {"kind": "sink", "seat": 1, "pos": [5, 5], "cause": "collision"},
        ],
    )
    out = render(turn_view(rec, ["alpha", "beta"], 20, 80))
    assert cell(out.splitlines(), 5, 5) == "xAB"
    assert "alpha sank in a collision at (5,5)" in out


def test_void_moves_and_failed_runs_are_shown(eventful: list[dict[str, Any]]) -> None:
    rec = rec_at(eventful, 5)
    rec.update(
        verdicts=["TLE", "OK"],
        wall_ms=[2001.3, 3.2],
        moves=[None, None],
        raw=[None, "9 9 9"],
        move_status=["run_failed", "not_two_integers"],
        messages=["time limit 2 s exceeded", None],
    )
    out = render(turn_view(rec, ["alpha", "beta"], 20, 80))
    side = panel(out, 7)
    assert "TLE 2001 ms void: the program ran out of time (TLE)" in side
    assert "time limit 2 s exceeded" in side
    assert "OK 3.2 ms '9 9 9' void: MOVE.OUT's first line is not two integers" in side
    # Words, never the replay's internal codes.
    assert "run_failed" not in out and "not_two_integers" not in out
    # A replay that recorded why (a newer judge) is shown with that reason.
    rec.update(verdicts=["OK", "OK"], move_status=["no_move_out", "moved"])
    rec["why"] = ["move_on_stdout", None]
    side = panel(render(turn_view(rec, ["alpha", "beta"], 20, 80)), 7)
    assert "void: no MOVE.OUT — the move was printed on standard output" in side
    assert "no_move_out" not in side


def test_final_board_tolerates_broken_files(tmp_path: Any, eventful: list[dict[str, Any]]) -> None:
    f = tmp_path / "r.jsonl"
    assert final_board(f, ["a", "b"]) is None
    f.write_text("{not json\n")
    assert final_board(f, ["a", "b"]) is None
    f.write_text('{"turn": 1, "grid": 5}\n')
    assert final_board(f, ["a", "b"]) is None
    import json

    f.write_text("\n".join(json.dumps(x) for x in eventful) + "\n")
    board = final_board(f, ["a", "b"])
    assert board is not None and "[A]" in render(board)


def test_names_are_text_not_markup(eventful: list[dict[str, Any]]) -> None:
    """A team called "[red]x" is shown as typed (rich markup is never parsed from names)."""
    out = render(turn_view(rec_at(eventful, 3), ["[red]x", "[/]"], 20, 80))
    assert "[red]x" in out and "[/] sank on a reef at (6,4)" in panel(out, 7)
