"""The sparring bots (bots/hunter, collector, rammer, planner, duel, stepper, racer): protocol, style.

They exist so that the reference bot is not tuned against one opponent: a
search bot, a cautious collector, an aggressive rammer, a route planner, a tree
search of the simultaneous game (duel), a planner of every first step (stepper)
and a treasure racer and rammer (racer).  Each is checked
the way the judge runs it (a process per turn for placement and speed) and in
whole in-process rounds (every move legal, never a suicide), and each shows
its style in a situation built for it.
"""

from __future__ import annotations

import ast
import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from judge.cli import main
from judge.mapstyles import generate_styled
from judge.protocol import parse_move_out, render_map_inp
from judge.rules import Game

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference_bot"))

import harness  # noqa: E402

SPARRING = ["hunter", "collector", "rammer", "planner", "duel", "stepper", "racer"]
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}


def run_bot(name: str, folder: Path, text: str) -> tuple[tuple[int, int], float]:
    """One turn as the judge runs it: a fresh process in the team folder."""
    for p in folder.iterdir():
        if p.name != "STATE.OUT":
            p.unlink()
    (folder / "MAP.INP").write_text(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [PYTHON, str(ROOT / "bots" / name / "bot.py")],
        cwd=folder,
        env=ENV,
        check=True,
        capture_output=True,
        timeout=20,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time, not wall time: what the bot itself spent, whatever the machine's load
    # (the time targets themselves are measured by benchmarks/, not here).
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert {p.name for p in folder.iterdir()} <= {"MAP.INP", "MOVE.OUT", "STATE.OUT"}
    move = parse_move_out((folder / "MOVE.OUT").read_bytes())
    assert move.status is None and move.target is not None
    return move.target, cpu


def map_inp(rows: list[str], k: int, me: tuple[int, int], opp: tuple[int, int], gold: int) -> str:
    n = len(rows[0].split())
    return (
        f"{len(rows)} {n} {k}\n{me[0]} {me[1]} {opp[0]} {opp[1]}\n{gold} 0\n"
        + "\n".join(rows)
        + "\n"
    )


def state_after_placement(name: str, folder: Path, rows: list[str], k: int) -> None:
    """Let the bot see the map at placement (it records K and the shields)."""
    run_bot(name, folder, map_inp(rows, k, (0, 0), (0, 0), 0))


@pytest.mark.parametrize("name", SPARRING)
def test_bot_yaml_and_python_3_8(name: str) -> None:
    spec = yaml.safe_load((ROOT / "bots" / name / "bot.yaml").read_text())
    assert spec["name"] == name and spec["command"] == ["python3", "bot.py"]
    source = (ROOT / "bots" / name / "bot.py").read_text()
    tree = ast.parse(source, feature_version=(3, 8))
    modules = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    modules |= {
        (n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    }
    assert modules <= set(sys.stdlib_module_names), modules  # standard library only
    assert not modules & {"subprocess", "socket"}


@pytest.mark.parametrize("name", ["duel", "stepper", "racer"])
def test_check_bot_passes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """judge check-bot's whole battery (placement, a re-ask, reefs, a wreck, the
    treasure, the last turn, the largest map) through the real sandbox."""
    code = main(["check-bot", str(ROOT / "bots" / name), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["passed"] is True and report["errors"] == 0, report


@pytest.mark.parametrize("name", SPARRING)
def test_placement_and_reasks_as_a_process(name: str, tmp_path: Path) -> None:
    game = Game(generate_styled(15, 15, 100, seed=3, style="walled"))
    text = render_map_inp(game, 0)
    named = []
    for _ in range(4):  # the first answer and three re-asks (same MAP.INP, STATE.OUT kept)
        cell, cpu = run_bot(name, tmp_path, text)
        assert game.valid_start(cell)
        assert cpu < 1.5
        named.append(cell)
    assert len(set(named)) >= 2, "re-asks must not name the same cell forever"


@pytest.mark.parametrize("name", SPARRING)
def test_fast_on_the_largest_map(name: str, tmp_path: Path) -> None:
    """15 x 15, K = 100, a flood of single coins: the most work for every planner."""
    flat = ["0"] * 225
    coins = 0
    for f in range(225):
        r, c = divmod(f, 15)
        if coins < 100 and r != 7 and c != 7 and (r + c) % 5:
            flat[f] = "1"
            coins += 1
    flat[7 * 15] = flat[7 * 15 + 14] = "S"
    rows = [" ".join(flat[r * 15 : (r + 1) * 15]) for r in range(15)]
    state_after_placement(name, tmp_path, rows, 100)
    worst = 0.0
    for k, me, opp in ((99, (8, 8), (8, 2)), (60, (1, 8), (15, 8)), (51, (8, 7), (8, 9))):
        _, cpu = run_bot(name, tmp_path, map_inp(rows, k, me, opp, 10))
        worst = max(worst, cpu)
    assert worst < 1.0, f"{name}: {worst * 1000:.0f} ms"


class Checked(harness.ScriptBot):
    """A sparring bot in-process; every moving answer is checked against the rules."""

    def turn(self, map_text: str) -> bytes | None:
        out = super().turn(map_text)
        tok = map_text.split()
        m, n = int(tok[0]), int(tok[1])
        me = (int(tok[3]), int(tok[4]))
        if me[0] == 0:
            return out
        opp = (int(tok[5]), int(tok[6]))
        shield = tok[8] == "1"
        cells = tok[9 : 9 + m * n]
        move = parse_move_out(out or b"")
        assert move.status is None and move.target is not None, out
        i, j = move.target
        assert abs(i - me[0]) + abs(j - me[1]) <= 1, (move.target, me)
        if (i, j) != me:
            assert cells[(i - 1) * n + j - 1] != "D" or shield, "into a reef without a shield"
            opp_on_reef = cells[(opp[0] - 1) * n + opp[1] - 1] == "D"
            assert not ((i, j) == opp and opp_on_reef), "into a wreck"
        return out


@pytest.mark.parametrize("name", SPARRING)
def test_whole_rounds_with_legal_moves(name: str) -> None:
    rng = random.Random(name)
    for r, style in enumerate(("corridors", "reefs", "islands")):
        gm = generate_styled(rng.choice([7, 9]), rng.choice([7, 11]), 30, seed=r, style=style)
        bots = [Checked(name), harness.make_bot("greedy" if r % 2 else "random")]
        try:
            g = harness.play(gm, bots if r % 2 else bots[::-1], seed=r)
        finally:
            for b in bots:
                if isinstance(b, harness.ScriptBot):
                    b.close()
        assert g.ended


# --------------------------------------------------------------------------
# Styles
# --------------------------------------------------------------------------

OPEN = [
    "0 0 0 0 0 0 0",
    "0 2 0 0 0 2 0",
    "0 0 0 0 0 0 0",
    "S 0 0 0 0 0 S",
    "0 0 0 0 0 0 0",
    "0 2 0 0 0 2 0",
    "0 0 0 0 0 0 0",
]


def with_rest(rows: list[str], held: int) -> list[str]:
    """Put the gold neither boat holds (100 - held - on the map) in a far corner pile."""
    on_map = sum(int(t) for r in rows for t in r.split() if t.isdigit())
    rest = 100 - held - on_map
    out = [r.split() for r in rows]
    out[-1][-1] = str(rest)
    return [" ".join(r) for r in out]


def test_collector_never_steps_into_the_opponents_reach(tmp_path: Path) -> None:
    # Gold one step away in each case, but on a cell the opponent could enter too.
    rows = with_rest(OPEN, 10)
    state_after_placement("collector", tmp_path, rows, 40)
    for me, opp in (((2, 3), (2, 5)), ((3, 2), (3, 4)), ((4, 4), (4, 6))):
        cell, _ = run_bot("collector", tmp_path, map_inp(rows, 30, me, opp, 5))
        reach = {opp, (opp[0] - 1, opp[1]), (opp[0] + 1, opp[1]), (opp[0], opp[1] - 1)}
        reach.add((opp[0], opp[1] + 1))
        assert cell not in reach, (me, opp, cell)


def test_rammer_rams_when_ahead(tmp_path: Path) -> None:
    # It leads 30 to 20; the opponent at (2,5) is one step from the 2 at (2,6): the
    # rammer at (3,6) moves onto (2,6) (or onto the opponent): both sink, the rammer ahead.
    rows = with_rest(OPEN, 50)
    state_after_placement("rammer", tmp_path, rows, 40)
    opp_gold_rows = rows  # the opponent holds 100 - 30 - on the map = 20
    cell, _ = run_bot("rammer", tmp_path, map_inp(opp_gold_rows, 20, (3, 6), (2, 5), 30))
    assert cell in ((2, 6), (2, 5)), cell


def test_hunter_rams_ahead_and_dodges_behind(tmp_path: Path) -> None:
    # Last turn, a 5 between the boats.  Ahead 25 to 22: the opponent would win by taking
    # it, so the hunter goes there too (it gets the 5, or both sink with the hunter ahead).
    rows = ["0 0 0 0 0", "0 0 5 0 0", "S 0 0 0 S", "0 0 0 0 0", "0 0 0 0 0"]
    ahead = with_rest(rows, 47)
    state_after_placement("hunter", tmp_path, ahead, 20)
    cell, _ = run_bot("hunter", tmp_path, map_inp(ahead, 1, (2, 4), (2, 2), 25))
    assert cell == (2, 3), cell
    # Behind 22 to 25 with turns to go: the 5 next to both boats is a trap (a collision
    # would lock in the loss), so it keeps out of the opponent's reach.
    behind = with_rest(rows, 47)
    tmp2 = tmp_path / "b"
    tmp2.mkdir()
    state_after_placement("hunter", tmp2, behind, 20)
    cell, _ = run_bot("hunter", tmp2, map_inp(behind, 8, (2, 4), (2, 2), 22))
    assert cell not in ((2, 3), (1, 2), (3, 2), (2, 1), (2, 2)), cell


def test_planner_plays_for_the_win_not_the_gold(tmp_path: Path) -> None:
    # Last turn, a 5 between the boats, the planner ahead 25 to 22: staying loses to
    # the opponent's 5; going there gets the 5 or sinks both with the planner ahead.
    rows = ["0 0 0 0 0", "0 0 5 0 0", "S 0 0 0 S", "0 0 0 0 0", "0 0 0 0 0"]
    ahead = with_rest(rows, 47)
    state_after_placement("planner", tmp_path, ahead, 20)
    cell, _ = run_bot("planner", tmp_path, map_inp(ahead, 1, (2, 4), (2, 2), 25))
    assert cell == (2, 3), cell
    # Behind 22 to 25 with turns to go: a collision would lock in the loss, so it
    # keeps out of every cell the opponent can enter this turn.
    tmp2 = tmp_path / "b"
    tmp2.mkdir()
    state_after_placement("planner", tmp2, ahead, 20)
    cell, _ = run_bot("planner", tmp2, map_inp(ahead, 8, (2, 4), (2, 2), 22))
    assert cell not in ((2, 3), (1, 2), (3, 2), (2, 1), (2, 2)), cell


def test_planner_races_for_the_treasure(tmp_path: Path) -> None:
    # The turn after half time (K = 20, 10 turns left): a treasure of 7 on the centre,
    # the planner one step from it and the opponent three, 1s scattered far away.
    # Behind 40 to 56 (100 + 7 - 40 - 11 on the map), only the treasure can turn the
    # round: it takes it now.
    rows = [
        "0 0 0 0 0 0 0",
        "0 1 0 0 0 1 0",
        "0 0 0 0 0 0 0",
        "S 0 0 7 0 0 S",
        "0 0 0 0 0 0 0",
        "0 1 0 0 0 1 0",
        "0 0 0 0 0 0 0",
    ]
    state_after_placement(
        "planner", tmp_path, ["0 0 0 0 0 0 0"] * 3 + [rows[3].replace("7", "0")] + rows[4:], 20
    )
    text = map_inp(rows, 10, (3, 4), (4, 1), 40)
    cell, _ = run_bot("planner", tmp_path, text)
    assert cell == (4, 4), cell


def test_duel_rams_ahead_and_dodges_behind(tmp_path: Path) -> None:
    # The hunter's two situations, for the tree search: last turn, ahead 25 to 22, a 5
    # between the boats: it goes there (it gets the 5, or both sink with it ahead).
    rows = ["0 0 0 0 0", "0 0 5 0 0", "S 0 0 0 S", "0 0 0 0 0", "0 0 0 0 0"]
    ahead = with_rest(rows, 47)
    state_after_placement("duel", tmp_path, ahead, 20)
    cell, _ = run_bot("duel", tmp_path, map_inp(ahead, 1, (2, 4), (2, 2), 25))
    assert cell == (2, 3), cell
    # Behind 22 to 25 with turns to go: it keeps out of the opponent's reach.
    tmp2 = tmp_path / "b"
    tmp2.mkdir()
    state_after_placement("duel", tmp2, ahead, 20)
    cell, _ = run_bot("duel", tmp2, map_inp(ahead, 8, (2, 4), (2, 2), 22))
    assert cell not in ((2, 3), (1, 2), (3, 2), (2, 1), (2, 2)), cell


def test_stepper_takes_the_gold_it_reaches_first_and_keeps_clear_behind(tmp_path: Path) -> None:
    # A 2 next to it, far from the opponent (by the rest of the gold, in the far corner):
    # it steps onto the 2.
    rows = with_rest(OPEN, 30)
    state_after_placement("stepper", tmp_path, rows, 40)
    cell, _ = run_bot("stepper", tmp_path, map_inp(rows, 30, (2, 3), (6, 6), 15))
    assert cell == (2, 2), cell
    # Behind 22 to 25, the opponent next to it: it keeps out of the opponent's reach.
    rows = ["0 0 0 0 0", "0 0 5 0 0", "S 0 0 0 S", "0 0 0 0 0", "0 0 0 0 0"]
    behind = with_rest(rows, 47)
    tmp2 = tmp_path / "b"
    tmp2.mkdir()
    state_after_placement("stepper", tmp2, behind, 20)
    cell, _ = run_bot("stepper", tmp2, map_inp(behind, 8, (2, 4), (2, 2), 22))
    assert cell not in ((2, 3), (1, 2), (3, 2), (2, 1), (2, 2)), cell


def test_racer_rams_ahead_on_the_last_turn(tmp_path: Path) -> None:
    # Last turn, ahead 25 to 22, a 5 between the boats: it goes there whatever the
    # opponent does (it gets the 5, or both sink with it ahead).
    rows = ["0 0 0 0 0", "0 0 5 0 0", "S 0 0 0 S", "0 0 0 0 0", "0 0 0 0 0"]
    ahead = with_rest(rows, 47)
    state_after_placement("racer", tmp_path, ahead, 20)
    cell, _ = run_bot("racer", tmp_path, map_inp(ahead, 1, (2, 4), (2, 2), 25))
    assert cell == (2, 3), cell


def test_racer_heads_for_the_centre_before_half_time(tmp_path: Path) -> None:
    # K = 20, 12 turns left: the check comes after the second move.  Level 48 to 48,
    # the racer two steps west of the centre, the opponent three steps east of it; a
    # 2 two steps south of the racer would keep it from the centre when the treasure
    # appears (the other 2 is by the opponent).  It steps towards the centre.
    rows = [
        "0 0 0 0 0 0 2",
        "0 0 0 0 0 0 0",
        "0 0 0 0 0 0 0",
        "S 0 0 0 0 0 S",
        "0 0 0 0 0 0 0",
        "0 2 0 0 0 0 0",
        "0 0 0 0 0 0 0",
    ]
    state_after_placement("racer", tmp_path, rows, 20)
    cell, _ = run_bot("racer", tmp_path, map_inp(rows, 12, (4, 2), (3, 7), 48))
    assert cell == (4, 3), cell
