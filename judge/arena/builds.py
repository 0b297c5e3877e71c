"""A zipped bot folder's build step, run the way ``judge match`` runs it, but confined.

``judge match`` builds a bot folder on the organiser's own machine with the
bot's ``build:`` command (:func:`judge.bots.resolve_bot`): fine for a bot the
organiser chose, not for one any team uploads.  Here the very same code runs in a
child process that, as root, has

* a mount namespace of its own, where the folders anyone may write (``/tmp``,
  ``/var/tmp``, ``/dev/shm``, ``/run/lock``) are read-only: it writes only the bot's
  folder and a temporary folder of its own beside it (``TMPDIR``), removed after;
* a network namespace of its own, with no interface up (no network at all);
* the uid and gid ``nobody``, no other groups: it can write only the bot's own
  folder (given to that uid for the build, taken back after), and read nothing
  the arena keeps private (the store's files and folders are root's, 0600/0700);
* limits on its CPU time, memory, file size and processes, and a wall-clock
  timeout (``uploads: build_timeout_s``) after which its whole group is killed.

As a normal user (no namespaces to make) the build runs as that user with the
limits and the timeout only, and its log says so.  The arena reads the bot's
``bot.yaml`` itself (:func:`judge.bots.resolve_bot`): only the build command runs
confined, so nothing of the judge runs as ``nobody`` and the judge's own files need
not be readable by it (a judge installed under ``/root`` or a private folder).
"""

from __future__ import annotations

import os
import pwd
import secrets
import shlex
import shutil
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess

from judge.bots import BotError, resolve_bot

#: The uid the build runs as (root only).
BUILD_USER = "nobody"
#: The machine's folders anyone may write: read-only for the build.
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
MEMORY_BYTES = 2 << 30
FILE_BYTES = 256 << 20
PROCESSES = 256


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    message: str  # why not, or how it was confined


def _nobody() -> tuple[int, int] | None:
    try:
        pw = pwd.getpwnam(BUILD_USER)
    except KeyError:
        return None
    return pw.pw_uid, pw.pw_gid


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(folder):
        os.chown(dirpath, uid, gid, follow_symlinks=False)
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), uid, gid, follow_symlinks=False)


_SCRIPT = """set -e
mount --make-rprivate /
for d in %s; do
  [ -d "$d" ] || continue
  mount --bind "$d" "$d"; mount -o remount,bind,ro "$d"
done
mount --bind "$1" "$3"; mount -o remount,bind,rw "$3"
mount --bind "$2" "$4"; mount -o remount,bind,rw "$4"
for d in %s; do
  mount -t tmpfs -o ro,size=4k,mode=0755 hidden "$d"
done
cd "$3"
shift 4
exec "$@"
"""
#: Where the bot's folder is seen during a build (a bind mount in the build's own mount
#: namespace): a path nobody can reach whatever the folders above the arena allow.
ALIAS_ROOT = Path("/run/ocean-judge-arena")


@dataclass(frozen=True)
class _Places:
    """The folders a build works in: as the judge sees them, and as the build does."""

    folder: Path
    tmp: Path
    seen_folder: Path
    seen_tmp: Path


def _confined_argv(
    inner: list[str], uid: int, gid: int, places: _Places, hidden: Sequence[Path]
) -> list[str] | None:
    """``inner`` in new mount and network namespaces, the machine's shared writable folders
    read-only there, the bot's folder and its temporary folder bound where ``uid`` reaches
    them, the ``hidden`` folders covered by an empty one, run as ``uid``."""
    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    if unshare is None or setpriv is None:
        return None
    script = _SCRIPT % (" ".join(PRIVATE_DIRS), " ".join(shlex.quote(str(h)) for h in hidden))
    drop = [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    where = [places.folder, places.tmp, places.seen_folder, places.seen_tmp]
    return [
        unshare,
        "--mount",
        "--net",
        "--",
        "/bin/sh",
        "-c",
        script,
        "build",
        *map(str, where),
        *drop,
        *inner,
    ]


def _alias(folder: Path, tmp: Path) -> _Places:
    ALIAS_ROOT.mkdir(mode=0o755, exist_ok=True)
    os.chmod(ALIAS_ROOT, 0o755)
    _sweep()
    home = ALIAS_ROOT / f"{os.getpid()}-{secrets.token_hex(6)}"
    (home / "bot").mkdir(parents=True)
    (home / "tmp").mkdir()
    os.chmod(home, 0o755)
    return _Places(folder, tmp, home / "bot", home / "tmp")


def _sweep() -> None:
    """Take away the (empty) mount points a killed judge's builds left."""
    for old in ALIAS_ROOT.iterdir():
        pid = old.name.split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(old, ignore_errors=True)


def build(folder: Path, timeout_s: int, hidden: Sequence[Path] = ()) -> BuildResult:
    """Build the bot folder ``folder`` in place (a no-op when its bot.yaml has no build).

    ``hidden``: folders the build must not see (the arena's: the organiser's map for the
    final, the other teams' games), each covered by an empty read-only folder in the
    build's mount namespace, whatever its files' modes (its own folder is bound apart)."""
    tmp = folder.parent / f".build-tmp-{secrets.token_hex(6)}"
    tmp.mkdir(mode=0o700)
    ids = _nobody() if os.geteuid() == 0 else None
    places = _Places(folder, tmp, folder, tmp)
    try:
        if ids is not None:
            places = _alias(folder, tmp)
            _chown_tree(folder, *ids)
            os.chown(tmp, *ids)
        return _run(places, ids, timeout_s, hidden)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if ids is not None:
            _chown_tree(folder, 0, 0)
        if places.seen_folder != folder:
            shutil.rmtree(places.seen_folder.parent, ignore_errors=True)


def _run(
    places: _Places, ids: tuple[int, int] | None, timeout_s: int, hidden: Sequence[Path]
) -> BuildResult:
    """Resolve the bot folder here, with only its build command run as the build runs."""
    confined = ids is not None and bool(shutil.which("unshare") and shutil.which("setpriv"))
    how = (
        "confined: no network, only its own folder writable, as nobody"
        if confined
        else "not confined (the arena does not run as root): limits and a timeout only"
    )

    def runner(argv: list[str], _folder: Path, _judge_s: float) -> CompletedProcess[bytes]:
        limited = _limited(argv, timeout_s, confined)
        wrapped = _confined_argv(limited, *ids, places, hidden) if confined and ids else None
        return _run_build(wrapped or limited, places, timeout_s)

    try:
        resolve_bot(str(places.folder), runner=runner)
    except BotError as exc:
        return BuildResult(False, str(exc).replace(str(places.seen_folder), str(places.folder)))
    return BuildResult(True, how)


def _limited(argv: list[str], cpu_s: int, as_nobody: bool) -> list[str]:
    """``argv`` under the build's limits on CPU time, memory, file size and core dumps,
    and, as ``nobody`` (a uid of its own: the count is per user), on processes."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return argv
    limits = [f"--cpu={cpu_s}", f"--as={MEMORY_BYTES}", f"--fsize={FILE_BYTES}", "--core=0"]
    if as_nobody:
        limits.append(f"--nproc={PROCESSES}")
    return [prlimit, *limits, "--", *argv]


def _run_build(argv: list[str], places: _Places, timeout_s: int) -> CompletedProcess[bytes]:
    """The build command in its own session, killed with everything it started at the
    timeout (subprocess.run would kill only the command itself)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(places.seen_tmp),
        "TMPDIR": str(places.seen_tmp),
        "LANG": "C.UTF-8",
    }
    proc = subprocess.Popen(
        argv,
        cwd=places.folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise subprocess.TimeoutExpired(argv, timeout_s) from None
    return CompletedProcess(argv, proc.returncode, out, err)
