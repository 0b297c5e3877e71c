"""``judge play``: a person in one seat against a bot.

A scripted person plays whole rounds against the bundled ``greedy`` in real
headless Chromium (clicking cells, and with the arrow keys) and in the terminal
(typed lines); the round is recorded like a match, and every turn of it agrees
with the independent model of the rules.  The position editor's answer for a
check-bot situation is the move ``judge check-bot`` gets for it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.bots import resolve_bot
from judge.checkbot.situations import battery
from judge.checkbot.trials import check_bot
from judge.commands.play import first_map_inp
from judge.maps import load_map
from judge.sandbox import Limits, Sandbox
from judge.web.play import PlaySession, ask_bot
from tests.referee.test_replay_agrees_with_model import agrees_with_model

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def _session(sandbox: Sandbox, out: Path, seat: int, map_name: str = "m2") -> PlaySession:
    bot = resolve_bot("greedy", [ROOT / "bots"])
    gm = load_map(ROOT / "maps" / f"{map_name}.txt")
    return PlaySession(bot, gm, f"{map_name}.txt", seat, sandbox, out, Limits(), 11, turns=8)


def _serve(session: PlaySession, sandbox: Sandbox) -> tuple[Any, int]:
    from judge.web.app import PlaySite, make_server

    port = _free_port()
    bot = session.bot
    site = PlaySite(
        session,
        lambda text: ask_bot(bot, sandbox, text, Limits()),
        first_map_inp(session.game_map, 8),
    )
    server = make_server(site.app(), "127.0.0.1", port)
    server.install_signal_handlers = lambda: None
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the play page did not start"
        time.sleep(0.05)
    return (server, site, thread), port


def _stop(handle: Any) -> None:
    server, site, thread = handle
    site.site.stopping.set()
    server.should_exit = True
    thread.join(10)


@pytest.mark.parametrize("seat, keys", [(0, False), (1, True)])
def test_a_person_plays_a_whole_round_in_the_browser(
    sandbox: Sandbox, browser: Any, tmp_path: Path, seat: int, keys: bool
) -> None:
    out = tmp_path / "play"
    session = _session(sandbox, out, seat)
    session.start()
    handle, port = _serve(session, sandbox)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 90
        moves = 0
        while page.get_attribute("body", "data-over") != "true":
            assert time.monotonic() < deadline, page.inner_text("#prompt")
            reach = page.query_selector_all(".cell.reach")
            if not reach:
                page.wait_for_timeout(50)
                continue
            if keys and moves > 0:  # after the start cell: the arrow keys
                page.keyboard.press(("ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft")[moves % 4])
            else:
                reach[moves % len(reach)].click()
            moves += 1  # a move clears the reachable cells at once, until the next turn
        assert errors == []
        assert "round over" in page.inner_text("#prompt")
    finally:
        _stop(handle)
        session.close()
    result = agrees_with_model(out)  # every turn as the rules say, the end, the points
    teams = result["teams"]
    assert teams[seat] == "You" and teams[1 - seat] == "greedy"
    assert moves >= result["rounds"][0]["turns_played"]  # a move a turn (and re-asks)


def test_the_position_editor_answers_as_check_bot_does(
    sandbox: Sandbox, browser: Any, tmp_path: Path
) -> None:
    bot = resolve_bot("greedy", [ROOT / "bots"])
    # situations a fresh seat meets (no STATE.OUT of an earlier run), as the editor asks
    situations = [s for s in battery() if s.follow_up is None and not s.reuse_seat][:4]
    checked = check_bot(bot, sandbox, Limits(), situations)
    session = _session(sandbox, tmp_path / "play", 0)  # not started: only the editor is used
    handle, port = _serve(session, sandbox)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"http://127.0.0.1:{port}/editor")
        page.wait_for_selector('body[data-ready="true"]')
        for sit, res in zip(situations, checked, strict=True):
            page.fill("#mapinp", sit.map_inp())
            page.dispatch_event("#mapinp", "input")
            page.evaluate("() => { delete document.getElementById('answer').dataset.move; }")
            page.click("#ask")
            page.wait_for_function(
                "() => document.getElementById('answer').dataset.verdict !== undefined"
                " && document.getElementById('answer').dataset.move !== undefined",
                timeout=20000,
            )
            shown = page.get_attribute("#answer", "data-move")
            want = " ".join(map(str, res.target)) if res.target else ""
            assert shown == want, (sit.key, shown, want)
            page.evaluate("() => { delete document.getElementById('answer').dataset.verdict; }")
    finally:
        _stop(handle)


def test_a_person_plays_a_whole_round_in_the_terminal(sandbox: Sandbox, tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from judge.views.playterm import play_in_terminal

    out = tmp_path / "play"
    session = _session(sandbox, out, 0, map_name="m3")
    lines = iter(["7 7"] + ["up", "left", "down", "right", "w", "a", "s", "d", "5 5"] * 4)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    session.start()
    try:
        play_in_terminal(session, console, read_line=lambda: next(lines, None))
    finally:
        session.close()
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "round over" in text and "@" in text
    result = agrees_with_model(out)
    assert result["teams"][0] == "You"
    assert json.loads((out / "result.json").read_text())["complete"] is True
