"""The starter kits are folders a student copies and renames: each is whole on its own.

A kit's ``bot.yaml`` names no team (the bot takes its folder's name, so two
students' copies do not collide) and names no file outside its folder (a copy
elsewhere, or a bundle shipped to a cluster worker, still builds).  The .exe kit
carries the same C++ source as the native one, so the two do not drift apart.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from judge.bots import resolve_bot

ROOT = Path(__file__).resolve().parents[2]
KITS = ("template", "template_cpp", "template_cpp_exe", "template_pas")


def _tokens(spec: dict[str, Any]) -> list[str]:
    """Every word of the run and build commands, the sources and the output."""
    build = spec.get("build") or {}
    words = [spec["command"], build.get("command", []), build.get("sources", [])]
    words.append([build["output"]] if "output" in build else [])
    return [str(t) for part in words for t in part]


@pytest.mark.parametrize("kit", KITS)
def test_a_kit_names_no_team_and_no_file_outside_its_folder(kit: str) -> None:
    spec = yaml.safe_load((ROOT / "bots" / kit / "bot.yaml").read_text(encoding="utf-8"))
    assert "name" not in spec
    for tok in _tokens(spec):
        assert ".." not in Path(tok).parts and not Path(tok).is_absolute(), (kit, tok)


def test_the_exe_kit_carries_the_cpp_kits_source() -> None:
    native = (ROOT / "bots" / "template_cpp" / "bot.cpp").read_bytes()
    assert (ROOT / "bots" / "template_cpp_exe" / "bot.cpp").read_bytes() == native


def test_a_copied_kit_takes_its_folders_name(tmp_path: Path) -> None:
    mine = tmp_path / "Rồng Biển"
    shutil.copytree(ROOT / "bots" / "template", mine)
    assert resolve_bot(str(mine)).name == "Rồng Biển"
