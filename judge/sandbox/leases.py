"""One budget of cores for the whole machine: a lease file per core, held with ``flock``.

Why: each judge process (and each Dask worker of ``--cluster local:N``) has its
own :class:`~judge.sandbox.cores.CoreBudget`, so two of them on one machine
would each think every core is theirs and put two programs on one core; the
wall-clock limit then gives each bot half the time it was promised.  A run
therefore also holds its core's lease file, locked with ``flock``: shared by
every process that opens it, released by the kernel when the holder closes it
or dies, so a crashed judge never keeps a core.

Where: as root ``/run/ocean-judge/cores`` (root's, mode 0755; the lease files
0644, made for every core at once), which every judge on the machine uses,
normal users' too (``flock`` needs only a file opened for reading).  A normal
user without that folder uses a folder of their own
(``/dev/shm/ocean-judge-cores-UID``, else under ``/tmp``):
the budget is then shared with that user's judges only, and the sandbox's
report says so, as for any protection that is off.

The holder of a lease writes into it who it is (pid, command, seat) when it
may write the file; ``judge sandbox-info`` shows every lease held, by whom,
with the holder found in ``/proc/locks`` (so a reader-only holder shows too).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from judge.sandbox.procfs import cmdline, flock_holders

#: As root: the machine-wide folder every judge on the machine shares.
MACHINE_FOLDER = "/run/ocean-judge/cores"
#: How long a run that finds every free core leased by another process waits between looks.
POLL_S = 0.005


@dataclass(frozen=True)
class LeaseHolder:
    """A lease someone holds (``judge sandbox-info``)."""

    core: int
    pid: int | None  #: from /proc/locks (None: not found there)
    who: str  #: what the holder wrote, else its command line


class LeaseFolderError(OSError):
    """A lease folder that cannot be used safely (the message says why)."""


def _check_folder(path: str, owner: int) -> None:
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise LeaseFolderError(f"{path} is not a folder")
    if st.st_uid != owner or st.st_mode & 0o022:
        raise LeaseFolderError(
            f"{path} must belong to uid {owner} and not be writable by others "
            f"(owner {st.st_uid}, mode {oct(st.st_mode & 0o777)})"
        )


def _user_folder() -> str:
    """A user's own lease folder: from the uid alone, so every judge of the user finds it
    (one from a terminal, one from cron); in /dev/shm, which a service's private /tmp does
    not hide, where there is one."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
    return f"{base}/ocean-judge-cores-{os.geteuid()}"


class CoreLeases:
    """The lease files of one process's view of the machine's cores.  Thread-safe for
    distinct cores; a core is taken by one run at a time (the caller's budget sees to it).

    ``folder``: None for the default (see the module doc), or a folder of the
    caller's (tests).  ``shared`` says whether every judge on the machine uses
    the same folder; ``note`` says in words where the leases are and with whom
    they are shared.
    """

    def __init__(self, cores: tuple[int, ...], folder: str | None = None) -> None:
        self._fds: dict[int, int] = {}
        self._writable: dict[int, bool] = {}
        self._turn_fd = -1
        self.label = f"pid {os.getpid()} ({_command()})"
        #: where the lease files are, whether every judge on the machine uses them, in words
        self.folder, self.shared, self.note = "", False, ""
        try:
            self._choose(cores, folder)
        except BaseException:
            self.close()  # no lease file left open by a half-made object
            raise

    def _choose(self, cores: tuple[int, ...], folder: str | None) -> None:
        """Open the lease files of the folder this judge shares (see the class doc)."""
        if folder is not None:
            self.folder = folder
            self._open_own(folder, cores, mode=0o700)
            self.shared = False
            self.note = f"lease files in {folder}, shared by the judges that use that folder"
            return
        if os.geteuid() == 0:
            self.folder = MACHINE_FOLDER
            self._open_own(MACHINE_FOLDER, _all_cores(cores), mode=0o755)
            parent = os.path.dirname(MACHINE_FOLDER)
            st = os.lstat(parent)
            if st.st_uid == 0 and st.st_mode & 0o011 != 0o011:  # made under a umask of 077
                os.chmod(parent, stat.S_IMODE(st.st_mode) | 0o011)
            self.shared = True
            self.note = (
                f"lease files in {MACHINE_FOLDER}: every judge and cluster worker on this "
                "machine, root or not, shares one budget"
            )
            return
        try:
            _check_folder(MACHINE_FOLDER, 0)
            for core in cores:
                self._open(MACHINE_FOLDER, core, create=False)
            self._open(MACHINE_FOLDER, None, create=False)
            self.folder = MACHINE_FOLDER
            self.shared = True
            self.note = f"lease files in {MACHINE_FOLDER}, shared with every judge on this machine"
            return
        except OSError:
            self.close()
        self.folder = _user_folder()
        self._open_own(self.folder, cores, mode=0o700)
        self.shared = False
        self.note = (
            f"lease files in {self.folder}: shared only with this user's judges; judges of "
            f"other users or of root may run programs on the same cores ({MACHINE_FOLDER} "
            "is made by a judge run as root)"
        )

    def _open_own(self, folder: str, cores: tuple[int, ...], mode: int) -> None:
        os.makedirs(folder, mode=mode, exist_ok=True)
        _check_folder(folder, os.geteuid())
        if stat.S_IMODE(os.lstat(folder).st_mode) != mode:
            os.chmod(folder, mode)  # makedirs' mode is masked by the umask
        for core in cores:
            self._open(folder, core, create=True)
        self._open(folder, None, create=True)

    def _open(self, folder: str, core: int | None, create: bool) -> None:
        """Open one lease file (``core`` None: the turnstile, ``queue.lock``)."""
        name = "queue.lock" if core is None else f"core-{core}.lock"
        path = os.path.join(folder, name)
        flags = os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_CREAT if create else 0)
        try:
            fd = os.open(path, os.O_RDWR | flags, 0o644)
            writable = True
        except PermissionError:
            fd = os.open(path, os.O_RDONLY | flags)
            writable = False
        if create and os.geteuid() == 0:
            os.fchmod(fd, 0o644)  # readable by every judge, whatever the umask
        if core is None:
            self._turn_fd = fd
        else:
            self._fds[core] = fd
            self._writable[core] = writable

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Be the one process looking for a free core (the others wait in the kernel)."""
        if self._turn_fd < 0:
            self._open(self.folder, None, create=os.access(self.folder, os.W_OK))
        fcntl.flock(self._turn_fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._turn_fd, fcntl.LOCK_UN)

    def try_take(self, core: int, seat: str = "") -> bool:
        """Lease ``core`` if no other process holds it (never waits)."""
        fd = self._fds[core]
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return False
            raise
        if self._writable[core]:
            since = time.strftime("%Y-%m-%d %H:%M:%S")
            text = f"{self.label}{', seat ' + seat if seat else ''}, since {since}\n"
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, text.encode("utf-8", "replace"), 0)
            except OSError:
                pass
        return True

    def give_back(self, core: int) -> None:
        fcntl.flock(self._fds[core], fcntl.LOCK_UN)

    def holders(self) -> list[LeaseHolder]:
        """Every lease of this folder someone holds now (this process's included)."""
        locks = flock_holders()
        out = []
        for name in sorted(os.listdir(self.folder)):
            if not (name.startswith("core-") and name.endswith(".lock")):
                continue
            try:
                core = int(name[5:-5])
            except ValueError:
                continue
            path = os.path.join(self.folder, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    continue  # nobody holds it
                except OSError:
                    pass
                st = os.fstat(fd)
                pid = locks.get((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
                written = os.pread(fd, 400, 0).decode("utf-8", "replace").strip()
            finally:
                os.close(fd)
            who = written if written else (f"pid {pid} ({_command(pid)})" if pid else "unknown")
            out.append(LeaseHolder(core, pid, who))
        return sorted(out, key=lambda h: h.core)

    def close(self) -> None:
        for fd in [*self._fds.values(), self._turn_fd]:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._fds.clear()
        self._turn_fd = -1


def _all_cores(cores: tuple[int, ...]) -> tuple[int, ...]:
    """Every core of the machine (root makes the files for judges that will use others)."""
    return tuple(sorted(set(cores) | set(range(os.cpu_count() or 1))))


def _command(pid: int | None = None) -> str:
    """A process's command line, short (this process's: how it was started)."""
    if pid is None:
        words = [os.path.basename(sys.argv[0] or "python"), *sys.argv[1:3]]
    else:
        raw = cmdline(pid, 400)
        if raw is None:
            return "?"
        words = [w.decode("utf-8", "replace") for w in raw if w][:4]
        if words:
            words[0] = os.path.basename(words[0])
    return " ".join(words)[:120] or "?"
