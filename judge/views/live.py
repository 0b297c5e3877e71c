"""``judge match --watch``: the board redrawn every turn while the round is played.

The referee calls an observer with the header, each turn record and the
result (:class:`judge.referee.RoundObserver`); this draws the record with the
same view ``judge replay`` uses.  On a terminal the screen is cleared and
redrawn (no rich ``Live``: ``--step`` reads stdin between turns, and a
``Live`` display fights with input); elsewhere (a pipe, a file, CI) every turn
is printed one after the other as plain text.

Watching never changes the round: bots are not running while the observer
waits, so ``--step`` only pauses the judge between turns.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence

from rich.console import Console

from judge.records import ReplayHeader, RoundResult, TurnRecord
from judge.views.board import turn_view

#: Shortest time a turn stays on a terminal screen when not stepping, so that fast
#: bots (milliseconds a turn) can still be followed by eye.  Pipes get no delay.
FRAME_S = 0.12

PROMPT = "Enter: next turn, q + Enter: stop watching (the round goes on) > "


def pause(seconds: float) -> None:
    """Hold a frame on screen (a function of its own so that tests can count the pauses)."""
    time.sleep(seconds)


def stdin_line() -> str | None:
    """One line typed by the user, or None at end of input."""
    try:
        line = sys.stdin.readline()
    except (OSError, ValueError):
        return None
    return line if line else None


class WatchSession:
    """Shared by the rounds of one match: ``q`` stops watching for the rest of the match."""

    def __init__(
        self,
        console: Console,
        names: Sequence[str],
        step: bool = False,
        read_line: Callable[[], str | None] = stdin_line,
        frame_s: float | None = None,
    ):
        self.console = console
        self.names = list(names)
        self.stepping = step
        self.watching = True
        self.read_line = read_line
        self.live = console.is_terminal
        self.frame_s = (FRAME_S if self.live else 0.0) if frame_s is None else frame_s

    def round(self, idx: int, label: str) -> RoundWatcher:
        return RoundWatcher(self, idx, label)


class RoundWatcher:
    """The observer of one round (start/turn/end as the referee calls them)."""

    def __init__(self, session: WatchSession, idx: int, label: str):
        self.session, self.idx, self.label = session, idx, label
        self.header: ReplayHeader | None = None
        self.last_draw = 0.0

    def start(self, header: ReplayHeader) -> None:
        self.header = header
        ses = self.session
        if ses.watching and ses.live:
            ses.console.clear()
            ses.console.print(
                f"round {self.idx} on {self.label}: placing the boats...",
                highlight=False,
                markup=False,
            )

    def turn(self, record: TurnRecord) -> None:
        ses = self.session
        if not ses.watching:
            return
        names = list(self.header.teams) if self.header else ses.names
        view = turn_view(
            record,
            names,
            self.header.turns if self.header else None,
            ses.console.width,
            label=f"round {self.idx}: {self.label}",
        )
        if ses.frame_s > 0 and not ses.stepping:  # --speed: paced on a pipe too, if asked
            wait = ses.frame_s - (time.monotonic() - self.last_draw)
            if wait > 0:
                pause(wait)
        if ses.live:
            ses.console.clear()
        ses.console.print(view)
        if not ses.live:
            ses.console.print("")
        self.last_draw = time.monotonic()
        if ses.stepping and not record.ended:
            self._ask()

    def _ask(self) -> None:
        ses = self.session
        ses.console.print(PROMPT, end="", highlight=False, markup=False)
        ses.console.file.flush()
        line = ses.read_line()
        if line is None:  # end of input: keep watching, stop waiting
            ses.console.print("")
            ses.stepping = False
            return
        if line.strip().lower() in ("q", "quit"):
            ses.watching = False
            ses.console.print("stopped watching; the match goes on", highlight=False, markup=False)

    def end(self, result: RoundResult) -> None:
        """Nothing to add: the match prints the round's result line after this."""
