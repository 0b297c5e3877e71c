"""The C++ and Free Pascal starter kits (bots/template_cpp, bots/template_pas).

Both are built by their own ``bot.yaml`` (g++, fpc) from a copy of the kit, and
must play exactly like the Python starter (bots/template), which the bundled-bot
tests cover: over many situations (placements, re-asks, moves beside reefs,
shields and the opponent, CRLF and a UTF-8 mark in MAP.INP, ``W`` for reefs)
the three programs write the same MOVE.OUT and STATE.OUT.  Then the two kits
play a match through the judge.  In CI (``CI`` set) a missing compiler fails.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.bots import BotSpec, resolve_bot
from judge.cli import main
from judge.mapgen import generate_map
from judge.maps import GameMap, load_map

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def _need(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        why = f"{tool} is not installed (Debian package {package})"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{why}; .ci/run installs it")
        pytest.skip(why)


@pytest.fixture(scope="module")
def kits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Kit name -> the command that runs it, built by its bot.yaml in a copy of the kit."""
    _need("g++", "g++")
    _need("fpc", "fpc")
    root = tmp_path_factory.mktemp("kits")
    commands = {"template": [sys.executable, str(ROOT / "bots" / "template" / "bot.py")]}
    for name in ("template_cpp", "template_pas"):
        # As a student does: copy the kit to a folder of their own name.
        mine = root / f"doi_{name}"
        shutil.copytree(ROOT / "bots" / name, mine)
        spec: BotSpec = resolve_bot(str(mine))
        assert spec.program_dir is not None and spec.name == mine.name
        commands[name] = spec.argv_for(spec.program_dir)
        assert Path(commands[name][0]).is_file(), f"{name}: its build made no program"
    return commands


def _map_inp(
    gm: GameMap,
    k: int,
    me: tuple[int, int],
    opp: tuple[int, int],
    gold: int,
    shield: int,
    reef: str = "D",
) -> str:
    rows = [" ".join(t) for t in gm.row_tokens(reef)]
    return f"{gm.rows} {gm.cols} {k}\n{me[0]} {me[1]} {opp[0]} {opp[1]}\n{gold} {shield}\n" + (
        "\n".join(rows) + "\n"
    )


def situations() -> list[tuple[str, str, str | None]]:
    """(label, MAP.INP, STATE.OUT or None): every kind of turn a bot meets."""
    rng = random.Random(7)
    maps = [load_map(ROOT / "maps" / f"m{i}.txt") for i in range(1, 6)]
    maps += [
        generate_map(r, c, turns=20, seed=s) for r, c, s in ((5, 5, 1), (9, 13, 2), (15, 15, 3))
    ]
    out: list[tuple[str, str, str | None]] = []
    for idx, gm in enumerate(maps):
        cells = [(i, j) for i in range(1, gm.rows + 1) for j in range(1, gm.cols + 1)]
        water = [c for c in cells if gm.cell(*c) == 0]
        out.append((f"{idx}-place", _map_inp(gm, gm.turns, (0, 0), (0, 0), 0, 0), None))
        tried = " ".join(f"{i} {j}" for i, j in water[:2])
        out.append(
            (f"{idx}-reask", _map_inp(gm, gm.turns, (0, 0), (0, 0), 0, 0), f"tried {tried}\n")
        )
        for n in range(8):
            me = rng.choice(water)
            near = [(me[0] + di, me[1] + dj) for di, dj in ((-2, 0), (0, 2), (1, 1), (2, 0))]
            near = [c for c in near if c in cells] or [rng.choice(cells)]
            opp = rng.choice(near) if n % 2 else rng.choice(cells)
            text = _map_inp(
                gm,
                rng.randint(1, gm.turns),
                me,
                opp,
                rng.randint(0, 40),
                n % 3 == 0,
                "W" if n % 4 == 1 else "D",
            )
            if n % 5 == 2:
                text = "\ufeff" + text.replace("\n", "\r\n")
            state = "tried 1 1\n" if n % 2 else None
            if n % 3 == 1:  # the target kept and the cell left last turn (STATE.OUT)
                gold = [c for c in cells if gm.cell(*c) > 0]
                came = [(me[0] + di, me[1] + dj) for di, dj in ((0, 1), (1, 0), (-1, 0))]
                came = [c for c in came if c in cells] or [me]
                if n == 7:  # it waited last turn: it may go round the other boat
                    came = [me]
                goal = rng.choice(gold) if gold else rng.choice(cells)
                state = f"tried 1 1\ntarget {goal[0]} {goal[1]}\nfrom {came[0][0]} {came[0][1]}\n"
            out.append((f"{idx}-move{n}", text, state))
    out += facing()
    return out


#: Two boats in a corridor that waited for each other last turn, the target past the
#: other boat: (row 3 of the sea, me, the other boat, the target kept, the move expected).
FACING = (
    ("9 0 0 0 0 0 9", (3, 3), (3, 5), (3, 7), (3, 2)),  # gold behind it: round, for that
    ("9 0 0 0 0 0 9", (3, 5), (3, 3), (3, 1), (3, 6)),
    ("9 0 0 0 0 0 0", (3, 5), (3, 3), (3, 1), (3, 4)),  # none: the lower-right boat goes on
    ("0 0 0 0 0 0 9", (3, 3), (3, 5), (3, 7), (3, 3)),  # ... and the other waits
)


def facing() -> list[tuple[str, str, str | None]]:
    """The FACING situations as (label, MAP.INP, STATE.OUT)."""
    out: list[tuple[str, str, str | None]] = []
    for row, me, opp, goal, _ in FACING:
        rows = ["D D D D D D D", "D D D D D D D", row, "D D D D D D D", "0 0 0 0 0 0 0"]
        head = f"5 7 20\n{me[0]} {me[1]} {opp[0]} {opp[1]}\n0 0\n"
        state = f"tried 5 1\ntarget {goal[0]} {goal[1]}\nfrom {me[0]} {me[1]}\n"
        out.append((f"facing {row} {me}", head + "\n".join(rows) + "\n", state))
    return out


def run_bot(
    cmd: list[str], folder: Path, map_inp: str, state: str | None
) -> tuple[str, str | None]:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "MAP.INP").write_bytes(map_inp.encode("utf-8"))
    if state is not None:
        (folder / "STATE.OUT").write_text(state)
    proc = subprocess.run(cmd, cwd=folder, env=ENV, capture_output=True, timeout=20, check=False)
    assert proc.returncode == 0, (cmd, proc.stderr)
    move = (folder / "MOVE.OUT").read_text()
    new_state = (folder / "STATE.OUT").read_text() if (folder / "STATE.OUT").exists() else None
    return move, new_state


def test_kits_play_exactly_like_the_python_starter(
    kits: dict[str, list[str]], tmp_path: Path
) -> None:
    seen = set()
    for label, map_inp, state in situations():
        want = run_bot(kits["template"], tmp_path / "py", map_inp, state)
        seen.add(want)
        for name in ("template_cpp", "template_pas"):
            got = run_bot(kits[name], tmp_path / name, map_inp, state)
            assert got == want, (name, label, map_inp, state)
    assert len(seen) > 40  # the situations really differ


def test_the_kits_play_a_match_through_the_judge(
    kits: dict[str, list[str]], tmp_path: Path
) -> None:
    out = tmp_path / "match"
    bots = [str(Path(kits[n][0]).parent) for n in ("template_cpp", "template_pas")]
    code = main(
        [
            "match",
            *bots,
            "--map",
            "m3",
            "--seed",
            "4",
            "--turns",
            "10",
            "--out",
            str(out),
            "--quiet",
            "--time-limit",
            "10",
            "--maps-dir",
            str(ROOT / "maps"),
        ]
    )
    assert code == 0
    result = json.loads((out / "result.json").read_text())
    assert result["complete"] and result["teams"] == ["doi_template_cpp", "doi_template_pas"]
    lines = (out / result["rounds"][0]["replay"]).read_text().splitlines()
    moved = [0, 0]
    for rec in map(json.loads, lines[1:]):
        assert rec["verdicts"] == ["OK", "OK"], rec["messages"]
        for s in (0, 1):
            moved[s] += rec["move_status"][s] == "moved"
    assert min(moved) >= 3, moved  # both kits sail, not only stay put
