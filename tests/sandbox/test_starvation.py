"""The machine's starvation of ordinary processes is given back like waiting.

Real-time load on every core starves every ordinary process, kernel threads
included; a program that needs one of them, or a lock one of them holds,
sleeps until the load ends, and its own counters call that "sleeping or
blocked".  The judge's :class:`~judge.sandbox.starvation.Canary` sees such
episodes (its own time runnable but off every CPU), and
:class:`~judge.sandbox.starvation.StarvationMeter` gives their time inside a
run back to it, capped by the time the program did not run.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.cores import BOT_NICE, JudgePin
from judge.sandbox.starvation import EPISODE_S, PERIOD_S, Canary, StarvationMeter
from tests.sandbox.sandbox_support import ScriptedMeter


def canary_with(*episodes: tuple[float, float]) -> Canary:
    """A canary that saw these (end, length) episodes, its thread not started."""
    canary = Canary()
    canary._episodes = list(episodes)
    return canary


def test_only_the_part_of_an_episode_inside_the_interval_counts() -> None:
    canary = canary_with((10.0, 0.3), (20.0, 0.05))
    assert canary.starved_s(0.0, 30.0) == pytest.approx(0.35)
    assert canary.starved_s(9.8, 30.0) == pytest.approx(0.2 + 0.05)
    assert canary.starved_s(9.8, 9.9) == pytest.approx(0.1)
    assert canary.starved_s(10.0, 19.0) == 0.0


def test_a_run_the_machine_starved_is_given_the_starvation_back() -> None:
    now = time.monotonic()
    # The run started 0.53 s ago; 0.34 s of it the machine starved ordinary processes.
    canary = canary_with((now - 0.05, 0.34))
    meter = StarvationMeter(ScriptedMeter(0.01, 0.18), canary, time_s=0.5)
    assert meter.read(0.53) == pytest.approx(0.34, abs=0.01)
    assert "starvation" in meter.source


def test_starvation_is_capped_by_the_time_the_program_did_not_run() -> None:
    now = time.monotonic()
    canary = canary_with((now, 0.5))
    meter = StarvationMeter(ScriptedMeter(0.0, 0.4), canary, time_s=0.5)
    assert meter.read(0.6) == pytest.approx(0.2, abs=0.01)  # 0.6 s, 0.4 s of it CPU


def test_without_starvation_the_runs_own_waiting_stands() -> None:
    canary = canary_with()
    assert StarvationMeter(ScriptedMeter(0.07, 0.3), canary, 0.5).read(0.45) == 0.07
    assert StarvationMeter(ScriptedMeter(None, None), canary, 0.5).read(0.45) is None
    # an episode before the run does not count
    old = canary_with((time.monotonic() - 5.0, 1.0))
    assert StarvationMeter(ScriptedMeter(0.07, 0.3), old, 0.5).read(0.45) == 0.07


def test_a_quiet_canary_sees_no_episode_and_stops() -> None:
    canary = Canary()
    try:
        assert canary.start()
        since = time.monotonic()
        time.sleep(0.15)
        canary.settle(time.monotonic())
        assert canary.starved_s(since) < EPISODE_S * 5  # a loaded test machine: a few ms
    finally:
        canary.close()
    assert canary._threads and not any(t.is_alive() for t in canary._threads)


BURST = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
if sys.argv[3] == "cue":  # ready: the start comes on stdin
    print("ready", flush=True)
    sys.argv[3] = sys.stdin.readline()
begin = float(sys.argv[3])  # every core's burst at once (CLOCK_MONOTONIC is system-wide)
while time.monotonic() < begin:
    time.sleep(0.001)
end = begin + float(sys.argv[2])
while time.monotonic() < end:
    pass
"""


def start_bursts(cores: list[int], seconds: float) -> tuple[list[subprocess.Popen[bytes]], float]:
    """Real-time bursts of ``seconds`` on ``cores``, all beginning together once every
    one has started (an interpreter's start-up under load is not a fixed time): the
    processes, and the monotonic time they begin."""
    bursts = [
        subprocess.Popen(
            [sys.executable, "-c", BURST, str(core), str(seconds), "cue"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for core in cores
    ]
    try:
        for b in bursts:
            assert b.stdout is not None and b.stdout.readline() == b"ready\n"
        begin = time.monotonic() + 0.05
        for b in bursts:
            assert b.stdin is not None
            b.stdin.write(f"{begin!r}\n".encode())
    finally:
        for b in bursts:  # sent, or an end of file that stops a burst still waiting
            assert b.stdin is not None
            b.stdin.close()
    return bursts, begin


def starved_in_bursts(cores: list[int]) -> float:
    """The starvation a canary sees while 0.25 s of real-time load runs on ``cores``
    (all at once)."""
    canary = Canary()
    try:
        assert canary.start()
        time.sleep(0.05)
        since = time.monotonic()
        bursts, _ = start_bursts(cores, 0.25)
        for b in bursts:
            assert b.wait(timeout=30) == 0
        canary.settle(time.monotonic())
        return canary.starved_s(since)
    finally:
        canary.close()


@pytest.mark.alone  # real-time load on every core
@pytest.mark.root("real-time load needs CAP_SYS_NICE")
def test_the_canary_sees_real_time_load_on_every_core() -> None:
    starved = starved_in_bursts(sorted(os.sched_getaffinity(0)))
    assert 0.15 <= starved <= 0.5, starved


def test_every_core_has_its_canary_not_only_the_judges() -> None:
    usable = os.sched_getaffinity(0)
    if len(usable) < 2:
        pytest.skip("needs two cores")
    pin = JudgePin([min(usable)])  # as a Sandbox pins the judge's threads
    canary = Canary()
    try:
        assert canary.start()
        deadline = time.monotonic() + 5
        held: list[set[int]] = []
        while time.monotonic() < deadline:
            held = [os.sched_getaffinity(t.native_id or 0) for t in canary._threads]
            if all(len(h) == 1 for h in held):
                break
            time.sleep(0.005)
        assert sorted(min(h) for h in held) == sorted(usable)
        assert all(len(h) == 1 for h in held)
    finally:
        canary.close()
        pin.restore()
    assert not canary.start()  # closed for good


def test_overlapping_episodes_of_two_cores_count_once() -> None:
    canary = canary_with((10.0, 0.3), (10.1, 0.3), (20.0, 0.1))
    assert canary.starved_s(0.0, 30.0) == pytest.approx(0.4 + 0.1)


HOG = """
import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
os.setpriority(os.PRIO_PROCESS, 0, int(sys.argv[2]))
while True:
    pass
"""


@pytest.mark.alone  # real-time load on a core
@pytest.mark.root("real-time load needs CAP_SYS_NICE")
def test_the_canary_sees_real_time_load_on_one_core() -> None:
    """The kernel's workers of that core starve with it, and a program on another core
    can wait for them: one core's starvation counts."""
    starved = starved_in_bursts([max(os.sched_getaffinity(0))])
    assert 0.15 <= starved <= 0.5, starved


@pytest.mark.alone  # real-time load on a core
@pytest.mark.root("real-time load needs CAP_SYS_NICE")
def test_a_starvation_still_going_on_at_a_deadline_counts() -> None:
    """A burst longer than settle()'s wait keeps that core's canary from reporting until
    it ends; read at a deadline inside the burst, the canary's silence while runnable
    is the starvation so far (a 0.35 s burst over a run's deadline made a TLE)."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        pytest.skip("needs two cores")
    canary = Canary()
    try:
        assert canary.start()
        os.sched_setaffinity(0, {usable[0]})  # this thread reads beside the burst
        (burst,), begin = start_bursts([usable[-1]], 0.8)
        try:
            while time.monotonic() < begin + 0.3:
                time.sleep(0.01)
            canary.settle(time.monotonic() - canary.period_s)
            starved = canary.starved_s(begin - 0.05)
            read = time.monotonic()
        finally:
            burst.wait(timeout=30)
        assert burst.returncode == 0
        assert read < begin + 0.8, f"read {read - begin:.3f} s into a 0.8 s burst: after it"
        assert 0.25 <= starved <= read - begin + 0.05, starved
    finally:
        os.sched_setaffinity(0, set(usable))
        canary.close()


def test_a_silent_canary_counts_only_if_it_has_not_run_through_the_wait_and_is_runnable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Silent since its beat, it is starved now only when it has not been on a CPU through
    settle()'s wait (its count of runs the same as when the wait began) and is runnable:
    one asking for the judge's interpreter lock wakes to ask again (its count moves) and
    may show R while it asks; the silence counted is from its last beat."""
    import judge.sandbox.starvation as starvation

    now = time.monotonic()
    for runs_now, state, counted in ((7, "R", True), (8, "R", False), (7, "S", False)):
        canary = Canary()
        canary._threads = [None]  # type: ignore[list-item]  # as if started
        canary._beats, canary._tids = {0: now - 0.3}, {0: 1234}
        monkeypatch.setattr(starvation, "_task_runs", lambda tid: 7)
        runs = canary._silent_runs(now - 0.1)
        assert runs == {0: 7} and canary._silent_runs(now - 0.4) == {}
        monkeypatch.setattr(starvation, "_task_runs", lambda tid, n=runs_now: n)
        monkeypatch.setattr(starvation, "thread_state", lambda tid, st=state: st)
        canary._count_silent(now - 0.1, runs)
        starved = canary.starved_s(now - 1.0)
        if counted:
            assert 0.25 <= starved <= 0.3 + (time.monotonic() - now), starved
        else:
            assert starved == 0.0, (runs_now, state)


def test_the_judge_holding_its_interpreter_lock_is_no_starvation() -> None:
    """A judge thread that keeps the interpreter lock 0.5 s (no switch) keeps the canaries
    from beating, but not off a CPU: no episode, even read while they are still silent."""
    canary = Canary()
    interval = sys.getswitchinterval()
    try:
        assert canary.start()
        time.sleep(0.1)
        since = time.monotonic()
        sys.setswitchinterval(5.0)
        try:
            while time.monotonic() < since + 0.4:
                pass
            at = time.monotonic() - 0.1
            runs = canary._silent_runs(at)  # then settle()'s wait, the lock still held
            while time.monotonic() < since + 0.5:
                pass
            canary._count_silent(at, runs)
        finally:
            sys.setswitchinterval(interval)
        # A loaded test machine may make a short real episode; the false one was ~0.4 s.
        assert canary.starved_s(since) < 0.1, canary._episodes
    finally:
        canary.close()


@pytest.mark.alone  # busy programs on every core
@pytest.mark.root("programs at the bots' nice need root")
def test_busy_programs_at_the_bots_priority_on_every_core_are_no_starvation() -> None:
    """A bot cannot make the judge give it time back: at nice BOT_NICE, one busy program
    on every core keeps an ordinary thread waiting a few milliseconds, never an episode."""
    hogs = [
        subprocess.Popen([sys.executable, "-c", HOG, str(core), str(BOT_NICE)])
        for core in sorted(os.sched_getaffinity(0))
    ]
    canary = Canary()
    try:
        time.sleep(0.1)
        assert canary.start()
        since = time.monotonic()
        time.sleep(0.8)
        canary.settle(time.monotonic())
        assert canary.starved_s(since) == 0.0
    finally:
        canary.close()
        for h in hogs:
            h.kill()
            h.wait()


@pytest.mark.root("programs run as a seat's own uid")
def test_a_program_cannot_make_itself_real_time(tmp_path: Path) -> None:
    """Whatever real-time limit the judge has, its programs have none (RLIMIT_RTPRIO 0):
    a program that could make itself real-time would starve the machine, and the judge
    gives starvation back."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "rt.py").write_text(
        "import os, resource\n"
        "limit = resource.getrlimit(resource.RLIMIT_RTPRIO)\n"
        "try:\n"
        "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        "    said = 'real-time'\n"
        "except OSError as exc:\n"
        "    said = f'refused {exc.errno}'\n"
        "open('MOVE.OUT', 'w').write(f'{limit[0]} {limit[1]} {said}')\n"
    )
    saved = resource.getrlimit(resource.RLIMIT_RTPRIO)
    try:  # where root may (CAP_SYS_RESOURCE), the judge's own limit is raised
        resource.setrlimit(resource.RLIMIT_RTPRIO, (50, 50))
    except (ValueError, OSError):
        pass
    try:
        with Sandbox() as sb, sb.seat("rt", bot) as seat:
            assert seat.program_dir is not None
            assert ("rtprio", 0) in seat._spawn(["x"], Limits()).rlimits
            run = seat.run_turn(
                ["/usr/bin/python3", str(seat.program_dir / "rt.py")], {}, ["MOVE.OUT"], Limits()
            )
    finally:
        resource.setrlimit(resource.RLIMIT_RTPRIO, saved)
    assert run.result.verdict is Verdict.OK, run.result.message
    said = run.outputs["MOVE.OUT"]
    assert said is not None and said.startswith(b"0 0 refused"), said


def test_on_many_cores_the_canaries_wake_less_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge on 32 cores wakes 32 canaries a quarter as often as on 8 or fewer."""
    monkeypatch.setattr(JudgePin, "before_pinning", classmethod(lambda cls: set(range(32))))
    canary = Canary()
    try:
        assert canary.start()
        assert len(canary._threads) == 32
        assert canary.period_s == pytest.approx(4 * PERIOD_S)
    finally:
        canary.close()
    few = Canary()
    monkeypatch.setattr(JudgePin, "before_pinning", classmethod(lambda cls: {0, 1}))
    try:
        assert few.start()
        assert few.period_s == PERIOD_S
    finally:
        few.close()
