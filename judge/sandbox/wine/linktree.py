"""Copying a folder as hard links: a seat's wine prefix made from the template in milliseconds."""

from __future__ import annotations

import errno
import os
import shutil


def link_tree(src: str, dst: str, symlinks: bool = False) -> None:
    """``dst`` becomes a copy of ``src`` made of hard links.

    The linked files keep the template's owner and modes (the judge's, read-only),
    so a seat can read them and replace nothing but its own folder entries.  Where
    a hard link is impossible (another filesystem, a template owned by someone
    else) a file is symlinked when ``symlinks`` (no private filesystem view hides
    the template) and copied otherwise.
    """
    os.mkdir(dst, 0o755)
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        target = dst if rel == "." else os.path.join(dst, rel)
        for name in dirnames:
            s = os.path.join(dirpath, name)
            d = os.path.join(target, name)
            if os.path.islink(s):
                os.symlink(os.readlink(s), d)
            else:
                os.mkdir(d, 0o755)
        for name in filenames:
            s = os.path.join(dirpath, name)
            d = os.path.join(target, name)
            if os.path.islink(s):
                os.symlink(os.readlink(s), d)
                continue
            link_or_copy(s, d, symlinks)


def link_or_copy(src: str, dst: str, symlinks: bool) -> None:
    """``dst`` a hard link to ``src``; where impossible a symlink (``symlinks``) or a copy."""
    try:
        os.link(src, dst)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EACCES):
            raise
        if symlinks:
            os.symlink(src, dst)
        else:
            shutil.copy2(src, dst)
