"""A round with runs the judge discarded (IE) is the round without them.

Both bots count their runs in STATE.OUT and choose every move from the count,
so a discarded run that left its STATE.OUT behind would change every later
move.  The IE is forced after real runs (the program ran and wrote its state);
the referee runs it again, and the round must be move for move the one played
without any IE.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import judge.sandbox.pair as sandbox_pair
import judge.sandbox.seat as seat_module
from judge.bots import BotSpec
from judge.maps import load_map
from judge.referee import RoundConfig, play_round
from judge.sandbox import RunResult, Sandbox, Verdict
from tests.referee.game_trace import game_trace

pytestmark = pytest.mark.slow  # real programs

ROOT = Path(__file__).resolve().parents[2]
COUNTING = ROOT / "tests" / "fixtures" / "counting"


def _play(out: Path, sandbox: Sandbox) -> list[dict[str, Any]]:
    bot = BotSpec("counting", "counting", COUNTING, ("python3", "counting.py"))
    cfg = RoundConfig(game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=5, turns=8)
    play_round(cfg, [bot, bot], ["a", "b"], sandbox, out)
    return game_trace(out / "replay.jsonl")


def test_discarded_runs_leave_the_round_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Sandbox() as sb:
        quiet = _play(tmp_path / "quiet", sb)
        real: Callable[..., RunResult] = seat_module.decide
        calls = [0]

        def decide(*args: Any, **kwargs: Any) -> RunResult:
            result = real(*args, **kwargs)
            calls[0] += 1
            if calls[0] % 3 == 0:  # every third run really ran, then is discarded
                return dataclasses.replace(
                    result, verdict=Verdict.IE, message="forced", kept_waiting=True
                )
            return result

        monkeypatch.setattr(seat_module, "decide", decide)
        monkeypatch.setattr(sandbox_pair, "BUSY_PAUSE_S", 0.0)
        retried = _play(tmp_path / "retried", sb)
    logs = "".join(p.read_text() for p in (tmp_path / "retried").rglob("stderr.log"))
    assert logs.count("run again") >= 4  # the IEs happened and were run again
    assert retried == quiet
    assert {v for t in quiet for v in t["verdicts"] if v} == {"OK"}
