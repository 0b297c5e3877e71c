"""A zipped bot folder's build step, run the way ``judge match`` runs it, but confined.

``judge match`` builds a bot folder on the organiser's own machine with the
bot's ``build:`` command (:func:`judge.bots.resolve_bot`): fine for a bot the
organiser chose, not for one any team uploads.  Here the very same code runs in a
child process that, as root, has

* a mount namespace of its own, where the folders anyone may write (``/tmp``,
  ``/var/tmp``, ``/dev/shm``, ``/run/lock``) are read-only: it writes only the bot's
  folder and a temporary folder of its own beside it (``TMPDIR``), removed after;
* a network namespace of its own, with no interface up (no network at all);
* the arena folder covered by an empty folder there: the build sees no other team's
  files nor the organiser's (the map for the final), even those anyone may read;
* the uid and gid ``nobody``, no other groups: it can write only the bot's own
  folder (given to that uid for the build, taken back after), and read nothing
  the arena keeps private (the store's files and folders are root's, 0600/0700);
* limits on its CPU time, memory, file size and processes, and a wall-clock
  timeout (``uploads: build_timeout_s``) after which its whole group is killed.

As a normal user (no namespaces to make) the build runs as that user with the
limits and the timeout only, and its log says so.  The parent process never runs
the build itself: it reads the built folder with ``build=False``.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The uid the build runs as (root only).
BUILD_USER = "nobody"
#: The machine's folders anyone may write: read-only for the build.
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
MEMORY_BYTES = 2 << 30
FILE_BYTES = 256 << 20
PROCESSES = 256

_CHILD = r"""
import json, resource, sys
cpu = int(sys.argv[2])
for what, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, int(sys.argv[3])),
                    (resource.RLIMIT_FSIZE, int(sys.argv[4])), (resource.RLIMIT_CORE, 0)):
    resource.setrlimit(what, (value, value))
from judge.bots import BotError, resolve_bot
try:
    resolve_bot(sys.argv[1])
except BotError as exc:
    print(json.dumps({"ok": False, "error": str(exc)}))
    sys.exit(0)
print(json.dumps({"ok": True}))
"""


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
    inner = [
        sys.executable,
        "-c",
        _CHILD,
        str(places.seen_folder),
        str(timeout_s),
        str(MEMORY_BYTES),
        str(FILE_BYTES),
    ]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(places.seen_tmp),
        "TMPDIR": str(places.seen_tmp),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    argv = _confined_argv(inner, *ids, places, hidden) if ids is not None else None
    how = "confined: no network, only its own folder writable, as nobody"
    if argv is None:
        argv, how = (
            inner,
            "not confined (the arena does not run as root): limits and a timeout only",
        )
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
        out, err = proc.communicate(timeout=timeout_s + 10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return BuildResult(False, f"the build took over {timeout_s} s")
    seen = str(places.seen_folder)
    lines = [ln for ln in out.decode("utf-8", "replace").splitlines() if ln.startswith("{")]
    try:
        answer = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = err.decode("utf-8", "replace")[-1500:].replace(seen, str(places.folder))
        return BuildResult(
            False, f"the build stopped without a word (exit {proc.returncode}): {tail}"
        )
    if not answer.get("ok"):
        return BuildResult(
            False, str(answer.get("error", "the build failed")).replace(seen, str(places.folder))
        )
    return BuildResult(True, how)
