"""``judge serve``: a folder of results on the web, live while a tournament is played.

The app is driven in-process with Starlette's test client for what the server
answers (the index, the state of a tournament, refusals), and in real headless
Chromium for what people see: the tournament page and the projector view
following a tournament while it is played, ending on its standings.json.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

try:
    from starlette.testclient import TestClient
except ImportError:  # CI installs the web extra with the test extra: there it must not skip
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        raise
    pytest.skip("the web extra is not installed: pip install -e '.[web]'", allow_module_level=True)

from judge.web.app import Background, Site  # noqa: E402
from tests.tournament._helpers import fake_bots, make_config, run_fake  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVIL = "<img src=x onerror=alert(1)>"


def _config(folder: Path, names: list[str]) -> Any:
    teams = [{"name": n, "bot": "greedy", "map": f"m{i + 1}"} for i, n in enumerate(names)]
    return make_config(folder, teams=teams, turns=6)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A served folder holding one finished tournament with hostile and Vietnamese names."""
    root = tmp_path_factory.mktemp("served")
    cfg = _config(root / "cfg", ["Rồng Biển", EVIL, "Alpha"])
    report = run_fake(cfg, root / "final")
    assert report.complete
    return root


def test_the_index_lists_the_tournament(finished: Path) -> None:
    client = TestClient(Site(finished).app())
    page = client.get("/").text
    data = json.loads(page.split('id="page-data">', 1)[1].split("</script>", 1)[0])
    assert [(e["kind"], e["rel"]) for e in data["entries"]] == [("tournament", "final")]
    assert "default-src 'none'" in client.get("/").headers["content-security-policy"]


def test_the_state_is_the_tournaments_standings(finished: Path) -> None:
    client = TestClient(Site(finished).app())
    st = client.get("/api/tournament", params={"p": "final"}).json()
    saved = json.loads((finished / "final" / "standings.json").read_text(encoding="utf-8"))
    assert st["standings"] == saved["standings"]
    assert st["complete"] is True and st["done"] == st["total"] == 9
    assert {r["status"] for r in st["rounds"]} == {"done"}
    # the crosstable adds up to each team's points
    for row in st["standings"]:
        assert sum(st["crosstable"][row["team"]].values()) == row["points"]


@pytest.mark.parametrize(
    "url",
    [
        "/tournament?p=../..",
        "/tournament?p=/etc",
        "/replay?p=..%2F..%2Fetc",
        "/round?p=final/../../..",
        "/files/../../etc/passwd",
        "/files/%2e%2e/%2e%2e/etc/passwd",
        "/files/final/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/tournament?p=../../",
        "/api/round?p=/etc",
    ],
)
def test_no_path_leads_outside_the_folder(finished: Path, url: str) -> None:
    client = TestClient(Site(finished).app())
    r = client.get(url)
    assert r.status_code == 404, (url, r.status_code)
    assert "root:" not in r.text


def test_a_link_out_of_the_folder_is_not_followed(finished: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show")
    link = finished / "leak.txt"
    link.symlink_to(secret)
    try:
        r = TestClient(Site(finished).app()).get("/files/leak.txt")
        assert r.status_code == 404 and "do not show" not in r.text
    finally:
        link.unlink()


# ------------------------------------------------------------------ in Chromium
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.browser
def test_the_pages_follow_a_tournament_being_played(tmp_path: Path, browser: Any) -> None:
    """The tournament page and the projector view while it is played: the standings
    change as rounds end, the projector shows more than one round in flight, and the
    page ends on the standings of standings.json; a hostile name stays text."""
    out = tmp_path / "final"
    out.mkdir()
    port = _free_port()
    web = Background(out, "127.0.0.1", port)
    web.start()
    cfg = _config(tmp_path / "cfg", ["Rồng Biển", EVIL, "Alpha"])
    bots = fake_bots(cfg.team_names)

    def slow(bot: Any) -> Any:
        def run(map_inp: str, state: bytes | None) -> Any:
            time.sleep(0.06)
            return bot(map_inp, state)

        return run

    slowed = {k: slow(v) for k, v in bots.items()}
    player = threading.Thread(target=run_fake, args=(cfg, out), kwargs={"bots": slowed, "jobs": 1})
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        projector = browser.new_page(viewport={"width": 1280, "height": 800})
        projector.on("pageerror", lambda e: errors.append(str(e)))
        base = f"http://127.0.0.1:{port}"
        page.goto(f"{base}/tournament?p=")
        projector.goto(f"{base}/live")
        for p in (page, projector):
            p.wait_for_selector('body[data-ready="true"]')
        player.start()
        seen_points: set[str] = set()
        seen_rounds: set[str] = set()
        deadline = time.monotonic() + 60
        while player.is_alive() and time.monotonic() < deadline:
            seen_points.add(
                ",".join(
                    page.eval_on_selector_all(
                        "#standings tbody tr", "rs => rs.map(r => r.dataset.points)"
                    )
                )
            )
            seen_rounds.add(projector.get_attribute("#stage", "data-round") or "")
            time.sleep(0.1)
        player.join(30)
        saved = json.loads((out / "standings.json").read_text(encoding="utf-8"))["standings"]
        page.wait_for_function(
            "n => document.querySelectorAll('#rounds li[data-status=done]').length === n", arg=9
        )
        shown = page.eval_on_selector_all(
            "#standings tbody tr", "rs => rs.map(r => [r.dataset.team, +r.dataset.points])"
        )
        assert shown == [[r["team"], r["points"]] for r in saved]
        assert len(seen_points) >= 3, seen_points  # it changed while the rounds were played
        # the projector moves on to the next round by itself (at its pace, once the first
        # round's end has been held on the board: maybe after the play is over)
        projector.wait_for_function(
            "() => +document.getElementById('stage').dataset.index >= 2", timeout=30_000
        )
        seen_rounds.add(projector.get_attribute("#stage", "data-round") or "")
        assert len({r for r in seen_rounds if r}) >= 2, seen_rounds
        # a team named like markup is shown as text: no <img> was made from it
        assert page.locator("img").count() == 0 and projector.locator("img").count() == 0
        assert EVIL in page.inner_text("#standings")
        assert errors == []
    finally:
        web.stop()
        player.join(30)


@pytest.mark.slow
@pytest.mark.parametrize("watched", [False, True], ids=["alone", "watched"])
def test_judge_serve_stops_cleanly_on_ctrl_c(finished: Path, watched: bool) -> None:
    """Ctrl-C stops the server at once, also while a page follows a tournament (the
    projector always does): its stream ends, the server does not wait for it."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge", "serve", str(finished), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.1)
        viewer = socket.create_connection(("127.0.0.1", port), timeout=10) if watched else None
        if viewer is not None:
            viewer.sendall(
                b"GET /api/tournament?p=final HTTP/1.1\r\nHost: here\r\n"
                b"Accept: text/event-stream\r\n\r\n"
            )
            got = b""
            while b"data: " not in got:  # following: the first state comes
                chunk = viewer.recv(65536)
                assert chunk, got
                got += chunk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        if watched and viewer is not None:
            viewer.close()
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
    assert f"127.0.0.1:{port}".encode() in out


@pytest.mark.slow
@pytest.mark.browser
def test_what_a_bot_writes_is_shown_as_text(tmp_path: Path, browser: Any) -> None:
    """A bot writing markup in MOVE.OUT: the round's page and the replay show it as text."""
    cfg = _config(tmp_path / "cfg", ["Alpha", "Beta", "Gamma"])
    bots = fake_bots(cfg.team_names)

    def markup(map_inp: str, state: bytes | None) -> Any:
        return f"{EVIL} 1\n".encode(), state, "OK"

    bots["Beta"] = markup
    run_fake(cfg, tmp_path / "out" / "final", bots=bots)
    port = _free_port()
    web = Background(tmp_path / "out", "127.0.0.1", port)
    web.start()
    try:
        st = TestClient(Site(tmp_path / "out").app()).get("/api/tournament", params={"p": "final"})
        beta = next(r for r in st.json()["rounds"] if "Beta" in (r["seats"] or []))
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: errors.append("a dialog opened"))
        page.goto(f"http://127.0.0.1:{port}/round?p=final/{beta['path']}")
        page.wait_for_selector('body[data-ready="true"]')
        page.goto(f"http://127.0.0.1:{port}/replay?p=final/{beta['match']}")
        page.wait_for_selector('body[data-ready="true"]')
        assert page.locator("img").count() == 0
        assert errors == []
    finally:
        web.stop()
