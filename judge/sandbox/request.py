"""What a seat's run is asked for, and what it carries from step to step.

A :class:`RunRequest` is the caller's request, checked once (step "accept").  A
:class:`RunContext` is one run's own: its step timings, its notes (what folder
hygiene removed or refused, what went wrong around the run: the
:attr:`~judge.sandbox.types.TurnRun.discarded` of the result) and the caller's
``starting`` hook.  A step that cannot go on raises :class:`TurnFailed`; the run
is then the judge's failure (IE), with the notes so far.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from judge.sandbox.folders import check_name
from judge.sandbox.steps import StepTimes, Timed
from judge.sandbox.types import Limits, RunResult, TurnRun, Verdict


def checked_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` as a list, refused (ValueError) unless it is a non-empty list of strings
    without NUL, the first one not empty."""
    if (
        not isinstance(argv, (list, tuple))
        or not argv
        or not all(isinstance(a, str) and a and "\0" not in a for a in argv[:1])
        or not all(isinstance(a, str) and "\0" not in a for a in argv)
    ):
        raise ValueError(f"argv must be a non-empty list of strings without NUL, not {argv!r}")
    return list(argv)


@dataclass(frozen=True)
class RunRequest:
    """One run as the caller asks for it: the command, the files written before it, the
    files read after it, the limits."""

    argv: list[str]
    inputs: Mapping[str, bytes]
    outputs: list[str]
    limits: Limits

    @classmethod
    def checked(
        cls,
        argv: Sequence[str],
        inputs: Mapping[str, bytes],
        outputs: Sequence[str],
        limits: Limits,
        keep: str | None,
    ) -> RunRequest:
        """The request, or ValueError/TypeError naming what is wrong: file names that
        are not plain names in the seat's folder, an input that is the seat's ``keep``
        file (the judge never writes it), an input that is not bytes."""
        argv = checked_argv(argv)
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, not {type(limits).__name__}")
        for name in inputs:
            check_name(name, "input file name")
            if name == keep:
                raise ValueError(
                    f"input file {name!r} is the seat's keep file; the judge never writes it"
                )
            if not isinstance(inputs[name], (bytes, bytearray, memoryview)):
                raise TypeError(f"input {name!r} must be bytes, not {type(inputs[name]).__name__}")
        for name in outputs:
            check_name(name, "output file name")
        return cls(argv, inputs, list(outputs), limits)


@dataclass(frozen=True)
class Command:
    """The command that really runs (step "resolve"): a Windows program's through wine's
    loader (``windows``), a diagnostic wrapper's in front."""

    argv: list[str]
    windows: bool = False


class TurnFailed(Exception):
    """A step could not go on: the run is the judge's failure (IE), ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RunContext:
    """One run's step timings, notes and ``starting`` hook (called at most once)."""

    __slots__ = ("steps", "notes", "_starting")

    def __init__(self, starting: Callable[[], None] | None = None) -> None:
        self.steps = StepTimes()
        #: plain-words notes, in the order they were made (the turn's ``discarded``)
        self.notes: list[str] = []
        self._starting = starting

    def timed(self, step: str) -> Timed:
        """Count the time spent in the ``with`` block to ``step``."""
        return self.steps.timed(step)

    def starting(self) -> None:
        """The program's start is next (or the run ends without getting that far): the
        caller's hook, the first time only."""
        call, self._starting = self._starting, None
        if call is not None:
            call()

    def turn(self, result: RunResult, outputs: dict[str, bytes | None]) -> TurnRun:
        """The run's result, as the caller gets it."""
        return TurnRun(result, outputs, tuple(self.notes), self.steps)

    def failed(self, failure: TurnFailed) -> TurnRun:
        """The run as the judge's failure, with its notes so far."""
        result = RunResult(
            Verdict.IE,
            0.0,
            0.0,
            0,
            None,
            None,
            b"",
            b"",
            f"judge internal error: {failure.message}",
        )
        return self.turn(result, {})
