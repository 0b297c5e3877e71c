"""What a team uploads: a 64-bit ``.exe`` or a ``.zip`` of a bot folder; kept by content hash.

An upload is told by its bytes, never by its name: a PE header (``MZ``) must be a
64-bit Windows console program (the contest's format; a 32-bit one, a DLL, a .NET
program are refused saying so), a zip (``PK``) must pass :func:`zip_problem`:
at most ``zip_entries`` entries, at most ``zip_unpacked_mb`` once unpacked (the
sizes its directory declares, which :mod:`zipfile` holds each entry to), no
absolute path, no ``..``, no link, no device or pipe, no two entries of one name,
nothing encrypted, and a bot inside: ``bot.yaml`` at its top (or in its one top
folder), or one ``.exe`` with its ``.dll`` files.

Files are stored under ``store/<aa>/<sha256>/`` with a name the arena chooses
(``bot.exe``, ``bot.zip``, ``source.zip``, ``report.pdf``): written to a
temporary file of the arena folder, fsync'd, then renamed into place, so a
stored file is always whole; the same bytes uploaded twice are stored once.  A
version is then recorded with its check task in one transaction.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from judge.arena import ArenaError
from judge.arena.config import MIB, ArenaConfig, Uploads
from judge.arena.store import Phase, Status, Store, Version, fsync_dir, now_iso
from judge.arena.tasks import CHECK_PRIORITY, enqueue_in
from judge.arena.uploads import UploadedFile
from judge.bots import BOT_FILE
from judge.inputfiles import excerpt
from judge.sandbox.winexe import ExeKind, inspect_bytes

STORE_DIR = "store"
#: The longest path a zip entry may have inside the bot's folder (bytes; a name 255).
NAME_BYTES = 1024
TMP_DIR = "tmp"
#: Suffixes a source archive or a report keeps in the store (anything else is stored bare).
KEPT_SUFFIXES = (
    ".zip", ".7z", ".rar", ".tar", ".tgz", ".gz", ".xz", ".pdf", ".doc", ".docx", ".odt",
    ".txt", ".md", ".ppt", ".pptx",
)  # fmt: skip


class UploadRefused(ArenaError):
    """An upload the arena does not take; ``status`` is the HTTP status that says why."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Kind:
    """What an upload is: ``exe`` or ``zip``, or the reason it is neither."""

    kind: str | None
    problem: str | None = None


def classify(path: Path, caps: Uploads) -> Kind:
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] == b"MZ":
        info = inspect_bytes(head)
        if info.kind is ExeKind.WIN64 and info.console:
            return Kind("exe")
        if info.kind is ExeKind.WIN64:
            why = "a 64-bit Windows program, but a GUI one: the contest's bot is a console program"
        elif info.kind is ExeKind.WIN32:
            why = (
                f"{info.detail}: the contest asks for a 64-bit .exe; build it for x86-64 "
                "(MinGW-w64: x86_64-w64-mingw32-g++; in an IDE, a 64-bit target)"
            )
        else:
            why = info.detail
        return Kind(None, f"not a 64-bit Windows program: {why}")
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        problem = zip_problem(path, caps)
        return Kind("zip") if problem is None else Kind(None, f"not a bot .zip: {problem}")
    return Kind(
        None,
        "neither a 64-bit .exe (no Windows program header) nor a bot .zip (no zip header): "
        "upload the .exe the contest asks for, or a .zip of your bot folder with its bot.yaml",
    )


def _member_path(name: str) -> PurePosixPath | str:
    """A zip entry's path inside the folder, or why it may not be unpacked."""
    text = name.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        return f"{name!r} is an absolute path"
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return f"{name!r} leads out of the folder (..)"
    if not parts:
        return f"{name!r} names no file"
    if any(not ch.isprintable() for ch in text):
        return f"{name!r} holds characters that are not printable"
    if len(text.encode("utf-8")) > NAME_BYTES or any(len(p.encode("utf-8")) > 255 for p in parts):
        return f"{excerpt(name)} is a name longer than a file system takes"
    return PurePosixPath(*parts)


def _mode_problem(info: zipfile.ZipInfo) -> str | None:
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind == 0 or stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        # no file type recorded (no Unix modes at all, or permissions alone, as Python's
        # ZipFile.writestr writes them): unpacked as a plain file, like any other
        return None
    if stat.S_ISLNK(mode):
        return f"{info.filename!r} is a link"
    return f"{info.filename!r} is a device, a pipe or a socket"


def members(zf: zipfile.ZipFile, caps: Uploads) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """Every entry with its path, checked (ArenaError naming the first that is refused)."""
    infos = zf.infolist()
    if len(infos) > caps.zip_entries:
        raise ArenaError(f"it has {len(infos)} entries; at most {caps.zip_entries}")
    total, seen, out = 0, set(), []
    for info in infos:
        where = _member_path(info.filename)
        if isinstance(where, str):
            raise ArenaError(where)
        why = _mode_problem(info)
        if why is not None:
            raise ArenaError(why)
        if info.flag_bits & 0x1:
            raise ArenaError(f"{info.filename!r} is encrypted")
        if info.compress_type not in _METHODS:
            raise ArenaError(
                f"{info.filename!r} is compressed in a way this judge cannot unpack (method "
                f"{info.compress_type}): zip the folder again with the usual method (deflate)"
            )
        key = where.as_posix().casefold()
        if key in seen:
            raise ArenaError(f"{info.filename!r} is in it twice")
        seen.add(key)
        total += info.file_size
        if total > caps.zip_unpacked_mb * MIB:
            raise ArenaError(
                f"it unpacks to more than {caps.zip_unpacked_mb} MiB (a zip bomb, or far more "
                "than a bot needs)"
            )
        out.append((info, where))
    _file_and_folder(out)
    return out


#: The compression methods :mod:`zipfile` unpacks.
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _file_and_folder(found: list[tuple[zipfile.ZipInfo, PurePosixPath]]) -> None:
    """ArenaError when one name is a file and also the folder of another entry: it could be
    unpacked only by dropping one of them."""
    files = {where.as_posix().casefold(): i.filename for i, where in found if not i.is_dir()}
    for _, where in found:
        for parent in list(where.parents)[:-1]:
            name = files.get(parent.as_posix().casefold())
            if name is not None:
                raise ArenaError(f"{name!r} is a file, and a folder of other entries too")


def bot_root(paths: list[PurePosixPath]) -> PurePosixPath | None:
    """Where the bot is in the zip: its top, or its one top folder (None: no bot found)."""
    files = set(paths)
    tops = {p.parts[0] for p in paths}
    candidates = [PurePosixPath()]
    if len(tops) == 1:
        candidates.append(PurePosixPath(next(iter(tops))))
    for root in candidates:
        if root / BOT_FILE in files:
            return root
        exes = [p for p in files if p.parent == root and p.suffix.lower() == ".exe"]
        if len(exes) == 1:
            return root
    return None


def zip_problem(path: Path, caps: Uploads) -> str | None:
    try:
        with zipfile.ZipFile(path) as zf:
            found = members(zf, caps)
    except ArenaError as exc:
        return str(exc)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        return f"it cannot be read as a zip ({exc})"
    files = [where for info, where in found if not info.is_dir()]
    if bot_root(files) is None:
        return (
            f"no bot in it: a bot .zip holds a bot folder with its {BOT_FILE} at the top (or "
            "in its one folder), or one .exe with its .dll files"
        )
    return None


def unpack(zip_path: Path, dest: Path, caps: Uploads) -> None:
    """The bot of a checked zip into ``dest`` (made here, inside the store), its top folder
    stripped; each file written with at most the size its entry declares."""
    with zipfile.ZipFile(zip_path) as zf:
        found = members(zf, caps)
        files = [where for info, where in found if not info.is_dir()]
        root = bot_root(files)
        if root is None:
            raise ArenaError("no bot in the zip")
        dest.mkdir(parents=True)
        for info, where in found:
            if info.is_dir() or not _inside(where, root):
                continue
            rel = where.relative_to(root)
            target = dest.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            mode = info.external_attr >> 16
            with zf.open(info) as src, open(target, "xb") as out:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
            os.chmod(target, 0o755 if mode & 0o111 else 0o644)


def _inside(path: PurePosixPath, root: PurePosixPath) -> bool:
    return root == PurePosixPath() or path.parts[: len(root.parts)] == root.parts


# ---------------------------------------------------------------------- storing
def store_folder(root: Path, sha256: str) -> Path:
    return root / STORE_DIR / sha256[:2] / sha256


def stored_name(role: str, kind: str | None, original: str) -> str:
    if role == "bot":
        return f"bot.{kind}"
    suffix = Path(original).suffix.lower()
    return role + (suffix if suffix in KEPT_SUFFIXES else "")


def keep(root: Path, upload: UploadedFile, name: str) -> str:
    """Move an uploaded temporary file into the store under its hash; its path there."""
    folder = store_folder(root, upload.sha256)
    target = folder / name
    if target.is_file() and target.stat().st_size == upload.size:
        upload.discard()  # the same bytes are there already
    else:
        # traversable, not listable: a build (as nobody) reaches its own folder by its hash,
        # and sees no other team's files
        for f in (folder.parent, folder):
            f.mkdir(mode=0o711, exist_ok=True)
            os.chmod(f, 0o711)
        os.chmod(upload.path, 0o600)
        os.replace(upload.path, target)
        fsync_dir(folder)
    return target.relative_to(root).as_posix()


# --------------------------------------------------------------------- versions
def uploads_closed(store: Store, config: ArenaConfig) -> str | None:
    """Why no upload is taken now (None: they are)."""
    phase = store.phase
    if phase is not Phase.OPEN:
        return f"the arena is closed for uploads (it is {phase.value})"
    if config.closed_by_deadline():
        assert config.deadline is not None
        return f"the arena is closed for uploads: the deadline ({config.deadline.isoformat()}) has passed"
    return None


def busy(conn: sqlite3.Connection | Store, team_id: int, config: ArenaConfig) -> str | None:
    """Why the team may not upload right now (a version waiting, too many this hour)."""

    def read(sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        if isinstance(conn, Store):
            return conn.rows(sql, params)
        return list(conn.execute(sql, params).fetchall())

    waiting = read(
        "SELECT number FROM versions WHERE team_id = ? AND status IN ('queued', 'checking')",
        (team_id,),
    )
    if waiting:
        return (
            f"version {waiting[0][0]} is still being checked: wait for its verdict before "
            "uploading another"
        )
    per_hour = config.rate_limits.uploads_per_hour
    recent = read(
        "SELECT uploaded_ts FROM versions WHERE team_id = ? AND uploaded_ts > ? "
        "ORDER BY uploaded_ts",
        (team_id, time.time() - 3600),
    )
    if len(recent) >= per_hour:
        wait = float(recent[0][0]) + 3600 - time.time()
        return f"too many uploads: at most {per_hour} an hour; the next one in {max(1, int(wait) + 1)} s"
    return None


@dataclass(frozen=True)
class Stored:
    """An upload's files, stored: the bot's path and kind, the optional source and report."""

    bot: UploadedFile
    bot_path: str
    kind: str
    source: tuple[str, str] | None = None  # (stored path, original name)
    report: tuple[str, str] | None = None


def record(store: Store, team_id: int, stored: Stored, config: ArenaConfig) -> Version:
    """The new version and its check, in one transaction (UploadRefused if the team
    became busy meanwhile: nothing recorded)."""

    def write(conn: sqlite3.Connection) -> int:
        phase = conn.execute("SELECT value FROM meta WHERE key = 'phase'").fetchone()
        if phase is not None and phase[0] != Phase.OPEN.value:
            raise UploadRefused(f"the arena is closed for uploads (it is {phase[0]})", 403)
        why = busy(conn, team_id, config)
        if why is not None:
            raise UploadRefused(why, 429)
        number = conn.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE team_id = ?", (team_id,)
        ).fetchone()[0]
        cur = conn.execute(
            "INSERT INTO versions(team_id, number, sha256, size, uploaded_at, uploaded_ts, "
            "original_name, kind, status, path, source_path, source_name, report_path, "
            "report_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                team_id,
                number,
                stored.bot.sha256,
                stored.bot.size,
                now_iso(),
                time.time(),
                stored.bot.filename,
                stored.kind,
                Status.QUEUED.value,
                stored.bot_path,
                stored.source[0] if stored.source else None,
                stored.source[1] if stored.source else None,
                stored.report[0] if stored.report else None,
                stored.report[1] if stored.report else None,
            ),
        )
        version_id = int(cur.lastrowid or 0)
        enqueue_in(conn, "check", {"version": version_id}, CHECK_PRIORITY)
        return version_id

    version_id = store.write(write)
    version = store.version(version_id)
    assert version is not None
    return version


def set_status(
    conn: sqlite3.Connection, version_id: int, status: Status, reason: str = "", log: str = ""
) -> None:
    checked = now_iso() if status.final else None
    conn.execute(
        "UPDATE versions SET status = ?, reason = ?, log = ?, checked_at = ? WHERE id = ?",
        (status.value, reason, log, checked, version_id),
    )
