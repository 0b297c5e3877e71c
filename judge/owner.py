"""The files a judge run with ``sudo`` writes belong to the user who ran sudo.

An official tournament runs as root (only root can set up every sandbox
protection), and a teacher starts it with ``sudo``.  Left as they are, its
results (the tournament folder, and the folders made to hold it) would belong
to root: the teacher could not delete, move or edit them afterwards without
sudo again.  So a command that writes an output folder gives it, and every
file in it, to the user sudo names (``SUDO_UID``, ``SUDO_GID``) when it ends,
however it ends, and says so.  A judge run as root without sudo (a CI job, a
root shell) keeps root's files: there is nobody else to give them to.

Symbolic links are given back themselves and never followed, so nothing
outside the folder changes owner.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
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
    the output folder (``matches/`` for ``matches/final``) are given back too, and
    no folder that was there before is.
    """

    def __init__(self, folder: Path, owner: Owner | None):
        self.folder = Path(os.path.abspath(folder))
        self.owner = owner
        self.top = _top_to_make(self.folder)

    @classmethod
    def for_sudo(cls, folder: Path) -> Handover:
        return cls(folder, sudo_user())

    def give_back(self) -> str | None:
        """Give the folder (and the folders made for it) to the owner; say what was done:
        ``None`` when there was nothing to do, else a sentence for the user."""
        if self.owner is None or not self.folder.exists():
            return None
        failed: list[str] = []
        for path in [*self._made_above(), *self._tree()]:
            try:
                os.lchown(path, self.owner.uid, self.owner.gid)
            except OSError as exc:
                failed.append(f"{path} ({exc.strerror or exc})")
        who = f"{self.owner.name} (uid {self.owner.uid}), who ran sudo"
        if failed:
            more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
            return (
                f"{self.folder} could not all be given to {who}: {failed[0]}{more} still "
                f"belong(s) to root; give them back with: sudo chown -R "
                f"{self.owner.uid}:{self.owner.gid} {self.folder}"
            )
        return f"the files in {self.folder} belong to {who}"

    def _made_above(self) -> list[Path]:
        """The folders made above the output folder, from the highest down."""
        if self.top == self.folder:
            return []
        chain = [self.top]
        for part in self.folder.relative_to(self.top).parts[:-1]:
            chain.append(chain[-1] / part)
        return [p for p in chain if p.is_dir() and not p.is_symlink()]

    def _tree(self) -> list[Path]:
        """The output folder and everything under it (links not followed)."""
        out = [self.folder]
        for root, dirs, files in os.walk(self.folder):
            out += [Path(root) / n for n in (*dirs, *files)]
        return out
