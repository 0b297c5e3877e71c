"""The judge's own SQLite files (the ledger, the league's database), opened with care.

SQLite keeps a database in more than one file: beside ``x.sqlite`` may lie
``x.sqlite-journal`` (a write left unfinished by a judge that was killed:
SQLite finishes it, rolling it back, when the database is next opened for
writing), ``-wal`` and ``-shm``.  Each of them is an input like the database
itself: a FIFO there would hang SQLite for ever, so each is checked to be a
regular file first.  And an error SQLite raises is said in the words of what
happened: another judge writing it now is not a damaged file.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from judge.inputfiles import InputFileError, check_regular

SIDE_FILES = ("-journal", "-wal", "-shm")


def check_files(path: str | Path, what: str) -> None:
    """The database and the side files SQLite would open with it are regular files
    (InputFileError naming the one that is not)."""
    check_regular(path, what)
    for suffix in SIDE_FILES:
        side = f"{path}{suffix}"
        if os.path.lexists(side):
            check_regular(side, f"SQLite's {suffix[1:]} file of {what}")


def why(exc: sqlite3.Error, what: str) -> str:
    """An SQLite error in words: busy, read-only with a write to finish, or not a database."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (
            f"another judge is writing it right now ({text}): wait until that judge stops, or "
            "stop it"
        )
    if "readonly" in text or "read-only" in text:
        return (
            f"a judge was stopped while it wrote it, and the write must be finished first "
            f"({text}): run the command that writes it once more (with --resume)"
        )
    return f"not {what}: not an SQLite database this judge can read ({text})"


def connect(path: str | Path, read_only: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode that waits a moment for another writer (read-only:
    one that never writes, not even to finish a killed judge's write)."""
    if read_only:
        return sqlite3.connect(
            f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=5.0, isolation_level=None
        )
    return sqlite3.connect(str(path), timeout=5.0, isolation_level=None)


__all__ = ["InputFileError", "SIDE_FILES", "check_files", "connect", "why"]
