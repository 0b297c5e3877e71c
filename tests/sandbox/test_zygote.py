"""A seat's persistent exec helper (the zygote): reused, replaced when it dies, never left behind.

Everything else a run does through it (limits, verdicts, hostile programs) is
tested by the rest of tests/sandbox, whose judged runs go through it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest
from sandbox_support import FIXTURES, KEEP_STATE

from judge.sandbox import Limits, Sandbox, Seat, TurnRun, Verdict
from judge.sandbox.helper import Helper
from judge.sandbox.launcher import OneShotLauncher

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(__file__).resolve().parents[2]


def _turn(seat: Seat, name: str = "ok.py", time_s: float = 10) -> TurnRun:
    assert seat.program_dir is not None
    return seat.run_turn(
        [str(seat.program_dir / name)], {"MAP.INP": b"map"}, ["MOVE.OUT"], Limits(time_s=time_s)
    )


def _gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True  # dead; its parent (not us) reaps it
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


def _zygote_pid(seat: Seat) -> int | None:
    z = seat.launcher.zygote
    return None if z is None else z.pid


def test_the_helper_lives_as_long_as_the_seat(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        assert _zygote_pid(seat) is None  # started lazily, by the first judged run
        pids = set()
        for _ in range(4):
            run = _turn(seat)
            assert run.result.verdict is Verdict.OK, run.result.message
            pids.add(_zygote_pid(seat))
        assert len(pids) == 1 and None not in pids
        assert seat.launcher.zygote is not None and seat.launcher.zygote.starts == 1
        zygote = psutil.Process(pids.pop())
        # the judge's child; the runs' processes were the judge's, not its own
        assert zygote.children() == [] and zygote.ppid() == os.getpid()


STATE = r"""#!/usr/bin/env python3
import json, os, resource
def status(key):
    with open("/proc/self/status") as f:
        return next(line.split()[1] for line in f if line.startswith(key + ":"))
with open("/proc/self/oom_score_adj") as f:
    oom = f.read().strip()
state = {
    "nice": os.getpriority(os.PRIO_PROCESS, 0),
    "policy": os.sched_getscheduler(0),
    "helper_policy": os.sched_getscheduler(os.getppid()),
    "oom": oom,
    "cores": sorted(os.sched_getaffinity(0)),
    "blocked": status("SigBlk"), "ignored": status("SigIgn"), "caught": status("SigCgt"),
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
    "env": dict(os.environ), "cwd": os.getcwd(), "ids": [os.getuid(), os.getgid()],
    "groups": os.getgroups(), "sid_is_self": os.getsid(0) == os.getpid(),
    "limits": [resource.getrlimit(r) for r in (resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE,
               resource.RLIMIT_CORE, resource.RLIMIT_NOFILE, resource.RLIMIT_STACK)],
    "cgroup": open("/proc/self/cgroup").read(), "no_new_privs": status("NoNewPrivs"),
    "ns": sorted(os.readlink(f"/proc/self/ns/{n}") for n in ("net", "ipc", "uts", "mnt")),
}
with open("MOVE.OUT", "w") as f:
    json.dump(state, f)
"""


def test_a_program_started_through_the_zygote_gets_what_a_one_shot_helper_gives(
    zygote_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Priority and scheduling policy (the program's and its helper's), OOM score, cores,
    signals, fds, environment, ids, limits, groups and namespaces: the same, though the
    zygote itself runs at a high priority as root and as SCHED_BATCH; and the same again
    for the run armed after the first (its core given with the go)."""
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "state.py").write_text(STATE)
    (prog / "state.py").chmod(0o755)
    with zygote_sandbox as sb, sb.seat("a", prog) as seat:
        through = _turn(seat, "state.py")
        zygote_pid = _zygote_pid(seat)
        assert zygote_pid is not None
        # Asking it for a run (or arming one) must not preempt the judge's thread.
        assert os.sched_getscheduler(zygote_pid) == os.SCHED_BATCH
        armed = _turn(seat, "state.py")
        launcher = seat.launcher  # this seat's next run: one-shot
        seat.launcher = OneShotLauncher(sb.machine.helper)
        zygote = launcher.zygote
        try:
            one_shot = _turn(seat, "state.py")
        finally:
            seat.launcher = launcher
        assert zygote is not None and zygote.armed_used == 1  # the second run was armed
        for run in (through, armed, one_shot):
            assert run.result.verdict is Verdict.OK, run.result.message
        got, got_armed, want = (
            json.loads(r.outputs["MOVE.OUT"] or b"{}") for r in (through, armed, one_shot)
        )
        # Each run is pinned to the one core it was lent; which core that is depends on
        # what else on the machine holds cores at that moment (the core leases).
        for state in (got, got_armed, want):
            assert len(state.pop("cores")) == 1
        assert got == want == got_armed
        assert got["oom"] == "0" and got["fds"] == [0, 1, 2, 3]
        # The program, and the helper timing it, as every program: SCHED_OTHER (the
        # armed run's set-up ran as SCHED_BATCH, its go and its run do not).
        assert got["policy"] == got["helper_policy"] == os.SCHED_OTHER


JUDGE_UNDER_BATCH = """
import json, os, sys
from pathlib import Path
os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))  # every thread made after it too
from judge.sandbox import Limits, Sandbox
with Sandbox(Path(sys.argv[2])) as sb, sb.seat("a", Path(sys.argv[1])) as seat:
    assert seat.program_dir is not None
    runs = []
    for _ in range(2):
        run = seat.run_turn(
            [str(seat.program_dir / "state.py")], {"MAP.INP": b"map"}, ["MOVE.OUT"],
            Limits(time_s=10),
        )
        state = json.loads(run.outputs["MOVE.OUT"] or b"{}")
        runs.append([state.get("policy"), state.get("helper_policy")])
    z = seat.launcher.zygote
    print(json.dumps({"runs": runs, "zygote": None if z is None else os.sched_getscheduler(z.pid),
                      "armed": None if z is None else z.armed_used}))
"""


def test_a_judge_run_under_another_policy_gives_its_programs_that_policy(
    zygote_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The zygote goes to SCHED_BATCH only from the default policy, and its runs get the
    judge's policy back, as a one-shot helper's do: a judge started as SCHED_BATCH (``chrt
    -b``) runs its programs, armed or not, as SCHED_BATCH, not SCHED_OTHER."""
    zygote_sandbox.close()  # only its check that the C helper is here
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "state.py").write_text(STATE)
    (prog / "state.py").chmod(0o755)
    out = subprocess.run(
        [sys.executable, "-c", JUDGE_UNDER_BATCH, str(prog), str(tmp_path / "seats2")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["armed"] == 1  # the second run was armed
    assert got["zygote"] == os.SCHED_BATCH  # the judge's own, kept
    assert got["runs"] == [[os.SCHED_BATCH, os.SCHED_BATCH]] * 2


def test_a_killed_helper_is_replaced_and_the_run_judged_right(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        assert _turn(seat).result.verdict is Verdict.OK
        first = _zygote_pid(seat)
        assert first is not None
        os.kill(first, signal.SIGKILL)
        assert _gone(first)
        run = _turn(seat)
        assert run.result.verdict is Verdict.OK, run.result.message
        assert run.outputs["MOVE.OUT"] == b"1 1\n"
        second = _zygote_pid(seat)
        assert second not in (None, first)
        # a time-out is still a time-out with the new one
        assert _turn(seat, "loop.py", time_s=0.3).result.verdict is Verdict.TLE
        assert _zygote_pid(seat) == second


def test_a_helper_killed_during_a_run_changes_nothing_for_the_run(zygote_sandbox: Sandbox) -> None:
    """The run's process is the judge's child, not the zygote's: the run goes on, is
    watched and judged as if nothing happened; the next run starts a new zygote."""
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        assert _turn(seat).result.verdict is Verdict.OK
        first = _zygote_pid(seat)
        assert first is not None

        def killer() -> None:
            time.sleep(0.3)
            os.kill(first, signal.SIGKILL)

        t = threading.Thread(target=killer)
        t.start()
        run = _turn(seat, "loop.py", time_s=1.0)
        t.join()
        assert run.result.verdict is Verdict.TLE, run.result
        assert _gone(first)
        run = _turn(seat)
        assert run.result.verdict is Verdict.OK, run.result.message
        assert _zygote_pid(seat) not in (None, first)


REFUSING = """
import os, socket
s = socket.socket(fileno=0)
while True:
    data, fds, _, _ = socket.recv_fds(s, 1 << 20, 32)
    for fd in fds:
        os.close(fd)
    if not data:
        break
    s.send(b"error 22 clone: Invalid argument")
"""


def test_a_zygote_that_cannot_start_runs_leaves_them_to_one_shot_helpers(
    zygote_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    with zygote_sandbox as sb, sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
        z = seat.launcher.zygote
        assert z is not None
        # a "zygote" whose clone is refused every time (an old kernel, say)
        monkeypatch.setattr(z, "_helper", Helper("c", (sys.executable, "-c", REFUSING), "test"))
        for _ in range(2):
            run = _turn(seat)
            assert run.result.verdict is Verdict.OK, run.result.message
        assert z.refused is not None and "clone" in z.refused
        assert z.pid is None and z.starts == 1  # tried once, then left alone


def test_no_helper_outlives_its_seat(zygote_sandbox: Sandbox) -> None:
    with zygote_sandbox as sb:
        with sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
            assert _turn(seat).result.verdict is Verdict.OK
            pid = _zygote_pid(seat)
            assert pid is not None
        assert _zygote_pid(seat) is None
        assert not psutil.pid_exists(pid) or psutil.Process(pid).ppid() != os.getpid()


def test_no_helper_outlives_a_judge_that_dies(tmp_path: Path) -> None:
    """The judge killed outright (no close): its end of the socket closes, the zygote
    sees EOF and exits, ending a run still going (its program included)."""
    script = textwrap.dedent(
        f"""
        import os, sys, threading, time
        sys.path.insert(0, {str(ROOT)!r})
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from sandbox_support import FIXTURES, KEEP_STATE
        from judge.sandbox import Limits, Sandbox
        sb = Sandbox({str(tmp_path / "seats")!r})
        seat = sb.seat("a", FIXTURES, **KEEP_STATE)
        argv = [str(seat.program_dir / "ok.py")]
        seat.run_turn(argv, {{"MAP.INP": b"m"}}, ["MOVE.OUT"], Limits(time_s=10))
        z = seat.launcher.zygote
        print(z.pid if z is not None else -1, flush=True)
        loop = [str(seat.program_dir / "loop.py")]
        threading.Thread(
            target=seat.run_turn,
            args=(loop, {{"MAP.INP": b"m"}}, ["MOVE.OUT"], Limits(time_s=30)),
            daemon=True,
        ).start()
        time.sleep(1.0)
        os._exit(0)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    pid = int(proc.stdout.split()[0])
    if pid < 0:
        pytest.skip("no C helper here")
    assert _gone(pid, 10.0)
    # nothing of the run is left: no loop.py of that seat
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [
            p
            for p in psutil.process_iter(["cmdline"])
            if any(str(tmp_path) in part for part in (p.info["cmdline"] or []))
        ]
        if not left:
            break
        time.sleep(0.05)
    assert not left


def test_the_python_helper_runs_one_shot() -> None:
    with Sandbox(helper="python") as sb:
        with sb.seat("a", FIXTURES, **KEEP_STATE) as seat:
            assert seat.launcher.zygote is None
            assert _turn(seat).result.verdict is Verdict.OK
