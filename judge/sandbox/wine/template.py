"""The wine prefix template: built once per machine with ``wineboot``, cached, locked, pruned.

Its folders for documents and temporary files point to ``/tmp`` (the seat's
private, per-run emptied /tmp), nothing in it is writable by a seat, its registry
is trimmed of what a console program never reads, and the wineserver binary is
copied next to it execute-only (a process running a file it cannot read is not
dumpable: a bot sharing its server's uid cannot ptrace it).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import secrets
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass

from judge.sandbox.folders import remove_tree
from judge.sandbox.procfs import pid_alive
from judge.sandbox.types import SandboxError
from judge.sandbox.wine.install import WineInstall

ROOT_CACHE = "/var/cache/ocean-judge/wine"

#: Bumped whenever the template is made differently (new cache key).
RECIPE = "3"

USER_NAME = "bot"

#: The profile folders a program might write to: all lead to the seat's /tmp.
SCRATCH_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", "Temp")

#: wineboot is run for the template only; at run time it, the crash debugger
#: (which would print a dump and linger) and the desktop menu builder are off.
BUILD_OVERRIDES = "winemenubuilder.exe,mscoree,mshtml=d"

BUILD_TIMEOUT_S = 300.0

#: A template of another wine build or recipe is removed (before a build) once no
#: judge has used it for this long.
PRUNE_AFTER_S = 86400.0

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
        prune(root)
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


def prune(root: str, now: float | None = None) -> None:
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


def mark_used(final: str) -> None:
    """The template's folder's time is the last time a seat was made from it (for
    :func:`prune`): marked at each seat, so a judge running for days keeps it too."""
    try:
        os.utime(final)
    except OSError:  # a normal user on root's template: root's judges mark it
        pass
