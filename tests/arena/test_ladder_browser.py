"""The ladder's pages in real headless Chromium: the ladder updates by itself as games end, a
team's page lists its games and chooses its map."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.arena.accounts import Accounts
from judge.arena.config import load_config
from judge.arena.store import STORE_FILE, Store
from judge.web.arena import SESSION_COOKIE, ArenaSite
from tests.arena.arena_support import make_test_arena
from tests.arena.ladder_support import add_version, ladder, work
from tests.arena.test_games import BOTS
from tests.web import conftest as web_conftest

pytestmark = [pytest.mark.slow, pytest.mark.browser]
browser = web_conftest.browser  # the web tests' Chromium fixture


@pytest.fixture()
def live(tmp_path: Path) -> Iterator[dict[str, Any]]:
    import uvicorn

    root, _creds = make_test_arena(tmp_path, ["Alpha", "Beta", "Gamma"])
    with (root / "arena.yaml").open("a", encoding="utf-8") as f:
        f.write("ladder:\n  seed: 5\n  generated: [5x5]\n  turns: 6\n")
    store = Store.open(root / STORE_FILE)
    for t in store.teams():
        add_version(store, t.id)
    site = ArenaSite(root, store, load_config(root), Accounts(store))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(site.app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield {"url": f"http://127.0.0.1:{port}", "root": root, "store": store, "site": site}
    finally:
        site.stopping.set()
        server.should_exit = True
        thread.join(10)
        store.close()


def test_the_ladder_page_follows_the_games_and_a_team_chooses_its_map(
    live: dict[str, Any], browser: Any
) -> None:
    store: Store = live["store"]
    page = browser.new_page()
    page.goto(live["url"] + "/ladder")
    page.wait_for_selector("body[data-ready='true']")
    assert page.locator("#ladder tbody tr").count() == 0  # nobody has played yet
    lad = ladder(store)
    lad.step()
    work(store, live["root"], BOTS)
    # The page was not reloaded: it updates by itself (server-sent events).
    page.wait_for_function(
        "document.querySelectorAll('#ladder tbody tr').length === 4", timeout=15000
    )
    games = page.locator("#ladder tbody tr[data-team='Alpha'] .games").text_content()
    assert games is not None and int(games) > 0
    assert "±" in (page.locator("#ladder tbody tr[data-team='Alpha'] .mu").text_content() or "")
    # A team's own page, logged in.
    alpha = next(t for t in store.teams() if t.name == "Alpha")
    cookie, _ = Accounts(store).open_session(alpha)
    context = browser.new_context()
    context.add_cookies([{"name": SESSION_COOKIE, "value": cookie, "url": live["url"]}])
    mine = context.new_page()
    mine.goto(live["url"] + "/team/ladder")
    mine.wait_for_selector("body[data-ready='true']")
    assert mine.locator("#games tbody tr").count() > 0
    mine.select_option("#map-choice", "m2")
    mine.click("#map-form button")
    mine.wait_for_selector("#notice")
    assert "m2" in (mine.locator("#notice").text_content() or "")
    mine.wait_for_selector("body[data-ready='true']")
    assert "m2" in (mine.locator("#map-now").text_content() or "")
    first = mine.locator("#games tbody tr a").first
    first.click()
    mine.wait_for_selector("body[data-page='game'][data-ready='true']")
    mine.locator("#rounds a.replay").first.click()
    mine.wait_for_load_state()
    assert "Alpha v1" in mine.content()
