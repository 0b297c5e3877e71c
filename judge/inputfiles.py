"""Files the judge is given to read: maps, configurations, books, replays, its own stores.

Every one of them is an input like a bot's MOVE.OUT: it may be a
FIFO that never ends, a device, a folder, a link to one, 24 MB of one cell, or
a file another program or an older judge wrote.  So each reader goes through
here first:

* :func:`read_input` takes only a regular file (a link to one is fine), at
  most ``cap`` bytes, and never blocks: the file is opened non-blocking and
  checked again once open, so a FIFO swapped in meanwhile is refused too.
* :func:`check_regular` does the same check for files another library opens
  (SQLite would wait for ever on a FIFO).
* :func:`excerpt` quotes a bad value in a message: short, escaped, with its
  length, so a 10 MB cell or a 5 MB team name never fills the terminal.

The errors name the file and what is wrong; the caller says what to do.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from judge.errors import JudgeError

#: Caps of what the judge reads, far above any real use (docs/tournament.md, "Damaged files").
MAP_BYTES = 1 * 2**20  #: a 15 x 15 map is under 1 KiB
CONFIG_BYTES = 1 * 2**20  #: a tournament or league file of hundreds of teams is a few KiB
BOOK_BYTES = 4 * 2**20  #: a book of the most maps it may hold (MAX_BOOK_MAPS lines)
RECORD_BYTES = 64 * 2**20  #: a replay or result.json (a 100-turn 15 x 15 round is ~1 MiB)
EXCERPT_CHARS = 40


class InputFileError(JudgeError, ValueError):
    """A file the judge was given cannot be read as one (exit status 2)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{shown_path(path)}: {reason}")
        self.path = str(path)
        self.reason = reason


def shown_path(path: str | Path) -> str:
    """A path as a message shows it: whole up to 300 characters, else its start and end."""
    text = str(path)
    return text if len(text) <= 300 else f"{text[:150]}...{text[-120:]} ({len(text):,} characters)"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _size(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def check_regular(path: str | Path, what: str) -> os.stat_result:
    """The file's status if it is a regular file (or a link to one); else InputFileError."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        link = " (through a link)" if os.path.islink(path) else ""
        raise InputFileError(path, f"is {_kind(st.st_mode)}{link}, not {what}")
    return st


def read_input(path: str | Path, what: str, cap: int) -> bytes:
    """All of a regular file of at most ``cap`` bytes, read without ever blocking.

    ``what`` names what the file should be ("a map file"), for the message.
    """
    st = check_regular(path, what)
    if st.st_size > cap:
        raise InputFileError(
            path, f"is {_size(st.st_size)}; {what} is at most {_size(cap)}, far above any real one"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {exc.strerror or exc}") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):  # swapped for something else since the stat
            raise InputFileError(path, f"is {_kind(now.st_mode)}, not {what}")
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            try:
                chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            except OSError as exc:
                raise InputFileError(path, f"cannot be read: {exc.strerror or exc}") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > cap:
            raise InputFileError(path, f"grew past {_size(cap)} while it was read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_input_text(path: str | Path, what: str, cap: int) -> str:
    """:func:`read_input` as UTF-8 text (a byte order mark is fine; NUL bytes are not)."""
    data = read_input(path, what, cap)
    if b"\0" in data:
        raise InputFileError(path, f"is a binary file, not {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError(path, "is not a text file (not UTF-8)") from None


def parse_json(text: str) -> Any:
    """``json.loads``, with every way a text can fail to be JSON a ValueError: nesting too
    deep for the parser (RecursionError), a number too long for Python (ValueError)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep to be read") from None


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A value as a message quotes it: its ``repr`` (which escapes what a terminal would
    act on), cut to about ``limit`` characters with the whole length said, so that no
    input can make a message long.  Short values read exactly as ``{value!r}``."""
    text = repr(value)
    if len(text) <= limit + 8:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}... ({size:,} characters)"
