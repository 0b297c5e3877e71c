"""check-bot's hints for a data file opened from the wrong folder, and the bot's own paths
in tracebacks, pure and through the real sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from judge.checkbot import RunFacts, battery, diagnose
from judge.cli import main
from judge.sandbox import Limits

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

LIMITS = Limits(time_s=2.0)

TRACEBACK = b"""Traceback (most recent call last):
  File "/var/lib/ocean-judge/sandbox-1-x/seat-a-1/prog/bot.py", line 1, in <module>
FileNotFoundError: [Errno 2] No such file or directory: '%s'
"""


def crashed(name: str, files: frozenset[str]) -> RunFacts:
    return RunFacts(
        "RE", 0.02, 0.02, 1 << 20, 1, None, "exited with code 1", b"",
        TRACEBACK % name.encode(), None, {}, False, (), files,
    )  # fmt: skip


def finding(f: RunFacts) -> Any:
    sit = {s.key: s for s in battery()}["reef"]
    (found,) = diagnose(sit, f, LIMITS).findings
    return found


def test_a_data_file_opened_by_a_bare_name() -> None:
    f = finding(crashed("weights.txt", frozenset({"bot.py", "data/weights.txt"})))
    assert f.tag == "data_file_cwd"
    assert "weights.txt is one of the bot's own files" in f.cause
    assert "the current folder is the team folder (where MAP.INP is), not the program's" in f.cause
    assert "os.path.dirname(os.path.abspath(__file__))" in f.cause
    other = finding(crashed("model.bin", frozenset({"bot.py"})))
    assert other.tag == "data_file_cwd" and "model.bin is not in the current folder" in other.cause
    state = finding(crashed("STATE.OUT", frozenset({"bot.py"})))
    assert state.tag == "state_missing" and "first run of a round" in state.cause
    # MAP.INP missing is its own diagnosis (opened elsewhere than the current folder).
    assert finding(crashed("MAP.INP", frozenset())).tag == "map_inp_not_found"


def make_bot(root: Path) -> Path:
    folder = root / "weights bot"
    folder.mkdir(parents=True)
    (folder / "bot.yaml").write_text("command: [python3, bot.py]\n")
    (folder / "bot.py").write_text('w = open("weights.txt").read()\n')
    (folder / "weights.txt").write_text("0.5\n")
    return folder


def test_check_bot_gives_the_hint_with_the_bots_own_paths(tmp_path: Path, capsys: Any) -> None:
    folder = make_bot(tmp_path)
    assert main(["check-bot", str(folder), "--show-input"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "the current folder is the team folder (where MAP.INP is), not the program's" in out
    assert f'File "{folder / "bot.py"}", line 1' in out  # the author's path
    assert "ocean-judge" not in out and "seat-" not in out  # never the sandbox's
    assert main(["check-bot", str(folder), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert all(str(folder / "bot.py") in s["stderr_tail"] for s in report["situations"])


def test_match_stderr_log_names_the_bots_own_paths(tmp_path: Path, capsys: Any) -> None:
    folder = make_bot(tmp_path)
    out = tmp_path / "out"
    argv = ["match", str(folder), "random", "--map", "m1", "--out", str(out), "--turns", "4"]
    assert main(argv) == 0
    log = (out / "round-1" / "weights_bot" / "stderr.log").read_text(encoding="utf-8")
    assert f'File "{folder / "bot.py"}"' in log and "seat-" not in log
    said = " ".join(capsys.readouterr().out.split())
    # Every move it was asked for (until a collision, perhaps) was void, for one reason.
    assert re.search(r"weights bot: (\d+) of \1 moves void: the program crashed \(RE\)", said)
    assert f"its error output is in {out / 'round-1' / 'weights_bot' / 'stderr.log'}" in said
