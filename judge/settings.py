"""The values a user chooses for a run, in one table: their defaults and their ranges.

``judge match``, ``judge eval``, ``judge check-bot``, ``judge league`` and a
tournament's ``judge.yaml`` all take a time limit, a memory limit and a
number of jobs; they check them against the same :class:`Range` here, so the
command line and the configuration can never disagree on what is allowed.

This module imports nothing: the command line reads its defaults when it
builds ``judge --help``, which must start at once.
"""

from __future__ import annotations

import math


class Range:
    """A number a user gives, with its bounds and the contest's value."""

    __slots__ = ("low", "high", "integer", "contest")

    def __init__(self, low: float, high: float, integer: bool, contest: float | None = None):
        self.low, self.high, self.integer, self.contest = low, high, integer, contest

    def holds(self, value: object) -> bool:
        """Whether ``value`` is a number (a whole one if need be) within the bounds."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.integer and not isinstance(value, int):
            return False
        return math.isfinite(value) and self.low <= value <= self.high


#: Seconds of wall clock per run.  0 lifts the limit (debugging only; never in a tournament).
TIME_LIMIT_S = Range(0, 60, integer=False, contest=2.0)
#: MiB of peak memory per run (the whole process tree).
MEMORY_LIMIT_MB = Range(16, 16384, integer=True, contest=512)
#: Rounds played at the same time.
JOBS = Range(1, 256, integer=True)

#: Mirror axes the classic generator draws from, and the kinds of sea ``judge genmap`` makes.
AXIS_CHOICES = ("row", "col")
STYLES = ("classic", "open", "corridors", "islands", "reefs", "sparse", "walled")

#: ``judge tournament``'s configuration file when none is named.
DEFAULT_CONFIG = "judge.yaml"
#: ``judge eval``'s map sizes when ``--sizes`` is not given.
DEFAULT_SIZES = "5,9,15"
