"""Folder hygiene between turns (rulings R15, R16) and the seat's API contract."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from sandbox_support import FIXTURES, IS_ROOT, KEEP_STATE, procs_of_uid

from judge.sandbox import Limits, Sandbox, Seat, TurnRun, Verdict

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

SH = "/bin/sh"


def _turn(
    seat: Seat,
    argv: list[str],
    inputs: dict[str, bytes] | None = None,
    outputs: list[str] | None = None,
    limits: Limits | None = None,
) -> TurnRun:
    return seat.run_turn(
        argv,
        {"MAP.INP": b"map"} if inputs is None else inputs,
        ["MOVE.OUT"] if outputs is None else outputs,
        limits or Limits(time_s=10),
    )


def test_turn_after_turn(sandbox: Sandbox) -> None:
    """MOVE.OUT and litter of earlier turns are gone, STATE.OUT is kept, /tmp is emptied."""
    with sandbox.seat("turns", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "turns.py")]
        seen = []
        for _ in range(3):
            run = _turn(seat, argv)
            assert run.result.verdict is Verdict.OK, run.result.message
            seen.append(json.loads(run.outputs["MOVE.OUT"] or b"{}"))
        assert [s["files"] for s in seen] == [
            ["MAP.INP"],
            ["MAP.INP", "STATE.OUT"],
            ["MAP.INP", "STATE.OUT"],
        ]
        assert [s["state"] for s in seen] == [None, "1", "2"]
        if IS_ROOT:
            assert [s["tmp"] for s in seen] == [[], [], []], (
                "the private /tmp must be emptied each turn"
            )
        assert sorted(os.listdir(seat.workdir)) == ["STATE.OUT"]
        seat.reset()
        assert os.listdir(seat.workdir) == []
        run = _turn(seat, argv)
        assert json.loads(run.outputs["MOVE.OUT"] or b"{}")["state"] is None


def test_hard_to_clean_folder(sandbox: Sandbox) -> None:
    with sandbox.seat("mess", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        run = _turn(seat, [str(seat.program_dir / "mess.py")])
        assert run.result.verdict is Verdict.OK, run.result.message
        assert os.listdir(seat.workdir) == []
        assert os.listdir(seat.trash) == []
        assert os.stat(seat.workdir).st_mode & 0o777 == 0o700, "the folder is closed again"


def test_keep_file_rules(sandbox: Sandbox) -> None:
    with sandbox.seat("keep", None, keep="MEM.TXT", keep_bytes=10) as seat:
        # A hard link whose other name is removed by hygiene is an ordinary file: kept.
        run = _turn(seat, [SH, "-c", "echo 12345 > a; ln a MEM.TXT"])
        assert run.result.verdict is Verdict.OK, run.result.message
        assert run.discarded == ()
        assert (seat.workdir / "MEM.TXT").read_bytes() == b"12345\n"
        run = _turn(seat, [SH, "-c", "echo 0123456789 > MEM.TXT"])
        assert run.discarded == ("MEM.TXT was 11 B, over its cap of 10 B: discarded",)
        assert not (seat.workdir / "MEM.TXT").exists()


def test_outputs_read_capped_and_returned_whatever_the_verdict(sandbox: Sandbox) -> None:
    with sandbox.seat("outputs", None) as seat:
        run = _turn(
            seat,
            [SH, "-c", "printf '1 2' > MOVE.OUT; printf big > OTHER; exit 4"],
            outputs=["MOVE.OUT", "OTHER", "MISSING"],
        )
        assert run.result.verdict is Verdict.RE
        assert run.outputs == {"MOVE.OUT": b"1 2", "OTHER": b"big", "MISSING": None}


def test_bad_names_and_types(sandbox: Sandbox) -> None:
    with sandbox.seat("names", None, **KEEP_STATE) as seat:
        for bad in ("", ".", "..", "a/b", "x\0y"):
            with pytest.raises(ValueError, match="plain file name"):
                _turn(seat, [SH, "-c", "true"], inputs={bad: b""})
            with pytest.raises(ValueError, match="plain file name"):
                _turn(seat, [SH, "-c", "true"], outputs=[bad])
        with pytest.raises(ValueError, match="keep file"):
            _turn(seat, [SH, "-c", "true"], inputs={"STATE.OUT": b"x"})
        with pytest.raises(TypeError, match="bytes"):
            _turn(seat, [SH, "-c", "true"], inputs={"MAP.INP": "text"})  # type: ignore[dict-item]
        with pytest.raises(ValueError, match="argv"):
            _turn(seat, [])
        with pytest.raises(TypeError, match="Limits"):
            seat.run_turn([SH], {}, [], None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="keep file name"):
        sandbox.seat("bad-keep", None, keep="../x")
    with pytest.raises(ValueError, match="not a folder"):
        sandbox.seat("no-dir", Path("/nonexistent/bot"))


def test_one_turn_at_a_time_and_close(sandbox: Sandbox) -> None:
    seat = sandbox.seat("busy", None)
    started = threading.Event()
    errors: list[BaseException] = []

    def long_turn() -> None:
        started.set()
        _turn(seat, [SH, "-c", "sleep 0.5"])

    t = threading.Thread(target=long_turn)
    t.start()
    started.wait()
    time.sleep(0.15)
    try:
        _turn(seat, [SH, "-c", "true"])
    except RuntimeError as exc:
        errors.append(exc)
    t.join()
    assert errors and "already running a turn" in str(errors[0])
    base, uid = seat.base, seat.uid
    seat.close()
    seat.close()  # idempotent
    assert not os.path.exists(base)
    assert procs_of_uid(uid) == []
    with pytest.raises(RuntimeError, match="closed"):
        _turn(seat, [SH, "-c", "true"])


def test_environment_stdin_and_limits(sandbox: Sandbox) -> None:
    with sandbox.seat("env", FIXTURES) as seat:
        assert seat.program_dir is not None
        limits = Limits(time_s=10, file_bytes=1234567, max_procs=17)
        run = _turn(seat, [str(seat.program_dir / "env.py")], limits=limits)
        assert run.result.verdict is Verdict.OK, run.result.message
        info = json.loads(run.outputs["MOVE.OUT"] or b"{}")
        assert info["env"] == {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(seat.workdir),
            "LANG": "C.UTF-8",
        }
        assert info["cwd"] == str(seat.workdir)
        assert info["stdin"] == ""
        assert info["fsize"] == 1234567
        assert info["fds"] == [0, 1, 2, 3]  # 3: the listing's own fd
        assert info["sid_is_self"]
        if IS_ROOT:
            assert info["uid"] == seat.uid and info["gid"] == seat.gid and info["groups"] == []
            assert info["nproc"] == 17


def test_seat_root_under_tmp(tmp_path: Path) -> None:
    """A caller may put the seats under /tmp: the view then keeps /tmp read-only but still works."""
    with Sandbox(tmp_path / "seats") as sb, sb.seat("under-tmp", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "turns.py")]
        for expected_state in (None, "1"):
            run = _turn(seat, argv)
            assert run.result.verdict is Verdict.OK, run.result.message
            assert json.loads(run.outputs["MOVE.OUT"] or b"{}")["state"] == expected_state
