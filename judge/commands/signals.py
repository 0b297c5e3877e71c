"""SIGINT and SIGTERM, handled one way for every command that runs bots.

The first signal asks the work to stop (``on_first`` with the signal's name:
no new round starts, rounds in flight stop at their next turn); a second one
raises :class:`KeyboardInterrupt` in the main thread, so a user who does not
want to wait does not have to.  SIGTERM is treated like Ctrl-C, because a
batch system or ``kill`` sends it and expects the same clean stop.

Signal handlers can only be installed from the main thread; elsewhere (a
command run from a test's worker thread) nothing is installed.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def exit_code(signal_name: str | None) -> int:
    """The shell's status for a stop by this signal: 128 + its number (130 for SIGINT)."""
    try:
        return 128 + int(signal.Signals[signal_name]) if signal_name else 130
    except KeyError:
        return 130


@contextlib.contextmanager
def stop_on_signals(on_first: Callable[[str], None]) -> Iterator[list[str]]:
    """While inside: the first SIGINT/SIGTERM calls ``on_first(name)``, a second raises.

    Yields the list of the signals' names caught so far.
    """
    caught: list[str] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        caught.append(name)
        if len(caught) > 1:
            raise KeyboardInterrupt(name)
        on_first(name)

    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield caught
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
