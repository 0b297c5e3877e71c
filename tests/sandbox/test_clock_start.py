"""The program's clock starts when the exec helper's child has finished its set-up.

The child joins the run's CPU and cpuset groups, starts a session, enters the
seat's namespaces and sets its rlimits before it runs the program.  A cgroup v1
join waits for an RCU grace period (about 10 ms, more on a busy machine) when no
task was moved for a while: that is the judge's work, and a program that thinks
close to the limit must not lose it (the determinism issue: a verdict never
depends on load).  Here the "group" the child joins is a FIFO that nobody reads
for 0.4 s, so the child's set-up takes at least that long; the run's clock must
not see it.  The C helper and the Python fallback both start it after the set-up.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from judge.sandbox.helper import find_helper
from judge.sandbox.supervise import Spawn, run

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

SETUP_S = 0.4


class SlowJoin:
    """Just what a run reads of its groups, with one 'CPU group' that is a FIFO."""

    psi_dir = None
    psi_base = None
    memory = False

    def __init__(self, fifo: str) -> None:
        self.procs_files: tuple[str, ...] = ()
        self.child_procs_files = (fifo,)

    def peak_memory(self) -> None:
        return None

    def oom_kills(self) -> int:
        return 0

    def memory_failures(self) -> int:
        return 0

    def pids_refused(self) -> int:
        return 0

    def pids_current(self) -> None:
        return None

    def kill_all(self) -> None:
        pass


@pytest.mark.parametrize("kind", ["c", "python"])
def test_a_slow_set_up_is_not_on_the_programs_clock(tmp_path: Path, kind: str) -> None:
    helper = find_helper(kind if kind == "python" else "auto")
    if helper.kind != kind:
        pytest.skip("the C helper cannot be built here")
    fifo = str(tmp_path / "cgroup.procs")
    os.mkfifo(fifo)

    def reader() -> None:
        time.sleep(SETUP_S)
        with open(fifo, "rb") as f:  # lets the child's join (a write) through
            f.read()

    spawn = Spawn(argv=["/bin/true"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    t = threading.Thread(target=reader)
    t0 = time.monotonic()
    t.start()
    raw = run(
        helper,
        spawn,
        time_s=SETUP_S / 2,  # shorter than the set-up: a clock started at the fork says TLE
        memory_bytes=2**30,
        output_bytes=4096,
        cg=SlowJoin(fifo),  # type: ignore[arg-type]
        poll_s=0.05,
    )
    elapsed = time.monotonic() - t0
    t.join()
    assert raw.internal_error is None, raw.internal_error
    assert raw.record is not None and raw.record.child is None, raw.record
    assert raw.main_status == 0
    assert not raw.timed_out
    assert elapsed >= SETUP_S  # the set-up did take that long...
    assert raw.wall_s < SETUP_S / 2, raw.wall_s  # ...and none of it is the program's
