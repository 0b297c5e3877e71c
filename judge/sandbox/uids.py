"""Unprivileged uids for seats, leased with flock'ed lock files.

Why one uid per seat: file permissions then keep the two teams (and the
judge) apart, a seat can signal only its own processes, ``RLIMIT_NPROC`` counts
only that seat, and "kill every process of this uid" is an exact sweep.

Why lock files: tournaments run rounds in parallel threads and maybe in
several judge processes.  A lease is an ``flock`` on ``<lock_dir>/<uid>.lock``;
the kernel drops it when the holder closes it or dies, so a crashed judge
never leaks a uid.  No ``/etc/passwd`` entry is needed; uids that have one are
skipped so a real account is never borrowed.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import secrets
import stat
from dataclasses import dataclass, field

from judge.sandbox.types import SandboxError

DEFAULT_RANGE = (61000, 61999)
DEFAULT_LOCK_DIR = "/run/ocean-judge/uids"


class UidsExhausted(SandboxError):
    """Every uid of the range is leased (too many seats at once) or belongs to an account."""


@dataclass
class UidLease:
    """A leased uid (gid = same number); release() or close the judge to free it."""

    uid: int
    gid: int
    _fd: int = field(repr=False)

    def release(self) -> None:
        """Free the uid for other seats (idempotent)."""
        if self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    try:
        grp.getgrgid(uid)
        return True
    except KeyError:
        return False


def _secure_dir(path: str) -> None:
    """Create ``path`` (root-owned, 0700) or check an existing one is not tamperable."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise SandboxError(f"uid lock folder {path} is not a folder")
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise SandboxError(
            f"uid lock folder {path} must belong to uid {os.geteuid()} and not be "
            f"writable by others (owner {st.st_uid}, mode {oct(st.st_mode & 0o777)})"
        )


class UidPool:
    """Leases uids from ``[first, last]``; safe across threads and processes."""

    def __init__(
        self,
        first: int = DEFAULT_RANGE[0],
        last: int = DEFAULT_RANGE[1],
        lock_dir: str = DEFAULT_LOCK_DIR,
    ) -> None:
        if not (1000 <= first <= last < 2**31 - 1):
            raise ValueError(
                f"seat uid range {first}-{last} must be within 1000..2147483646 and not empty"
            )
        self.first, self.last, self.lock_dir = first, last, lock_dir
        _secure_dir(lock_dir)

    def acquire(self) -> UidLease:
        """Lease a free uid, starting at a random point so parallel judges rarely collide."""
        size = self.last - self.first + 1
        offset = secrets.randbelow(size)
        for i in range(size):
            uid = self.first + (offset + i) % size
            if _has_account(uid):
                continue
            path = os.path.join(self.lock_dir, f"{uid}.lock")
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            except BaseException:
                os.close(fd)
                raise
            return UidLease(uid, uid, fd)
        raise UidsExhausted(
            f"no free seat uid in {self.first}-{self.last}: {size} seats already "
            f"running, or every uid has an account (lock folder {self.lock_dir})"
        )
