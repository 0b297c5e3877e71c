"""One bot lookup and one YAML reader for every configuration, and the messages they give.

A source file given as a bot is told how to build it (as the kits say), not to
``chmod +x``; a mistyped bot path in a configuration gets the closest path, not
the bundled bots' names; ``judge.yaml``, a league file and a ``bot.yaml`` all
refuse a key written twice.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from judge.bots import BotError, resolve_bot
from judge.bundled import nearest_path
from judge.league.config import load_league
from judge.tournament.config import ConfigError, load_config
from tests.tournament._helpers import BOTS, config_dict, write_config


@pytest.mark.parametrize(
    ("name", "language", "linux", "windows", "kit"),
    [
        (
            "bot.cpp",
            "C++",
            "g++ -std=c++17 -O2 -o bot bot.cpp",
            "x86_64-w64-mingw32-g++ -std=c++17 -O2 -static -o bot.exe bot.cpp",
            "template_cpp",
        ),
        ("mine.c", "C", "gcc -O2 -o mine mine.c", "gcc -O2 -static -o mine.exe mine.c", "greedy_c"),
        (
            "bot.pas",
            "Pascal",
            "fpc -O2 -obot bot.pas",
            "fpc -Px86_64 -Twin64 -O2 bot.pas",
            "template_pas",
        ),
    ],
)
def test_a_source_given_as_a_bot_is_told_how_to_build_it(
    tmp_path: Path, name: str, language: str, linux: str, windows: str, kit: str
) -> None:
    src = tmp_path / "Rồng Biển" / name
    src.parent.mkdir()
    src.write_text("int main() { return 0; }\n")
    for mode in (0o644, 0o755):  # executable or not, a source is not a program
        src.chmod(mode)
        with pytest.raises(BotError) as info:
            resolve_bot(str(src))
        msg = str(info.value)
        assert f"{language} source code, not a program: a source needs building" in msg
        assert linux in msg and windows in msg and kit in msg
        assert "chmod" not in msg and "#!" not in msg


def test_a_bot_yaml_that_runs_a_source_is_told_to_build_it(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.cpp").write_text("int main() {}\n")
    (folder / "bot.yaml").write_text("command: [bot.cpp]\n")
    with pytest.raises(BotError, match="C\\+\\+ source code.*'build:' step"):
        resolve_bot(str(folder))


def _contest(tmp_path: Path) -> Path:
    """A contest folder whose teams' programs are under teams/."""
    for team in ("rong_bien", "ca_map"):
        shutil.copytree(BOTS / "random", tmp_path / "teams" / team)
    return tmp_path


def test_a_mistyped_bot_path_in_a_configuration_gets_the_nearest_path(tmp_path: Path) -> None:
    root = _contest(tmp_path)
    data = config_dict(2)
    data["teams"][0]["bot"] = "teams/rong-bien"
    data["teams"][1]["bot"] = "teams/Ca_Map"  # another case
    with pytest.raises(ConfigError) as info:
        load_config(write_config(root, data))
    msg = str(info.value)
    assert "teams[0].bot: bot 'teams/rong-bien': no such file or folder" in msg
    assert "did you mean 'teams/rong_bien'?" in msg and "did you mean 'teams/ca_map'?" in msg
    assert "the bots are" not in msg and "greedy" not in msg.split("teams[1].bot", 1)[1]
    # a misspelt name still gets the names
    data["teams"][0]["bot"] = "gredy"
    with pytest.raises(ConfigError, match="bot 'gredy': no such bot; did you mean 'greedy'"):
        load_config(write_config(root, data))


def test_a_league_file_finds_bots_as_a_configuration_does(tmp_path: Path) -> None:
    root = _contest(tmp_path)
    league = root / "league.yaml"
    league.write_text(
        "seed: 1\nbots:\n  - {name: a, bot: teams/rong_bien}\n  - {name: b, bot: greedy}\n"
        "  - {name: c, bot: teams/ca-map}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as info:
        load_league(league)
    assert "did you mean 'teams/ca_map'?" in str(info.value) and "the league file" in str(
        info.value
    )
    league.write_text(league.read_text().replace("ca-map", "ca_map"), encoding="utf-8")
    cfg = load_league(league)
    assert [b.spec.source for b in cfg.bots] == ["teams/rong_bien", "greedy", "teams/ca_map"]
    assert cfg.bots[0].spec.home == (root / "teams" / "rong_bien").resolve()


def test_nearest_path() -> None:
    base = BOTS.parent
    assert nearest_path("bots/gredy/bot.py", base) == "bots/greedy/bot.py"
    assert nearest_path("./bots/randm", base) == "./bots/random"
    assert nearest_path(str(BOTS / "temlate"), base) == str(BOTS / "template")
    assert nearest_path("bots/greedy", base) is None  # nothing to correct
    assert nearest_path("nowhere/at/all", base) is None


@pytest.mark.parametrize("kind", ["tournament", "league", "bot.yaml"])
def test_a_key_written_twice_is_refused_in_every_configuration(tmp_path: Path, kind: str) -> None:
    if kind == "tournament":
        text = yaml.safe_dump(config_dict(2), sort_keys=False) + "seed: 7\n"
        with pytest.raises(ConfigError, match="'seed' appears twice"):
            load_config(write_config(tmp_path, text))
    elif kind == "league":
        f = tmp_path / "league.yaml"
        f.write_text("seed: 1\nseed: 2\nbots: [{name: a, bot: greedy}, {name: b, bot: random}]\n")
        with pytest.raises(ConfigError, match="'seed' appears twice"):
            load_league(f)
    else:
        folder = tmp_path / "mine"
        shutil.copytree(BOTS / "random", folder)
        with open(folder / "bot.yaml", "a", encoding="utf-8") as f:
            f.write("\ncommand: [python3, other.py]\n")
        with pytest.raises(BotError, match="'command' appears twice"):
            resolve_bot(str(folder))
