"""A Windows program carries nothing from run to run but its keep file.

* Whatever it leaves in wine (registry values, global atoms) is gone by its next
  run: each run starts on a fresh wineserver loaded with the template's registry.
* A run the judge discards (IE) is rolled back for an .exe as for a native
  program: a round of a counting .exe against its native twin is move for move
  the same with every third run discarded.
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
from judge.sandbox import Limits, RunResult, Sandbox, Verdict
from tests.referee.game_trace import game_trace
from tests.windows.conftest import Exes

pytestmark = pytest.mark.slow  # real programs under wine

ROOT = Path(__file__).resolve().parents[2]
MAP_INP = (ROOT / "tests" / "fixtures" / "counting" / "map.inp").read_bytes()


def test_an_exe_finds_nothing_of_its_earlier_runs_in_wine(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    with wine_sandbox.seat("reg", exes.counting, keep="STATE.OUT", keep_bytes=2**20) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "counting.exe"), "0", "reg"]
        seen = []
        for _ in range(6):
            run = seat.run_turn(argv, {"MAP.INP": MAP_INP}, ["MOVE.OUT"], Limits())
            assert run.result.verdict is Verdict.OK, run.result.message
            seen.append(run.result.stderr_tail.decode().strip())
    # STATE.OUT carries the count; the registry and the atom table start afresh every run
    assert seen == [f"runs={n} registry=1 atoms=1" for n in range(1, 7)]


def _round(out: Path, sb: Sandbox, exes: Exes) -> list[dict[str, Any]]:
    exe = BotSpec("exe", "exe", exes.counting, ("counting.exe", "0", "reg"))
    native = BotSpec("native", "native", exes.counting_native, ("./counting",))
    cfg = RoundConfig(game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=5, turns=4)
    play_round(cfg, [exe, native], ["exe", "native"], sb, out)
    return game_trace(out / "replay.jsonl")


def test_a_round_with_discarded_exe_runs_is_the_round_without_them(
    wine_sandbox: Sandbox, exes: Exes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = _round(tmp_path / "quiet", wine_sandbox, exes)
    real: Callable[..., RunResult] = seat_module.decide
    calls = [0]

    def decide(*args: Any, **kwargs: Any) -> RunResult:
        result = real(*args, **kwargs)
        calls[0] += 1
        if calls[0] % 3 == 0:  # the program really ran (and wrote its state), then discarded
            return dataclasses.replace(
                result, verdict=Verdict.IE, message="forced", kept_waiting=True
            )
        return result

    monkeypatch.setattr(seat_module, "decide", decide)
    monkeypatch.setattr(sandbox_pair, "BUSY_PAUSE_S", 0.0)
    retried = _round(tmp_path / "retried", wine_sandbox, exes)
    logs = "".join(p.read_text() for p in (tmp_path / "retried").rglob("stderr.log"))
    assert logs.count("run again") >= 4
    assert retried == quiet
    assert {v for t in quiet for v in t["verdicts"] if v} == {"OK"}
