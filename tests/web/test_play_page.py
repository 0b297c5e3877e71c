"""``judge play``'s page and position editor as a person meets them, in headless Chromium.

* the editor answers an illegal answer (a diagonal, a cell outside) as the void move it is,
  saying why, and starts from the bot's own view (its boat and gold first), each boat marked;
* the play page numbers its rows and columns, never offers a reef without a shield as a
  move, says "you sank" when the person's boat sinks, and its replay shows the person as a
  person with no link back to a tournament.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.bots import resolve_bot
from judge.commands.play import first_map_inp
from judge.maps import map_from_text
from judge.sandbox import Limits, Sandbox
from judge.web.play import PlaySession, ask_bot
from tests.web.test_play import ROOT, _free_port, _stop

pytestmark = [pytest.mark.slow, pytest.mark.browser]

#: A reef east of the corner (1, 1): a boat started there must not be offered it as a move.
REEF_SEA = """5 5 4
0 D 1 1 0
1 1 1 1 1
1 1 1 1 1
1 1 1 1 1
0 1 1 1 0
"""

#: A bot that starts on the first 0-cell, then always answers the cell diagonally below-right.
DIAGONAL_BOT = """\
t = open("MAP.INP").read().split()
m, n = int(t[0]), int(t[1])
i1, j1 = int(t[3]), int(t[4])
if i1 == 0:
    cells = t[9 : 9 + m * n]
    k = cells.index("0")
    i1, j1 = k // n, k % n
open("MOVE.OUT", "w").write(f"{i1 + 1} {j1 + 1}\\n")
"""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def _serve(session: PlaySession, ask: Any, first: str) -> tuple[Any, int]:
    import threading

    from judge.web.app import PlaySite, make_server

    port = _free_port()
    site = PlaySite(session, ask, first)
    server = make_server(site.app(), "127.0.0.1", port)
    server.install_signal_handlers = lambda: None
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the page did not start"
        time.sleep(0.05)
    return (server, site, thread), port


def _ask(page: Any, map_inp: str) -> dict[str, str | None]:
    page.fill("#mapinp", map_inp)
    page.dispatch_event("#mapinp", "input")
    page.evaluate("() => { delete document.getElementById('answer').dataset.verdict; }")
    page.click("#ask")
    page.wait_for_function(
        "() => document.getElementById('answer').dataset.verdict !== undefined", timeout=20000
    )
    return {
        "void": page.get_attribute("#answer", "data-void"),
        "said": page.inner_text("#answer-move"),
        "findings": page.inner_text("#answer-findings")
        if page.query_selector("#answer-findings")
        else "",
    }


def test_the_editor_answers_an_illegal_answer_as_a_void_move(
    sandbox: Sandbox, browser: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "diagonal"
    folder.mkdir()
    (folder / "bot.py").write_text(DIAGONAL_BOT)
    (folder / "bot.yaml").write_text("command: [python3, bot.py]\n")
    bot = resolve_bot(str(folder))
    gm = map_from_text(REEF_SEA, "reef sea", allow_invalid=True)
    session = PlaySession(bot, gm, "reef.txt", 0, sandbox, tmp_path / "play", Limits(), 5)
    handle, port = _serve(
        session, lambda text: ask_bot(bot, sandbox, text, Limits()), first_map_inp(gm, 4)
    )
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"http://127.0.0.1:{port}/editor")
        page.wait_for_selector('body[data-ready="true"]')
        moving = "5 5 3\n2 3 5 5\n4 0\n" + "\n".join(REEF_SEA.splitlines()[1:]) + "\n"
        answer = _ask(page, moving)
        assert answer["void"] == "true"
        assert answer["said"] == "void: (3, 4) is not next to the boat at (2, 3)"
        assert "error: (3, 4) is not next to the boat at (2, 3)" in str(answer["findings"])
        corner = moving.replace("2 3 5 5", "5 5 1 1")
        answer = _ask(page, corner)
        assert answer["said"] == "void: (6, 6) is outside the 5 x 5 map"
        assert page.inner_text("#legend-0").startswith("● your bot's boat")
        assert page.get_attribute("#boat-0", "data-owner") == "bot"
        assert page.query_selector_all(".ruler[data-ruler-col]") != []
        page.fill("#mapinp", "5 5 3\n2 3\n")
        page.click("#ask")  # a text no judge would write: said so, nothing run
        page.wait_for_selector("#answer p.why")
        assert "not a MAP.INP the judge would write" in page.inner_text("#answer")
    finally:
        _stop(handle)


def _click_cell(page: Any, r: int, c: int) -> None:
    page.click(f'.cell[data-row="{r}"][data-col="{c}"]')


def test_the_play_page_numbers_its_sea_keeps_reefs_off_and_says_you_sank(
    sandbox: Sandbox, browser: Any, tmp_path: Path
) -> None:
    bot = resolve_bot("greedy", [ROOT / "bots"])
    gm = map_from_text(REEF_SEA, "reef sea", allow_invalid=True)
    out = tmp_path / "play"
    session = PlaySession(bot, gm, "reef.txt", 0, sandbox, out, Limits(), 5)
    session.start()
    handle, port = _serve(
        session, lambda text: ask_bot(bot, sandbox, text, Limits()), first_map_inp(gm, 4)
    )
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 60
        # the start: (1, 1), again at a re-ask
        while "your move" not in page.inner_text("#prompt"):
            assert time.monotonic() < deadline, page.inner_text("#prompt")
            if page.query_selector('.cell.reach[data-row="1"][data-col="1"]'):
                _click_cell(page, 1, 1)
            page.wait_for_timeout(50)
        page.wait_for_selector(".cell.reach")
        assert [r.inner_text() for r in page.query_selector_all(".ruler[data-ruler-col]")] == [
            "1", "2", "3", "4", "5"
        ]  # fmt: skip
        assert len(page.query_selector_all(".ruler[data-ruler-row]")) == 5
        reach = {(c.get_attribute("data-row"), c.get_attribute("data-col"))
                 for c in page.query_selector_all(".cell.reach")}  # fmt: skip
        assert reach == {("2", "1")}, reach  # (1, 2) is a reef and there is no shield
        assert page.get_attribute("#boat-0", "data-owner") == "you"
        # the editor starts from the bot's view of this turn: its boat first, then the person's
        editor = browser.new_page(viewport={"width": 1280, "height": 800})
        editor.goto(f"http://127.0.0.1:{port}/editor")
        editor.wait_for_selector('body[data-ready="true"]')
        lines = editor.input_value("#mapinp").splitlines()
        bot_at = session.records[-1].positions[1]
        assert bot_at is not None
        assert lines[1].split() == [str(bot_at[0]), str(bot_at[1]), "1", "1"]
        assert lines[2].split() == [str(session.records[-1].gold[1]), "0"]
        editor.close()
        page.keyboard.press("ArrowRight")  # into the reef: the person sinks
        page.wait_for_selector('body[data-sank="true"]', timeout=30000)
        assert page.inner_text("#sank") == "you sank on a reef at (1,2), turn 2"
        page.wait_for_selector('body[data-over="true"]', timeout=30000)
        assert "you sank on a reef at (1,2), turn 2" in page.inner_text("#prompt")
        assert errors == []
        page.click("#replay")
        page.wait_for_selector('body[data-ready="true"]')
        assert page.is_hidden("#back")  # no tournament to go back to
        assert page.inner_text("#name-0") == "You (a person)"
        assert page.inner_text("#verdict-0") == "moved by a person"
        assert page.inner_text("#time-0") == "" and page.inner_text("#run-label-0") == ""
        assert page.inner_text("#run-label-1") == "run"
    finally:
        _stop(handle)
        session.close()
