"""A seat's wine folders kept as they were before turn 1: a snapshot, and a sweep after each run.

Anything a run added is removed; anything it moved or replaced (another inode,
another kind of file) is tampering: the judge rebuilds the prefix before the next
run, outside the program's time.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from judge.sandbox.folders import remove_tree


@dataclass
class Snapshot:
    """What a folder held (relative path -> (inode, kind)) when the seat was ready."""

    entries: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, root: str, depth: int) -> Snapshot:
        """Entries of ``root`` down to ``depth`` folder levels (1 = its own entries)."""
        out: dict[str, tuple[int, int]] = {}
        stack = [("", 1)]
        while stack:
            rel, level = stack.pop()
            with os.scandir(os.path.join(root, rel)) as it:
                entries = list(it)
            for e in entries:
                st = e.stat(follow_symlinks=False)
                sub = os.path.join(rel, e.name)
                out[sub] = (st.st_ino, stat.S_IFMT(st.st_mode))
                if stat.S_ISDIR(st.st_mode) and level < depth:
                    stack.append((sub, level + 1))
        return cls(out)


def sweep(root: str, snap: Snapshot, depth: int, volatile: frozenset[str]) -> tuple[int, bool]:
    """Remove what ``root`` holds now that ``snap`` did not (down to ``depth`` levels);
    (how many entries went, whether an entry of ``snap`` was moved or replaced: files
    named in ``volatile`` may be rewritten, folders not).  An unreadable ``root`` is
    tampered with."""
    try:
        now = Snapshot.of(root, depth)
    except OSError:
        return 0, True
    added = 0
    for rel in sorted(set(now.entries) - set(snap.entries), key=len):
        path = os.path.join(root, rel)
        if not os.path.lexists(path):
            continue  # inside a folder removed just before
        if now.entries[rel][1] == stat.S_IFDIR:
            remove_tree(path)
        else:
            os.unlink(path)
        added += 1
    tampered = False
    for rel, (ino, kind) in snap.entries.items():
        got = now.entries.get(rel)
        if got is None or got[1] != kind or (got[0] != ino and rel not in volatile):
            tampered = True
    return added, tampered
