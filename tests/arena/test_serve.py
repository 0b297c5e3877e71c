"""``judge arena serve``: where it listens and what it says, HTTPS, and its refusals."""

from __future__ import annotations

import http.cookiejar
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from judge.arena.client import Client, Refused
from judge.cli import main
from tests.arena.conftest import ROOT, Served, csrf_of, make
from tests.arena.test_checks import _port, _wait_up

TEAM = "Rồng Biển"


def _cert(folder: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's certificate (Debian package openssl)")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _team_stream(url: str, team: str, password: str) -> Any:
    """A team's event stream, opened as its page opens it (logged in by the login form)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{url}/login").read().decode()
    fields = {"team": team, "password": password, "csrf": csrf_of(page)}
    opener.open(f"{url}/login", urllib.parse.urlencode(fields).encode())
    return opener.open(f"{url}/team/events", timeout=30)


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()  # held by something: the test fails, leaving no server behind
        proc.communicate()
        raise
    return out.decode("utf-8", "replace")


@pytest.mark.slow
def test_https_with_a_certificate_and_a_warning_without_one_off_loopback(tmp_path: Path) -> None:
    made = make(tmp_path, [TEAM])
    cert, key = _cert(tmp_path)
    port = _port()
    cmd = [
        sys.executable,
        "-m",
        "judge",
        "arena",
        "serve",
        str(made.root),
        "--port",
        str(port),
        "--jobs",
        "1",
    ]
    proc = subprocess.Popen(
        [*cmd, "--tls-cert", str(cert), "--tls-key", str(key)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    try:
        _wait_up(port, proc)
        client = Client(f"https://127.0.0.1:{port}", made.token(TEAM), cafile=cert)
        # reached over TLS, the token taken: the arena's own answer
        with pytest.raises(Refused, match="not found: no such submission of your team"):
            client.version(1)
        with pytest.raises(Refused, match="cannot reach"):  # without trusting its certificate
            Client(f"https://127.0.0.1:{port}", made.token(TEAM)).version(1)
    finally:
        out = _stop(proc)
    assert f"on https://127.0.0.1:{port}/" in out and "in clear" not in out
    port = _port()
    proc = subprocess.Popen(
        [*cmd[:-4], "--port", str(port), "--host", "0.0.0.0", "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    try:
        _wait_up(port, proc)
        stream = _team_stream(f"http://127.0.0.1:{port}", TEAM, made.password(TEAM))
        assert stream.readline().startswith(b"data: ")
        started = time.monotonic()
    finally:
        out = _stop(proc)  # an open event stream does not hold the stop
    assert time.monotonic() - started < 15
    assert "listening on 0.0.0.0" in out and "passwords and upload tokens travel in clear" in out
    assert out.rstrip().endswith("stopped")


def test_serve_refuses_what_it_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = make(tmp_path, [TEAM])
    assert main(["arena", "serve", str(tmp_path / "nowhere")]) == 2
    assert "not an arena folder" in capsys.readouterr().err
    assert main(["arena", "serve", str(made.root), "--tls-cert", str(tmp_path / "c.pem")]) == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err
    assert main(["arena", "serve", str(made.root), "--port", "0"]) == 2
    assert "--port 0" in capsys.readouterr().err
    held = Served(made)
    try:
        assert main(["arena", "serve", str(made.root), "--port", str(_port())]) == 2
        assert "another judge arena serve" in capsys.readouterr().err
    finally:
        held.close()
