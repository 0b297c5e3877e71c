"""The check on upload with real bots in the real sandbox (slow), and a server killed mid-check.

A zipped bot that makes a void move in the strict round against the reference bot
(and nowhere in check-bot's battery) is rejected, naming the turn; a zipped C bot is
built, confined: what its build writes outside its folder is not written; a ``kill
-9`` of the server while a version is checked: after the restart it is checked again
and gets one verdict, and the upload is there once.  (A zipped Python bot and a MinGW
.exe accepted, a broken .exe rejected with check-bot's reason: test_browser.py.)
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.arena import tasks
from judge.arena.kinds import task_kinds
from judge.arena.service import Service
from judge.arena.store import Status, Store
from judge.sandbox import Sandbox
from tests.arena.conftest import (
    ROOT,
    Made,
    Served,
    bearer,
    free_port,
    make,
    serve,
    wait_up,
    zip_of,
)

TEAM = "Rồng Biển"
pytestmark = pytest.mark.slow
#: Short rounds: the strict round's turns, as arena.yaml's check: turns.
FAST = {"check.turns": 4}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def _greedy_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (ROOT / "bots" / "greedy").iterdir() if p.is_file()}


def _check(served: Served, sandbox: Sandbox, data: bytes, name: str) -> Any:
    r = served.client().post(
        "/api/submissions", headers=bearer(served.made.token(TEAM)), files={"bot": (name, data)}
    )
    assert r.status_code == 202, r.text
    a = served.arena
    service = Service(a.root, a.store, a.config, task_kinds(), 1, sandbox)
    task = tasks.claim(a.store, "test", ["check"], 300)
    assert task is not None
    assert service.run_one(task, "test")
    return served.version(r.json()["id"])


def test_a_void_move_in_the_strict_round_rejects_naming_the_turn(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    wrapper = (
        "import os, runpy, sys\n"
        "first = open('MAP.INP').read().split('\\n', 1)[0].split()\n"
        "if first[:3] == ['5', '5', '2']:\n"  # the check's 5 x 5 round, 2 turns left
        "    sys.stderr.write('off the map on purpose\\n')\n"
        "    open('MOVE.OUT', 'w').write('0 0\\n')\n"
        "    sys.exit(0)\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "runpy.run_path(os.path.join(here, 'greedy.py'), run_name='__main__')\n"
    )
    files = {f"void/{k if k != 'bot.py' else 'greedy.py'}": v for k, v in _greedy_files().items()}
    files["void/bot.py"] = wrapper.encode()
    files["void/bot.yaml"] = b"command: [python3, bot.py]\n"
    s = Served(make(tmp_path, settings=FAST))
    try:
        v = _check(s, sandbox, zip_of(files), "void.zip")
        assert v.status is Status.REJECTED, v.log
        assert "strict round" in v.reason and "seat 0" in v.reason
        assert "turn 3: a void move, outside" in v.reason and "'0 0'" in v.reason
        assert "off the map on purpose" in v.log  # the program's error output, first lines
        assert "check-bot, 9 situations" in v.log and "error:" not in v.log
    finally:
        s.close()


def test_a_zipped_c_bot_is_built_confined(tmp_path: Path, sandbox: Sandbox) -> None:
    escape = Path("/tmp") / f"arena-escape-{secrets.token_hex(6)}"
    var_escape = Path("/var/tmp") / escape.name
    source = (ROOT / "bots" / "greedy_c" / "greedy.c").read_bytes()
    build = (
        f"command: [./greedy]\nbuild:\n  command: [sh, -c, 'echo out > {escape}; echo out > "
        f"{var_escape}; cc -O2 -std=c99 -o greedy greedy.c']\n  output: greedy\n"
        "  sources: [greedy.c]\n"
    )
    s = Served(make(tmp_path, settings=FAST))
    try:
        v = _check(s, sandbox, zip_of({"c/bot.yaml": build, "c/greedy.c": source}), "c.zip")
        assert v.status is Status.ACCEPTED, v.reason + "\n" + v.log
        assert "built (confined: no network, only its own folder writable, as nobody)" in v.log
        assert not escape.exists() and not var_escape.exists()
        built = s.made.root / "store" / v.sha256[:2] / v.sha256 / "bot"
        assert (built / "greedy").is_file() and os.stat(built / "greedy").st_uid == 0
        assert not [p for p in built.parent.iterdir() if p.name.startswith(".build-tmp")]
    finally:
        escape.unlink(missing_ok=True)
        var_escape.unlink(missing_ok=True)
        s.close()


# --------------------------------------------------------------- kill -9
def _status(made: Made, version_id: int) -> str:
    if not (made.root / "arena.sqlite").is_file():
        return "missing"
    with Store.open(made.root / "arena.sqlite") as store:
        v = store.version(version_id)
        return v.status.value if v else "missing"


def test_a_server_killed_mid_check_checks_the_version_again_once(tmp_path: Path) -> None:
    from judge.arena.client import Client

    slow = (
        "import os, runpy, time\n"
        "time.sleep(0.15)\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "runpy.run_path(os.path.join(here, 'greedy.py'), run_name='__main__')\n"
    )
    files = {f"slow/{k if k != 'bot.py' else 'greedy.py'}": v for k, v in _greedy_files().items()}
    files["slow/bot.py"] = slow.encode()
    files["slow/bot.yaml"] = b"command: [python3, bot.py]\n"
    made = make(tmp_path, settings=FAST)
    port = free_port()
    proc = serve(made, port)
    submit: subprocess.Popen[bytes] | None = None
    try:
        wait_up(port, proc)
        client = Client(f"http://127.0.0.1:{port}", made.token(TEAM))
        (tmp_path / "slow.zip").write_bytes(zip_of(files))
        # judge submit waits for the verdict through the server's death and restart
        said = tmp_path / "submit.out"
        with said.open("wb") as out:
            submit = subprocess.Popen(
                [sys.executable, "-m", "judge", "submit", client.url, str(tmp_path / "slow.zip"), "--token", made.token(TEAM)],
                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
            )  # fmt: skip
        vid = 1
        deadline = time.monotonic() + 60
        while _status(made, vid) != "checking":
            assert time.monotonic() < deadline, "the check never started"
            time.sleep(0.05)
        time.sleep(0.5)  # well inside the check
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert _status(made, vid) == "checking"
        # The arena stays down until the client has found it down: it asks once a second,
        # and a quick restart could otherwise fall between two of its questions.
        deadline = time.monotonic() + 30
        while "cannot reach the arena" not in said.read_text("utf-8", "replace"):
            assert time.monotonic() < deadline, "judge submit never found the arena down"
            assert submit.poll() is None, said.read_text("utf-8", "replace")
            time.sleep(0.05)
        proc = serve(made, port)
        wait_up(port, proc)
        deadline = time.monotonic() + 120
        while _status(made, vid) in ("queued", "checking"):
            assert time.monotonic() < deadline, "no verdict after the restart"
            time.sleep(0.1)
        with Store.open(made.root / "arena.sqlite") as store:
            versions = store.versions()
            [task] = tasks.tasks(store, "check")
            assert [(v.id, v.status) for v in versions] == [(vid, Status.ACCEPTED)], versions[
                0
            ].reason
            assert task.state == "done" and task.attempts == 2
            stored = list((made.root / "store").rglob("slow*")) + list(
                (made.root / "store").rglob("bot.zip")
            )
            assert len(stored) == 1
        assert client.version(vid)["status"] == "accepted"
        submit.wait(timeout=60)
        text = said.read_text("utf-8", "replace")
        assert submit.returncode == 0, text
        assert "cannot reach the arena" in text and "asking again" in text and "accepted: " in text
    finally:
        if submit is not None and submit.poll() is None:
            submit.kill()
            submit.wait()
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
