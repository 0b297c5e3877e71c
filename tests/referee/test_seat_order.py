"""Both seats' runs of a turn overlap, seat 1's judge work after seat 0's.

The referee starts seat 1's run once seat 0's run says its program is starting
(``Seat.run_turn``'s ``starting``): the two seats' work before their programs is
Python, which done at once shares the interpreter lock.  The programs still
run at once, and a seat 0 that fails, or never says so, does not hold seat 1
up for good.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from judge.maps import load_map
from judge.referee import RoundConfig, play_round
from judge.sandbox import Limits, TurnRun
from tests.referee.fakes import FakeSandbox, FakeSeat, scripted, spec

ROOT = Path(__file__).resolve().parents[2]


def _cfg(turns: int = 3) -> RoundConfig:
    return RoundConfig(
        game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=3, turns=turns
    )


class _Timeline(FakeSandbox):
    """Seat ``a`` (seat 0) works ``before`` s, says it is starting, then runs ``program`` s;
    every step of both seats goes on one timeline.  ``says``: whether seat 0 calls
    ``starting`` itself (False: a seat that ignores it); ``fails``: seat 0 raises
    instead of saying so."""

    def __init__(
        self, before: float, program: float, says: bool = True, fails: bool = False
    ) -> None:
        super().__init__({"a": scripted(["1 1"] * 50), "b": scripted(["1 1"] * 50)})
        self.before, self.program, self.says, self.fails = before, program, says, fails
        self.events: list[tuple[str, float]] = []
        self.lock = threading.Lock()

    def note(self, what: str) -> None:
        with self.lock:
            self.events.append((what, time.monotonic()))

    def seat(self, name: str, *args: Any, **kwargs: Any) -> FakeSeat:
        seat = super().seat(name, *args, **kwargs)
        real = seat.run_turn

        def run_turn(
            argv: Any, inputs: Any, outputs: Any, limits: Limits, *, starting: Any = None, **_: Any
        ) -> TurnRun:
            self.note(f"{name} begins")
            if name == "a":
                time.sleep(self.before)
                if self.fails:
                    raise RuntimeError("seat a broke before its program")
                if self.says and starting is not None:
                    self.note("a starting")
                    starting()
                time.sleep(self.program)
            elif starting is not None:
                starting()
            run = real(argv, inputs, outputs, limits)
            self.note(f"{name} ends")
            return run

        seat.run_turn = run_turn  # type: ignore[method-assign]
        return seat


def _times(sb: _Timeline, what: str) -> list[float]:
    return [t for w, t in sb.events if w == what]


def test_seat_1_begins_after_seat_0_says_it_is_starting_and_both_programs_overlap(
    tmp_path: Path,
) -> None:
    sb = _Timeline(before=0.05, program=0.3)
    play_round(_cfg(), [spec("a"), spec("b")], ["a", "b"], sb, tmp_path)  # type: ignore[arg-type]
    starts, b_begins, a_ends = (
        _times(sb, "a starting"),
        _times(sb, "b begins"),
        _times(sb, "a ends"),
    )
    assert len(starts) == len(b_begins) == len(a_ends) >= 3
    for said, b, a_end in zip(starts, b_begins, a_ends, strict=True):
        assert said <= b < a_end  # after seat 0's work, during its program


def _play_within(sb: _Timeline, out: Path, seconds: float) -> BaseException | None:
    """Play a round on a thread of its own; its exception (None: it ended well), failing
    the test if the round is still going after ``seconds`` (a hang fails, not hangs)."""
    caught: list[BaseException] = []

    def play() -> None:
        try:
            play_round(_cfg(), [spec("a"), spec("b")], ["a", "b"], sb, out)  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            caught.append(exc)

    t = threading.Thread(target=play, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"the round still going after {seconds} s: seat 1 waits for good"
    return caught[0] if caught else None


def test_a_seat_0_that_never_says_it_is_starting_holds_seat_1_up_only_until_it_ends(
    tmp_path: Path,
) -> None:
    sb = _Timeline(before=0.0, program=0.05, says=False)
    assert _play_within(sb, tmp_path, 5) is None
    b_begins, a_ends = _times(sb, "b begins"), _times(sb, "a ends")
    assert len(b_begins) == len(a_ends) >= 3
    for b, a_end in zip(b_begins, a_ends, strict=True):
        assert b >= a_end  # seat 1 went once seat 0's run was over


def test_a_seat_0_that_fails_before_its_program_ends_the_round_without_a_hang(
    tmp_path: Path,
) -> None:
    sb = _Timeline(before=0.01, program=0.0, fails=True)
    caught = _play_within(sb, tmp_path, 5)
    assert isinstance(caught, RuntimeError) and "seat a broke" in str(caught)
