"""The adversarial suite: hostile programs, each with the verdict it must get.

All cases run at once (each in its own seat, so under its own uid), which also
exercises the sandbox under the tournament's threading, and keeps the suite
fast: time-outs use 0.5 s.  After each case: no process of its uid is left and
its folder holds at most STATE.OUT.  At the end: nothing outside the seats'
own folders changed (a victim seat, a world-writable canary folder, the
fixture sources, the host's /tmp, /var/tmp, /dev/shm, /etc).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import socket
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import FIXTURES, IS_ROOT, KEEP_STATE, procs_of_uid, tree_digest

from judge.referee import run_retrying
from judge.sandbox import Limits, Sandbox, TurnRun, Verdict

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

V = Verdict
KIB = 1024


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # argv[0] is a file of the program folder
    expect: Verdict | tuple[Verdict, ...]  # a tuple: any of these (racy by nature)
    time_s: float = 15.0  # generous for cases that end by themselves
    c: bool = False  # a C fixture (built with the system cc)
    targets: bool = False  # gets TARGETS.INP with paths to attack
    hog: bool = False  # burns CPU: run in a second wave, not to starve the others


CASES = [
    Case("ok_py", ("ok.py",), V.OK),
    Case("loop_py", ("loop.py",), V.TLE, 0.5, hog=True),
    Case("sleep_sh", ("sleep.sh",), V.TLE, 0.5),
    Case("move_then_hang", ("move_then_hang.py",), V.TLE, 2.0),
    Case("memhog_py", ("memhog.py",), V.MLE),
    Case("reserve_py", ("reserve.py",), V.OK),
    Case("forkbomb_py", ("forkbomb.py",), V.TLE, 0.5, hog=True),
    # dash gives up when fork fails, so this storm may die out by itself before the limit.
    Case("forkbomb_sh", ("forkbomb.sh",), (V.TLE, V.OK, V.RE), 0.5, hog=True),
    Case("daemon_lingers", ("daemon.py", "60"), V.TLE, 2.0),
    Case("daemon_short", ("daemon.py", "0.3"), V.OK),
    Case("flood", ("flood.py", "100"), V.OK, 30.0),
    Case("giant_py", ("giant.py",), V.OLE),
    Case("giant_sh", ("giant.sh",), V.OLE),
    Case("links", ("links.py",), V.OK, targets=True),
    Case("big_state", ("big_state.py",), V.OK),
    Case("read_other", ("read_other.py",), V.OK, targets=True),
    Case("write_outside", ("write_outside.py",), V.OK, targets=True),
    Case("kill_parent", ("kill_parent.py",), V.OK, targets=True),
    Case("exit_after_move", ("exit_after_move.py",), V.RE),
    Case("segv_py", ("segv.py",), V.RE),
    Case("net", ("net.py",), V.OK, targets=True),
    Case("weird_outputs", ("weird_outputs.py",), V.OK),
    Case("mess", ("mess.py",), V.OK),
    Case("ok_c", ("ok",), V.OK, c=True),
    Case("loop_c", ("loop",), V.TLE, 0.5, c=True, hog=True),
    Case("memhog_c", ("memhog",), V.MLE, c=True),
    Case("reserve_c", ("reserve",), V.OK, c=True),
    Case("segv_c", ("segv",), V.RE, c=True),
    Case("giant_c", ("giant",), V.OLE, c=True),
    Case("forkbomb_c", ("forkbomb",), V.TLE, 0.5, c=True, hog=True),
    Case("forkwide_c", ("forkwide",), V.TLE, 0.5, c=True, hog=True),
]


@dataclass
class Outcome:
    turn: TurnRun
    leftovers: list[int]
    left_files: list[str]
    targets: dict[str, Any] = field(default_factory=dict)
    prog_intact: bool = True


@dataclass
class World:
    """Everything a hostile program might try to reach, and how it looked before."""

    canary_dir: Path
    canary_file: Path
    tmp_name: str
    victim_digest: dict[str, tuple[int, int, int, str]]
    canary_digest: dict[str, tuple[int, int, int, str]]
    fixtures_digest: dict[str, tuple[int, int, int, str]]
    listener: socket.socket
    listener6: socket.socket | None
    abstract: socket.socket
    outcomes: dict[str, Outcome]
    victim_base: Path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run_case(sb: Sandbox, case: Case, cbin: Path | None, common: dict[str, Any]) -> Outcome:
    prog_src = cbin if case.c else FIXTURES
    assert prog_src is not None
    with sb.seat(case.name, prog_src, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / case.argv[0]), *case.argv[1:]]
        inputs = {"MAP.INP": b"5 5 10\n0 0 0 0\n0 0\n"}
        targets: dict[str, Any] = {}
        if case.targets:
            targets = dict(common)
            targets.update(own_base=seat.base, own_prog_file=str(seat.program_dir / case.argv[0]))
            inputs["TARGETS.INP"] = json.dumps(targets).encode()
        # As the referee runs a turn: a run the busy machine kept waiting (IE) is run again.
        turn = run_retrying(seat, argv, inputs, ["MOVE.OUT"], Limits(time_s=case.time_s))
        leftovers = procs_of_uid(seat.uid)
        left_files = sorted(os.listdir(seat.workdir)) + sorted(os.listdir(seat.tmpdir))
        prog_intact = _sha(seat.program_dir / case.argv[0]) == _sha(prog_src / case.argv[0])
        return Outcome(turn, leftovers, left_files, targets, prog_intact)


@pytest.fixture(scope="module")
def world(sandbox: Sandbox, request: pytest.FixtureRequest) -> Iterator[World]:
    try:
        cbin: Path | None = request.getfixturevalue("cbin")
    except pytest.skip.Exception:
        cbin = None
    canary_dir = Path(tempfile.mkdtemp(prefix="oj-canary-"))
    os.chmod(canary_dir, 0o777)  # tempting: world-writable
    canary_file = canary_dir / "secret.txt"
    canary_file.write_text("canary secret\n")
    os.chmod(canary_file, 0o666)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    listener6: socket.socket | None
    try:
        listener6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        listener6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        listener6.bind(("::1", port))
        listener6.listen(8)
        listener6.setblocking(False)
    except OSError:
        listener6 = None
    abstract_name = f"oj-test-{secrets.token_hex(4)}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + abstract_name)
    abstract.listen(8)
    abstract.setblocking(False)
    tmp_name = f"oj-escape-{secrets.token_hex(4)}"
    victim = sandbox.seat("victim", FIXTURES, **KEEP_STATE)
    try:
        vrun = victim.run_turn(
            ["/bin/sh", "-c", "echo victim-secret > STATE.OUT"], {}, [], Limits(time_s=10)
        )
        assert vrun.result.verdict is V.OK, vrun.result.message
        assert victim.program_dir is not None
        common = {
            "canary_dir": str(canary_dir),
            "canary_file": str(canary_file),
            "victim_work": str(victim.workdir),
            "victim_base": victim.base,
            "victim_state": str(victim.workdir / "STATE.OUT"),
            "victim_prog_file": str(victim.program_dir / "ok.py"),
            "judge_file": str(Path(__file__).resolve()),
            "judge_dir": str(Path(__file__).parent),
            "sandbox_root": str(sandbox.root),
            "judge_pid": os.getpid(),
            "port": port,
            "abstract": abstract_name,
            "tmp_name": tmp_name,
        }
        w = World(
            canary_dir,
            canary_file,
            tmp_name,
            tree_digest(Path(victim.base)),
            tree_digest(canary_dir),
            tree_digest(FIXTURES),
            listener,
            listener6,
            abstract,
            {},
            Path(victim.base),
        )
        cases = [c for c in CASES if cbin is not None or not c.c]
        for wave in ([c for c in cases if not c.hog], [c for c in cases if c.hog]):
            with ThreadPoolExecutor(max_workers=8) as pool:
                futures = {c.name: pool.submit(_run_case, sandbox, c, cbin, common) for c in wave}
                w.outcomes.update({name: f.result() for name, f in futures.items()})
        w.victim_digest_after = tree_digest(Path(victim.base))  # type: ignore[attr-defined]
        yield w
    finally:
        victim.close()
        listener.close()
        if listener6 is not None:
            listener6.close()
        abstract.close()
        shutil.rmtree(canary_dir, ignore_errors=True)
        for d in ("/tmp", "/var/tmp", "/dev/shm"):
            p = Path(d) / tmp_name
            if p.exists():
                p.unlink()


def outcome(world: World, name: str) -> Outcome:
    if name not in world.outcomes:
        pytest.skip("C variant skipped: no C compiler")
    return world.outcomes[name]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verdict_and_no_survivors(world: World, case: Case) -> None:
    out = outcome(world, case.name)
    r = out.turn.result
    expect = case.expect if isinstance(case.expect, tuple) else (case.expect,)
    assert r.verdict in expect, f"{case.name}: {r.verdict.value}: {r.message}"
    assert r.message
    assert out.leftovers == [], f"{case.name} left processes {out.leftovers}"
    assert set(out.left_files) <= {"STATE.OUT"}, out.left_files
    assert out.prog_intact, "the program copy changed"
    if r.verdict is V.TLE:  # killed promptly at the limit plus the waiting it was given back
        assert case.time_s <= r.wall_s < case.time_s + (r.wait_s or 0.0) + 0.5, r.wall_s


def test_move_then_hang_returns_the_move(world: World) -> None:
    out = outcome(world, "move_then_hang")
    assert out.turn.outputs["MOVE.OUT"] == b"2 2\n"


@pytest.mark.parametrize("name", ["memhog_py", "memhog_c"])
def test_memory_hog_peak_and_message(world: World, name: str) -> None:
    r = outcome(world, name).turn.result
    assert r.peak_memory_bytes >= 400 * 2**20
    assert "memory limit 512 MiB" in r.message


@pytest.mark.parametrize("name", ["reserve_py", "reserve_c"])
def test_reserved_address_space_is_not_memory(world: World, name: str) -> None:
    out = outcome(world, name)
    assert out.turn.result.peak_memory_bytes < 200 * 2**20
    assert out.turn.outputs["MOVE.OUT"] == b"3 3\n"


@pytest.mark.root("the process cap is per uid only as root")
def test_fork_storm_is_capped(world: World) -> None:
    # Sleeping children fill the cap at once, however busy the machine is.
    r = outcome(world, "forkwide_c").turn.result
    assert "process cap 64 reached" in r.message, r.message


def test_daemon_counts_until_it_exits(world: World) -> None:
    lingering = outcome(world, "daemon_lingers").turn
    assert "still running" in lingering.result.message
    assert lingering.outputs["MOVE.OUT"] == b"4 4\n"
    short = outcome(world, "daemon_short").turn.result
    assert short.wall_s >= 0.3, "wall time must last until the daemon exits (R17)"


def test_flood_is_drained_and_truncated(world: World) -> None:
    r = outcome(world, "flood").turn.result
    assert len(r.stdout_tail) == 64 * KIB and r.stdout_tail.endswith(b"END-OF-STDOUT\n")
    assert len(r.stderr_tail) == 64 * KIB and r.stderr_tail.endswith(b"END-OF-STDERR\n")
    assert "stdout truncated" in r.message and "stderr truncated" in r.message
    assert outcome(world, "flood").turn.outputs["MOVE.OUT"] == b"5 5\n"


@pytest.mark.parametrize("name", ["giant_py", "giant_sh", "giant_c"])
def test_giant_file_is_ole(world: World, name: str) -> None:
    r = outcome(world, name).turn.result
    assert "file size limit 16 MiB" in r.message


def test_links_are_never_followed(world: World) -> None:
    out = outcome(world, "links")
    assert out.turn.outputs["MOVE.OUT"] is None
    assert any("STATE.OUT was a symbolic link: discarded" in d for d in out.turn.discarded)
    assert any("MOVE.OUT was a symbolic link" in d for d in out.turn.discarded)
    assert world.canary_file.read_text() == "canary secret\n"


def test_oversized_state_is_discarded(world: World) -> None:
    out = outcome(world, "big_state")
    assert any(
        "STATE.OUT was 2 MiB, over its cap of 1 MiB: discarded" in d for d in out.turn.discarded
    )
    assert "STATE.OUT" not in out.left_files


@pytest.mark.root("seats are separated only as root")
def test_cannot_read_other_seat_or_judge(world: World) -> None:
    results = json.loads(outcome(world, "read_other").turn.outputs["MOVE.OUT"] or b"{}")
    assert set(results) == {
        "victim_state",
        "victim_prog_file",
        "judge_file",
        "canary_file",
        "victim_work",
        "victim_base",
        "sandbox_root",
    }
    own_seat = os.path.basename(outcome(world, "read_other").targets["own_base"])
    for key, value in results.items():
        if key == "sandbox_root" and value == f"LISTED:{own_seat}":
            continue  # the seat's view shows its own folder there, and nothing else
        assert value.startswith("denied"), f"{key}: {value}"


@pytest.mark.root("seats are separated only as root")
def test_cannot_write_outside(world: World) -> None:
    out = outcome(world, "write_outside")
    results = json.loads(out.turn.outputs["MOVE.OUT"] or b"{}")
    private_scratch = {"host_tmp", "var_tmp", "dev_shm"}  # the seat's own /tmp: allowed, private
    for key, value in results.items():
        if key not in private_scratch:
            assert value.startswith("denied"), f"{key}: {value}"
    for d in ("/tmp", "/var/tmp", "/dev/shm", "/etc", str(Path(__file__).parent)):
        assert not (Path(d) / world.tmp_name).exists(), f"escaped into {d}"
    assert not Path(out.targets["own_base"], "pwned.txt").exists()
    assert not Path(out.targets["sandbox_root"], "pwned.txt").exists()


def test_judge_survives_kill_attempts(world: World) -> None:
    out = outcome(world, "kill_parent")
    results = json.loads(out.turn.outputs["MOVE.OUT"] or b"{}")
    if IS_ROOT:
        assert results["parent"].startswith("denied") and results["judge"].startswith("denied")


def test_exit_after_move_keeps_output(world: World) -> None:
    r = outcome(world, "exit_after_move").turn
    assert r.result.exit_code == 3 and r.result.signal is None
    assert r.outputs["MOVE.OUT"] == b"3 1\n"
    assert "exited with code 3" in r.result.message


@pytest.mark.parametrize("name", ["segv_py", "segv_c"])
def test_segfault_reports_signal(world: World, name: str) -> None:
    r = outcome(world, name).turn.result
    assert r.signal == 11 and r.exit_code is None
    assert "SIGSEGV" in r.message


@pytest.mark.root("network namespaces need root")
def test_no_network(world: World) -> None:
    results = json.loads(outcome(world, "net").turn.outputs["MOVE.OUT"] or b"{}")
    for key, value in results.items():
        assert value.startswith("denied"), f"{key}: {value}"
    for sock in (world.listener, world.listener6, world.abstract):
        if sock is not None:
            with pytest.raises(BlockingIOError):
                sock.accept()


def test_fifo_and_folder_outputs(world: World) -> None:
    out = outcome(world, "weird_outputs")
    assert out.turn.outputs["MOVE.OUT"] is None
    assert any("MOVE.OUT was not a regular file" in d for d in out.turn.discarded)
    assert any("STATE.OUT was a folder: discarded" in d for d in out.turn.discarded)


def test_nothing_outside_changed(world: World) -> None:
    assert tree_digest(world.canary_dir) == world.canary_digest
    assert world.victim_digest_after == world.victim_digest  # type: ignore[attr-defined]
    assert tree_digest(FIXTURES) == world.fixtures_digest
    assert (world.victim_base / "rw" / "work" / "STATE.OUT").read_text() == "victim-secret\n"


def test_sandbox_still_works_after_the_storm(sandbox: Sandbox, world: World) -> None:
    with sandbox.seat("after", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn([str(seat.program_dir / "ok.py")], {}, ["MOVE.OUT"], Limits())
        assert run.result.verdict is V.OK, run.result.message
        assert procs_of_uid(seat.uid) == []
