"""A lone program's name: a generic file name (bot.exe, main, a.out,
Project1.exe) gives way to the folder's name, --name names a bot outright, and two
teams' programs of one name are told apart by where each came from."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from judge.bots import BotSpec, distinct_bot_names, is_generic, lone_program_name, resolve_bot
from judge.cli import main

#: A lone program (a script with a '#!' line): places itself at the first 0 cell, then stays.
SCRIPT = """#!/usr/bin/env python3
t = open("MAP.INP").read().split()
m, n = int(t[0]), int(t[1])
me = (int(t[3]), int(t[4]))
cells = t[9:9 + m * n]
if me == (0, 0):
    k = cells.index("0")
    me = (k // n + 1, k % n + 1)
open("MOVE.OUT", "w").write(f"{me[0]} {me[1]}\\n")
"""


def lone(folder: Path, file: str = "bot") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(SCRIPT, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/x/Rồng Biển/bot.exe", "Rồng Biển"),
        ("/x/Rồng Biển/BOT.EXE", "Rồng Biển"),
        ("/x/Cá Mập/bin/Release/Project1.exe", "Cá Mập"),
        ("/x/Hải Âu/x64/Debug/ConsoleApplication1.exe", "Hải Âu"),
        ("/x/team3/main", "team3"),
        ("/x/team4/a.out", "team4"),
        ("/x/team5/Untitled2.exe", "team5"),
        ("/x/team6/hai_au.exe", "hai_au"),  # a name of its own stays
        ("/x/team7/greedy", "greedy"),
    ],
)
def test_a_generic_program_name_gives_way_to_its_folder(path: str, name: str) -> None:
    assert lone_program_name(Path(path)) == name


def test_generic_names() -> None:
    assert all(is_generic(s) for s in ("bot", "Main", "a.out", "Project12", "solution"))
    assert not any(is_generic(s) for s in ("rong_bien", "botany", "greedy"))


def test_two_teams_of_one_name_are_told_apart_by_where_they_came_from() -> None:
    def bot(name: str, home: str) -> BotSpec:
        return BotSpec(name, home, Path(home), ("solver",), home=Path(home))

    assert distinct_bot_names([bot("solver", "/a/Rồng Biển"), bot("solver", "/a/Cá Mập")]) == [
        "solver (Rồng Biển)",
        "solver (Cá Mập)",
    ]
    # Folders of one name: their paths.
    assert distinct_bot_names([bot("solver", "/a/T"), bot("solver", "/b/T")]) == [
        "solver (/a/T)",
        "solver (/b/T)",
    ]
    # The same bot twice is a normal thing to play: numbered.
    assert distinct_bot_names([bot("greedy", "/a/greedy"), bot("greedy", "/a/greedy")]) == [
        "greedy",
        "greedy-2",
    ]


def test_resolve_bot_names_a_lone_generic_program_after_its_folder(tmp_path: Path) -> None:
    assert resolve_bot(str(lone(tmp_path / "Rồng Biển"))).name == "Rồng Biển"
    assert resolve_bot(str(lone(tmp_path / "t", "hai_au"))).name == "hai_au"


def teams(out: Path) -> list[str]:
    data: dict[str, Any] = json.loads((out / "result.json").read_text(encoding="utf-8"))
    return list(data["teams"])


def test_a_match_of_two_teams_bot_programs_names_the_teams(tmp_path: Path) -> None:
    a, b = lone(tmp_path / "Rồng Biển"), lone(tmp_path / "Cá Mập")
    out = tmp_path / "out"
    argv = ["match", str(a), str(b), "--map", "m1", "--turns", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert teams(out) == ["Rồng Biển", "Cá Mập"]


def test_two_programs_of_one_name_from_two_teams_say_whose_they_are(tmp_path: Path) -> None:
    a, b = lone(tmp_path / "Rồng Biển", "ca_voi"), lone(tmp_path / "Cá Mập", "ca_voi")
    out = tmp_path / "out"
    argv = ["match", str(a), str(b), "--map", "m1", "--turns", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert teams(out) == ["ca_voi (Rồng Biển)", "ca_voi (Cá Mập)"]


def test_name_option_names_the_bots_in_order(tmp_path: Path, capsys: Any) -> None:
    a = lone(tmp_path / "x")
    out = tmp_path / "out"
    argv = ["match", str(a), "greedy", "--map", "m1", "--turns", "2", "--out", str(out)]
    assert main([*argv, "--quiet", "--name", "Đội Hải Âu"]) == 0
    assert teams(out) == ["Đội Hải Âu", "greedy"]
    out2 = tmp_path / "out2"
    argv2 = ["match", str(a), "greedy", "--map", "m1", "--turns", "2", "--out", str(out2)]
    assert main([*argv2, "--quiet", "--name", "A", "--name", "B"]) == 0
    assert teams(out2) == ["A", "B"]
    assert main([*argv2, "--name", "A", "--name", "B", "--name", "C"]) == 2
    assert "--name is given 3 times; at most 2" in capsys.readouterr().err
    assert main([*argv2, "--name", " "]) == 2
    assert "--name ' ': a name needs at least one visible character" in capsys.readouterr().err


def test_a_lone_file_beside_its_folders_bot_is_named_with_its_file() -> None:
    """``judge match bots/x/bot.exe x``: one is x's bot.yaml, the other the .exe in its folder;
    the names say which is which."""
    home = Path("/p/bots/x")
    folder_bot = BotSpec("x", "x", home, ("python3", "bot.py"), home=home)
    exe = BotSpec("x", "bots/x/bot.exe", Path("/cache/x"), ("bot.exe",), home=home, file="bot.exe")
    assert distinct_bot_names([exe, folder_bot]) == ["x (bot.exe)", "x"]
    assert distinct_bot_names([folder_bot, exe]) == ["x", "x (bot.exe)"]
    other = BotSpec("x", "bots/x/solver", Path("/cache/y"), ("solver",), home=home, file="solver")
    assert distinct_bot_names([exe, other]) == ["x (bot.exe)", "x (solver)"]
    # the same program twice is still numbered
    assert distinct_bot_names([exe, exe]) == ["x", "x-2"]


@pytest.mark.slow  # a real match (2 turns)
def test_a_match_of_a_folders_bot_and_its_lone_program_names_both(tmp_path: Path) -> None:
    folder = tmp_path / "bots" / "x"
    program = lone(folder)  # bots/x/bot: a generic name, so the folder's
    (folder / "bot.yaml").write_text("command: [./bot]\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = ["match", str(program), str(folder), "--map", "m1", "--turns", "2", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    assert teams(out) == ["x (bot)", "x"]
