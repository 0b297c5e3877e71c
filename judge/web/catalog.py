"""What a served folder holds, and paths that never leave it.

A served folder may be a ``matches/`` folder of many results, or one
tournament's, match's, eval's or league's folder.  Each entry is found by the
files the judge writes there; nothing is run, nothing is written.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

#: How deep below the served folder results are looked for.
MAX_DEPTH = 3
#: How many entries an index lists at most.
MAX_ENTRIES = 500


class Kind(str, enum.Enum):
    TOURNAMENT = "tournament"
    MATCH = "match"
    EVAL = "eval"
    LEAGUE = "league"


@dataclass(frozen=True)
class Entry:
    """One result in the served folder."""

    kind: Kind
    rel: str  #: its folder, relative to the served one ("" = the served folder itself), '/'-separated
    name: str  #: what to call it (its folder's name)
    mtime: float  #: when its newest file was written (newest entries first)


def kind_of(folder: Path) -> Kind | None:
    """What the judge wrote in ``folder``, by its files (None: none of its results)."""
    if (folder / "ledger.sqlite").is_file() or (folder / "schedule.json").is_file():
        return Kind.TOURNAMENT
    if (folder / "league.sqlite").is_file() or (folder / "leaderboard.json").is_file():
        return Kind.LEAGUE
    if (folder / "eval.json").is_file() or (folder / "book.txt").is_file():
        return Kind.EVAL
    if (folder / "result.json").is_file() or any(folder.glob("round-*/replay.jsonl*")):
        return Kind.MATCH
    return None


def inside(root: Path, rel: str) -> Path | None:
    """``rel`` (a '/'-separated path from the URL) under ``root``, or None when it would lead
    outside (``..``, an absolute path, a link out of the folder) or does not exist."""
    if "\0" in rel or "\\" in rel:
        return None
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    target = root.joinpath(*parts) if parts else root
    try:
        real = target.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    base = root.resolve()
    if real != base and base not in real.parents:
        return None
    return real


def _newest(folder: Path) -> float:
    """The newest write time under a result's folder (whether it is being played is
    :mod:`judge.web.summary`'s to say)."""
    newest = 0.0
    for dirpath, dirnames, filenames in os.walk(folder):
        depth = len(Path(dirpath).relative_to(folder).parts)
        if depth >= 3:
            dirnames.clear()
        for name in filenames:
            try:
                st = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            newest = max(newest, st.st_mtime)
    return newest


def entries(root: Path) -> list[Entry]:
    """The results in ``root`` (itself included), newest first.  A match inside a tournament
    is not listed apart: the tournament's page lists its matches."""
    found: list[Entry] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack and len(found) < MAX_ENTRIES:
        folder, depth = stack.pop()
        kind = kind_of(folder)
        if kind is not None:
            mtime = _newest(folder)
            rel = folder.relative_to(root).as_posix()
            found.append(Entry(kind, "" if rel == "." else rel, folder.name, mtime))
            continue  # what is inside a result is shown by its own page
        if depth >= MAX_DEPTH:
            continue
        try:
            subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            continue
        for sub in subs:
            if not sub.name.startswith(".") and not sub.name.startswith("round-"):
                stack.append((sub, depth + 1))
    return sorted(found, key=lambda e: (-e.mtime, e.rel))
