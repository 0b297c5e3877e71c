"""A run the machine kept waiting for a CPU is retried, never held against the bot.

The referee runs a ``kept_waiting`` IE again after a pause (a burst of load
elsewhere passes), up to BUSY_RETRIES times, and notes each retry in the
seat's stderr.log; only the run that counts is in the replay.  First with a
scripted seat (exact counts), then for real: an outside CPU hog on the one
core of the sandbox while a round starts.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

import judge.referee as referee
import judge.sandbox.pair as sandbox_pair
from judge.bots import BotSpec
from judge.maps import load_map
from judge.referee import RoundAborted, RoundConfig, play_round
from judge.sandbox import Limits, RunResult, Sandbox, TurnRun, Verdict
from tests.referee.fakes import FakeSandbox, FakeSeat, scripted, spec
from tests.sandbox.sandbox_support import start_hog

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "sandbox" / "fixtures"


class _FlakySandbox(FakeSandbox):
    """Seat ``a`` fails its first ``fails`` runs with an IE (kept waiting, or not)."""

    def __init__(self, fails: int, kept_waiting: bool):
        super().__init__({"a": scripted(["1 1"] * 50), "b": scripted(["1 1"] * 50)})
        self.fails, self.kept_waiting = fails, kept_waiting
        self.attempts = 0

    def seat(self, name: str, *args: Any, **kwargs: Any) -> FakeSeat:
        seat = super().seat(name, *args, **kwargs)
        if name != "a":
            return seat
        real = seat.run_turn

        def run_turn(
            argv: Any, inputs: Any, outputs: Any, limits: Limits, *, starting: Any = None, **_: Any
        ) -> TurnRun:
            if starting is not None:
                starting()
            self.attempts += 1
            if self.attempts <= self.fails:
                why = "kept waiting 0.500 s for a CPU" if self.kept_waiting else "helper broke"
                r = RunResult(Verdict.IE, 2.5, 1.0, 0, None, None, b"", b"", why)
                r = RunResult(*r.__dict__.values())  # a plain copy, then the flag
                object.__setattr__(r, "kept_waiting", self.kept_waiting)
                return TurnRun(r, {}, ())
            return real(argv, inputs, outputs, limits)

        seat.run_turn = run_turn  # type: ignore[method-assign]
        return seat


def _cfg(turns: int = 2) -> RoundConfig:
    return RoundConfig(
        game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=3, turns=turns
    )


def _verdicts(out: Path) -> list[str]:
    lines = (out / "replay.jsonl").read_text().splitlines()[1:]
    return [v for line in lines for v in json.loads(line)["verdicts"] if v is not None]


def test_kept_waiting_is_retried_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_pair, "BUSY_PAUSE_S", 0.0)
    sb = _FlakySandbox(fails=referee.BUSY_RETRIES, kept_waiting=True)
    play_round(_cfg(), [spec("a"), spec("b")], ["a", "b"], sb, tmp_path)  # type: ignore[arg-type]
    assert set(_verdicts(tmp_path)) == {"OK"}
    log = (tmp_path / "a" / "stderr.log").read_text()
    assert log.count("IE (kept waiting 0.500 s for a CPU); run again") == referee.BUSY_RETRIES


def test_kept_waiting_too_often_abandons_the_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_pair, "BUSY_PAUSE_S", 0.0)
    sb = _FlakySandbox(fails=referee.BUSY_RETRIES + 1, kept_waiting=True)
    with pytest.raises(RoundAborted, match="kept waiting"):
        play_round(_cfg(), [spec("a"), spec("b")], ["a", "b"], sb, tmp_path)  # type: ignore[arg-type]


def test_other_judge_failures_keep_their_single_retry(tmp_path: Path) -> None:
    sb = _FlakySandbox(fails=referee.IE_RETRIES + 1, kept_waiting=False)
    with pytest.raises(RoundAborted, match="helper broke"):
        play_round(_cfg(), [spec("a"), spec("b")], ["a", "b"], sb, tmp_path)  # type: ignore[arg-type]
    assert sb.attempts == referee.IE_RETRIES + 1


@pytest.mark.alone  # the hog takes a core from whatever runs there
def test_an_outside_hog_gives_ie_and_retry_not_tle(tmp_path: Path) -> None:
    core = max(os.sched_getaffinity(0))
    hog = start_hog(core, seconds=1.2)  # on the sandbox's one core, for the first 1.2 s
    bot = BotSpec("burn", "burn", FIXTURES, ("python3", "burn.py", "0.2"))
    cfg = RoundConfig(
        game_map=load_map(ROOT / "maps" / "m1.txt"),
        map_label="m1",
        seed=3,
        turns=2,
        limits=Limits(time_s=0.4),  # 0.2 s of CPU: fine alone, not with a third of a core
    )
    try:
        with Sandbox(cores=f"{core}-{core}") as sb:
            t0 = time.monotonic()
            play_round(cfg, [bot, bot], ["a", "b"], sb, tmp_path)
            assert time.monotonic() - t0 > 1.0  # it did wait the hog out
    finally:
        hog.kill()
        hog.wait()
    verdicts = _verdicts(tmp_path)
    assert verdicts and set(verdicts) == {"OK"}, verdicts
    logs = (tmp_path / "a" / "stderr.log").read_text() + (tmp_path / "b" / "stderr.log").read_text()
    assert "for a CPU that something else held" in logs and "; run again" in logs
    assert "TLE" not in logs
