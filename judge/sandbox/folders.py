"""Folder hygiene (rulings R15, R16): what a seat's folder holds before and after a run.

Everything here runs when no process of the seat is alive, so the only
adversary is what the program left behind: symbolic links (never followed:
every open uses O_NOFOLLOW and every walk uses lstat), odd permissions, FIFOs,
hard links, and folders nested deeper than any path limit.  Deep trees are
flattened into a private trash folder one level at a time, so cleaning needs
O(1) open files and no recursion whatever the program built.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from pathlib import Path

from judge.sandbox.verdicts import fmt_bytes

_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

#: What a program makes by running and is no part of it: Python's bytecode caches (a
#: ``__pycache__`` folder, ``.pyc`` and ``.pyo`` files) and macOS's folder notes.  Never
#: copied into a seat, as they are left out of a program's fingerprint and of what is
#: shipped to a cluster's workers (judge.programs): a cached file can hold other code
#: than the source beside it (an "unchecked" ``.pyc`` is run without a look at its
#: source; a ``.pyc`` with no source is imported as it is), so what runs is the source,
#: the same on every machine.
CACHE_NAMES = frozenset({"__pycache__", ".DS_Store"})
CACHE_SUFFIXES = (".pyc", ".pyo")


def is_cache(name: str, is_dir: bool) -> bool:
    """Whether a folder entry is a cache, no part of its program (a folder only by name)."""
    return name in CACHE_NAMES or (not is_dir and name.endswith(CACHE_SUFFIXES))


def check_name(name: str, what: str) -> str:
    """A plain file name inside the seat's folder (no folders, no '..')."""
    if (
        not isinstance(name, str)
        or not name
        or name in (".", "..")
        or "/" in name
        or "\0" in name
        or len(name.encode()) > 255
    ):
        raise ValueError(f"{what} must be a plain file name inside the seat's folder, not {name!r}")
    return name


def _fix_mode(name: str, dir_fd: int, want: int) -> None:
    """Give ourselves access again (only matters when not root)."""
    try:
        os.chmod(name, want, dir_fd=dir_fd)
    except OSError:
        pass


def _open_dir(name: str, dir_fd: int) -> int:
    try:
        return os.open(name, _OPEN_DIR, dir_fd=dir_fd)
    except PermissionError:
        _fix_mode(name, dir_fd, 0o700)
        return os.open(name, _OPEN_DIR, dir_fd=dir_fd)


class Cleaner:
    """Empties a folder except maybe one keep file, tracking the largest file seen."""

    def __init__(self, trash: str) -> None:
        self.trash = trash
        self.biggest: tuple[str, int] | None = None
        self._prefix = secrets.token_hex(4)
        self._n = 0
        self._fix = os.geteuid() != 0  # root ignores modes; a normal user must restore them

    def _note_file(self, name: str, st: os.stat_result) -> None:
        if stat.S_ISREG(st.st_mode) and (self.biggest is None or st.st_size > self.biggest[1]):
            self.biggest = (name, st.st_size)

    def _to_trash(self, name: str, dir_fd: int, trash_fd: int) -> None:
        self._n += 1
        target = f"{self._prefix}-{self._n}"
        try:
            os.rename(name, target, src_dir_fd=dir_fd, dst_dir_fd=trash_fd)
        except PermissionError:
            # Moving a folder to another parent needs write access to it (its '..').
            _fix_mode(name, dir_fd, 0o700)
            os.rename(name, target, src_dir_fd=dir_fd, dst_dir_fd=trash_fd)

    def clean(
        self,
        folder: str,
        keep: str | None = None,
        keep_bytes: int = 0,
        report: list[str] | None = None,
        spare: frozenset[str] = frozenset(),
    ) -> None:
        """Remove everything in ``folder`` except ``keep`` when it is a private regular
        file of at most ``keep_bytes``; each refusal of the keep file goes to ``report``.
        Entries named in ``spare`` are left alone (a seat-long service's own folder,
        policed by that service's owner)."""
        dfd = os.open(folder, _OPEN_DIR)
        try:
            tfd = os.open(self.trash, _OPEN_DIR)
            try:
                with os.scandir(dfd) as it:
                    names = [e.name for e in it if e.name not in spare]
                # The keep file is judged last, once everything else is gone, so a
                # hard link to a file that was just removed does not count.
                if keep is not None and keep in names:
                    names.remove(keep)
                    names.append(keep)
                for name in names:
                    try:
                        st = os.lstat(name, dir_fd=dfd)
                    except FileNotFoundError:
                        continue
                    if name == keep:
                        self._empty_trash(tfd)
                        st = os.lstat(name, dir_fd=dfd)
                        why = _keep_refusal(name, st, keep_bytes)
                        if why is None:
                            self._note_file(name, st)
                            continue
                        if report is not None:
                            report.append(why)
                    if stat.S_ISDIR(st.st_mode):
                        self._to_trash(name, dfd, tfd)
                    else:
                        self._note_file(name, st)
                        os.unlink(name, dir_fd=dfd)
                self._empty_trash(tfd)
            finally:
                os.close(tfd)
        finally:
            os.close(dfd)

    def _empty_trash(self, tfd: int) -> None:
        while True:
            with os.scandir(tfd) as it:
                names = [e.name for e in it]
            if not names:
                return
            for name in names:
                st = os.lstat(name, dir_fd=tfd)
                if not stat.S_ISDIR(st.st_mode):
                    self._note_file(name, st)
                    os.unlink(name, dir_fd=tfd)
                    continue
                if self._fix:
                    _fix_mode(name, tfd, 0o700)
                sub = _open_dir(name, tfd)
                try:
                    with os.scandir(sub) as it:
                        inner = [e.name for e in it]
                    for child in inner:
                        cst = os.lstat(child, dir_fd=sub)
                        if stat.S_ISDIR(cst.st_mode):
                            self._to_trash(child, sub, tfd)
                        else:
                            self._note_file(child, cst)
                            try:
                                os.unlink(child, dir_fd=sub)
                            except PermissionError:
                                _fix_mode(name, tfd, 0o700)
                                os.unlink(child, dir_fd=sub)
                finally:
                    os.close(sub)
                os.rmdir(name, dir_fd=tfd)


def _keep_refusal(name: str, st: os.stat_result, keep_bytes: int) -> str | None:
    """Why the keep file cannot be kept, in plain words (None: keep it)."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return f"{name} was a symbolic link: discarded (never followed)"
    if stat.S_ISDIR(mode):
        return f"{name} was a folder: discarded"
    if not stat.S_ISREG(mode):
        return f"{name} was not a regular file: discarded"
    if st.st_size > keep_bytes:
        return f"{name} was {fmt_bytes(st.st_size)}, over its cap of {fmt_bytes(keep_bytes)}: discarded"
    if st.st_nlink > 1:
        return f"{name} had {st.st_nlink} hard links: discarded"
    return None


def _read_capped(fd: int, cap: int) -> bytes | None:
    """All of an open file, or None if it holds more than ``cap`` bytes (it may grow)."""
    chunks: list[bytes] = []
    total = 0
    while total <= cap:
        chunk = os.read(fd, min(1 << 20, cap + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return None if total > cap else b"".join(chunks)


def read_outputs(
    folder: str, names: list[str], cap: int, report: list[str]
) -> dict[str, bytes | None]:
    """Read the requested files: regular files only, at most ``cap`` bytes, links never followed."""
    out: dict[str, bytes | None] = {}
    dfd = os.open(folder, _OPEN_DIR)
    try:
        for name in names:
            out[name] = None
            try:
                fd = os.open(
                    name,
                    os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                    dir_fd=dfd,
                )
            except FileNotFoundError:
                continue
            except OSError as exc:
                if os.path.islink(os.path.join(folder, name)):
                    report.append(f"{name} was a symbolic link: not read (never followed)")
                else:
                    report.append(f"{name} could not be read: {exc.strerror}")
                continue
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    report.append(f"{name} was not a regular file: not read")
                    continue
                if st.st_size > cap:
                    report.append(
                        f"{name} was {fmt_bytes(st.st_size)}, over the cap of "
                        f"{fmt_bytes(cap)}: not read"
                    )
                    continue
                data = _read_capped(fd, cap)
                if data is None:
                    report.append(f"{name} grew over the cap of {fmt_bytes(cap)}: not read")
                    continue
                out[name] = data
            finally:
                os.close(fd)
    finally:
        os.close(dfd)
    return out


def write_inputs(
    folder: str, inputs: dict[str, bytes], owner: tuple[int, int] | None = None
) -> None:
    """Create each input file afresh (the folder was just emptied; never through a link).

    ``owner`` (uid, gid) hands the files to the seat's uid, so a program that opens
    an input for reading and writing (Pascal's default file mode, C's "r+") works.
    """
    dfd = os.open(folder, _OPEN_DIR)
    try:
        for name, data in inputs.items():
            _write_new(dfd, name, data, owner, 0o644)
    finally:
        os.close(dfd)


def _write_new(dfd: int, name: str, data: bytes, owner: tuple[int, int] | None, mode: int) -> None:
    """A new file in the folder ``dfd`` (never through a link, never over another),
    handed to ``owner`` with ``mode``, holding ``data``."""
    fd = os.open(
        name,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=dfd,
    )
    try:
        if owner is not None:
            os.fchown(fd, owner[0], owner[1])
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def save_file(folder: str, name: str, cap: int) -> tuple[bytes, int] | None:
    """A regular file's bytes and permission bits, to put back with :func:`restore_file`
    (None: absent, not a regular file, or over ``cap``; never read through a link)."""
    dfd = os.open(folder, _OPEN_DIR)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    mode: int | None = None
    try:
        try:
            fd = os.open(name, flags, dir_fd=dfd)
        except FileNotFoundError:
            return None
        except PermissionError:
            # A program running as the judge's own uid may have taken its read bit away
            # (root reads it anyway): read it all the same, and keep the mode it had.
            st = os.lstat(name, dir_fd=dfd)
            if not stat.S_ISREG(st.st_mode):
                return None
            mode = stat.S_IMODE(st.st_mode)
            os.chmod(name, mode | 0o400, dir_fd=dfd)
            fd = os.open(name, flags, dir_fd=dfd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
                return None
            data = _read_capped(fd, cap)
            if mode is None:
                mode = stat.S_IMODE(st.st_mode)
            else:
                os.fchmod(fd, mode)
            return None if data is None else (data, mode)
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def restore_file(
    folder: str, name: str, saved: tuple[bytes, int] | None, owner: tuple[int, int] | None
) -> None:
    """Put ``name`` back as :func:`save_file` found it: the same bytes and mode, or absent.

    Whatever is there now (the file a discarded run wrote, a link, a folder left
    by it) is removed first; the folder holds nothing else of the run's any more.
    """
    dfd = os.open(folder, _OPEN_DIR)
    try:
        try:
            st = os.lstat(name, dir_fd=dfd)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(os.path.join(folder, name))
            else:
                os.unlink(name, dir_fd=dfd)
        if saved is None:
            return
        _write_new(dfd, name, saved[0], owner, saved[1])
    finally:
        os.close(dfd)


def copy_program(src: Path, dst: str, gid: int | None) -> int:
    """Private copy of a bot's folder; returns the number of entries copied.

    As root (``gid`` given): owned by root, group = the seat's gid, 0750/0640
    (0750 for files with any execute bit): the seat reads and runs it, cannot
    change it, and the other seat cannot even list it.  Otherwise 0700/0600.
    Symbolic links are copied as links; FIFOs, sockets and devices are skipped, and
    so are caches (:func:`is_cache`).
    """
    if not src.is_dir():
        raise ValueError(f"program_dir {src} is not a folder")
    count = 0
    dir_mode, file_mode, exec_mode = (
        (0o750, 0o640, 0o750) if gid is not None else (0o700, 0o600, 0o700)
    )
    stack = [(str(src), dst)]
    os.mkdir(dst, 0o700)
    while stack:
        s, d = stack.pop()
        for entry in os.scandir(s):
            target = os.path.join(d, entry.name)
            st = entry.stat(follow_symlinks=False)
            if is_cache(entry.name, stat.S_ISDIR(st.st_mode)):
                continue
            if stat.S_ISDIR(st.st_mode):
                os.mkdir(target, 0o700)
                stack.append((entry.path, target))
            elif stat.S_ISREG(st.st_mode):
                shutil.copyfile(entry.path, target, follow_symlinks=False)
                os.chmod(target, exec_mode if st.st_mode & 0o111 else file_mode)
                if gid is not None:
                    os.chown(target, 0, gid)
            elif stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(entry.path), target)
                if gid is not None:
                    os.lchown(target, 0, gid)
            else:
                continue
            count += 1
        os.chmod(d, dir_mode)
        if gid is not None:
            os.chown(d, 0, gid)
    return count


def remove_tree(path: str) -> None:
    """Delete a seat's folder whatever modes its program left (all its processes are gone)."""

    def fix(func: object, p: str, exc: object) -> None:
        parent = os.path.dirname(p)
        try:
            os.chmod(parent, 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
                shutil.rmtree(p)
            else:
                os.unlink(p)
        except FileNotFoundError:
            pass

    if os.path.lexists(path):
        shutil.rmtree(path, onerror=fix)
