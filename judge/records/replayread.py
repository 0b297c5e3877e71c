"""The one reader of ``replay.jsonl``: a whole file (strict), or a file being written (followed).

A replay is a :class:`~judge.records.ReplayHeader` line, then one
:class:`~judge.records.TurnRecord` line a turn.  Every reader of the judge
(the views and ``judge replay``, the web pages following a round as it is
played, ``judge eval``'s mirrored-game check) reads the lines here, so a
damaged line is found, and said, the same way everywhere: a
:class:`ReplayError` naming the file, the line and why.

* :func:`read_replay` reads a file whole and refuses any problem, except the
  last line of a ``.part`` file (a round still being played, or cut short by a
  crash), which may be half-written: it is dropped with a note.
* :class:`ReplayFollower` follows a round folder while its referee writes it:
  each :meth:`~ReplayFollower.poll` reads only the bytes added since the last
  one, keeps a last line with no newline yet for the next poll, and says when
  the round is over (its ``.part`` renamed to ``replay.jsonl``).  A damaged
  complete line stops the following with the same message as the strict read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.inputfiles import RECORD_BYTES, InputFileError, excerpt, parse_json, read_input_text
from judge.records.fields import RecordError
from judge.records.replay import ReplayHeader, TurnRecord

REPLAY_NAME = "replay.jsonl"
PART_SUFFIX = ".part"
PART_NAME = REPLAY_NAME + PART_SUFFIX
#: Refuse files that cannot be a replay (100 turns of a 15x15 map is well under 1 MB).
MAX_BYTES = RECORD_BYTES


class ReplayError(RecordError):
    """A replay that cannot be read; the message says which file, which line and why."""


def located(where: str, exc: RecordError) -> ReplayError:
    """A record's complaint, prefixed with the file (and line) it is about."""
    part = f" ({exc.part})" if exc.part else ""
    return ReplayError(f"{where}{part}: {exc}")


def json_why(exc: ValueError) -> str:
    """Why a text is not JSON, where it says (a message, never the text itself)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return excerpt(str(exc), 120)


def read_text(path: Path, what: str = "a replay") -> str:
    """A replay or result file as text: a regular file of at most MAX_BYTES (never a
    FIFO or a device), named in every refusal."""
    if not os.path.lexists(path):
        raise ReplayError(f"{path}: no such file")
    try:
        return read_input_text(path, what, MAX_BYTES)
    except InputFileError as exc:
        raise ReplayError(str(exc)) from None


class _Lines:
    """Checks the lines of one replay in order: the header first, then each turn after
    the one before.  Shared by the strict read and the follower, so both say the same."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: ReplayHeader | None = None
        self.last_turn = 0

    def json(self, n: int, line: str) -> Any:
        try:
            return parse_json(line)
        except ValueError as exc:
            raise ReplayError(f"{self.path}, line {n}: not valid JSON ({json_why(exc)})") from None

    def take(self, n: int, obj: Any) -> TurnRecord | None:
        """The header (returns None) or the next turn record, checked."""
        if self.header is None:
            try:
                self.header = ReplayHeader.from_json(obj)
            except RecordError as exc:
                raise located(f"{self.path}, line {n}", exc) from None
            return None
        try:
            rec = TurnRecord.from_json(obj, self.header.map.rows, self.header.map.cols)
        except RecordError as exc:
            raise located(f"{self.path}, line {n}", exc) from None
        expected = self.last_turn + 1
        if rec.turn != expected:
            raise ReplayError(
                f"{self.path}, line {n}: turn {rec.turn} where turn {expected} was expected"
            )
        self.last_turn = rec.turn
        return rec


@dataclass
class ReplayRead:
    """A replay file read whole: its header and its turns, in order."""

    path: Path
    header: ReplayHeader
    records: list[TurnRecord]
    #: True for a ``.part`` file: the round did not finish (or is still being played).
    partial: bool = False
    notes: list[str] = field(default_factory=list)


def read_replay(path: Path | str) -> ReplayRead:
    """Read and check one replay file (strict; see the module's note on ``.part`` files)."""
    p = Path(path)
    partial = p.name.endswith(PART_SUFFIX)
    numbered = [(n, ln) for n, ln in enumerate(read_text(p).split("\n"), start=1) if ln.strip()]
    if not numbered:
        raise ReplayError(f"{p}: empty file, not a replay")
    notes: list[str] = []
    objs: list[tuple[int, Any]] = []
    lines = _Lines(p)
    for k, (n, ln) in enumerate(numbered):
        try:
            objs.append((n, lines.json(n, ln)))
        except ReplayError:
            if partial and k == len(numbered) - 1 and k > 0:
                notes.append(f"line {n} was cut short (the round did not finish); ignored")
                break
            raise
    records = [rec for n, obj in objs if (rec := lines.take(n, obj)) is not None]
    assert lines.header is not None  # the first line was taken as the header
    if partial:
        notes.insert(0, "this round did not finish: its replay is the unfinished .part file")
    return ReplayRead(p, lines.header, records, partial=partial, notes=notes)


def read_header(path: Path | str) -> ReplayHeader:
    """A replay's header alone (who plays, on which map), checked as :func:`read_replay`
    checks it, whatever the turns after it hold."""
    p = Path(path)
    numbered = enumerate(read_text(p).split("\n"), start=1)
    n, first = next(((n, ln) for n, ln in numbered if ln.strip()), (0, ""))
    if not n:
        raise ReplayError(f"{p}: empty file, not a replay")
    lines = _Lines(p)
    lines.take(n, lines.json(n, first))
    assert lines.header is not None  # the first line is taken as the header
    return lines.header


def replay_in(folder: Path) -> Path | None:
    """``replay.jsonl`` in a round folder, else its unfinished ``.part``."""
    for name in (REPLAY_NAME, PART_NAME):
        if (folder / name).is_file():
            return folder / name
    return None


@dataclass
class FollowUpdate:
    """What a poll of a followed round found since the last one."""

    #: the header, the first time it is read (None after, and until it is written)
    header: ReplayHeader | None = None
    records: list[TurnRecord] = field(default_factory=list)
    #: the round is over: its replay.jsonl is read to the end (nothing more will come)
    finished: bool = False
    #: the replay was written again from its start (a round played again): forget what came
    reset: bool = False
    #: a damaged line: following stops, with the message the strict read gives
    problem: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.header or self.records or self.finished or self.reset or self.problem)


class ReplayFollower:
    """A round folder's replay while the referee writes it, read a little at each poll.

    Only the bytes added since the last poll are read (the referee appends and
    flushes a line a turn, then renames ``.part`` to ``replay.jsonl``: the same
    file, so the place reached stays right).  A file that is another one than
    before (a round played again) is read again from its start.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._inode: tuple[int, int] | None = None
        self._offset = 0
        self._pending = b""
        self._line = 0
        self._lines: _Lines | None = None
        self._done = False

    def poll(self) -> FollowUpdate:
        """What is new; never raises (a problem is in the update, and following stops)."""
        if self._done:
            return FollowUpdate()
        path = replay_in(self.folder)
        if path is None:
            return FollowUpdate()
        try:
            return self._read(path)
        except ReplayError as exc:
            self._done = True
            return FollowUpdate(problem=str(exc))

    def _read(self, path: Path) -> FollowUpdate:
        out = FollowUpdate()
        finished = path.name == REPLAY_NAME
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except FileNotFoundError:  # renamed between the look and the open: next time
            return out
        except OSError as exc:
            raise ReplayError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self._inode or st.st_size < self._offset:
                out.reset = self._inode is not None
                self._inode, self._offset, self._pending, self._line = (
                    (st.st_dev, st.st_ino),
                    0,
                    b"",
                    0,
                )
                self._lines = _Lines(path)
            if st.st_size > MAX_BYTES:
                read_text(path)  # refused, with the strict read's message
            os.lseek(fd, self._offset, os.SEEK_SET)
            data = os.read(fd, st.st_size - self._offset) if st.st_size > self._offset else b""
        finally:
            os.close(fd)
        self._offset += len(data)
        lines = self._lines
        assert lines is not None
        lines.path = path
        *complete, self._pending = (self._pending + data).split(b"\n")
        if finished and self._pending:  # a finished file's last line needs no newline
            complete.append(self._pending)
            self._pending = b""
        for raw in complete:
            self._line += 1
            try:
                text = self._decode(path, raw)
                if not text.strip():
                    continue
                rec = lines.take(self._line, lines.json(self._line, text))
            except ReplayError as exc:  # the turns before it stand; nothing after is read
                out.problem, self._done = str(exc), True
                return out
            if rec is None:
                out.header = lines.header
            else:
                out.records.append(rec)
        if finished:
            if lines.header is None:
                raise ReplayError(f"{path}: empty file, not a replay")
            out.finished = self._done = True
        return out

    def _decode(self, path: Path, raw: bytes) -> str:
        if b"\0" in raw:
            raise ReplayError(f"{path}: is a binary file, not a replay")
        if self._line == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ReplayError(f"{path}: is not a text file (not UTF-8)") from None
