"""The core budget and the CPU-wait meters, piece by piece.

Pure parts (plans, quotas, the budget's queue, the verdict rules) run on
made-up inputs; the meters read real processes of this machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from judge.sandbox import Limits, Verdict
from judge.sandbox.cores import (
    JUDGE_CORE_FROM,
    CoreBudget,
    CorePlan,
    CoreSpecError,
    JudgePin,
    cpu_quota,
    format_cores,
    parse_core_list,
    plan_cores,
    usable_cores,
)
from judge.sandbox.cpuwait import (
    EXTENSION_EXTRA_S,
    EXTENSION_FACTOR,
    PsiMeter,
    TreeMeter,
    children,
    wait_grace_s,
)
from judge.sandbox.record import HelperRecord
from judge.sandbox.supervise import RawRun, Tail, _extension
from judge.sandbox.verdicts import decide

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

# ------------------------------------------------------------------ plans


def test_auto_uses_every_core_and_keeps_one_for_the_judge_from_three() -> None:
    assert plan_cores(None, [0], "x").bots == (0,)
    two = plan_cores("auto", [0, 1], "x")
    assert (two.bots, two.judge) == ((0, 1), ())
    four = plan_cores(None, [3, 0, 2, 1], "x")
    assert JUDGE_CORE_FROM == 3
    assert (four.bots, four.judge) == ((1, 2, 3), (0,))


def test_a_number_takes_that_many_and_leaves_the_rest_to_the_judge() -> None:
    plan = plan_cores(1, [0, 1], "x")
    assert (plan.bots, plan.judge) == ((1,), (0,))
    assert plan_cores("2", [0, 1, 2, 3], "x").bots == (2, 3)
    with pytest.raises(CoreSpecError, match="give 1 to 2"):
        plan_cores(3, [0, 1], "x")
    with pytest.raises(CoreSpecError, match="give 1 to 2"):
        plan_cores("0", [0, 1], "x")


def test_a_core_list_takes_exactly_those() -> None:
    plan = plan_cores("0-0", [0, 1], "x")
    assert (plan.bots, plan.judge) == ((0,), (1,))
    assert plan_cores("1,", [0, 1], "x").bots == (1,)
    assert plan_cores("0,2-3", [0, 1, 2, 3], "x").bots == (0, 2, 3)
    with pytest.raises(CoreSpecError, match="not usable by this process"):
        plan_cores("1-4", [0, 1], "x")
    for bad in ("a", "2-1", "1,,2", True):
        with pytest.raises(CoreSpecError):
            plan_cores(bad, [0, 1, 2], "x")


def test_core_lists_read_and_written_like_taskset() -> None:
    assert parse_core_list("0-2,5,7-8") == (0, 1, 2, 5, 7, 8)
    assert format_cores((8, 0, 1, 2, 5, 7)) == "0-2,5,7-8"
    assert format_cores(()) == "none"


def _cgroup_tree(tmp: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp


def test_cpu_quota_v2_is_the_tightest_over_the_ancestors(tmp_path: Path) -> None:
    root = _cgroup_tree(
        tmp_path,
        {"a/cpu.max": "150000 100000\n", "a/b/cpu.max": "max 100000\n", "cpu.max": "max\n"},
    )
    mountinfo = f"30 1 0:26 / {root} rw - cgroup2 cgroup2 rw\n"
    assert cpu_quota(mountinfo, "0::/a/b\n") == 1.5
    assert cpu_quota(mountinfo, "0::/\n") is None


def test_cpu_quota_v1(tmp_path: Path) -> None:
    root = _cgroup_tree(
        tmp_path,
        {
            "job/cpu.cfs_quota_us": "250000\n",
            "job/cpu.cfs_period_us": "100000\n",
            "cpu.cfs_quota_us": "-1\n",
            "cpu.cfs_period_us": "100000\n",
        },
    )
    mountinfo = f"31 1 0:27 / {root} rw - cgroup cgroup rw,cpu,cpuacct\n"
    assert cpu_quota(mountinfo, "4:cpu,cpuacct:/job\n") == 2.5
    assert cpu_quota(mountinfo, "4:cpu,cpuacct:/\n") is None


# ------------------------------------------------------------------ the budget


def test_the_budget_never_hands_out_more_cores_than_it_has() -> None:
    budget = CoreBudget(CorePlan((4, 5), (), "test"))
    holding: list[int] = []
    lock = threading.Lock()
    bad: list[str] = []

    def run() -> None:
        with budget.core() as core:
            with lock:
                if core in holding:
                    bad.append(f"core {core} handed out twice")
                holding.append(core)
            time.sleep(0.01)
            with lock:
                holding.remove(core)

    threads = [threading.Thread(target=run) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []
    assert budget.peak == 2 and budget.runs == 12


def test_waiting_runs_get_a_core_in_arrival_order() -> None:
    budget = CoreBudget(CorePlan((0,), (), "test"))
    first = budget.acquire()
    order: list[int] = []

    def wait_then_note(i: int) -> None:
        with budget.core():
            order.append(i)

    threads = []
    for i in range(4):
        t = threading.Thread(target=wait_then_note, args=(i,))
        t.start()
        threads.append(t)
        time.sleep(0.02)  # each one queued before the next
    budget.release(first)
    for t in threads:
        t.join()
    assert order == [0, 1, 2, 3]


def test_a_waiter_that_gives_up_leaves_the_queue() -> None:
    budget = CoreBudget(CorePlan((0,), (), "test"))
    held = budget.acquire()
    interrupted = threading.Event()

    class Stop(Exception):
        pass

    def waiter() -> None:
        def raising_wait(timeout: float | None = None) -> bool:
            interrupted.set()
            raise Stop

        budget._cond.wait = raising_wait  # type: ignore[method-assign]
        try:
            with pytest.raises(Stop):
                budget.acquire()
        finally:
            del budget._cond.wait

    t = threading.Thread(target=waiter)
    t.start()
    t.join()
    assert interrupted.is_set()
    budget.release(held)
    with budget.core() as core:  # nobody left in the queue to give it to
        assert core == 0


def test_the_judge_pins_its_threads_and_puts_them_back() -> None:
    before = os.sched_getaffinity(0)
    one = {min(before)}
    pin = JudgePin(one)
    seen: list[set[int]] = []
    t = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
    t.start()
    t.join()
    try:
        assert os.sched_getaffinity(0) == one
        assert seen == [one]  # threads started later inherit it
        # Another sandbox made meanwhile still sees the cores the process may use.
        assert set(usable_cores()[0]) <= before and len(usable_cores()[0]) >= 1
        assert JudgePin.before_pinning() == before
    finally:
        pin.restore()
    assert os.sched_getaffinity(0) == before
    assert JudgePin.before_pinning() is None


# ------------------------------------------------------------------ meters


def test_psi_meter_reads_full_or_caps_some(tmp_path: Path) -> None:
    (tmp_path / "cpu.pressure").write_text(
        "some avg10=1.00 avg60=0.00 avg300=0.00 total=900000\n"
        "full avg10=1.00 avg60=0.00 avg300=0.00 total=400000\n"
    )
    assert PsiMeter(str(tmp_path)).read(2.0) == pytest.approx(0.4)
    # Old kernels: no "full"; "some" includes the program's own threads, so it is
    # capped by wall minus the group's CPU time.
    (tmp_path / "cpu.pressure").write_text("some avg10=1.00 avg60=0.00 avg300=0.00 total=900000\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 1700000\nuser_usec 1600000\n")
    assert PsiMeter(str(tmp_path)).read(2.0) == pytest.approx(0.3)
    assert PsiMeter(str(tmp_path / "missing")).read(2.0) is None


def _spawn_pinned(code: str, core: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{core}}})\n{code}"]
    )


def _tree(children: list[str], core: int) -> subprocess.Popen[bytes]:
    """A parent (the tree's root, like the exec helper) running ``children`` on one core."""
    starts = "".join(f"subprocess.Popen([sys.executable, '-c', {c!r}])\n" for c in children)
    return _spawn_pinned(f"import subprocess, sys, time\n{starts}time.sleep(60)", core)


def _started(proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> None:
    """Wait until the tree's child exists (Python starts slowly on a busy machine)."""
    deadline = time.monotonic() + timeout_s
    while not children(proc.pid):
        assert time.monotonic() < deadline, "the test tree's child never started"
        time.sleep(0.02)


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    subprocess.run(["pkill", "-KILL", "-P", str(proc.pid)], check=False)
    proc.kill()
    proc.wait()


@pytest.mark.alone  # an outside hog on a core
def test_tree_meter_sees_waiting_for_a_core_but_not_sleeping() -> None:
    core = min(os.sched_getaffinity(0))
    sleeping = _tree(["import time; time.sleep(60)"], core)
    _started(sleeping)
    time.sleep(0.5)  # started up (its start-up may have waited: that counts, and is read here)
    before = TreeMeter(sleeping.pid).read(10.0)
    hog = _spawn_pinned("while True: pass", core)  # an outside program on the same core
    busy = _tree(["while True: pass"], core)
    try:
        _started(busy)
        t0 = time.monotonic()
        time.sleep(1.0)
        elapsed = time.monotonic() - t0
        busy_wait = TreeMeter(busy.pid).read(elapsed)
        sleep_wait = TreeMeter(sleeping.pid).read(10.0)
        assert busy_wait is not None and sleep_wait is not None and before is not None
        assert 0.2 < busy_wait <= elapsed, busy_wait  # about half of it, on a quiet machine
        assert sleep_wait - before < 0.02, (before, sleep_wait)  # sleeping is not waiting
        assert TreeMeter(hog.pid).read(elapsed) is None  # no tree below it: nothing measured
    finally:
        hog.kill()
        hog.wait()
        _kill_tree(busy)
        _kill_tree(sleeping)


def test_tree_meter_does_not_blame_the_judge_for_a_programs_own_threads() -> None:
    meter = TreeMeter(2**22 + 1)  # no such process: only the tasks seen before count
    # Two threads of one program that ran 0.9 s each on their one core in 2 s and
    # waited 0.8 s each: mostly for each other.  Only the 0.2 s the core ran
    # something else can be someone else's fault.
    meter.seen = {10: (900_000_000, 800_000_000), 11: (900_000_000, 800_000_000)}
    assert meter.read(2.0) == pytest.approx(0.2)
    # One thread that ran 1 s in 2 s and waited 1 s: all of it someone else's fault.
    meter.seen = {10: (1_000_000_000, 1_000_000_000)}
    assert meter.read(2.0) == pytest.approx(1.0)


# ------------------------------------------------------------------ verdicts


class _Meter:
    source = "test"
    after_exit = True

    def __init__(self, wait: float) -> None:
        self.wait = wait

    def read(self, elapsed_s: float) -> float | None:
        return self.wait


def _raw(**kw: object) -> RawRun:
    raw = RawRun(HelperRecord.of({"end": "1", "main_status": "0"}), 0, 2.0, 1.0, Tail(10), Tail(10))
    for k, v in kw.items():
        setattr(raw, k, v)
    return raw


def test_extension_gives_waiting_back_up_to_a_cap() -> None:
    raw = _raw()
    # At the 2 s limit, 0.5 s of it spent waiting: 0.5 s more.
    assert _extension(_Meter(0.5), 0.0, 2.0, 2.0, raw) == pytest.approx(2.5)
    assert raw.extended and raw.wait_s == 0.5
    # Scheduling noise below the grace is nobody's fault: no extension.
    raw = _raw()
    assert _extension(_Meter(wait_grace_s(2.0) / 2), 0.0, 2.0, 2.0, raw) is None
    assert not raw.extended
    # At the cap a run still short of its own limit is starved.
    raw = _raw()
    cap = EXTENSION_FACTOR * 2.0 + EXTENSION_EXTRA_S
    assert _extension(_Meter(cap - 1.0), 0.0, cap + 0.01, 2.0, raw) is None
    assert raw.starved


def test_a_run_that_finished_only_in_its_extension_is_the_judges_failure() -> None:
    raw = _raw(wall_s=2.4, wait_s=0.6, extended=True)
    r = decide(raw, Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert r.verdict is Verdict.IE and r.kept_waiting
    assert "kept waiting 0.600 s for a CPU" in r.message and r.wait_s == 0.6


def test_a_run_over_its_own_limit_is_still_tle_with_the_wait_said() -> None:
    raw = _raw(wall_s=2.7, wait_s=0.7, extended=True, timed_out=True)
    raw.record = HelperRecord.of({"end": "1", "main_status": "9"})
    r = decide(raw, Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert r.verdict is Verdict.TLE and not r.kept_waiting
    assert "not counting 0.700 s it was kept waiting" in r.message


def test_a_starved_run_is_ie_not_tle() -> None:
    raw = _raw(wall_s=6.5, wait_s=5.0, timed_out=True, starved=True)
    raw.record = HelperRecord.of({"end": "1", "main_status": "9"})
    r = decide(raw, Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert r.verdict is Verdict.IE and r.kept_waiting
    assert "too busy" in r.message


def test_a_crash_in_the_extension_is_still_the_programs() -> None:
    raw = _raw(wall_s=2.3, wait_s=0.5, extended=True)
    raw.record = HelperRecord.of({"end": "1", "main_status": str(3 << 8)})
    r = decide(raw, Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert r.verdict is Verdict.RE


def test_an_exit_past_the_limit_the_judge_was_late_to_stop_is_judged_on_own_time() -> None:
    # The judge noticed the deadline late and the program had exited by then.
    over = decide(_raw(wall_s=2.3, wait_s=0.0), Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert over.verdict is Verdict.TLE and "ran 2.300 s" in over.message
    waited = decide(_raw(wall_s=2.3, wait_s=0.5), Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert waited.verdict is Verdict.IE and waited.kept_waiting
    in_time = decide(_raw(wall_s=2.005), Limits(time_s=2.0), None, memory_by_cgroup=True)
    assert in_time.verdict is Verdict.OK
