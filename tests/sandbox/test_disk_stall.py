"""A time-out the disk decided is run again a few times; the last run stands.

A program's folders are in memory, so a run stalled on the disk waited for its
interpreter, libraries or program file: read from a cold cache while the
machine's disk was busy (other judges, wine prefixes being made), and from the
cache when it runs again.  The stall is not given back as time (a program could
stall itself on purpose), so such a TLE is marked ``stalled_on_disk`` and run
again :data:`~judge.sandbox.pair.DISK_RETRIES` times, the runs thrown away
leaving STATE.OUT as they found it.  Real stalls: the fixture reads its
interpreter's file past the page cache (O_DIRECT), and the run's group's I/O
pressure says so (cgroup v2, as root).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sandbox_support import FIXTURES, KEEP_STATE, needs_root

import judge.sandbox.pair as pair
from judge.bots import BotSpec
from judge.maps import load_map
from judge.referee import RoundConfig, play_round
from judge.sandbox import Limits, RunResult, Sandbox, Verdict, run_retrying
from judge.sandbox.supervise import RawRun, Tail
from judge.sandbox.verdicts import disk_decided

ROOT = Path(__file__).resolve().parents[2]
HALF = Limits(time_s=0.5)


def _raw(wall: float, cpu: float, wait: float, stall: float | None) -> RawRun:
    return RawRun(None, 0, wall, cpu, Tail(10), Tail(10), wait_s=wait, io_stall_s=stall)


def test_the_disk_decides_a_time_out_only_when_without_its_stall_there_was_time_left() -> None:
    # A wine run the full suite's disk kept waiting: 0.03 s CPU, 0.45 s of 0.5 s stalled.
    assert disk_decided(_raw(0.5015, 0.0287, 0.0162, 0.45), HALF)
    # Asleep, or stalled only a little of its time: its own doing.
    assert not disk_decided(_raw(0.5015, 0.0287, 0.0162, None), HALF)
    assert not disk_decided(_raw(0.5015, 0.0287, 0.0162, 0.0), HALF)
    assert not disk_decided(_raw(0.5015, 0.0287, 0.0162, 0.01), HALF)
    # It spent its limit on a CPU: stalled or not, the time-out is its own.
    assert not disk_decided(_raw(0.5015, 0.49, 0.0, 0.3), HALF)
    # No time limit, nothing to decide.
    assert not disk_decided(_raw(0.5015, 0.0287, 0.0, 0.45), Limits(time_s=None))


@pytest.fixture
def quick_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pair, "BUSY_PAUSE_S", 0.01)


@needs_root
@pytest.mark.slow
def test_a_program_that_stalls_itself_every_time_is_tle_and_keeps_only_the_last_runs_state(
    sandbox: Sandbox, quick_pauses: None
) -> None:
    thrown: list[RunResult] = []
    with sandbox.seat("a", FIXTURES, **KEEP_STATE) as seat:
        argv = [str(seat.program_dir / "disk_stall.py")]
        for runs in (1, 2):
            run = run_retrying(seat, argv, {"MAP.INP": b"x"}, ["MOVE.OUT"], HALF, thrown.append)
            r = run.result
            assert r.verdict is Verdict.TLE and r.stalled_on_disk, r.message
            assert "stalled on the disk" in r.message
            # The runs thrown away left STATE.OUT as they found it; the one that stands did not.
            assert (seat.workdir / "STATE.OUT").read_text() == str(runs)
    assert len(thrown) == 2 * pair.DISK_RETRIES
    assert all(t.verdict is Verdict.TLE and t.stalled_on_disk for t in thrown)


@needs_root
@pytest.mark.slow
def test_a_round_whose_first_runs_the_disk_stalled_is_played_as_without_them(
    tmp_path: Path, quick_pauses: None
) -> None:
    cfg = RoundConfig(
        game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=3, turns=2, limits=HALF
    )
    with Sandbox() as sb:
        # Runs that start in the next second stall on the disk, later ones play: the first
        # run starts well within it, and the last one a seat may have is a second after it
        # (two stalled runs of 0.5 s before it).
        until = time.time() + 1.0
        bot = BotSpec("stall", "stall", FIXTURES, ("python3", "disk_stall.py", repr(until)))
        play_round(cfg, [bot, bot], ["a", "b"], sb, tmp_path)
    lines = (tmp_path / "replay.jsonl").read_text().splitlines()[1:]
    verdicts = [v for line in lines for v in json.loads(line)["verdicts"] if v is not None]
    assert verdicts and set(verdicts) == {"OK"}, verdicts
    log = (tmp_path / "a" / "stderr.log").read_text()
    assert "TLE (time limit 0.5 s exceeded" in log and "stalled on the disk); run again" in log
