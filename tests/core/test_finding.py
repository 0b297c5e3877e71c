"""Bundled bots and maps from any folder, --bots-dir/--maps-dir, "did you mean".

The last test builds the package the way ``pip install .`` does (setup.py's
build step) in a temporary folder and runs the built judge from yet another
folder: the bundled bots and maps must travel inside the package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge import bundled
from judge.bots import BotError, resolve_bot
from judge.cli import main
from judge.maps import MapNotFound, resolve_map_path

ROOT = Path(__file__).resolve().parents[2]


def err_text(capsys: Any) -> str:
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.slow
def test_bundled_bots_and_maps_from_another_folder(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)  # no bots/ or maps/ here
    out = tmp_path / "out"
    argv = ["match", "greedy", "random", "--map", "m1", "--quiet", "--seed", "1", "--out", str(out)]
    assert main(argv) == 0
    assert (out / "result.json").is_file()
    assert resolve_bot("greedy").home == bundled.bundled_dir("bots") / "greedy"  # type: ignore[operator]


def test_a_misspelt_bot_gets_did_you_mean(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["match", "gredy", "random", "--map", "m1"]) == 2
    msg = err_text(capsys)
    assert "bot 'gredy': no such bot; did you mean 'greedy'" in msg
    listed = msg.split("the bots are: ", 1)[1].split(" (looked up in", 1)[0].split(", ")
    assert {"greedy", "greedy_c", "random"} <= set(listed) and listed == sorted(listed)
    assert "--bots-dir" in msg


def test_a_bare_folder_name_without_bot_yaml_says_what_it_lacks(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """A student's team folder named as written ("Rồng Biển", no slash) but
    without bot.yaml: the message names the folder and the missing file, not
    "no such bot" (which sent them looking for a typo)."""
    monkeypatch.chdir(tmp_path)
    team = tmp_path / "Rồng Biển"
    team.mkdir()
    (team / "bot.py").write_text("print('1 1')\n", encoding="utf-8")
    assert main(["match", "Rồng Biển", "random", "--map", "m1"]) == 2
    msg = err_text(capsys)
    assert f"bot 'Rồng Biển': the folder {team} has no bot.yaml" in msg
    assert "no such bot" not in msg
    # A bundled name still finds the bundled bot, even beside a folder of that name.
    (tmp_path / "greedy").mkdir()
    assert resolve_bot("greedy").home == bundled.bundled_dir("bots") / "greedy"  # type: ignore[operator]


def test_a_missing_map_lists_the_maps_and_suggests_no_invalid_maps(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["match", "greedy", "random", "--map", "m11"]) == 2
    msg = err_text(capsys)
    assert "map 'm11': no such map; did you mean 'm1'?" in msg
    assert "the maps are: m1, m2, m3, m4, m5" in msg
    assert "allow-invalid-map" not in msg
    # A map that exists but breaks the limits still gets the hint.
    bad = tmp_path / "bad.txt"
    bad.write_text("5 5 10\n" + "0 0 0 0 0\n" * 5)
    assert main(["match", "greedy", "random", "--map", str(bad)]) == 2
    assert "--allow-invalid-map" in err_text(capsys)


def test_own_folders_come_before_the_bundled_ones(tmp_path: Path, monkeypatch: Any) -> None:
    mine = tmp_path / "mine"
    (mine / "greedy").mkdir(parents=True)
    (mine / "greedy" / "bot.yaml").write_text("name: my greedy\ncommand: [python3, bot.py]\n")
    (mine / "greedy" / "bot.py").write_text("print('hi')\n")
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "maps" / "m2.txt", tmp_path / "maps" / "m1.txt")
    monkeypatch.chdir(tmp_path)
    assert resolve_bot("greedy", [mine]).name == "my greedy"
    assert resolve_bot("random", [mine]).home == bundled.bundled_dir("bots") / "random"  # type: ignore[operator]
    assert resolve_map_path("m1") == Path("maps") / "m1.txt"  # ./maps before the bundled maps
    assert resolve_map_path("m3").resolve() == (ROOT / "maps" / "m3.txt").resolve()
    with pytest.raises(MapNotFound):
        resolve_map_path("zz")
    with pytest.raises(BotError, match="did you mean 'greedy'"):
        resolve_bot("greedyy", [mine])


@pytest.mark.slow
def test_match_takes_bots_dir_and_maps_dir(tmp_path: Path, monkeypatch: Any) -> None:
    own_maps = tmp_path / "my maps"
    own_maps.mkdir()
    shutil.copy(ROOT / "maps" / "m2.txt", own_maps / "sea.txt")
    own_bots = tmp_path / "my bots"
    shutil.copytree(ROOT / "bots" / "random", own_bots / "rnd")
    monkeypatch.chdir(tmp_path)
    argv = ["match", "rnd", "greedy", "--map", "sea", "--quiet", "--out", str(tmp_path / "o")]
    assert main([*argv, "--bots-dir", str(own_bots), "--maps-dir", str(own_maps)]) == 0


@pytest.mark.slow
def test_the_built_package_carries_the_bundled_bots_and_maps(tmp_path: Path) -> None:
    """What ``pip install .`` installs: setup.py's build step, then the judge run elsewhere."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("judge", "bots", "maps"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    (src / "bots" / "greedy_c" / "greedy").write_bytes(b"built here: must not ship")
    lib = tmp_path / "lib"
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    shipped = lib / "judge" / "shipped"
    assert (shipped / "bots" / "greedy" / "bot.yaml").is_file()
    assert (shipped / "maps" / "m1.txt").is_file()
    assert (shipped / "maps" / "organiser" / "final.txt").is_file()
    assert not (shipped / "bots" / "greedy_c" / "greedy").exists()  # built where it runs

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(lib))
    where = subprocess.run(
        [sys.executable, "-c", "from judge import bundled; print(bundled.bundled_dir('bots'))"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip() == str(shipped / "bots"), where.stderr
    run = subprocess.run(
        [sys.executable, "-m", "judge", "match", "greedy", "random", "--map", "m1", "--quiet"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "greedy" in run.stdout and "points" in run.stdout
