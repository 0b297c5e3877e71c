"""A scripted in-process stand-in for the sandbox (as python-chess mocks its engine transport).

A fake bot is a Python callable ``bot(map_inp: str, state: bytes | None) ->
(move_out: bytes | None, state: bytes | None, verdict: str)``; the fake seat
keeps STATE.OUT between turns like the real one.  Rules-through-referee tests
run in milliseconds with it; the real sandbox is exercised end to end elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from judge.bots import BotSpec
from judge.names import folder_name
from judge.sandbox import Isolation, Limits, RunResult, TurnRun, Verdict

FakeBot = Callable[[str, bytes | None], tuple[bytes | None, bytes | None, str]]


class FakeSeat:
    def __init__(self, bot: FakeBot):
        self.bot = bot
        self.state: bytes | None = None
        self.workdir = Path("/nonexistent")
        self.program_dir = None
        self.calls: list[str] = []

    def run_turn(self, argv, inputs, outputs, limits: Limits, *, starting=None, **_) -> TurnRun:
        if starting is not None:
            starting()
        text = inputs["MAP.INP"].decode()
        self.calls.append(text)
        if "STATE.OUT" in inputs:  # given as a file, as check-bot --from gives it
            self.state = inputs["STATE.OUT"]
        move, state, verdict = self.bot(text, self.state)
        self.state = state
        result = RunResult(
            Verdict(verdict),
            0.001,
            0.001,
            1 << 20,
            0 if verdict == "OK" else 1,
            None,
            b"",
            b"",
            "fake",
        )
        outs = {"MAP.INP": None, "MOVE.OUT": move}
        if "STATE.OUT" in outputs:  # asked, as the real seat: the file it keeps
            outs["STATE.OUT"] = state
        return TurnRun(result, outs, ())

    def close(self) -> None:
        pass

    def __enter__(self) -> FakeSeat:
        return self

    def __exit__(self, *a: object) -> None:
        self.close()

    def reset(self) -> None:
        self.state = None


class FakeSandbox:
    def __init__(self, bots: dict[str, FakeBot]):
        # Seats are named with the teams' folder forms (judge.names): find a bot either way.
        self.bots = {**bots, **{folder_name(k): v for k, v in bots.items()}}
        self.seats: list[FakeSeat] = []
        self.isolation = Isolation(items=(("fake", True, "in-process test double"),))

    def seat(
        self, name: str, program_dir=None, keep: str = "STATE.OUT", keep_bytes: int = 1 << 20
    ) -> FakeSeat:
        s = FakeSeat(self.bots[name])
        self.seats.append(s)
        return s

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


def spec(name: str) -> BotSpec:
    return BotSpec(name, name, None, ("fake",))


def scripted(moves: list[str | None]) -> FakeBot:
    """A bot that writes the given MOVE.OUT lines in order (None = no file), then stays silent."""
    it = iter(moves)

    def bot(map_inp: str, state):
        try:
            m = next(it)
        except StopIteration:
            m = None
        return (None if m is None else m.encode()), state, "OK"

    return bot
