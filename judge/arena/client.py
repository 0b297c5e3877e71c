"""The arena's API from the command line (``judge submit``): upload a version, wait for its verdict.

Standard library only (``urllib``), so ``judge submit`` needs no extra.  The token
goes in ``Authorization: Bearer``; the files as ``multipart/form-data`` fields
``bot``, ``source`` and ``report``, as the API names them (docs/arena.md).
"""

from __future__ import annotations

import json
import secrets
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.arena import ArenaError

#: Seconds between two looks at a version being checked.
POLL_S = 1.0


class Refused(ArenaError):
    """The arena did not take the upload (or could not be reached); the message says why."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


#: What a refusal's HTTP status means, in words put before the server's own.
STATUS_WORDS = {
    400: "refused",
    401: "not logged in",
    403: "the arena is closed for uploads",
    404: "not found",
    413: "too large",
    429: "too many uploads",
}


@dataclass
class Client:
    url: str
    token: str
    cafile: Path | None = None
    timeout_s: float = 120.0

    def _context(self) -> ssl.SSLContext | None:
        if not self.url.startswith("https:"):
            return None
        return ssl.create_default_context(cafile=str(self.cafile) if self.cafile else None)

    def _request(self, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        req = urllib.request.Request(
            self.url.rstrip("/") + path, data=body, method="POST" if body is not None else "GET"
        )
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if content_type:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(
                req, timeout=self.timeout_s, context=self._context()
            ) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            try:
                said = json.loads(exc.read().decode("utf-8")).get("error", "")
            except (ValueError, AttributeError, OSError):
                said = exc.reason
            words = STATUS_WORDS.get(exc.code, f"HTTP {exc.code}")
            if said and not str(said).startswith(words):
                said = f"{words}: {said}"
            raise Refused(str(said or words), exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if body is not None and isinstance(reason, (ConnectionResetError, BrokenPipeError)):
                raise Refused(
                    f"too large: the arena at {self.url} cut the upload off while it was being "
                    f"sent ({reason}): the files are most likely over its caps"
                ) from None
            raise Refused(f"cannot reach the arena at {self.url}: {reason}") from None
        except ValueError as exc:
            raise Refused(
                f"the arena at {self.url} answered something that is not JSON ({exc})"
            ) from None

    def upload(self, bot: Path, source: Path | None = None, report: Path | None = None) -> Any:
        fields = [("bot", bot), ("source", source), ("report", report)]
        body, kind = multipart([(name, p) for name, p in fields if p is not None])
        return self._request("/api/submissions", body, kind)

    def version(self, version_id: int) -> Any:
        return self._request(f"/api/submissions/{version_id}")

    def wait(
        self, version_id: int, wait_s: float, on_status: Callable[[str], None] = lambda s: None
    ) -> Any:
        """The version once it has its verdict (None when ``wait_s`` passed before).

        The upload is in the arena's store: an arena that cannot be reached for a while
        (restarted) is asked again until the wait is over, and the check goes on there."""
        deadline, last = time.monotonic() + wait_s, ""
        while True:
            try:
                v = self.version(version_id)
            except Refused as exc:
                if exc.status is not None or time.monotonic() > deadline:
                    raise
                if last != "unreachable":
                    last = "unreachable"
                    on_status(f"{exc}; asking again")
                time.sleep(POLL_S)
                continue
            if v.get("status") != last:
                last = str(v.get("status"))
                on_status(last)
            if last in ("accepted", "rejected"):
                return v
            if time.monotonic() > deadline:
                return None
            time.sleep(POLL_S)


def multipart(files: list[tuple[str, Path]]) -> tuple[bytes, str]:
    """A multipart/form-data body of these files (field, path) and its Content-Type."""
    boundary = "judge-" + secrets.token_hex(16)
    out = bytearray()
    for name, path in files:
        shown = path.name.replace('"', "_").replace("\r", "_").replace("\n", "_")
        out += f"--{boundary}\r\n".encode()
        out += f'Content-Disposition: form-data; name="{name}"; filename="{shown}"\r\n'.encode()
        out += b"Content-Type: application/octet-stream\r\n\r\n"
        out += path.read_bytes()
        out += b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"
