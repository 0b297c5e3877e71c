"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not on this system: no file is ever marked as being written
    fcntl = None  # type: ignore[assignment]


def write_bytes(path: Path, data: bytes, durable: bool = True) -> None:
    """Write to a temporary file in the same folder, fsync it, then rename it into place.

    ``durable`` False leaves out the fsync: still never half a file for a reader, but a
    power cut may lose it (for a copy that is written inside a turn and can be missed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


# A file that grows while a round is played (a replay's .part) is marked as being written
# for as long as its writer keeps it open: an advisory lock, which the kernel drops when the
# file is closed or its process dies (killed, Ctrl-C).  A reader then tells a round in play
# from one a stopped judge left behind, whatever the time stamps say.
def hold_while_writing(fileno: int) -> None:
    """Mark the open file ``fileno`` as being written, until it is closed."""
    if fcntl is not None:
        try:
            fcntl.flock(fileno, fcntl.LOCK_EX)
        except OSError:  # a file system without locks: the file is just not marked
            pass


def being_written(path: Path | str) -> bool:
    """Whether a process holds ``path`` open to write it (see :func:`hold_while_writing`)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the lock taken just now
    return False
