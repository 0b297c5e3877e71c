"""One core budget for the whole machine.

Two sandboxes (two judges, two cluster workers) on one machine lease each
core for a run through a lock file, so they never put two programs on one
core; a lease another process holds makes a run wait before its clock starts,
and the kernel gives it back when that process dies.  ``judge sandbox-info``
shows who holds which lease.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from judge.cli import main
from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.cores import CoreBudget, CorePlan
from judge.sandbox.leases import CoreLeases
from judge.sandbox.probe import P_MACHINE

pytestmark = pytest.mark.slow  # real programs

ROOT = Path(__file__).resolve().parents[2]

#: Burns its argument's seconds of CPU; MOVE.OUT: its start and end (CLOCK_MONOTONIC).
TIMED = """#!/usr/bin/env python3
import sys, time
start = time.monotonic()
t = time.process_time()
while time.process_time() - t < float(sys.argv[1]):
    pass
open("MOVE.OUT", "w").write(f"{start} {time.monotonic()}")
"""

HOLDER = """
import sys, time
from judge.sandbox.leases import CoreLeases
core = int(sys.argv[1])
leases = CoreLeases((core,))
while not leases.try_take(core, "held by the test"):  # another judge's run, for a moment
    time.sleep(0.01)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
print(time.monotonic(), flush=True)
"""


def _bot(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "timed.py").write_text(TIMED)
    (folder / "timed.py").chmod(0o755)
    return folder


def _core() -> int:
    return max(os.sched_getaffinity(0))


def test_two_sandboxes_never_run_two_programs_on_one_core(tmp_path: Path) -> None:
    core = _core()
    bot = _bot(tmp_path)
    spans: list[tuple[float, float]] = []
    results = []

    def play(sb: Sandbox) -> None:
        with sb.seat("s", bot) as seat:
            run = seat.run_turn(
                [str(seat.program_dir / "timed.py"), "0.4"], {}, ["MOVE.OUT"], Limits()
            )
        results.append(run.result)
        start, end = (float(x) for x in (run.outputs["MOVE.OUT"] or b"0 0").split())
        spans.append((start, end))

    with Sandbox(cores=f"{core}-{core}") as a, Sandbox(cores=f"{core}-{core}") as b:
        assert a.cores.leases is not None and a.cores.leases.folder == b.cores.leases.folder
        threads = [threading.Thread(target=play, args=(sb,)) for sb in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.OK]
    first, second = sorted(spans)
    assert first[1] <= second[0], f"two programs ran on core {core} at once: {spans}"
    for r in results:  # each had its core to itself
        assert r.wall_s < r.cpu_s * 1.25 + 0.05, (r.wall_s, r.cpu_s)


@pytest.mark.alone  # takes a machine-wide lease the other test process may be holding
def test_a_lease_held_elsewhere_is_waited_for_and_shown_by_sandbox_info(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    core = _core()
    bot = _bot(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(core), "1.0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert main(["sandbox-info", "--cores", f"{core}-{core}", "--json"]) == 0
        held = json.loads(capsys.readouterr().out)["core_leases_held"]
        held = [h for h in held if h["pid"] == holder.pid]  # not other judges' on this machine
        assert [h["core"] for h in held] == [core], held
        assert "held by the test" in held[0]["by"] and f"pid {holder.pid}" in held[0]["by"]
        with Sandbox(cores=f"{core}-{core}") as sb, sb.seat("s", bot) as seat:
            run = seat.run_turn(
                [str(seat.program_dir / "timed.py"), "0.05"], {}, ["MOVE.OUT"], Limits()
            )
        released = float(holder.stdout.readline())
    finally:
        holder.kill()
        holder.wait()
    assert run.result.verdict is Verdict.OK, run.result.message
    start = float((run.outputs["MOVE.OUT"] or b"0").split()[0])
    assert start >= released, "the program started while another process held its core"


@pytest.mark.alone  # likewise, and lists every holder
def test_a_holder_that_dies_gives_its_lease_back(tmp_path: Path) -> None:
    core = _core()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(core), "600"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    leases = CoreLeases((core,))
    try:
        assert not leases.try_take(core)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        deadline = time.monotonic() + 5
        while not leases.try_take(core):
            assert time.monotonic() < deadline, "a dead process kept its lease"
            time.sleep(0.01)
        ours = [h.core for h in leases.holders() if h.pid == os.getpid()]
        assert ours == [core]  # ours now (other judges on the machine may hold other cores)
        leases.give_back(core)
        assert all(h.pid != os.getpid() for h in leases.holders())
    finally:
        leases.close()
        holder.stdout.close()


def test_the_isolation_report_names_the_machine_wide_budget(sandbox: Sandbox) -> None:
    item = sandbox.isolation.as_dict()[P_MACHINE]
    assert sandbox.cores.leases is not None
    assert item["on"] is sandbox.cores.leases.shared
    assert sandbox.cores.leases.folder in item["detail"]
    off = Sandbox(core_leases=False)
    try:
        assert off.isolation.as_dict()[P_MACHINE]["on"] is False
        assert "other judges" in off.isolation.as_dict()[P_MACHINE]["detail"]
    finally:
        off.close()


BUSY_JUDGE = """
import sys, threading, time
from judge.sandbox.cores import CoreBudget, CorePlan
from judge.sandbox.leases import CoreLeases
core, seconds, folder = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
budget = CoreBudget(CorePlan((core,), (), "test"), CoreLeases((core,), folder))
end = time.monotonic() + seconds
def rounds():
    while time.monotonic() < end:
        with budget.core("busy judge"):
            time.sleep(0.05)
threads = [threading.Thread(target=rounds) for _ in range(4)]
for t in threads:
    t.start()
print("busy", flush=True)
for t in threads:
    t.join()
"""


@pytest.mark.alone  # times waits to 0.5 s
def test_a_judge_with_many_rounds_takes_turns_with_another(tmp_path: Path) -> None:
    """A judge that gives a core back and has runs waiting must not take it straight back
    while another judge waits for it: the processes take turns.  The two judges share a
    lease folder of their own: a bot of any other judge on the machine (another test
    process, another suite) would hold the core for up to 2 s and prove nothing."""
    core = _core()
    folder = str(tmp_path / "leases")
    busy = subprocess.Popen(
        [sys.executable, "-c", BUSY_JUDGE, str(core), "4", folder],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert busy.stdout is not None and busy.stdout.readline().strip() == "busy"
        budget = CoreBudget(CorePlan((core,), (), "test"), CoreLeases((core,), folder))
        waits = []
        try:
            for _ in range(5):
                t0 = time.monotonic()
                with budget.core("patient judge"):
                    waits.append(time.monotonic() - t0)
                    time.sleep(0.01)
        finally:
            budget.close()
        assert busy.poll() is None, "the busy judge finished first: the test proves nothing"
    finally:
        busy.kill()
        busy.wait()
    assert max(waits) < 0.5, waits  # one of the busy judge's runs (50 ms) and a little
