"""An upload's body, streamed into files of the arena folder under caps, hashed as it comes.

Why not Starlette's ``request.form()``: it caps only the form's text fields, and
spools the files, whatever their size, to the system's temporary folder.  Here
each file part goes straight to a temporary file of ``DIR/tmp`` (fsync'd when
complete), its SHA-256 and size counted as it is written, and the request is cut
the moment a part passes its cap, a text field passes :data:`FIELD_BYTES`, or the
parts are too many: a body that lies about its length, or gives none, is cut at
the cap all the same (the cap counts the bytes that arrive, never a header).
The file name a client gives is kept as text only; the files are named here.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from python_multipart.multipart import MultipartParser, parse_options_header

from judge.arena import ArenaError

#: The longest text field (the CSRF token and the like).
FIELD_BYTES = 4096
#: The most parts a form may have.
MAX_PARTS = 16
#: The longest file name kept (characters).
NAME_CHARS = 200


class BodyTooLarge(ArenaError):
    """The request's body (or one of its files) went over its cap; the message says which."""


class BadForm(ArenaError):
    """Not a form this arena reads (not multipart, a part without a name, too many parts)."""


@dataclass
class UploadedFile:
    """One file of the form, in ``path`` (a temporary file of the arena until stored)."""

    field: str
    filename: str  # as the client named it: text only
    path: Path
    size: int
    sha256: str

    def discard(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, UploadedFile] = field(default_factory=dict)

    def discard(self) -> None:
        for f in self.files.values():
            f.discard()


def _clean_name(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    text = text.replace("\\", "/").rsplit("/", 1)[-1]  # a browser's C:\fakepath\x.exe
    text = "".join(ch for ch in text if ch.isprintable())
    return text[:NAME_CHARS]


class _Parts:
    """The parser's callbacks: one part at a time, into a field or a file."""

    def __init__(self, tmp_dir: Path, file_caps: dict[str, int]):
        self.tmp_dir, self.file_caps = tmp_dir, file_caps
        self.form = Form()
        self.parts = 0
        self._header_field = b""
        self._header_value = b""
        self._headers: dict[bytes, bytes] = {}
        self._name = ""
        self._filename: str | None = None
        self._text = bytearray()
        self._file: IO[bytes] | None = None
        self._path: Path | None = None
        self._size = 0
        self._hash = hashlib.sha256()

    def callbacks(self) -> dict[str, object]:
        return {
            "on_part_begin": self.part_begin,
            "on_header_field": self.header_field,
            "on_header_value": self.header_value,
            "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished,
            "on_part_data": self.part_data,
            "on_part_end": self.part_end,
        }

    def part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise BadForm(f"a form of at most {MAX_PARTS} parts")
        self._headers = {}
        self._text = bytearray()

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_field += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def header_end(self) -> None:
        self._headers[self._header_field.lower()] = self._header_value
        self._header_field, self._header_value = b"", b""

    def headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        name = options.get(b"name")
        if name is None:
            raise BadForm("a part of the form has no name")
        self._name = name.decode("utf-8", "replace")
        raw = options.get(b"filename")
        self._filename = None if raw is None else _clean_name(raw)
        if self._filename is not None:
            if self._name not in self.file_caps:
                raise BadForm(
                    f"no file is expected in field {self._name!r} (files: "
                    f"{', '.join(self.file_caps)})"
                )
            if self._name in self.form.files:
                raise BadForm(f"field {self._name!r} holds one file")
            self._path = self.tmp_dir / f"upload-{secrets.token_hex(12)}"
            self._file = open(self._path, "xb")  # noqa: SIM115 - closed in part_end or discard
            self._size, self._hash = 0, hashlib.sha256()

    def part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self._file is None:
            self._text += chunk
            if len(self._text) > FIELD_BYTES:
                raise BodyTooLarge(f"the form's field {self._name!r} is too long")
            return
        self._size += len(chunk)
        cap = self.file_caps[self._name]
        if self._size > cap:
            raise BodyTooLarge(
                f"the {self._name} file is larger than its cap of {cap // 2**20} MiB"
            )
        self._hash.update(chunk)
        self._file.write(chunk)

    def part_end(self) -> None:
        if self._file is None:
            self.form.fields[self._name] = self._text.decode("utf-8", "replace")
            return
        assert self._path is not None and self._filename is not None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None
        if self._size == 0 and not self._filename:
            self._path.unlink()  # a file input left empty by the browser
            return
        self.form.files[self._name] = UploadedFile(
            self._name, self._filename, self._path, self._size, self._hash.hexdigest()
        )

    def abandon(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._path is not None and self._path.exists() and self._name not in self.form.files:
            self._path.unlink()
        self.form.discard()


async def read_form(
    chunks: AsyncIterator[bytes], content_type: str, tmp_dir: Path, file_caps: dict[str, int]
) -> Form:
    """The multipart form of the body ``chunks``: its text fields, and its files written
    to ``tmp_dir`` (each under its field's cap in ``file_caps``).  Raises BodyTooLarge or
    BadForm, having removed what it wrote."""
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise BadForm("send the files as multipart/form-data")
    tmp_dir.mkdir(parents=True, exist_ok=True)
    parts = _Parts(tmp_dir, file_caps)
    parser = MultipartParser(boundary, parts.callbacks())  # type: ignore[arg-type]
    try:
        async for chunk in chunks:
            if chunk:
                parser.write(chunk)
        parser.finalize()
    except (BodyTooLarge, BadForm):
        parts.abandon()
        raise
    except BaseException as exc:
        parts.abandon()
        from python_multipart.exceptions import MultipartParseError

        if isinstance(exc, MultipartParseError):
            raise BadForm(f"the form cannot be read: {exc}") from None
        raise
    if parts._file is not None:  # the body ended inside a file part
        parts.abandon()
        raise BadForm("the form ends in the middle of a file")
    return parts.form
