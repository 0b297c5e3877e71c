"""The judge's errors: one base class, so a command turns any of them into a message.

Every error the judge raises for a bad input or a failure it can explain is a
:class:`JudgeError`; ``judge`` prints its message and exits with its
``exit_code`` (2: the input is wrong and nothing was run; 3: the judge itself
failed).  As in python-chess, the concrete classes also subclass the
built-in they refine (a bad map is a ``ValueError``), so callers that catch
the built-in keep working, and each message names the bad input.

The concrete classes live beside the code that raises them (``MapError`` in
:mod:`judge.maps`, ``BotError`` in :mod:`judge.bots`, ...); this module only
holds the base and the errors no lower module owns.
"""

from __future__ import annotations


class JudgeError(Exception):
    """A failure the judge explains in words; ``exit_code`` is the status ``judge`` exits with."""

    exit_code: int = 2


class SandboxUnavailable(JudgeError, RuntimeError):
    """The sandbox cannot be set up on this machine (the judge's failure: exit status 3).

    The sandbox's own errors are not JudgeErrors (it imports nothing of the
    judge); a command wraps them in this one.
    """

    exit_code = 3


class UsageError(JudgeError, ValueError):
    """A command-line option out of range or in conflict with another (exit status 2)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
