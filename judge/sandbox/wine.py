"""Windows programs (``.exe``) run under wine, with every protection a native program gets.

Why this shape (measured on Debian 12 with its wine 8.0): making a wine prefix
takes seconds, starting wine's *system* processes (services, explorer, device
drivers) about a second, and a program started while its prefix's wineserver
already runs about 20 ms.  So:

* **Template, once per machine.**  ``wineboot -i`` builds a prefix in a cache
  folder (``/var/cache/ocean-judge/wine`` as root), keyed by the wine build.
  Its folders for documents and temporary files point to ``/tmp`` (the seat's
  private, per-run emptied /tmp), nothing in it is writable by a seat, and the
  wineserver binary is copied next to it execute-only (see below).
* **A prefix per seat, in milliseconds.**  The template is hard-linked into
  the seat's folder (outside the team folder); only its top folder belongs to
  the seat's uid (wine insists), everything below stays the judge's, read-only.
* **The seat's wineserver**, started before turn 1 inside the seat's sandbox
  (its uid, namespaces and filesystem view, a cgroup of its own) and ended
  with the seat.  It is started from a thread that lives as long as it does
  (the exec helper's parent-death signal is per thread).  It runs from the
  execute-only copy, so the kernel marks it non-dumpable: a bot sharing its
  uid can signal it but not ptrace it or read its memory, hence cannot run
  code in it between turns.
* **No system processes.**  wineboot, winedbg and winemenubuilder are
  disabled for bot runs, so a run starts exactly one process (more only if the
  program itself starts children), all inside the run's own tree and cgroup:
  its memory, CPU and time are the program's, and the per-run kill
  (tree-only, so the seat's wineserver survives it) leaves nothing behind.
* **Hygiene.**  After each run the seat's wine folders are compared with what
  they held before turn 1: anything added is removed; anything the program
  moved or replaced makes the judge rebuild the prefix, outside the program's
  time.
* **A fresh server after every run** (:meth:`WineSeat.refresh`): what a
  program leaves in its wineserver (registry values, global atoms) dies with
  it, so an .exe carries nothing between runs but its keep file, as a native
  program.
* **Wine's failures are the judge's** (:meth:`WineSeat.failure`): a run that
  ended before wine's "Loaded" line for the program, or during which the
  server stopped, is IE.

See docs/windows-backend.md.
"""

from __future__ import annotations

import array
import dataclasses
import errno
import fcntl
import glob
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.sandbox.cores import BOT_NICE, pin_tree
from judge.sandbox.folders import remove_tree
from judge.sandbox.helper import HelperKind
from judge.sandbox.procfs import children, pid_alive, running
from judge.sandbox.supervise import KILL_GRACE_S, Spawn, _command
from judge.sandbox.types import RunResult, SandboxError, Verdict
from judge.sandbox.winexe import ExeKind, inspect_exe

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.helper import Helper

#: Where wine's 64-bit loader, a 32-bit loader (wine32) and the server may be.
#: Debian's /usr/bin/wine is a script (it prints a wine32 hint on every run): the
#: binaries behind it are used directly.
LOADER64_CANDIDATES = ("/usr/lib/wine/wine64", "/usr/lib64/wine/wine64", "/usr/bin/wine64")
LOADER32_CANDIDATES = ("/usr/lib/wine/wine", "/usr/lib/i386-linux-gnu/wine/wine", "/usr/bin/wine")
SERVER_CANDIDATES = (
    "/usr/lib/wine/wineserver64",
    "/usr/lib/wine/wineserver32",
    "/usr/lib/wine/wineserver",
    "/usr/bin/wineserver",
)
ROOT_CACHE = "/var/cache/ocean-judge/wine"
#: Bumped whenever the template is made differently (new cache key).
RECIPE = "3"
USER_NAME = "bot"
#: The profile folders a program might write to: all lead to the seat's /tmp.
SCRATCH_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", "Temp")
#: wineboot is run for the template only; at run time it, the crash debugger
#: (which would print a dump and linger) and the desktop menu builder are off.
BUILD_OVERRIDES = "winemenubuilder.exe,mscoree,mshtml=d"
RUN_OVERRIDES = "wineboot.exe,winedbg.exe,winemenubuilder.exe,mscoree,mshtml=d"
#: Wine's messages off, except the loader's: "Library X.dll ... not found", and the
#: "Loaded ..." line of each module: the program's own line proves wine got as far as
#: loading it, before any of its code ran (a failure before that is wine's, not the program's).
RUN_DEBUG = "-all,err+module,+loaddll"
BUILD_TIMEOUT_S = 300.0
SERVER_START_S = 20.0
#: A template of another wine build or recipe is removed (before a build) once no
#: judge has used it for this long.
PRUNE_AFTER_S = 86400.0
#: The seat's wineserver (not the program) is capped by a cgroup of its own.
SERVER_MEMORY = 256 * 2**20
SERVER_PROCS = 16
#: RLIMIT_NPROC counts every task of the seat's uid, the wineserver's included.
NPROC_SLACK = 8
#: Files wine itself rewrites in the prefix's top folder.
#: The registry as wine saves it; put back from the template after every run.
REGISTRY_FILES = ("system.reg", "user.reg", "userdef.reg")
#: Keys of the template's system.reg a console program never reads: COM interface, class
#: and type-library registrations (60 % of the file).  Every run's fresh server loads the
#: registry before it takes the program, so they cost about 30 ms a run.
TRIMMED_KEYS = tuple(
    f"{root}\\\\{what}"
    for root in ("Software\\\\Classes", "Software\\\\Classes\\\\Wow6432Node")
    for what in ("Interface", "CLSID", "Typelib")
)
_VOLATILE_TOP = frozenset({*REGISTRY_FILES, "wineserver"})

# Wine's own lines on stderr: its messages ("wine: ...") and debug channels ("0024:err:...").
_WINE_LINE = re.compile(rb"^(wine: |wine client error|[0-9a-f]{4}:(err|fixme|warn|trace):)")
_UNHANDLED = re.compile(
    rb"^wine: Unhandled (?P<what>.+?)(?: in thread [0-9a-fA-F]+)?(?: at address (?P<addr>[0-9A-Fa-fx]+))?"
    rb" \(thread [0-9a-fA-F]+\)"
)
_MISSING_DLL = re.compile(rb":err:module:import_dll Library (?P<dll>\S+) \(which is needed by")
#: Wine's line for a module of the program's own (the .exe first; wine's own are "builtin").
_LOADED_NATIVE = re.compile(rb":trace:loaddll:\w+ Loaded .*: native\r?$", re.M)
#: Wine's own words when it gives up before or around a program's start (not a crash).
_WINE_FAILURE = re.compile(rb"^(wine client error|wine: (?!Unhandled|Call from)).*")
#: Wine's words for an unhandled exception -> (code, name in words).
_WINE_WORDS: tuple[tuple[str, int, str], ...] = (
    ("page fault", 0xC0000005, "access violation"),
    ("stack overflow", 0xC00000FD, "stack overflow"),
    ("division by zero", 0xC0000094, "integer divide by zero"),
    ("array bounds", 0xC000008C, "array bounds exceeded"),
    ("illegal instruction", 0xC000001D, "illegal instruction"),
    ("privileged instruction", 0xC0000096, "privileged instruction"),
    ("alignment", 0x80000002, "data type misalignment"),
    ("overflow", 0xC0000095, "integer overflow"),
    ("^C", 0x40010005, "Ctrl-C"),
)
#: Other well-known codes, for "Unhandled exception 0x..." and exit statuses.
EXCEPTION_NAMES = {
    0xC0000005: "access violation",
    0xC00000FD: "stack overflow",
    0xC0000094: "integer divide by zero",
    0xC0000095: "integer overflow",
    0xC000008C: "array bounds exceeded",
    0xC000001D: "illegal instruction",
    0xC0000096: "privileged instruction",
    0x80000002: "data type misalignment",
    0xC000008E: "floating-point divide by zero",
    0xC0000090: "floating-point invalid operation",
    0xC0000091: "floating-point overflow",
    0xC0000409: "stack buffer overrun (fail-fast exit)",
    0xC0000135: "a DLL the program needs was not found",
    0xE06D7363: "an uncaught C++ exception (Microsoft C++)",
}


# ------------------------------------------------------------------ finding wine


def _elf_class(path: str) -> int | None:
    """1 = 32-bit ELF, 2 = 64-bit ELF, None = not an ELF file (a script, missing)."""
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except OSError:
        return None
    return head[4] if len(head) == 5 and head[:4] == b"\x7fELF" else None


@dataclass(frozen=True)
class WineInstall:
    """The wine binaries the judge runs directly."""

    loader64: str
    loader32: str | None  #: wine32's loader: None when 32-bit programs cannot run
    server: str
    version: str

    def describe(self) -> str:
        bits = (
            "64-bit and 32-bit programs"
            if self.loader32
            else "64-bit programs only (wine32 is not installed)"
        )
        return f"{self.version}, loader {self.loader64}: {bits}"


def find_wine(
    loaders64: tuple[str, ...] = LOADER64_CANDIDATES,
    loaders32: tuple[str, ...] = LOADER32_CANDIDATES,
    servers: tuple[str, ...] = SERVER_CANDIDATES,
) -> WineInstall | None:
    """The machine's wine, or None when it has none that the judge can use."""
    loader64 = next((p for p in loaders64 if _elf_class(p) == 2 and os.access(p, os.X_OK)), None)
    server = next((p for p in servers if _elf_class(p) is not None and os.access(p, os.X_OK)), None)
    if loader64 is None or server is None:
        return None
    loader32 = next((p for p in loaders32 if _elf_class(p) == 1 and os.access(p, os.X_OK)), None)
    try:
        out = subprocess.run(
            [loader64, "--version"],
            capture_output=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = out.stdout.decode("utf-8", "replace").strip()
    if out.returncode != 0 or not version:
        return None
    return WineInstall(loader64, loader32, server, version)


def no_wine_reason(exe: str) -> str:
    """Why an .exe cannot run on a machine without wine, with the fix."""
    return (
        f"{exe} is a Windows program (.exe) and this machine has no wine: install it "
        "(Debian/Ubuntu: apt install wine), or give the bot as a native program or script"
    )


def refusal(exe: str, install: WineInstall | None) -> str | None:
    """Why this machine cannot run ``exe`` (a path to a file named .exe); None: it can."""
    try:
        info = inspect_exe(exe)
    except OSError as exc:
        return f"{exe} cannot be read: {exc.strerror}"
    kind = info.kind
    if kind is ExeKind.NOT_PE:
        return f"{exe} is named .exe but is {info.detail}"
    if kind is ExeKind.DLL:
        return f"{exe} is {info.detail}: build the program itself"
    if kind is ExeKind.DOTNET:
        return (
            f"{exe} is {info.detail}: the judge runs native Windows programs only (wine "
            "without Mono); build it as a native program (C, C++, Pascal, ...)"
        )
    if kind is ExeKind.OTHER_CPU:
        return f"{exe} is {info.detail}: rebuild it for 64-bit x86 (x86-64)"
    if install is None:
        return no_wine_reason(exe)
    if kind is ExeKind.WIN32 and install.loader32 is None:
        return (
            f"{exe} is a 32-bit Windows program (PE32) and this machine's wine runs only "
            "64-bit programs: rebuild it as 64-bit (MinGW-w64: x86_64-w64-mingw32-g++, or "
            "g++ -m64 from a 64-bit MinGW), or install wine32 (Debian/Ubuntu: dpkg "
            "--add-architecture i386 && apt update && apt install wine32:i386)"
        )
    return None


def windows_target(argv: list[str]) -> int | None:
    """Index of the .exe in ``argv`` when it is a Windows command: ``[x.exe, ...]``
    or ``[wine, x.exe, ...]`` (a bot.yaml written for wine); None otherwise."""
    first = os.path.basename(argv[0])
    if first.lower().endswith(".exe"):
        return 0
    if first in ("wine", "wine64", "wine-stable") and len(argv) > 1:
        if argv[1].lower().endswith(".exe"):
            return 1
    return None


# ------------------------------------------------------------------ the template


def _cache_root(explicit: str | None) -> str:
    if explicit:
        return explicit
    if os.geteuid() == 0:
        return ROOT_CACHE
    return os.path.join(os.path.expanduser("~"), ".cache", "ocean-judge", "wine")


def _template_key(install: WineInstall) -> str:
    parts = [RECIPE, install.version, install.loader64, install.server, str(install.loader32)]
    for path in (install.loader64, install.server):
        st = os.stat(path)
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Template:
    """A ready prefix and the execute-only wineserver copy, both read-only."""

    prefix: str
    server: str


def _env(prefix: str, home: str, tmpdir: str, overrides: str, debug: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": USER_NAME,
        "LANG": "C.UTF-8",
        "WINEPREFIX": prefix,
        "WINEDEBUG": debug,
        "WINEDLLOVERRIDES": overrides,
        # Debian's wine keeps its server's socket under $TMPDIR, not /tmp/.wine-UID.
        "TMPDIR": tmpdir,
    }


def _build_template(install: WineInstall, work: str) -> str:
    """Make a prefix in ``work`` with wineboot; returns its path."""
    prefix = os.path.join(work, "prefix")
    home = os.path.join(work, "home")
    run = os.path.join(work, "run")
    os.mkdir(home, 0o700)
    os.mkdir(run, 0o700)
    env = _env(prefix, home, run, BUILD_OVERRIDES, "-all")
    log = os.path.join(work, "wineboot.log")
    with open(log, "wb") as out:
        try:
            returncode = subprocess.run(
                [install.loader64, "wineboot", "-i"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                timeout=BUILD_TIMEOUT_S,
                cwd=work,
                check=False,
            ).returncode
        except subprocess.TimeoutExpired:
            returncode = -1
        finally:
            # wineboot's server (and its system processes) save the registry and
            # end a few seconds after the last program: wait, then make sure.
            for flag in ("-w", "-k"):
                try:
                    subprocess.run(
                        [install.server, flag],
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=out,
                        timeout=60,
                        check=False,
                    )
                except subprocess.TimeoutExpired:
                    pass
    if returncode != 0 or not os.path.isfile(os.path.join(prefix, "system.reg")):
        with open(log, "rb") as f:
            tail = f.read()[-600:].decode("utf-8", "replace").strip()
        raise SandboxError(f"wine could not make a prefix (wineboot exit {returncode}): {tail}")
    _shape_template(prefix)
    return prefix


def _shape_template(prefix: str) -> None:
    """Scratch folders lead to the seat's /tmp; nothing is writable by anyone but us."""
    record = os.path.join(prefix, "wineserver")  # Debian: where the build's server ran
    if os.path.lexists(record):
        os.unlink(record)
    profile = os.path.join(prefix, "drive_c", "users", USER_NAME)
    scratch = [os.path.join(profile, name) for name in SCRATCH_FOLDERS]
    for path in [*scratch, os.path.join(prefix, "drive_c", "windows", "temp")]:
        if os.path.lexists(path):
            remove_tree(path)
        os.symlink("/tmp", path)
    for dirpath, _dirnames, filenames in os.walk(prefix):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if not stat.S_ISLNK(st.st_mode):
                os.chmod(p, (stat.S_IMODE(st.st_mode) & ~0o022) | 0o444)
    trim_registry(os.path.join(prefix, "system.reg"))


def trim_registry(path: str, drop: tuple[str, ...] = TRIMMED_KEYS) -> int:
    """Remove the keys under ``drop`` (as the file spells them, doubled backslashes)
    from a wine registry file; returns how many keys went.

    A fresh wineserver is started after every run (nothing a program leaves in it
    reaches its next run) and parses the whole
    registry before it takes a program: the smaller file is most of the ``wine`` step.
    The file is rewritten whole (a new file renamed over the old), so a template is
    never left half written.
    """
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.readlines()
    kept: list[str] = []
    keep, dropped = True, 0
    for line in lines:
        if line.startswith("["):
            key = line[1:].split("]", 1)[0]
            keep = not any(key == d or key.startswith(d + "\\\\") for d in drop)
            dropped += not keep
        if keep:
            kept.append(line)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    tmp = path + ".trim"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.writelines(kept)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return dropped


def ensure_template(install: WineInstall, cache: str | None = None) -> Template:
    """The template for this wine, built the first time (seconds) and cached.

    A normal user without a template of its own uses the system's (root's) one
    when it exists: it is readable by all and only ever read.
    """
    key = _template_key(install)
    if cache is None and os.geteuid() != 0:
        system = os.path.join(ROOT_CACHE, key)
        if os.path.isdir(system):
            return Template(os.path.join(system, "prefix"), os.path.join(system, "wineserver"))
    root = _cache_root(cache)
    os.makedirs(root, mode=0o755, exist_ok=True)
    final = os.path.join(root, key)
    done = Template(os.path.join(final, "prefix"), os.path.join(final, "wineserver"))
    if os.path.isdir(final):
        return done
    lock_fd = os.open(os.path.join(root, ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        if os.path.isdir(final):  # another judge built it meanwhile
            return done
        _prune(root)
        work = os.path.join(root, f".build-{os.getpid()}-{secrets.token_hex(3)}")
        os.mkdir(work, 0o700)
        try:
            _build_template(install, work)
            shutil.copyfile(install.server, os.path.join(work, "wineserver"))
            # Execute-only for the seats: a process running a file it cannot read is
            # not dumpable, so the seat's own uid cannot ptrace its wineserver.
            os.chmod(os.path.join(work, "wineserver"), 0o711)
            for extra in ("home", "run", "wineboot.log"):
                remove_tree(os.path.join(work, extra))
            os.chmod(work, 0o755)
            os.rename(work, final)
        finally:
            if os.path.lexists(work):
                remove_tree(work)
        return done
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)


def _prune(root: str, now: float | None = None) -> None:
    """Before a build (under the lock): remove builds left by judges that died, and
    templates of other wine versions or recipes (about 700 MiB each; seats made from
    them keep their own hard links) that no judge has used for :data:`PRUNE_AFTER_S`.

    A template another judge used lately stays: that judge (an older or newer
    version, still running a tournament) may be about to make a seat from it.
    """
    now = time.time() if now is None else now
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if name.startswith(".build-"):
            try:
                pid = int(name.split("-")[1])
            except (IndexError, ValueError):
                continue
            if not pid_alive(pid):
                remove_tree(path)
        elif re.fullmatch(r"[0-9a-f]{16}", name) and os.path.isdir(path):
            if now - os.stat(path).st_mtime > PRUNE_AFTER_S:
                remove_tree(path)


def _mark_used(final: str) -> None:
    """The template's folder's time is the last time a seat was made from it (for
    :func:`_prune`): marked at each seat, so a judge running for days keeps it too."""
    try:
        os.utime(final)
    except OSError:  # a normal user on root's template: root's judges mark it
        pass


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
            _link_or_copy(s, d, symlinks)


def _link_or_copy(src: str, dst: str, symlinks: bool) -> None:
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


# ------------------------------------------------------------------ a seat's wine


class WineSupport:
    """Wine for one Sandbox: found once, its template built once, shared by the seats.

    ``mode``: ``"auto"`` (use the machine's wine if there is one) or ``"none"``
    (behave as a machine without wine).  Thread-safe.
    """

    def __init__(self, mode: str = "auto", cache: str | None = None) -> None:
        if mode not in ("auto", "none"):
            raise ValueError(f"wine must be 'auto' or 'none', not {mode!r}")
        self.mode = mode
        self.cache = cache
        self._lock = threading.Lock()
        self._install: WineInstall | None = None
        self._looked = False
        self._template: Template | None = None

    @property
    def install(self) -> WineInstall | None:
        with self._lock:
            if not self._looked:
                self._install = find_wine() if self.mode == "auto" else None
                self._looked = True
            return self._install

    def template(self) -> Template:
        install = self.install
        if install is None:
            raise SandboxError("no wine on this machine")
        with self._lock:
            if self._template is None:
                self._template = ensure_template(install, self.cache)
            return self._template

    def describe(self) -> str:
        """For ``judge sandbox-info``: whether .exe bots can run, and how."""
        install = self.install
        if install is None:
            return "Windows programs (.exe): OFF, no wine found (apt install wine)"
        return f"Windows programs (.exe): through wine, {install.describe()}"


@dataclass
class _Snapshot:
    """What a folder held (relative path -> (inode, kind)) when the seat was ready."""

    entries: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, root: str, depth: int) -> _Snapshot:
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


class WineSeat:
    """One seat's prefix and wineserver.  Driven by :class:`~judge.sandbox.seat.Seat`."""

    def __init__(
        self,
        support: WineSupport,
        base: str,
        uid: int | None,
        gid: int | None,
        tmpdir: str,
        view: bool,
    ) -> None:
        install = support.install
        if install is None:
            raise SandboxError("no wine on this machine")
        self.install = install
        self.support = support
        self.uid, self.gid = uid, gid
        self.dir = os.path.join(base, "wine")
        self.prefix = os.path.join(self.dir, "prefix")
        self.run_dir = os.path.join(self.dir, "run")
        self.server_exe = os.path.join(self.dir, "wineserver")
        self.log = os.path.join(self.dir, "server.log")
        self._tmpdir = tmpdir
        self._view = view
        self._server: _Server | None = None
        #: the next server, being armed or armed (:class:`_Arming`), or None
        self._next: _Arming | None = None
        #: the server and the run pressure group it is in (:meth:`lend_server`), or None
        self._lent: tuple[_Server, str] | None = None
        self._top: _Snapshot | None = None
        self._run_snap: _Snapshot | None = None
        self._needs_reset = False
        self._needs_restart = False
        #: the seat's wineserver stopped during the last run (the judge did not stop it)
        self.died_in_run = False
        self._kinds: dict[str, ExeKind] = {}
        self._server_home: str | None = None

    def pin_server(self, core: int) -> None:
        """Keep the seat's wineserver on the core of the run it serves (a run's time is
        its core's): on
        any other core it would take time from another seat's program."""
        if self._server is not None and self._server.proc is not None:
            pin_tree(self._server.proc.pid, {core}, BOT_NICE)

    # ---------------------------------------------------------- environment
    def env(self, base: dict[str, str]) -> dict[str, str]:
        """The environment of every run of this seat (and of its server)."""
        env = dict(base)
        env.update(
            {
                "USER": USER_NAME,
                "WINEPREFIX": self.prefix,
                "WINEDEBUG": RUN_DEBUG,
                "WINEDLLOVERRIDES": RUN_OVERRIDES,
                "TMPDIR": self.run_dir,
            }
        )
        return env

    def argv(self, argv: list[str]) -> list[str]:
        """``[x.exe, args]`` or ``[wine, x.exe, args]`` -> the loader's command line."""
        idx = windows_target(argv)
        assert idx is not None
        exe = argv[idx]
        kind = self._kinds.get(exe)
        if kind is None:
            kind = self._kinds[exe] = inspect_exe(exe).kind
        loader = self.install.loader32 if kind is ExeKind.WIN32 else self.install.loader64
        assert loader is not None
        return [loader, exe, *argv[idx + 1 :]]

    def tmp_spare(self) -> frozenset[str]:
        """Names in the seat's /tmp the per-run cleaning must leave alone: upstream
        wine keeps its server's socket in a fixed ``/tmp/.wine-UID`` (Debian's wine
        uses ``$TMPDIR`` instead, and then nothing is spared)."""
        if self._server_home is not None and os.path.dirname(self._server_home) == self._tmpdir:
            return frozenset({os.path.basename(self._server_home)})
        return frozenset()

    # ---------------------------------------------------------- set-up
    def _make_prefix(self) -> None:
        template = self.support.template()
        _mark_used(os.path.dirname(template.prefix))  # a judge of another version keeps it
        if os.path.lexists(self.prefix):
            remove_tree(self.prefix)
        link_tree(template.prefix, self.prefix, symlinks=not self._view)
        os.chmod(self.prefix, 0o700)
        if not os.path.lexists(self.server_exe):
            try:
                os.link(template.server, self.server_exe)
            except OSError:  # another filesystem, or a normal user and root's template
                shutil.copyfile(self.install.server, self.server_exe)
                os.chmod(self.server_exe, 0o711)
        if self.uid is not None and self.gid is not None:
            os.chown(self.prefix, self.uid, self.gid)

    def prepare(self) -> None:
        """Folders of the seat's wine (no process yet)."""
        os.mkdir(self.dir, 0o750 if self.gid is not None else 0o700)
        os.mkdir(self.run_dir, 0o700)
        if self.uid is not None and self.gid is not None:
            os.chown(self.dir, 0, self.gid)
            os.chown(self.run_dir, self.uid, self.gid)
        self._make_prefix()

    def start(
        self,
        helper: Helper,
        spawn_for: Callable[[list[str]], Spawn],
        make_cgroup: Callable[[], RunCgroup | None],
        core: int | None = None,
        following: _Arming | None = None,
    ) -> None:
        """Start the seat's wineserver (the one armed at the last start, if there is one)
        and wait until it accepts programs.  The next one is then ``following``'s, armed
        meanwhile by the caller, or armed now."""
        spawn = spawn_for([self.server_exe, "-f", "-p"])
        server = self._take_armed(core)
        if server is None:
            server = _Server.start(helper, spawn, make_cgroup(), self._spare_log(following))
        self._server = server
        began = time.monotonic()
        deadline = began + SERVER_START_S
        while (found := self._socket_path()) is None:
            if not server.alive():
                raise SandboxError(
                    f"wine's server for this seat exited at start: {server.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"wine's server for this seat did not start within {SERVER_START_S:g} s: "
                    f"{server.log_tail()}"
                )
            # A server started from an armed helper makes its socket in 2-3 ms: look
            # often at first (each look is a glob and a stat, some 70 µs).
            time.sleep(0.0005 if time.monotonic() - began < 0.05 else 0.002)
        self._wait_accepting(found, deadline)
        # Not waited for: it is the next refresh's, tens of milliseconds away.
        self._next = following if following else _Arming(self, helper, spawn, make_cgroup)

    def _arm(
        self,
        helper: Helper,
        spawn: Spawn,
        make_cgroup: Callable[[], RunCgroup | None],
        log: str,
    ) -> _Server | None:
        """A server's helper started now, idle until its :meth:`_take_armed`: it joins its
        groups and readies the server's process ahead of its turn.  A cgroup v1 join waits
        for an RCU grace period (about 10 ms here) when no task moved for a while, as at
        the end of a run: that wait was half of the refresh after every run.
        None: not armed (nothing lost: the start makes its server then); never for a
        normal user's seat, whose process cap counts the uid's tasks when the helper
        starts (the old server's among them), nor with the Python fallback helper, which
        has no go pipe."""
        if spawn.nproc_extra is not None or helper.kind is not HelperKind.C:
            return None
        try:
            return _Server.start(helper, spawn, make_cgroup(), log, armed=True)
        except (OSError, SandboxError):
            return None

    def _take_armed(self, core: int | None) -> _Server | None:
        """The armed server, started now on ``core`` (None: none armed, or its helper is gone)."""
        arming, self._next = self._next, None
        server = arming.result() if arming is not None else None
        if server is None:
            return None
        try:
            server.go(core)
        except OSError:
            server.stop()
            return None
        return server

    def _discard_armed(self) -> None:
        if self._next is not None:
            self._next.discard()
            self._next = None

    def _spare_log(self, also: _Arming | None = None) -> str:
        """A log file no live server writes (an armed one starts while others live)."""
        live = {self._server.log} if self._server is not None else set()
        if self._next is not None:
            live.add(self._next.log)
        if also is not None:
            live.add(also.log)
        return next(
            log for log in (self.log, self.log + ".next", self.log + ".2") if log not in live
        )

    def refresh(
        self,
        helper: Helper,
        spawn_for: Callable[[list[str]], Spawn],
        make_cgroup: Callable[[], RunCgroup | None],
        report: list[str],
        core: int | None = None,
    ) -> None:
        """After every run: a new server on the template's registry.

        A program can keep data in its wineserver (registry values, global atoms,
        permanent named objects), not only in files; a fresh server, loading the
        registry files as the template has them, keeps a Windows program to what a
        native one may carry between runs: its keep file.  The old server is killed,
        not stopped, so it writes nothing back.  The new one is the server armed at the
        last start (a process that has not run a single instruction of wine yet), on
        ``core``.
        """
        # The server after the new one, armed first, on a thread: its groups' join waits
        # for the kernel (see _arm) while the old server is killed and the new one
        # starts, and is over before the next run moves the new server into its
        # pressure group.
        following: _Arming | None = _Arming(
            self, helper, spawn_for([self.server_exe, "-f", "-p"]), make_cgroup
        )
        try:
            self._stop_current()
            if self._needs_reset:
                report.append(
                    "wine: the program changed the seat's wine folder; it was made afresh"
                )
                self._discard_armed()  # both readied for the prefix as it was
                if following is not None:
                    following.discard()
                following = None
            self.reset_if_needed()
            self._restore_registry()
            self.start(helper, spawn_for, make_cgroup, core, following)
        except BaseException:
            if following is not None and self._next is not following:
                following.discard()
            raise
        self.snapshot()

    def _restore_registry(self) -> None:
        """The registry files back to the template's (a server may have saved its own)."""
        template = self.support.template().prefix
        for name in REGISTRY_FILES:
            mine, theirs = os.path.join(self.prefix, name), os.path.join(template, name)
            try:
                if os.path.samestat(os.lstat(mine), os.stat(theirs)):
                    continue
                os.unlink(mine)
            except FileNotFoundError:
                pass
            _link_or_copy(theirs, mine, symlinks=not self._view)

    def snapshot(self) -> None:
        """Remember the seat's wine folders as they are, ready, before turn 1."""
        self._top = _Snapshot.of(self.prefix, 1)
        assert self._server_home is not None
        self._run_snap = _Snapshot.of(self._server_home, 8)
        self._needs_reset = self._needs_restart = False

    def _socket_path(self) -> str | None:
        """This prefix's server socket, once it exists (sets ``_server_home``, the
        seat-private folder that holds it): Debian's wine keeps it under
        ``$TMPDIR/wine-XXXXXX/``, upstream wine under ``/tmp/.wine-UID/``."""
        st = os.stat(self.prefix)
        server_dir = f"server-{st.st_dev:x}-{st.st_ino:x}"
        for found in glob.glob(os.path.join(glob.escape(self.run_dir), "*", server_dir, "socket")):
            self._server_home = self.run_dir
            return found if os.path.exists(found) else None
        uid = self.uid if self.uid is not None else os.getuid()
        if self._view:  # the seat's /tmp is its own: the whole .wine-UID folder is the seat's
            upstream = os.path.join(self._tmpdir, f".wine-{uid}")
            home = upstream
        else:  # the real /tmp, shared with the judge's user: only this prefix's folder
            upstream = os.path.join("/tmp", f".wine-{uid}")
            home = os.path.join(upstream, server_dir)
        socket_path = os.path.join(upstream, server_dir, "socket")
        if os.path.exists(socket_path):
            self._server_home = home
            return socket_path
        return None

    def _wait_accepting(self, socket_path: str, deadline: float) -> None:
        """Wait until the new server takes programs: it listens before it has loaded the
        registry, and only then accepts a connection and sends its protocol version.
        Connecting once, as wine's loader does, keeps that start-up out of the next
        program's time."""
        # A socket path may be longer than AF_UNIX allows: go through the folder's fd.
        folder = os.open(os.path.dirname(socket_path), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                path = f"/proc/self/fd/{folder}/{os.path.basename(socket_path)}"
                while True:  # the socket exists a moment before the server listens on it
                    try:
                        sock.connect(path)
                        break
                    except ConnectionRefusedError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.001)
                _, ancillary, _, _ = sock.recvmsg(4, socket.CMSG_SPACE(4))
        except OSError as exc:
            raise SandboxError(
                f"wine's server for this seat does not take programs: {exc}; "
                f"{self._server.log_tail() if self._server else ''}"
            ) from exc
        finally:
            os.close(folder)
        for level, kind, data in ancillary:  # the request pipe wine passes: not ours to keep
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                for fd in array.array("i", data[: len(data) - len(data) % 4]):
                    os.close(fd)

    @property
    def alive(self) -> bool:
        return self._server is not None and self._server.alive()

    def lend_server(self, pressure_dir: str) -> bool:
        """The seat's wineserver joins a run's pressure group (PSI only, no limits)
        for the run: the time neither it nor the program could get the CPU is then
        counted as one.  False if it could not (its waiting is then added instead)."""
        if self._server is not None and self._lent == (self._server, pressure_dir):
            return True  # lent already, since the refresh (see Seat._refresh_wine)
        pids = self.server_pids()
        if not pids or not _move(pids, pressure_dir):
            self.take_server_back()
            return False
        self._lent = (self._server, pressure_dir) if self._server is not None else None
        return True

    @property
    def lent(self) -> bool:
        """Whether the server is in a run's pressure group now."""
        return self._lent is not None

    def take_server_back(self) -> None:
        """Back to the server's own group (before the run's group is removed)."""
        self._lent = None
        cg = self._server.cg if self._server is not None else None
        home = cg.psi_dir if cg is not None else None
        if home is not None:
            _move(self.server_pids(), home)

    def _server_running(self) -> bool:
        """Whether the seat's wineserver itself runs: its exec helper outlives it by the
        moment it takes to notice, so a server just killed is looked for as a process."""
        return self.alive and any(running(pid) for pid in self.server_pids())

    def server_pids(self) -> list[int]:
        """The seat's wineserver (the processes under its exec helper), for the wait meter."""
        if self._server is None or self._server.proc is None:
            return []
        return children(self._server.proc.pid)

    # ---------------------------------------------------------- around each run
    def needs_restart(self) -> bool:
        """Whether the server must be started afresh (after :meth:`reset_if_needed`)
        before the next run: it stopped, or the program tampered with the prefix."""
        return self._needs_reset or self._needs_restart or not self._server_running()

    def restart_note(self) -> str:
        """Why the seat's wine is made afresh before this run (for the turn's report)."""
        if self._needs_reset:
            why = "the program changed the seat's wine folder"
        else:
            why = "the seat's wineserver had stopped"
        return f"wine: {why}; it was made afresh before this run"

    def reset_if_needed(self) -> None:
        """With the server stopped: a fresh prefix if it was tampered with, and no
        leftovers where the server keeps its socket.  :meth:`start` follows."""
        if self._needs_reset:
            self._make_prefix()
        for home in (self.run_dir, self._server_home):
            if home is not None and os.path.isdir(home):
                for name in os.listdir(home):
                    remove_tree(os.path.join(home, name))
        self._server_home = None

    def after_run(self, report: list[str]) -> None:
        """Remove what the run added to the seat's wine folders; note any tampering."""
        self.died_in_run = False
        if self._top is None or self._run_snap is None:
            return
        if not self._server_running():
            self._needs_restart = self.died_in_run = True
            report.append("wine: the seat's wineserver stopped during this run")
        added = self._sweep(self.prefix, self._top, depth=1, volatile=_VOLATILE_TOP)
        if self._server_home is not None:
            added += self._sweep(self._server_home, self._run_snap, depth=8, volatile=frozenset())
        if added:
            report.append(
                f"wine: removed {added} file(s) the program left in the seat's wine folders"
            )

    def _sweep(self, root: str, snap: _Snapshot, depth: int, volatile: frozenset[str]) -> int:
        try:
            now = _Snapshot.of(root, depth)
        except OSError:
            self._needs_reset = True
            return 0
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
        for rel, (ino, kind) in snap.entries.items():
            got = now.entries.get(rel)
            if got is None or got[1] != kind or (got[0] != ino and rel not in volatile):
                self._needs_reset = True
        return added

    def failure(self, stderr_head: bytes, stderr_tail: bytes) -> str | None:
        """Why the last run is wine's failure rather than the program's, in wine's own
        words; None when the program's run stands (the judge's failure is never held
        against the program).

        Wine failed when the seat's wineserver stopped during the run, or when the
        run ended without wine's "Loaded ... : native" line (the program's own file:
        wine's system files are "builtin"): wine (its loader, the server, the prefix)
        gave up before any of the program's code ran.  That line is written before
        the program runs, so no program can make a run of its own look like wine's
        failure by its output.
        """
        said = [
            m.group(0).decode("utf-8", "replace").strip()
            for ln in (stderr_head + b"\n" + stderr_tail).splitlines()
            for m in [_WINE_FAILURE.match(ln)]
            if m
        ]
        words = f" (wine said: {'; '.join(dict.fromkeys(said))[:400]})" if said else ""
        if self.died_in_run:
            return f"the seat's wineserver stopped during the run{words}"
        if _LOADED_NATIVE.search(stderr_head):
            return None
        return f"wine stopped before it had loaded the program{words or ' (wine said nothing)'}"

    def explain(self, result: RunResult) -> RunResult:
        """Wine's own stderr lines out of the program's, and a crash told in Windows words."""
        lines = result.stderr_tail.splitlines(keepends=True)
        wine = [ln for ln in lines if _WINE_LINE.match(ln)]
        if not wine:
            return result
        own = b"".join(ln for ln in lines if not _WINE_LINE.match(ln))
        message = result.message
        if result.verdict is Verdict.RE:
            words = crash_words(wine)
            if words is not None and names_status(words):
                message = words  # not "...: exited with code 53", which repeats 0xC0000135
            else:
                message = f"{words or 'crashed'}: {message}"
        return dataclasses.replace(result, stderr_tail=own, message=message)

    # ---------------------------------------------------------- closing
    def stop(self) -> None:
        """Stop the server, and discard the armed one (a restart makes both afresh)."""
        self._stop_current()
        self._discard_armed()

    def _stop_current(self) -> None:
        self._lent = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    def close(self) -> None:
        self.stop()


def _move(pids: list[int], group: str) -> bool:
    """Move processes into a cgroup; False if one of them could not be moved."""
    ok = True
    for pid in pids:
        try:
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(pid))
        except OSError:
            ok = False
    return ok


def names_status(words: str) -> bool:
    """Whether ``words`` name the Windows status the program died of.  Its exit code then
    says nothing more: wine ends it with the status's low byte (0xC0000135 -> 53) or,
    for some exceptions (a stack overflow), with 1."""
    return re.search(r"0x[0-9A-Fa-f]{8}", words) is not None


def crash_words(wine_lines: list[bytes]) -> str | None:
    """What wine said about a crash, as a Windows exception code in words."""
    missing = [
        m.group("dll").decode("utf-8", "replace")
        for ln in wine_lines
        for m in [_MISSING_DLL.search(ln)]
        if m
    ]
    if missing:
        dlls = ", ".join(dict.fromkeys(missing))
        return (
            f"Windows status 0xC0000135 (a DLL the program needs was not found: {dlls}; "
            "link it statically, e.g. g++ -static, or put the DLL next to the .exe)"
        )
    for ln in wine_lines:
        m = _UNHANDLED.match(ln)
        if not m:
            continue
        what = m.group("what").decode("utf-8", "replace")
        code = None
        hexcode = re.match(r"exception (0x[0-9a-fA-F]+)", what)
        if hexcode:
            code = int(hexcode.group(1), 16)
            name = EXCEPTION_NAMES.get(code, "an exception")
        else:
            for phrase, c, words in _WINE_WORDS:
                if what.startswith(phrase):
                    code, name = c, words
                    break
        if code is None:
            return f"crashed (wine: unhandled {what})"
        detail = f": {what}" if what.startswith("page fault on") else ""
        return f"Windows exception 0x{code:08X} ({name}{detail})"
    return None


# ------------------------------------------------------------------ the server process


class _Arming:
    """A seat's next wineserver armed on a thread of its own (:meth:`WineSeat._arm`), so
    that its groups and its helper's start are made while the seat's refresh goes on."""

    def __init__(
        self,
        seat: WineSeat,
        helper: Helper,
        spawn: Spawn,
        make_cgroup: Callable[[], RunCgroup | None],
    ) -> None:
        self.log = seat._spare_log()
        self._server: _Server | None = None

        def arm() -> None:
            self._server = seat._arm(helper, spawn, make_cgroup, self.log)

        self._thread = threading.Thread(target=arm, name="wineserver-arming")
        self._thread.start()

    def result(self) -> _Server | None:
        """The armed server, once armed (None: it could not be)."""
        self._thread.join()
        return self._server

    def discard(self) -> None:
        server = self.result()
        if server is not None:
            server.stop()


class _Server:
    """The exec helper running a seat's wineserver, owned by a thread of its own.

    Why a thread: the helper's parent-death signal fires when the *thread* that
    started it ends, and the referee runs seats from short-lived pool threads.
    """

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.cg: RunCgroup | None = None
        self.log = ""
        self._status_r = -1
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        #: an armed server's go pipe (-1: started, or not armed)
        self._go_w = -1
        #: set by the owner thread once it has reaped the helper
        self._ended = threading.Event()

    @classmethod
    def start(
        cls, helper: Helper, spawn: Spawn, cg: RunCgroup | None, log: str, armed: bool = False
    ) -> _Server:
        """The helper started (the server with it, unless ``armed``: then the helper joins
        the groups and readies the server's process, which waits for :meth:`go`)."""
        s = cls()
        s.cg, s.log = cg, log
        s._thread = threading.Thread(
            target=s._own, args=(helper, spawn, armed), name="wineserver-owner", daemon=True
        )
        s._thread.start()
        s._started.wait()
        if s._error is not None:
            s.stop()
            raise SandboxError(f"cannot start wine's server for this seat: {s._error}")
        return s

    def _own(self, helper: Helper, spawn: Spawn, armed: bool) -> None:
        go_r = -1
        try:
            status_r, status_w = os.pipe2(os.O_CLOEXEC)
            self._status_r = status_r
            if armed:
                go_r, self._go_w = os.pipe2(os.O_CLOEXEC)
            log_fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
                self.proc = subprocess.Popen(
                    _command(helper, spawn, status_w, self.cg, go_r if armed else None),
                    stdin=subprocess.DEVNULL,
                    stdout=log_fd,
                    stderr=log_fd,
                    env=spawn.env,
                    pass_fds=(status_w, *spawn.ns_fds, *((go_r,) if armed else ())),
                    cwd="/",
                    close_fds=True,
                )
            finally:
                os.close(status_w)
                os.close(log_fd)
                if go_r >= 0:
                    os.close(go_r)
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._started.set()
            return
        self._started.set()
        try:
            self.proc.wait()
        finally:
            self._ended.set()

    def go(self, core: int | None) -> None:
        """An armed server's start, on ``core`` (None: not pinned).  OSError: its helper is
        gone (the caller stops it and starts another)."""
        fd, self._go_w = self._go_w, -1
        if fd < 0:
            raise OSError("this wineserver was not armed, or was started already")
        try:
            os.write(fd, f"{-1 if core is None else core}\n".encode())
        finally:
            os.close(fd)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self) -> str:
        try:
            with open(self.log, "rb") as f:
                data = f.read()[-400:]
        except OSError:
            return "(no log)"
        return data.decode("utf-8", "replace").strip() or "(nothing in its log)"

    def stop(self) -> None:
        """End the server and everything of the seat's uid (the helper kills them all)."""
        if self._go_w >= 0:  # armed, never started: it ends at EOF on its go pipe
            os.close(self._go_w)
            self._go_w = -1
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            # The owner thread reaps it and says so at once (a timed Popen.wait beside
            # that thread's own wait polls, 0.5, 1, 2, 4 ms apart).
            if not self._ended.wait(KILL_GRACE_S):
                proc.kill()
                self._ended.wait(KILL_GRACE_S)
        if self._thread is not None:
            self._thread.join(KILL_GRACE_S)
            self._thread = None
        if self._status_r >= 0:
            os.close(self._status_r)
            self._status_r = -1
        if self.cg is not None:
            self.cg.destroy()
            self.cg = None
