"""One reader per followed thing, shared by every viewer of it: watchers cost the play nothing.

A page that follows something (a tournament's standings, a round's turns)
opens a server-sent event stream.  Were each stream to read the files
itself, a class of students opening the page would read the ledger hundreds
of times a second and slow the play they watch.  Here a :class:`Hub` keeps
one :class:`Feed` per followed thing: one task reads it (a :class:`Source`,
polled in a worker thread), encodes what changed once, and every viewer's
stream sends those same bytes.  A hundred viewers cost a hundred socket
writes per change, nothing more.

Two kinds of source:

* a *snapshot* (``snapshot = True``): each message is the whole new state
  (a tournament's standings); a viewer who comes late, or falls behind, gets
  the newest one only, and a viewer who comes gets its first one from a read
  begun after it came (a page loaded after a form's write must not be sent
  the state from before the write, and be drawn back to it);
* a *log*: each message adds to the ones before (a round's turns); a viewer
  who comes late gets them all, in order.

A feed lives while it has viewers: the first one starts its reader, the last
one to leave stops it.  A log that came to its end (a round over) is kept a
while after its last viewer left, for as long as its source's ``stamp`` says
it is the same: viewers behind the play (projectors at their own pace) each
open it at their own moment, and it is read once for all of them.  Nothing
here knows what is followed: the arena's pages use the same hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncGenerator, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

#: How long a stream waits without news before it sends a comment line: a proxy keeps the
#: connection, and a viewer who went away without a word is found out.
KEEPALIVE_S = 15.0
#: How long a stream lives without a change before it is closed (the browser reconnects).
IDLE_CLOSE_S = 600.0
#: How many finished logs a hub keeps for their next viewers (the newest ones).
KEPT_LOGS = 64


@dataclass
class Poll:
    """What a source found since its last poll."""

    #: the messages to send, in order (JSON-ready values); none when nothing changed
    messages: list[Any] = field(default_factory=list)
    #: nothing more will come: every viewer's stream ends after these
    last: bool = False


class Source(Protocol):
    """Something followed: read by one task, in a worker thread, every ``interval``."""

    #: each message replaces the one before (a state), or adds to them (a log)
    snapshot: bool

    def poll(self) -> Poll:
        """What changed since the last poll (read as little as that needs)."""
        ...


class Snapshot:
    """A state that ``read()`` gives whole (JSON-ready): a message whenever it differs from
    the last one sent.  For a state with no cheaper sign of change than reading it (the
    arena's pages, read from its store)."""

    snapshot = True

    def __init__(self, read: Callable[[], Any]) -> None:
        self._read = read
        self._last: str | None = None

    def poll(self) -> Poll:
        now = self._read()
        text = json.dumps(now, ensure_ascii=False, sort_keys=True)
        if text == self._last:
            return Poll()
        self._last = text
        return Poll([now])


def _stamp(source: Source) -> Hashable | None:
    """What a source says of the files it read (``stamp()``, optional): a finished log is
    kept for later viewers only while its stamp stays the same."""
    stamp = getattr(source, "stamp", None)
    return stamp() if callable(stamp) else None


def event(data: Any) -> bytes:
    """One server-sent event holding ``data`` as JSON (Unicode as it is), encoded once."""
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class Feed:
    """One followed thing: its reader task, the messages so far, and who is waiting."""

    def __init__(self, source: Source, interval: float, stopping: threading.Event) -> None:
        self.source = source
        self.interval = interval
        self.stopping = stopping
        self.log: list[bytes] = []  # encoded events; log[0] is number `base`
        self.base = 0
        self.ended = False
        #: the stamp of a log that came to its end by itself (None: not to be kept)
        self.final: Hashable | None = None
        self.viewers = 0
        #: reads begun and reads done: a viewer of a snapshot waits for one begun after it came
        self.polls_begun = 0
        self.polls_done = 0
        self._news = asyncio.Event()
        #: set after each read (and at the end), for a viewer waiting for a fresh read only:
        #: a read that found nothing new wakes no other viewer (their keepalives, idle close)
        self._read_done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def end(self) -> int:
        """The number of the next message."""
        return self.base + len(self.log)

    def _publish(self, messages: list[Any], last: bool) -> None:
        self.log += [event(m) for m in messages]
        if self.source.snapshot and len(self.log) > 1:
            self.base += len(self.log) - 1
            del self.log[:-1]
        self.ended = self.ended or last
        news, self._news = self._news, asyncio.Event()
        news.set()  # every viewer waiting on this wakes once
        if last:
            self._tell_read()

    def _tell_read(self) -> None:
        done, self._read_done = self._read_done, asyncio.Event()
        done.set()

    async def _read(self) -> None:
        try:
            while not self.ended:
                if self.stopping.is_set():
                    self._publish([], last=True)
                    return
                self.polls_begun += 1
                poll = await asyncio.to_thread(self.source.poll)
                self.polls_done += 1
                if poll.last and not self.source.snapshot:
                    self.final = await asyncio.to_thread(_stamp, self.source)
                if poll.messages or poll.last:
                    self._publish(poll.messages, poll.last)
                self._tell_read()
                if not self.ended:
                    await asyncio.sleep(self.interval)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a reader that failed ends its streams
            self._publish([{"error": f"{type(exc).__name__}: {exc}"}], last=True)

    def still_true(self) -> bool:
        """A finished log whose source's files are as they were at its end."""
        return self.final is not None and _stamp(self.source) == self.final

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def stream(self, idle_close_s: float = IDLE_CLOSE_S) -> AsyncGenerator[bytes, None]:
        """The events for one viewer: what there is so far, then each one as it comes."""
        if self.source.snapshot:
            await self._fresh_read()
            at = max(self.base, self.end - 1)
        else:
            at = self.base
        idle = 0.0
        while True:
            at = max(at, self.base)  # a snapshot's older states are gone: the newest will do
            if at < self.end:
                for message in self.log[at - self.base :]:
                    yield message
                at, idle = self.end, 0.0
                continue
            if self.ended or self.stopping.is_set() or idle >= idle_close_s:
                return
            news = self._news
            wait = min(KEEPALIVE_S, idle_close_s - idle)
            try:
                await asyncio.wait_for(news.wait(), timeout=wait)
            except asyncio.TimeoutError:
                idle += wait
                if idle < idle_close_s:
                    yield b": still here\n\n"

    async def _fresh_read(self) -> None:
        """Until a read begun after now is done (or the feed ended): a state published before
        a viewer came may be older than what that viewer's page already shows."""
        need = self.polls_begun + 1
        while self.polls_done < need and not (self.ended or self.stopping.is_set()):
            done = self._read_done
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(done.wait(), timeout=KEEPALIVE_S)


class Hub:
    """The feeds of one server, one per followed thing (by key), made when first viewed."""

    def __init__(self, stopping: threading.Event, interval: float = 0.25) -> None:
        self.stopping = stopping
        self.interval = interval
        self.feeds: dict[Hashable, Feed] = {}
        #: finished logs no one views now, oldest first, for their next viewers
        self.kept: dict[Hashable, Feed] = {}

    async def follow(
        self, key: Hashable, make: Callable[[], Source], idle_close_s: float = IDLE_CLOSE_S
    ) -> AsyncGenerator[bytes, None]:
        """One viewer's events of the thing ``key`` names (``make`` makes its source, once)."""
        feed = self.feeds.get(key)
        if feed is None:
            kept = self.kept.pop(key, None)
            # checked here, not in a thread: no other viewer may come in between (a stat)
            if kept is not None and kept.still_true():
                feed = kept
            else:
                feed = Feed(make(), self.interval, self.stopping)
            self.feeds[key] = feed
        feed.viewers += 1
        feed.start()
        try:
            async for message in feed.stream(idle_close_s):
                yield message
        finally:
            feed.viewers -= 1
            if feed.viewers == 0 and self.feeds.get(key) is feed:
                feed.stop()
                del self.feeds[key]
                if feed.final is not None and not self.stopping.is_set():
                    self.kept[key] = feed
                    while len(self.kept) > KEPT_LOGS:
                        del self.kept[next(iter(self.kept))]
