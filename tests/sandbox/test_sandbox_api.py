"""The sandbox's contract: types, isolation report, unreachable programs, parsing, uid leases."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import FIXTURES, IS_ROOT, needs_root, procs_of_uid

from judge.sandbox import Isolation, Limits, ProgramUnreachable, Sandbox, SandboxError, Verdict
from judge.sandbox.cgroups import read_mounts, read_own_cgroups
from judge.sandbox.helper import find_helper
from judge.sandbox.probe import P_UID
from judge.sandbox.record import HelperRecord
from judge.sandbox.supervise import RawRun, Tail
from judge.sandbox.uids import UidPool, UidsExhausted
from judge.sandbox.verdicts import decide, fmt_bytes

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


# ---------------------------------------------------------------- types
def test_limits_defaults_and_validation() -> None:
    lim = Limits()
    assert (lim.time_s, lim.memory_bytes, lim.file_bytes, lim.max_procs, lim.output_bytes) == (
        2.0,
        512 * 2**20,
        16 * 2**20,
        64,
        64 * 1024,
    )
    assert Limits(time_s=None).time_s is None
    for kw in (
        {"time_s": 0},
        {"time_s": -1.0},
        {"time_s": float("inf")},
        {"memory_bytes": 0},
        {"memory_bytes": 1024},
        {"max_procs": 0},
        {"file_bytes": -5},
        {"output_bytes": 1.5},
    ):
        with pytest.raises(ValueError, match=next(iter(kw))):
            Limits(**kw)  # type: ignore[arg-type]


def test_verdict_values_are_strings() -> None:
    assert [v.value for v in Verdict] == ["OK", "TLE", "MLE", "RE", "OLE", "IE"]
    assert Verdict("TLE") is Verdict.TLE and Verdict.OK == "OK"


def test_isolation_report() -> None:
    iso = Isolation((("a", True, "why a"), ("b", False, "why not b")))
    assert iso.as_dict() == {
        "a": {"on": True, "detail": "why a"},
        "b": {"on": False, "detail": "why not b"},
    }
    text = iso.describe()
    assert text.startswith("1 of 2 protections OFF") and "[OFF] b" in text and "[on ] a" in text
    assert iso.is_on("a") and not iso.is_on("b")
    with pytest.raises(KeyError, match="no protection called 'c'"):
        iso.is_on("c")


@needs_root
def test_every_protection_on_as_root(sandbox: Sandbox) -> None:
    off = [(n, d) for n, on, d in sandbox.isolation.items if not on]
    assert off == [], off
    assert sandbox.isolation.describe().startswith("all protections on")


def test_fmt_bytes() -> None:
    assert [fmt_bytes(n) for n in (0, 700, 1536, 2**20, 3 * 2**30 // 2)] == [
        "0 B",
        "700 B",
        "1.5 KiB",
        "1 MiB",
        "1.5 GiB",
    ]


def test_tail_keeps_the_end() -> None:
    t = Tail(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop"):
        t.add(chunk)
    assert t.data == b"ghijklmnop" and t.total == 16 and t.truncated
    t.add(b"x" * 25)
    assert t.data == b"x" * 10 and t.total == 41
    small = Tail(10)
    small.add(b"hi")
    assert small.data == b"hi" and not small.truncated


# ---------------------------------------------------------------- verdicts
def _raw(status: int | None = 0, **kw: object) -> RawRun:
    rec = (
        None
        if status is None
        else HelperRecord.of(
            {
                "main_status": str(status),
                "start_ns": "0",
                "main_end_ns": str(10**8),
                "main_before_kill": "1",
                "end": "1",
            }
        )
    )
    raw = RawRun(rec, 0, 0.4, 0.3, Tail(8), Tail(8))  # within test_verdict_precedence's 0.5 s
    for k, v in kw.items():
        setattr(raw, k, v)
    return raw


def test_verdict_precedence() -> None:
    lim = Limits(time_s=0.5)
    killed = signal.SIGKILL
    assert decide(_raw(0), lim, None, True).verdict is Verdict.OK
    assert decide(_raw(3 << 8), lim, None, True).verdict is Verdict.RE
    assert (
        decide(
            _raw(killed),
            lim,
            None,
            True,
        ).verdict
        is Verdict.RE
    )
    assert decide(_raw(killed, timed_out=True), lim, None, True).verdict is Verdict.TLE
    big = ("big.bin", lim.file_bytes)
    assert decide(_raw(killed, timed_out=True), lim, big, True).verdict is Verdict.OLE
    assert decide(_raw(signal.SIGXFSZ), lim, None, True).verdict is Verdict.OLE
    assert (
        decide(_raw(killed, timed_out=True, cg_oom_kills=1), lim, big, True).verdict is Verdict.MLE
    )
    assert decide(_raw(0, polled_peak=600 * 2**20), lim, None, False).verdict is Verdict.MLE
    # with a cgroup, a peak at the limit without an OOM kill is page cache being reclaimed: fine
    assert decide(_raw(0, cg_peak=600 * 2**20), lim, None, True).verdict is Verdict.OK
    ie = decide(_raw(killed, timed_out=True, internal_error="boom"), lim, big, True)
    assert ie.verdict is Verdict.IE and "boom" in ie.message
    assert decide(_raw(None), lim, None, True).verdict is Verdict.IE
    lingering = decide(_raw(0, timed_out=True), lim, None, True)
    assert "exited after 0.100 s" in lingering.message
    killed_main = _raw(killed, timed_out=True)
    assert killed_main.record is not None
    killed_main.record = dataclasses.replace(killed_main.record, main_before_kill=False)
    assert "still running" not in decide(killed_main, lim, None, True).message


# ---------------------------------------------------------------- parsing
def test_read_mounts_and_own_cgroups() -> None:
    info = (
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "50 31 0:40 /sub /mnt/cg rw - cgroup cgroup rw,cpu,cpuacct\n"
    )
    mounts = read_mounts(info)
    assert [(m.fstype, m.mountpoint, m.root) for m in mounts] == [
        ("cgroup", "/sys/fs/cgroup/memory", "/"),
        ("cgroup2", "/sys/fs/cgroup/unified", "/"),
        ("cgroup", "/mnt/cg", "/sub"),
    ]
    assert "memory" in mounts[0].options and "cpuacct" in mounts[2].options
    own = read_own_cgroups("8:pids:/\n4:memory:/a/b\n2:cpu,cpuacct:/c\n0::/user.slice\n")
    assert own == {"pids": "/", "memory": "/a/b", "cpu": "/c", "cpuacct": "/c", "": "/user.slice"}


def test_helper_preference() -> None:
    assert find_helper("python").kind == "python"
    with pytest.raises(ValueError, match="helper preference"):
        find_helper("rust")
    with pytest.raises(ValueError, match="cgroup preference"):
        Sandbox(cgroup="v3")


# ---------------------------------------------------------------- uid leases
@needs_root
def test_uid_leases_across_processes(tmp_path: Path) -> None:
    lock_dir = str(tmp_path / "locks")
    pool = UidPool(61990, 61990, lock_dir)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom judge.sandbox.uids import UidPool\n"
            f"l = UidPool(61990, 61990, {lock_dir!r}).acquire()\nprint(l.uid, flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "61990"
    with pytest.raises(UidsExhausted, match="61990-61990"):
        pool.acquire()
    holder.stdin.close()
    holder.wait()
    lease = pool.acquire()  # released by the kernel when the holder exited
    assert lease.uid == lease.gid == 61990
    with pytest.raises(UidsExhausted):
        pool.acquire()  # and a second lease in this process is refused too
    lease.release()
    lease.release()
    assert not lease.held
    assert stat.S_IMODE(os.stat(lock_dir).st_mode) == 0o700


@needs_root
def test_uids_with_accounts_are_skipped(tmp_path: Path) -> None:
    with pytest.raises(UidsExhausted):
        UidPool(65534, 65534, str(tmp_path / "locks")).acquire()  # nobody
    with pytest.raises(ValueError, match="seat uid range"):
        UidPool(10, 20, str(tmp_path / "locks"))


@needs_root
def test_two_seats_get_different_uids(sandbox: Sandbox) -> None:
    with sandbox.seat("a", None) as a, sandbox.seat("a", None) as b:
        assert a.uid != b.uid and a.base != b.base
        assert (
            os.stat(a.workdir).st_uid == a.uid and stat.S_IMODE(os.stat(a.workdir).st_mode) == 0o700
        )
        assert os.stat(a.base).st_gid == a.gid and stat.S_IMODE(os.stat(a.base).st_mode) == 0o750
    assert sandbox.isolation.is_on(P_UID)


# ---------------------------------------------------------------- unreachable programs
def _pyenv_python() -> str | None:
    exe = os.path.realpath(sys.executable)
    return exe if exe.startswith(("/root/", "/home/")) else None


@needs_root
def test_private_interpreter_is_named(sandbox: Sandbox, tmp_path: Path) -> None:
    """The trap of this machine: the python3 first on root's PATH lives in /root."""
    private = _pyenv_python() or "/root/no-such-python3"
    bot = tmp_path / "bot.py"
    bot.write_text(f"#!{private}\nprint('hi')\n")
    bot.chmod(0o755)
    with sandbox.seat("trap", tmp_path) as seat:
        assert seat.program_dir is not None
        with pytest.raises(ProgramUnreachable) as info:
            seat.run_turn([str(seat.program_dir / "bot.py")], {}, ["MOVE.OUT"], Limits())
        assert private in str(info.value) and "interpreter" in str(info.value)
        assert isinstance(info.value, ValueError)
        with pytest.raises(ProgramUnreachable, match="argument 1"):
            seat.check(["/usr/bin/python3", str(Path(__file__).resolve())])
        with pytest.raises(ProgramUnreachable) as info:
            seat.check([private, "-c", "pass"])
        assert info.value.path == private
        assert procs_of_uid(seat.uid) == []


def test_missing_or_not_executable_program(sandbox: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "noexec.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "noexec.sh").chmod(0o644)
    with sandbox.seat("missing", tmp_path) as seat:
        assert seat.program_dir is not None
        with pytest.raises(ProgramUnreachable, match="not found in PATH"):
            seat.run_turn(["no-such-command-xyz"], {}, [], Limits())
        with pytest.raises(ProgramUnreachable, match="cannot execute"):
            seat.run_turn([str(seat.program_dir / "noexec.sh")], {}, [], Limits())
        with pytest.raises(ProgramUnreachable, match="is a folder"):
            seat.run_turn([str(seat.program_dir)], {}, [], Limits())
        # The system python3, found through the minimal PATH, is fine.
        run = seat.run_turn(
            ["python3", "-c", "open('MOVE.OUT','w').write('ok')"],
            {},
            ["MOVE.OUT"],
            Limits(time_s=10),
        )
        assert run.result.verdict is Verdict.OK and run.outputs["MOVE.OUT"] == b"ok"


def test_env_shebang_through_minimal_path(sandbox: Sandbox) -> None:
    with sandbox.seat("env-shebang", FIXTURES) as seat:
        assert seat.program_dir is not None
        seat.check([str(seat.program_dir / "ok.py")])  # #!/usr/bin/env python3


def test_closed_sandbox_refuses_seats(tmp_path: Path) -> None:
    sb = Sandbox(tmp_path / "root")
    sb.close()
    sb.close()
    with pytest.raises(RuntimeError, match="closed"):
        sb.seat("late", None)
    assert (tmp_path / "root").exists(), "a root given by the caller is left in place"


def test_sandbox_error_is_runtime_error() -> None:
    assert issubclass(SandboxError, RuntimeError)
    assert issubclass(ProgramUnreachable, ValueError)


def test_script_without_shebang_is_not_run_through_sh(sandbox: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "noshebang").write_text("echo 1 1 > MOVE.OUT\n")
    (tmp_path / "noshebang").chmod(0o755)
    with sandbox.seat("noshebang", tmp_path) as seat:
        assert seat.program_dir is not None
        with pytest.raises(ProgramUnreachable, match="without a #! line"):
            seat.run_turn([str(seat.program_dir / "noshebang")], {}, [], Limits())


def test_sandbox_info_command(capsys: pytest.CaptureFixture[str]) -> None:
    from judge.cli import main

    assert main(["sandbox-info", "--json", "--self-test"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["self_test"]["verdict"] == "OK" and out["self_test"]["move"] == "1 1\n"
    assert out["isolation"][P_UID]["on"] is IS_ROOT
    assert main(["sandbox-info", "--cgroup", "none"]) == 0
    text = capsys.readouterr().out
    assert "[OFF] memory limit by cgroup" in text


@needs_root
def test_default_root_is_passable_whatever_the_umask(tmp_path: Path, monkeypatch: Any) -> None:
    """A judge started under umask 077 still makes a base folder the seats can pass through."""
    from judge.sandbox import service

    base = tmp_path / "base"
    monkeypatch.setattr(service, "ROOT_BASE", str(base))
    old = os.umask(0o077)
    try:
        path = service._default_root()
    finally:
        os.umask(old)
    assert base.stat().st_mode & 0o777 == 0o711
    assert os.stat(path).st_mode & 0o777 == 0o711


def test_a_seats_reused_cgroups_count_each_run_alone(sandbox: Sandbox) -> None:
    """A seat's cgroups are reused between runs, and a run counts only its
    own OOM kill, refused forks and memory: an OK run after an MLE and a fork storm
    in the same seat is OK, with a peak of its own size."""
    with sandbox.seat("reuse", FIXTURES, **{"keep": "STATE.OUT", "keep_bytes": 2**20}) as seat:
        assert seat.program_dir is not None
        ok = [str(seat.program_dir / "ok.py")]
        hog = [str(seat.program_dir / "memhog.py"), "300"]
        storm = [str(seat.program_dir / "forkbomb.py")]
        small = Limits(time_s=2.0, memory_bytes=128 * 2**20)
        runs = [
            seat.run_turn(argv, {}, ["MOVE.OUT"], small if argv is hog else Limits(time_s=0.5))
            for argv in (ok, hog, ok, storm, ok)
        ]
    verdicts = [r.result.verdict for r in runs]
    assert verdicts[1] is Verdict.MLE, runs[1].result.message
    for r in (runs[0], runs[2], runs[4]):
        assert r.result.verdict is Verdict.OK, r.result.message
        assert r.outputs["MOVE.OUT"] == b"1 1\n"
        assert r.result.peak_memory_bytes < 64 * 2**20, r.result.peak_memory_bytes
        assert r.steps is not None and {"folder", "cgroup", "program", "clean"} <= set(
            r.steps.seconds
        )
