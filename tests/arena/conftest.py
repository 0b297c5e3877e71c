"""What the arena's tests share: an arena folder, its site in-process, bots as files.

The passwords are hashed with cheap argon2id parameters here (the server's own are
RFC 9106's; a test makes many logins); everything else is as served.
"""

from __future__ import annotations

import io
import json
import re
import socket
import struct
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from argon2 import PasswordHasher

from judge.arena.accounts import Accounts
from judge.arena.folder import Arena, Credential, make_arena, open_arena
from judge.arena.store import Version

ROOT = Path(__file__).resolve().parents[2]
TEAMS = ["Rồng Biển", "Cá Mập", "<img src=x onerror=alert(1)>"]
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def write_teams(path: Path, names: list[str]) -> Path:
    path.write_text("team,members\n" + "".join(f'"{n}",someone\n' for n in names), encoding="utf-8")
    return path


@dataclass
class Made:
    root: Path
    creds: dict[str, Credential]

    def token(self, team: str) -> str:
        return self.creds[team].token

    def password(self, team: str) -> str:
        return self.creds[team].password


def make(
    tmp_path: Path, names: list[str] | None = None, settings: dict[str, Any] | None = None
) -> Made:
    root = tmp_path / "arena"
    creds = make_arena(root, write_teams(tmp_path / "teams.csv", names or TEAMS), hasher=CHEAP)
    if settings:
        configure(root, settings)
    return Made(root, {c.name: c for c in creds})


def configure(root: Path, settings: dict[str, Any]) -> None:
    """Set ``section.key`` (or a top-level key) values in the arena's arena.yaml."""
    path = root / "arena.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key, value in settings.items():
        section, _, name = key.partition(".")
        if name:
            data.setdefault(section, {})[name] = value
        else:
            data[section] = value
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


SMALL = {
    "uploads.bot_mb": 1,
    "uploads.source_mb": 1,
    "uploads.report_mb": 1,
    "uploads.zip_unpacked_mb": 1,
    "rate_limits.uploads_per_hour": 3,
}


@pytest.fixture()
def made(tmp_path: Path) -> Made:
    return make(tmp_path, settings=SMALL)


class Served:
    """An arena opened in this process and its app, for Starlette's TestClient."""

    def __init__(self, made: Made):
        from judge.web.arena import ArenaSite

        self.made = made
        self.arena: Arena = open_arena(made.root)
        self.woken = 0
        self.site = ArenaSite(
            self.arena.root,
            self.arena.store,
            self.arena.config,
            Accounts(self.arena.store, CHEAP),
            self._wake,
        )

    def _wake(self) -> None:
        self.woken += 1

    def client(self, address: str = "testclient") -> Any:
        """A browser at ``address`` (what the server sees as the request's client)."""
        from starlette.testclient import TestClient

        return TestClient(
            self.site.app(),
            base_url="http://arena.test",
            follow_redirects=False,
            client=(address, 50000),
        )

    def login(self, team: str, password: str | None = None) -> Any:
        c = self.client()
        page = c.get("/login")
        csrf = csrf_of(page.text)
        r = c.post(
            "/login",
            data={"team": team, "password": password or self.made.password(team), "csrf": csrf},
        )
        assert r.status_code == 303, r.text
        return c

    def version(self, version_id: int) -> Version:
        v = self.arena.store.version(version_id)
        assert v is not None
        return v

    def close(self) -> None:
        self.arena.close()


@pytest.fixture()
def served(made: Made) -> Iterator[Served]:
    s = Served(made)
    try:
        yield s
    finally:
        s.close()


def csrf_of(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m, page[:500]
    return m.group(1)


def page_data(page: str) -> Any:
    """The JSON a page carries for its script."""
    return json.loads(page.split('id="page-data">', 1)[1].split("</script>", 1)[0])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ------------------------------------------------------------------ bot files
def zip_of(
    files: dict[str, bytes | str], modes: dict[str, int] | None = None, stored: bool = False
) -> bytes:
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            info.external_attr = (modes or {}).get(name, 0o100644) << 16
            zf.writestr(info, data.encode() if isinstance(data, str) else data)
    return out.getvalue()


def python_bot_zip(folder: str = "greedy") -> bytes:
    src = ROOT / "bots" / folder
    return zip_of({f"{folder}/{p.name}": p.read_bytes() for p in src.iterdir() if p.is_file()})


def pe_bytes(machine: int = 0x8664, magic: int = 0x20B, subsystem: int = 3) -> bytes:
    """The headers of a Windows program (enough for the PE check; not a program that runs)."""
    head = bytearray(512)
    head[0:2] = b"MZ"
    struct.pack_into("<I", head, 0x3C, 0x80)
    head[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", head, 0x84, machine, 1, 0, 0, 0, 240, 0x0022)
    struct.pack_into("<H", head, 0x98, magic)
    struct.pack_into("<H", head, 0x98 + 68, subsystem)
    return bytes(head)


class Live:
    """An arena served by uvicorn in a thread of this process, with task slots running
    ``kinds`` (a fake check where the point is the HTTP side)."""

    def __init__(self, made: Made, kinds: list[Any], slots: int = 1):
        import socket
        import threading

        import uvicorn

        from judge.arena.service import Service

        self.served = Served(made)
        a = self.served.arena
        self.service = Service(a.root, a.store, a.config, kinds, slots, poll_s=0.05)
        self.served.site.wake = self.service.wake
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = uvicorn.Config(
            self.served.site.app(),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Live:
        import time

        self.service.start()
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.025)
        assert self.server.started
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.service.close()
        self.served.close()


def fake_check(verdicts: dict[str, tuple[bool, str]]) -> Any:
    """A check kind that gives each version the verdict its file's name asks for."""
    from judge.arena.checks import _restart
    from judge.arena.service import Outcome, TaskKind
    from judge.arena.store import Status
    from judge.arena.submissions import set_status

    def run(task: Any, ctx: Any) -> Outcome:
        v = ctx.store.version(int(task.payload["version"]))
        accepted, reason = verdicts.get(v.original_name, (False, "not in the test's list"))
        status = Status.ACCEPTED if accepted else Status.REJECTED

        def write(conn: Any) -> None:
            set_status(conn, v.id, status, reason, f"log of {v.original_name}")

        return Outcome({"status": status.value}, write)

    return TaskKind("check", run, on_restart=_restart)


# ------------------------------------------------------- a real judge arena serve
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(made: Made, port: int, *options: str, jobs: int = 1) -> subprocess.Popen[bytes]:
    """``judge arena serve`` of the arena as its own process, with its output in a pipe."""
    cmd = [sys.executable, "-m", "judge", "arena", "serve", str(made.root), "--port", str(port)]
    cmd += ["--jobs", str(jobs), *options]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)


def wait_up(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Until the server answers on its port (its output in the failure if it ended first)."""
    for _ in range(300):
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the arena server did not start")
