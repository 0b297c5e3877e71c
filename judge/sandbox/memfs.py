"""A seat's writable folders in memory: a private tmpfs per seat.

Why: every run makes files afresh in the seat's folders (the judge's MAP.INP, the
program's MOVE.OUT) and the clean after it removes them.  On a disk file system
each of those is an inode made and freed; on this machine's ext4 (no journal)
making one scans past every inode freed in the last half minute, so a judged
turn cost more the more files anything on the machine had just removed (up to
twice a bare spawn after a test suite).  On a tmpfs they cost the same whenever.

What it changes for a program: nothing it can see but the file system's type.
What it writes there is memory, charged to its run's memory group, as the page
cache of a file it wrote on disk always was; a tmpfs cannot push it out to disk,
so files and memory together are held to the memory limit.  The tmpfs itself is
capped too (:data:`SIZE_BYTES`, :data:`INODES`), so a machine without a memory
controller is still safe from a program filling its memory or disk with files.

Mounting needs root (CAP_SYS_ADMIN).  The mount is made in the judge's own
mount namespace before the seat's namespaces are made, so they get a copy of it,
and it is taken away when the seat closes (lazily: a process still in it keeps
its copy until it exits).  A judge killed before it could do so leaves its
seats' mounts behind: each is named after the judge's process (its pid and
start time), and the next sandbox made on the machine takes away those of
judges that are gone (:func:`unmount_stale`), wherever their folders were.  Only
mounts so named are ever taken away, and never through a symbolic link.

A normal user's seats (whose programs use the machine's own ``/tmp``: they have
no view) keep their folders in a folder of their own in ``/dev/shm`` instead,
where that is a sticky tmpfs with room for :data:`SIZE_BYTES` (memory shared by
every user, without a cap of the seat's own, so the isolation report lists no
space cap), else on disk, as before; a dead judge's are removed by the user's
next sandbox (:func:`remove_stale_shm`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import stat

from judge.sandbox import procfs
from judge.sandbox.folders import remove_tree

#: cap on the bytes of a seat's folders together (the contest's memory limit: what a
#: program writes there counts against its memory anyway)
SIZE_BYTES = 512 * 2**20
#: cap on the files and folders in them
INODES = 65536

#: a seat's tmpfs is mounted under this name, then its judge's pid and start time
SOURCE_PREFIX = "ocean-judge-"
_SOURCE = re.compile(r"^ocean-judge-(\d+)\.(\d+)$")

#: a normal user's seats' folders in /dev/shm are named this, then the judge's pid and
#: start time
SHM_PREFIX = "ocean-judge-seat-"
_SHM_NAME = re.compile(r"^ocean-judge-seat-(\d+)\.(\d+)-")
SHM = "/dev/shm"

_MS_NOSUID = 2
_MS_NODEV = 4
_MNT_DETACH = 2
_UMOUNT_NOFOLLOW = 8


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def source_name(pid: int | None = None) -> str:
    """The source a seat's tmpfs is mounted under: its judge, as a process."""
    pid = os.getpid() if pid is None else pid
    return f"{SOURCE_PREFIX}{pid}.{procfs.start_time(pid) or 0}"


def mount_tmpfs(path: str, mode: int, gid: int | None) -> str | None:
    """Mount a fresh tmpfs on the empty folder ``path``, its root owned by root and
    ``gid`` with ``mode``; None when done, else why not (in plain words)."""
    opts = f"size={SIZE_BYTES},nr_inodes={INODES},mode={mode:o},uid=0"
    if gid is not None:
        opts += f",gid={gid}"
    try:
        libc = _libc()
    except OSError as exc:
        return f"cannot load the C library to mount: {exc}"
    source = source_name().encode()
    rc = libc.mount(source, os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV, opts.encode())
    if rc != 0:
        err = ctypes.get_errno()
        return f"cannot mount a tmpfs on {path}: {os.strerror(err)}"
    return None


def unmount(path: str) -> bool:
    """Take the mount at ``path`` away, lazily and never through a link at its end;
    whether it was."""
    try:
        return _libc().umount2(os.fsencode(path), _MNT_DETACH | _UMOUNT_NOFOLLOW) == 0
    except OSError:
        return False


def mounts() -> list[tuple[str, str, str]]:
    """(mount point, file system type, source) of every mount in this mount namespace."""
    try:
        return [(m.mountpoint, m.fstype, m.source) for m in procfs.mounts()]
    except OSError:
        return []


def _seat_mounts() -> list[tuple[str, int, int]]:
    """(mount point, pid, start time) of every seat's tmpfs in this mount namespace."""
    out = []
    for point, fstype, source in mounts():
        m = _SOURCE.match(source)
        if fstype == "tmpfs" and m:
            out.append((point, int(m.group(1)), int(m.group(2))))
    return out


def unmount_under(folder: str) -> None:
    """Take away the seats' tmpfs mounts inside ``folder`` (a folder the judge made,
    named as it is, links not resolved), so that it can be removed."""
    prefix = os.path.abspath(folder).rstrip("/") + "/"
    for point, _, _ in sorted(_seat_mounts(), key=lambda m: len(m[0]), reverse=True):
        if point.startswith(prefix):
            unmount(point)


def unmount_stale() -> list[str]:
    """Take away the seats' tmpfs mounts of judges that are gone; their mount points."""
    gone: list[str] = []
    for point, pid, started in _seat_mounts():
        now = procfs.start_time(pid)
        if now is None or (started and now != started):  # gone, or another one by that pid
            unmount(point)
            gone.append(point)
    return gone


def shm_prefix() -> str:
    """The start of a name for a normal user's seat folder in /dev/shm: its judge."""
    return f"{SHM_PREFIX}{source_name()[len(SOURCE_PREFIX) :]}-"


def shm_folder(folder: str = SHM) -> tuple[str | None, str]:
    """Where a normal user's seats may keep their folders in memory: ``folder`` (as a
    real path) if it is a tmpfs with the sticky bit that this user can write in, with
    room for a seat's cap; and why not if not."""
    real = os.path.realpath(folder)
    kinds = [fstype for point, fstype, _ in mounts() if point == real]
    if not kinds or kinds[-1] != "tmpfs":
        return None, f"{folder} is not a tmpfs"
    try:
        sticky = os.stat(real).st_mode & stat.S_ISVTX
        st = os.statvfs(real)
    except OSError as exc:
        return None, f"{folder}: {exc.strerror}"
    if not os.access(real, os.W_OK | os.X_OK):
        return None, f"{folder} is not writable"
    if not sticky:  # anyone could rename a seat's folder away
        return None, f"{folder} is not sticky (mode 1777)"
    if st.f_bavail * st.f_frsize < SIZE_BYTES:
        return None, f"{folder} has less than {SIZE_BYTES // 2**20} MiB free"
    return real, ""


def remove_own_folder(path: str) -> bool:
    """Remove a folder of this user's whatever modes a program of the same uid gave it
    (never a link, nor another user's); whether it is gone."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return False
    try:
        os.chmod(path, 0o700, follow_symlinks=False)
        remove_tree(path)
    except OSError:
        pass
    return not os.path.lexists(path)


def remove_stale_shm(folder: str = SHM) -> list[str]:
    """Remove this user's seats' folders in ``folder`` left by judges that are gone."""
    gone: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return gone
    for entry in entries:
        m = _SHM_NAME.match(entry.name)
        if m is None:
            continue
        now = procfs.start_time(int(m.group(1)))
        if now is None or now != int(m.group(2)):  # gone, or another one by that pid
            if remove_own_folder(entry.path):
                gone.append(entry.path)
    return gone
