"""A bot's program files: their hash, and private copies where the originals cannot serve.

* **A single-file bot** (``judge match ./my_bot.py ...``) is copied alone into
  a folder of its own, named by its content's hash, and that folder is what
  each seat gets a copy of: not the file's parent folder, which may be a
  project folder holding ``matches/`` with thousands of files.  A Windows
  ``.exe`` is copied likewise with the DLLs that stand beside it.
* **A bot with a build step whose folder is read-only** (the bundled
  ``greedy_c`` of a ``pip install`` owned by root, used by a normal user) is
  built in a copy of its folder, also named by the content's hash.
* :func:`tree_hash` is the program's fingerprint recorded in
  ``standings.json``, so a published result can be checked against the
  programs later.

Copies live in the judge's cache (``$XDG_CACHE_HOME/ocean-judge/programs``,
``~/.cache/...``; ``/var/cache/ocean-judge/programs`` as root) and are made
atomically (a temporary folder renamed into place), so two judges started at
once share them safely.  Being named by content, they never go stale.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from judge.sandbox.folders import is_cache


def cache_root() -> Path:
    """The judge's cache folder for program copies (made on first use)."""
    if os.geteuid() == 0:
        base = Path("/var/cache/ocean-judge")
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) / "ocean-judge" if xdg else Path.home() / ".cache" / "ocean-judge"
    root = base / "programs"
    try:
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK | os.X_OK):
            return root
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"ocean-judge-{os.geteuid()}" / "programs"
    fallback.mkdir(parents=True, exist_ok=True, mode=0o700)
    return fallback


def files_of(folder: Path, skip: Iterable[str] = ()) -> list[Path]:
    """Every regular file and link of a folder, sorted, without ``skip`` and caches (files
    made by running or importing a program, left out of a seat's copy too: ``is_cache``)."""
    skipped = set(skip)
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not is_cache(d, True))
        for name in sorted(filenames):
            p = Path(dirpath, name)
            rel = p.relative_to(folder).as_posix()
            if is_cache(name, False) or rel in skipped:
                continue
            out.append(p)
    return out


def tree_hash(folder: Path, skip: Iterable[str] = ()) -> str:
    """SHA-256 over a folder's files (relative names and contents), caches left out."""
    h = hashlib.sha256()
    for p in files_of(folder, skip):
        rel = p.relative_to(folder).as_posix().encode("utf-8", "surrogateescape")
        h.update(len(rel).to_bytes(4, "big") + rel)
        try:
            data = os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
        except OSError:
            data = b"<unreadable>"
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def file_hash(path: Path) -> str:
    """SHA-256 of one file's name and content (the same as :func:`tree_hash` of its copy)."""
    h = hashlib.sha256()
    rel = path.name.encode("utf-8", "surrogateescape")
    data = path.read_bytes()
    h.update(len(rel).to_bytes(4, "big") + rel)
    h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _publish(tmp: Path, final: Path) -> Path:
    """Rename a finished copy into place; a copy another judge made first wins."""
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not final.is_dir():
            raise
    return final


def stage_file(path: Path, extra: Iterable[Path] = ()) -> Path:
    """A folder holding only ``path`` (and the ``extra`` files), modes kept, named by content.

    ``extra``: files of the same folder that must stand beside it (a Windows
    program's DLLs).  Without them the folder is named by the file's hash alone.
    """
    files = [path, *sorted(extra)]
    digest = file_hash(path)
    if len(files) > 1:
        h = hashlib.sha256()
        for f in files:
            h.update(f"{f.name}\0{file_hash(f)}\0".encode())
        digest = h.hexdigest()
    final = cache_root() / f"file-{digest[:24]}"
    if all((final / f.name).is_file() for f in files):
        return final
    root = final.parent
    tmp = Path(tempfile.mkdtemp(prefix=".stage-", dir=root))
    for f in files:
        shutil.copy2(f, tmp / f.name)
    os.chmod(tmp, 0o755)
    return _publish(tmp, final)


def writable_copy(folder: Path, tag: str) -> Path:
    """A copy of a read-only bot folder to build in, named by its content's hash."""
    digest = tree_hash(folder)
    final = cache_root() / f"{tag}-{digest[:24]}"
    if final.is_dir():
        return final
    tmp = Path(tempfile.mkdtemp(prefix=".copy-", dir=final.parent))
    for p in files_of(folder):
        target = tmp / p.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, target, follow_symlinks=False)
        os.chmod(target, 0o755 if os.access(p, os.X_OK) else 0o644)
    os.chmod(tmp, 0o755)
    return _publish(tmp, final)
