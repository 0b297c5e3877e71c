"""A run the judge discards (IE) leaves no trace: the retry starts as the discarded run did.

A run judged IE is run again by the referee, so whatever the discarded
run wrote to the keep file (STATE.OUT) must be gone, or the run that counts sees
a history that never happened.  The IE is forced after a real run: the program
really ran and really wrote its keep file, then the verdict was made IE.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import FIXTURES, KEEP_STATE

import judge.sandbox.seat as seat_module
from judge.sandbox import Limits, RunResult, Sandbox, Verdict

pytestmark = pytest.mark.slow  # real programs


def force_ie(monkeypatch: pytest.MonkeyPatch, on_calls: set[int]) -> list[int]:
    """Make the verdicts of the given runs (1-based, in order) IE after they really ran."""
    real: Callable[..., RunResult] = seat_module.decide
    calls = [0]

    def decide(*args: Any, **kwargs: Any) -> RunResult:
        result = real(*args, **kwargs)
        calls[0] += 1
        if calls[0] in on_calls:
            return dataclasses.replace(
                result,
                verdict=Verdict.IE,
                message="judge internal error: forced by the test",
                kept_waiting=True,
            )
        return result

    monkeypatch.setattr(seat_module, "decide", decide)
    return calls


def test_a_discarded_run_leaves_the_keep_file_as_it_was(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    force_ie(monkeypatch, {2, 3})
    with sandbox.seat("a", FIXTURES, **KEEP_STATE) as seat:
        argv = [str(seat.program_dir / "turns.py")]
        states = []
        for _ in range(5):
            run = seat.run_turn(argv, {"MAP.INP": b"x"}, ["MOVE.OUT"], Limits())
            states.append(
                (run.result.verdict, json.loads(run.outputs["MOVE.OUT"] or b"{}")["state"])
            )
        # Runs 2 and 3 were discarded: each saw, and the run after them sees, run 1's state.
        assert states == [
            (Verdict.OK, None),
            (Verdict.IE, "1"),
            (Verdict.IE, "1"),
            (Verdict.OK, "1"),
            (Verdict.OK, "2"),
        ]
        assert (seat.workdir / "STATE.OUT").read_text() == "3"


def test_a_discarded_first_run_leaves_no_keep_file(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    force_ie(monkeypatch, {1})
    with sandbox.seat("a", FIXTURES, **KEEP_STATE) as seat:
        argv = [str(seat.program_dir / "turns.py")]
        first = seat.run_turn(argv, {"MAP.INP": b"x"}, ["MOVE.OUT"], Limits())
        assert first.result.verdict is Verdict.IE
        assert not (seat.workdir / "STATE.OUT").exists()
        again = seat.run_turn(argv, {"MAP.INP": b"x"}, ["MOVE.OUT"], Limits())
        assert json.loads(again.outputs["MOVE.OUT"] or b"{}")["state"] is None


def test_the_keep_file_comes_back_with_its_mode(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The saved copy is the file as the program left it: bytes and permission bits."""
    bot = tmp_path / "bot"
    bot.mkdir()
    script = bot / "mode.py"
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import os\n"
        "old = open('STATE.OUT').read() if os.path.exists('STATE.OUT') else ''\n"
        "open('MOVE.OUT', 'w').write(old)\n"
        "if os.path.exists('STATE.OUT'): os.chmod('STATE.OUT', 0o600)\n"
        "open('STATE.OUT', 'w').write(old + 'x')\n"
        "os.chmod('STATE.OUT', 0o640)\n"
    )
    script.chmod(0o755)
    force_ie(monkeypatch, {2})
    with sandbox.seat("a", bot, **KEEP_STATE) as seat:
        argv = [str(seat.program_dir / "mode.py")]
        seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
        before = (seat.workdir / "STATE.OUT").stat()
        discarded = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
        assert discarded.result.verdict is Verdict.IE
        after = (seat.workdir / "STATE.OUT").stat()
        assert (seat.workdir / "STATE.OUT").read_text() == "x"
        assert (after.st_mode, after.st_uid, after.st_gid) == (
            before.st_mode,
            before.st_uid,
            before.st_gid,
        )
        counted = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
        assert counted.outputs["MOVE.OUT"] == b"x"
