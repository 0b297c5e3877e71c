"""A bot as content-addressed data: its files and their hash, and the bot again on a worker.

No shared filesystem is assumed between the judge and the machines that play
its rounds, so a bot travels as a :class:`Bundle`: the files of its folder in
one gzip'd tar, named by :func:`judge.programs.tree_hash` of those files.  Two
bots with the same files are one bundle, and a worker that already holds a
hash never receives it again.

What is shipped is the bot's *source*: a bot with a ``build:`` step is shipped
without its build output, and built on each worker, once per bundle hash
(:func:`prepare`), because the judge's machine may have no compiler (or a
different one) and a binary built there may not run on the worker.  A build
that fails on the worker is that bot's failure (a :class:`~judge.bots.BotError`
naming it), never the judge's.

This module is plain standard library: it is used on both sides and imports
nothing of Dask.
"""

from __future__ import annotations

import dataclasses
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from judge import programs
from judge.bots import BOT_FILE, BotError, BotSpec, build_output, resolve_bot

#: A bot folder larger than this is refused: each worker gets a copy of it.
MAX_BUNDLE_BYTES = 64 * 2**20


@dataclass(frozen=True)
class BotRef:
    """A bot as a worker needs it, besides its files: plain data, small, sent with every round."""

    spec: BotSpec  # as the judge resolved it (its paths are the judge machine's)
    bundle: str | None  # the hash of its files; None = a system program, nothing to ship


@dataclass(frozen=True)
class Bundle:
    """A bot's files as one gzip'd tar, named by their hash."""

    digest: str
    data: bytes
    files: int


def pack_folder(folder: Path, skip: list[str] | None = None) -> tuple[bytes, int]:
    """A folder's files (caches and ``skip`` left out) as a gzip'd tar, and how many files."""
    buf = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=6) as tar:
        for path in programs.files_of(folder, skip or ()):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(folder).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.isfile():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
            count += 1
            if buf.tell() > MAX_BUNDLE_BYTES:
                raise ValueError(f"{folder} is over {MAX_BUNDLE_BYTES // 2**20} MiB")
    return buf.getvalue(), count


def unpack_folder(data: bytes, into: Path) -> None:
    """Extract a :func:`pack_folder` archive into ``into``, refusing members that would escape it.

    An archive is data from elsewhere (a bot author's files, a worker's
    round): absolute paths, ``..``, links pointing out and device files are
    refused (:class:`tarfile.TarError`).
    """
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()
        for member in members:
            _check_member(member, into)
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+
            tar.extractall(into, members, filter="data")
        else:  # the members were checked above
            tar.extractall(into, members)


def make_bundle(bot: BotSpec) -> tuple[BotRef, Bundle | None]:
    """The bot's reference and its bundle (None for a system program with no folder)."""
    folder = bot.program_dir
    if folder is None:
        return BotRef(bot, None), None
    skip = [out] if (out := build_output(folder)) else []
    digest = programs.tree_hash(folder, skip)
    try:
        data, count = pack_folder(folder, skip)
    except OSError as exc:
        raise BotError(f"bot {bot.source!r}: cannot read its files in {folder}: {exc}") from None
    except ValueError as exc:
        raise BotError(
            f"bot {bot.source!r}: {exc}; every worker gets a copy of the bot's folder, so keep "
            "only the program's files there"
        ) from None
    return BotRef(bot, digest), Bundle(digest, data, count)


def unpack(bundle_data: bytes, digest: str, root: Path) -> Path:
    """The bundle's files in ``root/bundle-<hash>`` (unpacked once: a finished folder is kept)."""
    final = root / f"bundle-{digest[:32]}"
    if final.is_dir():
        return final
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=root))
    try:
        unpack_folder(bundle_data, tmp)
        os.chmod(tmp, 0o755)
        os.rename(tmp, final)
    except (OSError, tarfile.TarError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if not final.is_dir():  # else another thread finished first
            raise OSError(f"cannot unpack bundle {digest[:12]}: {exc}") from exc
    return final


def _check_member(member: tarfile.TarInfo, into: Path) -> None:
    name = member.name
    base = into.resolve()
    target = (base / name).resolve()
    if os.path.isabs(name) or ".." in Path(name).parts or not target.is_relative_to(base):
        raise tarfile.TarError(f"member {name!r} would land outside its folder")
    if not (member.isfile() or member.isdir() or member.issym()):
        raise tarfile.TarError(f"member {name!r} is not a regular file, folder or link")
    if member.issym():
        link = (target.parent / member.linkname).resolve()
        if os.path.isabs(member.linkname) or not link.is_relative_to(base):
            raise tarfile.TarError(f"link {name!r} points outside its folder")


def prepare(ref: BotRef, folder: Path | None) -> tuple[BotSpec, bool]:
    """The bot as this machine runs it (from its unpacked files), and whether it was built here.

    ``folder`` is the unpacked bundle (None for a system program).  Raises
    :class:`~judge.bots.BotError` naming the bot when it cannot be run here (a
    failed build, an interpreter this machine lacks, a Windows program without
    wine).
    """
    spec = ref.spec
    if folder is None:
        return spec, False
    if (folder / BOT_FILE).is_file() and build_output(folder) is not None:
        try:
            built = resolve_bot(str(folder), build=True)
        except BotError as exc:
            raise BotError(f"bot {spec.source!r} ({spec.name}): {exc}") from None
        return dataclasses.replace(spec, program_dir=built.program_dir, command=built.command), True
    return dataclasses.replace(spec, program_dir=folder), False
