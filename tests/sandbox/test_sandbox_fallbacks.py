"""Machines with less: no cgroup (memory by polling), cgroup v2 without controllers,
no C compiler (Python helper).  Each must still give the right verdicts, leave no
survivors, and say in its isolation report what is off."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_support import FIXTURES, procs_of_uid

from judge.sandbox import Limits, Sandbox, TurnRun, Verdict
from judge.sandbox.cgroups import read_mounts
from judge.sandbox.probe import P_HELPER, P_MEMORY, P_NETWORK, P_VIEW

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

V = Verdict


def _run(
    sb: Sandbox,
    prog: str,
    *args: str,
    time_s: float = 10.0,
    inputs: dict[str, bytes] | None = None,
    src: Path = FIXTURES,
) -> TurnRun:
    with sb.seat(prog, src) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn(
            [str(seat.program_dir / prog), *args],
            inputs or {"MAP.INP": b"m"},
            ["MOVE.OUT"],
            Limits(time_s=time_s),
        )
        assert procs_of_uid(seat.uid) == [], f"{prog} left processes"
        return run


@pytest.fixture(scope="module")
def no_cgroup() -> Iterator[Sandbox]:
    with Sandbox(cgroup="none") as sb:
        yield sb


def test_polling_catches_a_fast_gigabyte(no_cgroup: Sandbox) -> None:
    assert not no_cgroup.isolation.is_on(P_MEMORY)
    assert "polled" in no_cgroup.isolation.as_dict()[P_MEMORY]["detail"]
    run = _run(no_cgroup, "memhog.py")
    assert run.result.verdict is V.MLE, run.result.message
    assert run.result.peak_memory_bytes > 512 * 2**20


def test_polling_lets_reserved_address_space_pass(no_cgroup: Sandbox) -> None:
    run = _run(no_cgroup, "reserve.py")
    assert run.result.verdict is V.OK, run.result.message
    assert run.result.peak_memory_bytes < 200 * 2**20


def test_without_cgroup_daemons_are_killed(no_cgroup: Sandbox) -> None:
    run = _run(no_cgroup, "daemon.py", "60", time_s=0.5)
    assert run.result.verdict is V.TLE and "still running" in run.result.message


def test_without_cgroup_fork_storm_is_contained(no_cgroup: Sandbox, cbin: Path) -> None:
    run = _run(no_cgroup, "forkbomb", time_s=0.5, src=cbin)
    assert run.result.verdict is V.TLE


def test_cgroup_v2_without_controllers() -> None:
    if not any(m.fstype == "cgroup2" for m in read_mounts()):
        pytest.skip("no cgroup2 mount")
    try:
        sb = Sandbox(cgroup="v2")
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"cgroup v2 not usable here: {exc}")
    with sb:
        if sb.machine.cgroup is None:
            pytest.skip(f"cgroup v2 not writable: {sb.machine.cgroup_note}")
        assert sb.machine.cgroup.version == 2
        assert _run(sb, "ok.py").result.verdict is V.OK
        run = _run(sb, "daemon.py", "60", time_s=0.5)
        assert run.result.verdict is V.TLE
        if not sb.machine.cgroup.memory:
            assert not sb.isolation.is_on(P_MEMORY)
        assert _run(sb, "memhog.py").result.verdict is V.MLE


@pytest.fixture(scope="module")
def py_helper() -> Iterator[Sandbox]:
    with Sandbox(helper="python") as sb:
        yield sb


def test_python_helper_verdicts(py_helper: Sandbox) -> None:
    assert not py_helper.isolation.is_on(P_HELPER)
    assert not py_helper.isolation.is_on(P_VIEW)
    assert "Python fallback" in py_helper.isolation.as_dict()[P_HELPER]["detail"]
    assert _run(py_helper, "ok.py").result.verdict is V.OK
    assert _run(py_helper, "loop.py", time_s=0.5).result.verdict is V.TLE
    assert _run(py_helper, "memhog.py").result.verdict is V.MLE
    assert _run(py_helper, "exit_after_move.py").result.verdict is V.RE
    lingering = _run(py_helper, "daemon.py", "60", time_s=0.5)
    assert lingering.result.verdict is V.TLE and "still running" in lingering.result.message


@pytest.mark.root("network namespaces need root")
def test_python_helper_still_cuts_the_network(py_helper: Sandbox) -> None:
    assert py_helper.isolation.is_on(P_NETWORK)
    targets = {"port": 9, "abstract": "nothing-here"}
    run = _run(py_helper, "net.py", inputs={"TARGETS.INP": json.dumps(targets).encode()})
    results = json.loads(run.outputs["MOVE.OUT"] or b"{}")
    assert results and all(v.startswith("denied") for v in results.values()), results
    assert "Network is unreachable" in results["ipv4"]


def test_no_namespaces_is_reported(tmp_path: Path) -> None:
    with Sandbox(namespaces=False, cgroup="none") as sb:
        assert not sb.isolation.is_on(P_NETWORK) and not sb.isolation.is_on(P_VIEW)
        assert _run(sb, "ok.py").result.verdict is V.OK
    assert os.path.isdir(tmp_path)
