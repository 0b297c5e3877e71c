"""The files a judge run with ``sudo`` writes belong to the user who ran sudo.

An official tournament runs as root (only root can set up every sandbox
protection), and a teacher starts it with ``sudo``.  Left as they are, its
results (the tournament folder, and the folders made to hold it) would belong
to root: the teacher could not delete, move or edit them afterwards without
sudo again.  So a command that writes an output folder gives it, and every
file in it, to the user sudo names (``SUDO_UID``, ``SUDO_GID``) when it ends,
however it ends, and says so.  A judge run as root without sudo (a CI job, a
root shell) keeps root's files: there is nobody else to give them to.

Only what the judge made is given, and nothing outside the folder:

* a folder that was there before the run and belongs to someone else (another
  user's, or root's: ``--out /srv``) is left as it is, with all it holds, and the
  judge says so and how to give the files if that is meant;
* in the sudo user's own folder (a resume), only root's files are given, never
  another user's;
* the tree is walked through open folders, never by path, and a link is given
  itself, never followed (a folder swapped for a link while the judge walks
  cannot send it elsewhere); a file with a second name (a hard link) may be
  someone else's file, and is left.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path


@dataclass(frozen=True)
class Owner:
    """The user the output goes to."""

    uid: int
    gid: int
    name: str  # as sudo says it (SUDO_USER), else the uid


def sudo_user(env: Mapping[str, str] | None = None) -> Owner | None:
    """The user who ran ``sudo judge ...``; None when not run so (or sudo's user is root)."""
    env = os.environ if env is None else env
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    try:
        uid, gid = int(env["SUDO_UID"]), int(env["SUDO_GID"])
    except (KeyError, ValueError):
        return None
    if uid <= 0 or gid < 0:
        return None
    return Owner(uid, gid, env.get("SUDO_USER") or str(uid))


def _top_to_make(folder: Path) -> Path:
    """The highest of ``folder`` and its parents that does not exist yet (``folder`` when
    it exists): what the command will have made."""
    folder = Path(os.path.abspath(folder))
    top = folder
    for parent in folder.parents:
        if parent.exists():
            break
        top = parent
    return top


class Handover:
    """Gives an output folder to the user who ran sudo, once the command is done with it.

    Made before the command writes anything, so that the folders it makes above
    the output folder (``matches/`` for ``matches/final``) are given back too, no
    folder that was there before is, and an output folder that was someone else's
    is known to be.
    """

    def __init__(self, folder: Path, owner: Owner | None):
        self.folder = Path(os.path.abspath(folder))
        self.owner = owner
        #: where the folder is (a link on its way resolved now, by what was there before)
        self._real = Path(os.path.realpath(self.folder))
        self.top = _top_to_make(self._real)
        #: the owner of the output folder when it was there before the run (None: made by it)
        self.owner_before: int | None = None
        if owner is not None:
            try:
                self.owner_before = os.stat(self._real).st_uid
            except OSError:
                pass

    @classmethod
    def for_sudo(cls, folder: Path) -> Handover:
        return cls(folder, sudo_user())

    def give_back(self) -> str | None:
        """Give the folder (and the folders made for it) to the owner; say what was done:
        ``None`` when there was nothing to do, else a sentence for the user."""
        if self.owner is None or not self.folder.exists():
            return None
        who = f"{self.owner.name} (uid {self.owner.uid}), who ran sudo"
        fix = f"sudo chown -R {self.owner.uid}:{self.owner.gid} {self.folder}"
        before = self.owner_before
        if before is not None and before != self.owner.uid:
            return (
                f"{self.folder} was there before the judge ran and belongs to "
                f"{_user(before)}, not to {who}: it is left as it is, and the files the judge "
                f"wrote in it belong to root; to give them all to {self.owner.name}: {fix}"
            )
        failed: list[str] = []
        try:
            for name, give in self._mine():
                try:
                    give(self.owner.uid, self.owner.gid)
                except OSError as exc:
                    failed.append(f"{name} ({exc.strerror or exc})")
        except OSError as exc:  # a folder on the way is a link now, or gone
            failed.append(f"{self.folder} ({exc.strerror or exc})")
        if failed:
            more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
            return (
                f"{self.folder} could not all be given to {who}: {failed[0]}{more} still "
                f"belong(s) to root; give them back with: {fix}"
            )
        return f"the files in {self.folder} belong to {who}"

    def _mine(self) -> Iterator[tuple[str, Callable[[int, int], None]]]:
        """Each thing to give (its path, for messages, and what changes its owner): the
        folders made above the output folder, from the highest down, then the output
        folder and what root made in it.  Every folder is opened from its parent, none
        through a link, so a link put on the way meanwhile is never followed."""
        if self._real.parent == self._real:
            return  # the root folder is nobody's output
        made = (
            []
            if self.top == self._real
            else list(self._real.relative_to(self.top.parent).parts[:-1])
        )
        fd = _open_dir(self.top.parent if made else self._real.parent)
        try:
            here = self.top.parent
            for name in made:
                below = os.open(name, _DIR, dir_fd=fd)  # OSError: gone, or a link now
                os.close(fd)
                fd, here = below, here / name
                yield str(here), partial(os.chown, fd)
            yield from self._tree(fd)
        finally:
            os.close(fd)

    def _tree(self, parent: int) -> Iterator[tuple[str, Callable[[int, int], None]]]:
        """The output folder and what root made under it, walked by open folders from
        ``parent``, the output folder's parent opened."""
        root, top = os.geteuid(), self._real.name
        if not stat.S_ISDIR(os.stat(top, dir_fd=parent, follow_symlinks=False).st_mode):
            raise NotADirectoryError(errno.ENOTDIR, "a link now, not the folder")
        for rel, dirs, files, fd in os.fwalk(top, dir_fd=parent, follow_symlinks=False):
            here = self._real.parent / rel
            if rel == top and os.fstat(fd).st_uid == root:
                yield str(here), partial(os.chown, fd)
            for name in (*dirs, *files):
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    continue  # gone meanwhile
                if st.st_uid != root or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
                    continue  # someone else's, or a file with a name elsewhere too
                yield (
                    str(here / name),
                    partial(os.chown, name, dir_fd=fd, follow_symlinks=False),
                )


#: How a folder on the way is opened: a folder, never through a link.
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _open_dir(path: Path) -> int:
    """``path`` (absolute, no link in it) opened from ``/`` one folder at a time, none
    through a link (OSError if one is a link now)."""
    fd = os.open("/", _DIR)
    for name in path.parts[1:]:
        try:
            below = os.open(name, _DIR, dir_fd=fd)
        finally:
            os.close(fd)
        fd = below
    return fd


def _user(uid: int) -> str:
    """``alice (uid 1001)``, or the uid alone for a user the machine does not name."""
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"
