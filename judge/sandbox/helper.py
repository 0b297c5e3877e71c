"""Finding the exec helper: the C wrapper compiled once and cached, else a Python fallback.

Why compile at run time: the wrapper must match this machine's kernel headers
and libc, and shipping binaries is not possible here.  It is built with the
system ``cc`` into a cache folder that only the judge's own uid can write
(as root: ``/var/cache/ocean-judge``), keyed by a hash of its source, and
checked before each use so nobody else can have swapped it.

Without a compiler, ``pyhelper.py`` does the same job run by the judge's own
Python (about 20 ms slower per run, and without the once-per-seat filesystem
view, which needs the C holder); the isolation report says so.
"""

from __future__ import annotations

import enum
import hashlib
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from judge.sandbox.types import SandboxError

PROTOCOL = "ocean-judge-sandbox-helper 1"
SOURCE = Path(__file__).with_name("wrapper.c")
PY_HELPER = Path(__file__).with_name("pyhelper.py")
ROOT_CACHE = "/var/cache/ocean-judge"
COMPILE_TIMEOUT_S = 120


class HelperKind(str, enum.Enum):
    """Which exec helper runs the programs."""

    C = "c"  #: wrapper.c, compiled on this machine: every mechanism
    PYTHON = "python"  #: pyhelper.py, the fallback without a compiler


@dataclass(frozen=True)
class Helper:
    """How to start the exec helper."""

    kind: HelperKind
    argv: tuple[str, ...]  #: prefix; the mode ("run", "holder", ...) follows
    detail: str  #: for the isolation report

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", HelperKind(self.kind))  # "c" given: the same

    @property
    def can_hold(self) -> bool:
        """Only the C helper can build a seat's namespaces once (holder mode)."""
        return self.kind is HelperKind.C


class HelperProcess:
    """One run's helper process as the judge holds it: its own child, started one-shot
    (``supervise``) or made by the seat's zygote (``zygote``).  Both are signalled by
    pid and polled without being reaped, here; how each is waited for, reaped and
    closed is its own."""

    pid: int

    @property
    def done(self) -> bool:
        """Reaped already: its pid may be another process's now."""
        raise NotImplementedError

    def signal(self, sig: int) -> None:
        """Send ``sig``, unless it is reaped or gone."""
        if self.done:
            return
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def exited(self) -> bool:
        """Whether it has ended (left unreaped, so its pid stays its own)."""
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True


def _find_cc() -> str | None:
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    for path in ("/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"):
        if os.access(path, os.X_OK):
            return path
    return None


def _safe(path: str, want_dir: bool) -> bool:
    """Owned by us and writable by nobody else: nobody can swap the helper."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    kind_ok = stat.S_ISDIR(st.st_mode) if want_dir else stat.S_ISREG(st.st_mode)
    return kind_ok and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _cache_dirs(explicit: str | None) -> list[str]:
    if explicit:
        return [explicit]
    if os.geteuid() == 0:
        return [ROOT_CACHE]
    dirs = []
    home = os.path.expanduser("~")
    if home and home != "~" and os.path.isdir(home) and os.access(home, os.W_OK):
        dirs.append(os.path.join(home, ".cache", "ocean-judge"))
    return dirs


def _prepare_dir(path: str) -> bool:
    try:
        os.makedirs(path, mode=0o755, exist_ok=True)
    except OSError:
        return False
    return _safe(path, want_dir=True)


def _works(path: str) -> bool:
    try:
        out = subprocess.run([path, "version"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.decode(errors="replace").strip() == PROTOCOL


def compile_wrapper(
    cache_dir: str | None = None, scratch: str | None = None
) -> tuple[str | None, str]:
    """Build (or reuse) the C wrapper.  Returns (path or None, explanation)."""
    if not SOURCE.is_file():
        return None, f"{SOURCE} is missing from the installed package"
    cc = _find_cc()
    if cc is None:
        return None, "no C compiler (cc, gcc or clang) found"
    source = SOURCE.read_bytes()
    key = hashlib.sha256(
        source + cc.encode() + platform.machine().encode() + b"static-first"
    ).hexdigest()[:16]
    candidates = _cache_dirs(cache_dir)
    if scratch:
        candidates.append(scratch)
    last_error = "no usable cache folder"
    for d in candidates:
        if not _prepare_dir(d):
            last_error = f"cache folder {d} is missing, not ours, or writable by others"
            continue
        target = os.path.join(d, f"wrapper-{key}")
        if _safe(target, want_dir=False) and _works(target):
            return target, f"C helper {target}"
        fd, tmp = tempfile.mkstemp(prefix=".wrapper-", dir=d)
        os.close(fd)
        try:
            # Static if the libc allows it: no dynamic loader at each exec (~0.1 ms a run).
            for extra in (["-static"], []):
                proc = subprocess.run(
                    [cc, "-O2", "-Wall", "-Wno-format-truncation", *extra, "-o", tmp, str(SOURCE)],
                    capture_output=True,
                    timeout=COMPILE_TIMEOUT_S,
                    check=False,
                    stdin=subprocess.DEVNULL,
                )
                if proc.returncode == 0:
                    break
            if proc.returncode != 0:
                last_error = (
                    f"{cc} failed to build {SOURCE.name}: "
                    f"{proc.stderr.decode(errors='replace').strip()[-500:]}"
                )
                continue
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
        except (OSError, subprocess.TimeoutExpired) as exc:
            last_error = f"building the C helper failed: {exc}"
            continue
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if _works(target):
            return target, f"C helper {target} (built with {cc})"
        last_error = f"the C helper built at {target} does not run"
    return None, last_error


def find_helper(
    prefer: str = "auto", cache_dir: str | None = None, scratch: str | None = None
) -> Helper:
    """The helper to use: ``prefer`` is "auto" (C if it can be built), "c" or "python"."""
    if prefer not in ("auto", "c", "python"):
        raise ValueError(f"helper preference must be auto, c or python, not {prefer!r}")
    why = "Python fallback requested"
    if prefer in ("auto", "c"):
        path, why = compile_wrapper(cache_dir, scratch)
        if path is not None:
            return Helper(HelperKind.C, (path,), why)
        if prefer == "c":
            raise SandboxError(f"the C exec helper is not available: {why}")
    if not PY_HELPER.is_file():
        raise SandboxError(f"no exec helper: {why}, and {PY_HELPER} is missing")
    return Helper(
        HelperKind.PYTHON,
        (sys.executable, "-I", "-S", str(PY_HELPER)),
        f"Python fallback helper ({why}; about 20 ms slower per run)",
    )
