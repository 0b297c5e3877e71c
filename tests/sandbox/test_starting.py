"""A run's ``starting`` call (Seat.run_turn): once, with the inputs written and
nothing of the program run yet, or as the call ends when it never got that far.

The referee lets seat 1's Python work wait for seat 0's ``starting`` instead of
both sharing the interpreter lock before either program runs; a call that never
came would leave seat 1 waiting on its guard, one that came after the program
would start the programs one after the other.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_support import FIXTURES, KEEP_STATE

from judge.sandbox import Limits, ProgramUnreachable, Sandbox, Verdict

pytestmark = pytest.mark.slow  # real programs: not in the fast subset


def test_starting_comes_once_with_the_inputs_written_and_before_the_program(
    sandbox: Sandbox,
) -> None:
    with sandbox.seat("starting", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        seen: list[tuple[bool, bool]] = []

        def starting() -> None:
            seen.append(((seat.workdir / "MAP.INP").exists(), (seat.workdir / "MOVE.OUT").exists()))

        # The first run starts the seat's helper; the next ones go through the run
        # armed after the last one: the call comes before the program on both paths.
        for _ in range(3):
            run = seat.run_turn(
                [str(seat.program_dir / "ok.py")],
                {"MAP.INP": b"map"},
                ["MOVE.OUT"],
                Limits(time_s=10),
                starting=starting,
            )
            assert run.result.verdict is Verdict.OK
            assert run.outputs["MOVE.OUT"] == b"1 1\n"
        assert seen == [(True, False)] * 3


def test_starting_comes_even_when_the_run_never_gets_to_the_program(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    calls: list[str] = []
    with sandbox.seat("never-starts", tmp_path) as seat:
        assert seat.program_dir is not None
        with pytest.raises(ValueError):
            seat.run_turn([], {}, ["MOVE.OUT"], Limits(), starting=lambda: calls.append("argv"))
        with pytest.raises(ProgramUnreachable):
            seat.run_turn(
                [str(seat.program_dir / "missing")],
                {},
                ["MOVE.OUT"],
                Limits(),
                starting=lambda: calls.append("missing"),
            )
    with pytest.raises(RuntimeError, match="closed"):
        seat.run_turn(
            [str(FIXTURES / "ok.py")],
            {},
            ["MOVE.OUT"],
            Limits(),
            starting=lambda: calls.append("closed"),
        )
    assert calls == ["argv", "missing", "closed"]


def test_starting_comes_when_the_seat_is_already_running_a_turn(sandbox: Sandbox) -> None:
    calls: list[str] = []
    refused: list[RuntimeError] = []
    with sandbox.seat("busy", FIXTURES, **KEEP_STATE) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "ok.py")]

        def again() -> None:  # a second run asked for while the first is about to start
            try:
                seat.run_turn(argv, {}, ["MOVE.OUT"], Limits(), starting=lambda: calls.append("2"))
            except RuntimeError as exc:
                refused.append(exc)

        run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits(time_s=10), starting=again)
        assert run.result.verdict is Verdict.OK
    assert calls == ["2"]
    assert len(refused) == 1 and "already running a turn" in str(refused[0])
