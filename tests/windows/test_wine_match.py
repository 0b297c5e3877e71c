""".exe bots through the judge's commands, as organisers receive them.

* The same bot source built as a 64-bit .exe and natively (bots/greedy_c in C,
  the C++ starter kit) plays the same match turn by turn against a native bot,
  and every recorded turn agrees with the independent model of the rules.
* A 32-bit .exe, a text file named .exe and a machine without wine are refused
  before the round, naming the file and the fix.
* ``judge check-bot`` passes an .exe; a tournament with one .exe team gives
  the standings the same team gets as a native program.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import judge.bots
from judge.bots import BotError, resolve_bot
from judge.cli import main
from judge.sandbox import Limits, ProgramUnreachable, Sandbox
from judge.sandbox.wine.words import WINE_LINE
from tests.core.test_properties import RefRound
from tests.tournament._helpers import config_dict, read_standings, write_config

from .conftest import ROOT, Exes

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

#: Generous: the two matches are compared move by move, and a run slowed past the
#: limit by a busy machine (a TLE) would change a move.
TIME_LIMIT = "10"


def play(tmp: Path, bot_a: str, bot_b: str, seed: int, maps: tuple[str, ...], turns: int) -> Path:
    out = tmp / f"match-{Path(bot_a).name}-{seed}"
    argv = ["match", bot_a, bot_b, "--seed", str(seed), "--turns", str(turns)]
    argv += ["--time-limit", TIME_LIMIT, "--out", str(out), "--quiet"]
    argv += ["--bots-dir", str(ROOT / "bots"), "--maps-dir", str(ROOT / "maps")]
    for m in maps:
        argv += ["--map", m]
    assert main(argv) == 0
    return out


def turns_of(out: Path) -> list[list[dict[str, Any]]]:
    result = json.loads((out / "result.json").read_text())
    assert result["complete"] is True
    rounds = []
    for rnd in result["rounds"]:
        lines = [json.loads(x) for x in (out / rnd["replay"]).read_text().splitlines()]
        rounds.append(lines[1:])
        check_with_model(lines[0], lines[1:], rnd)
    return rounds


def _cell(p: list[int] | None) -> tuple[int, int] | None:
    return (p[0], p[1]) if p is not None else None


def check_with_model(header: dict[str, Any], turns: list[dict[str, Any]], rnd: Any) -> None:
    """Replay the recorded moves in the independent model; every state must agree."""
    grid = header["map"]["grid"]
    text = f"{len(grid)} {len(grid[0].split())} {header['turns']}\n" + "\n".join(grid)
    place = turns[0]
    ref = RefRound(text, _cell(place["positions"][0]), _cell(place["positions"][1]))  # type: ignore[arg-type]
    for rec in turns:
        if rec["turn"] > 1:
            ref.play(_cell(rec["moves"][0]), _cell(rec["moves"][1]))
        assert rec["positions"] == [list(ref.boat[0]), list(ref.boat[1])]
        assert rec["gold"] == ref.gold and rec["sunk"] == ref.sunk and rec["ended"] == ref.ended
    assert ref.ended and rnd["gold"] == ref.gold and rnd["end_reason"] == ref.reason


SAME = ("moves", "raw", "move_status", "positions", "gold", "shield", "sunk", "events", "grid")


@pytest.mark.parametrize("kind", ["c", "cpp"])
def test_exe_plays_exactly_as_the_same_source_built_natively(
    exes: Exes, tmp_path: Path, kind: str
) -> None:
    exe, native = (
        (exes.greedy / "greedy.exe", exes.greedy_native / "greedy")
        if kind == "c"
        else (exes.cpp / "bot.exe", exes.cpp_native / "bot")
    )
    maps, seed, turns = (("m2",) if kind == "c" else ("m4",)), 11, 14
    windows = play(tmp_path / "w", str(exe), "greedy", seed, maps, turns)
    linux = play(tmp_path / "n", str(native), "greedy", seed, maps, turns)
    w_rounds, n_rounds = turns_of(windows), turns_of(linux)
    assert len(w_rounds) == len(n_rounds) == 1
    for w_turns, n_turns in zip(w_rounds, n_rounds, strict=True):
        assert len(w_turns) == len(n_turns)
        for w, n in zip(w_turns, n_turns, strict=True):
            assert w["verdicts"][0] == "OK", w["messages"]
            for key in SAME:
                assert w[key] == n[key], (key, w["turn"], w[key], n[key])
    w_result = json.loads((windows / "result.json").read_text())
    n_result = json.loads((linux / "result.json").read_text())
    assert w_result["points"] == n_result["points"]
    for log in windows.glob("round-*/*/stderr.log"):
        for line in log.read_bytes().splitlines():
            assert not WINE_LINE.match(line), (log, line)


def test_the_cpp_kits_exe_is_built_by_its_bot_yaml_and_plays(exes: Exes, tmp_path: Path) -> None:
    """bots/template_cpp_exe: MinGW builds the kit's source as bot.exe; it plays through wine.

    The kit is copied alone, under a team's name, as a student would: it needs
    nothing outside its folder, and the bot takes the folder's name."""
    mine = tmp_path / "Đội_exe"
    shutil.copytree(ROOT / "bots" / "template_cpp_exe", mine)
    spec = resolve_bot(str(mine))
    assert spec.name == "Đội_exe"
    assert spec.command == ("bot.exe",) and (mine / "bot.exe").is_file()
    out = play(tmp_path / "m", str(mine), "greedy", 3, ("m5",), 8)
    (rnd,) = turns_of(out)
    assert all(rec["verdicts"][0] == "OK" for rec in rnd), [r["messages"] for r in rnd]


def test_unrunnable_exes_are_refused_before_the_round(
    exes: Exes, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pe32 = exes.pe32 / "hostile32.exe"
    out = tmp_path / "never"
    code = main(["match", str(pe32), "greedy", "--map", "m1", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.replace("\n", " ")
    assert code == 2 and not out.exists()
    for words in ("hostile32.exe", "32-bit Windows program", "64-bit", "wine32"):
        assert words in err, err
    fake = exes.not_pe / "fake.exe"
    code = main(["match", "greedy", str(fake), "--map", "m1", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.replace("\n", " ")
    assert code == 2 and "fake.exe" in err and "not a Windows executable" in err, err
    # the same through a bot.yaml naming the .exe
    folder = tmp_path / "yaml32"
    folder.mkdir()
    (folder / "hostile32.exe").write_bytes(pe32.read_bytes())
    (folder / "bot.yaml").write_text("command: [hostile32.exe]\n")
    with pytest.raises(BotError, match="32-bit Windows program"):
        resolve_bot(str(folder))
    # a machine without wine
    monkeypatch.setattr(judge.bots, "find_wine", lambda: None)
    with pytest.raises(BotError, match="no wine") as info:
        resolve_bot(str(exes.greedy / "greedy.exe"))
    assert "greedy.exe" in str(info.value)


def test_a_sandbox_without_wine_refuses_an_exe_naming_it(exes: Exes) -> None:
    with Sandbox(wine="none") as sb, sb.seat("nowine", exes.greedy) as seat:
        assert seat.program_dir is not None
        exe = str(seat.program_dir / "greedy.exe")
        with pytest.raises(ProgramUnreachable, match="no wine") as info:
            seat.run_turn([exe], {"MAP.INP": b"x"}, ["MOVE.OUT"], Limits())
        assert info.value.path == exe
    with Sandbox() as sb, sb.seat("pe32", exes.pe32) as seat:
        assert seat.program_dir is not None
        with pytest.raises(ProgramUnreachable, match="32-bit"):
            seat.check([str(seat.program_dir / "hostile32.exe")])


def test_tournament_with_an_exe_team_matches_the_native_one(exes: Exes, tmp_path: Path) -> None:
    standings = []
    for kind, bot in (
        ("exe", exes.greedy / "greedy.exe"),
        ("native", exes.greedy_native / "greedy"),
    ):
        cfg = config_dict(2, bots=[str(bot), "random"], turns=4, time_limit=float(TIME_LIMIT))
        path = write_config(tmp_path / kind, cfg)
        out = tmp_path / kind / "out"
        assert main(["tournament", str(path), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
        rows = read_standings(out)
        assert len(rows) == 2
        standings.append(rows)
        (match,) = [d for d in out.iterdir() if d.is_dir()]
        result = json.loads((match / "result.json").read_text())
        assert len(result["rounds"]) == 3
        for rnd in result["rounds"]:
            lines = [json.loads(x) for x in (match / rnd["replay"]).read_text().splitlines()]
            for rec in lines[1:]:
                assert "TLE" not in rec["verdicts"] and "IE" not in rec["verdicts"]
    assert standings[0] == standings[1]


def test_sandbox_info_says_how_exes_run(exes: Exes, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox-info", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)["windows_programs"]
    assert line.startswith("Windows programs (.exe): through wine") and "64-bit" in line


def test_two_teams_bot_exe_play_under_their_folders_names(exes: Exes, tmp_path: Path) -> None:
    """Two teams hand in a bot.exe each; the standings name the teams, not 'bot'
    and 'bot-2'."""
    for team in ("Rồng Biển", "Cá Mập"):
        (tmp_path / team).mkdir()
        shutil.copy(exes.cpp / "bot.exe", tmp_path / team / "bot.exe")
    out = tmp_path / "out"
    argv = [str(tmp_path / "Rồng Biển" / "bot.exe"), str(tmp_path / "Cá Mập" / "bot.exe")]
    assert main(["match", *argv, "--map", "m1", "--turns", "2", "--out", str(out), "--quiet"]) == 0
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert result["teams"] == ["Rồng Biển", "Cá Mập"]
