"""``judge check-bot`` on a Windows program that crashes: the exception by name, as
``judge match`` names it, with its likely cause (never 'exits with a non-zero status')."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.bots import resolve_bot
from judge.checkbot import battery, check_bot
from judge.sandbox import Limits, Sandbox

from .conftest import Exes

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


@pytest.mark.parametrize(
    "mode, words",
    [("av", "a Windows access violation"), ("div", "a Windows integer divide by zero")],
)
def test_a_windows_crash_is_named_with_its_likely_cause(
    exes: Exes, wine_sandbox: Sandbox, tmp_path: Path, mode: str, words: str
) -> None:
    folder = tmp_path / mode
    folder.mkdir()
    shutil.copy(exes.hostile / "hostile.exe", folder / "hostile.exe")
    (folder / "bot.yaml").write_text(f"name: {mode}\ncommand: [hostile.exe, {mode}]\n")
    first = [s for s in battery() if s.key == "placement"]
    (res,) = check_bot(resolve_bot(str(folder)), wine_sandbox, Limits(time_s=10.0), first)
    (finding,) = [f for f in res.findings if f.level == "error"]
    assert res.facts.verdict == "RE"
    assert finding.cause is not None and finding.cause.startswith(words), finding.cause
    assert "non-zero status" not in finding.cause
