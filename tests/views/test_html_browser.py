"""The HTML replay in real headless Chromium: what it shows at a turn is what replay.jsonl says.

Debian's ``chromium`` is driven by Playwright for Python through
``executable_path`` (no browser download, never ``playwright install``).  In CI
(``CI`` set) a missing browser or Playwright fails the test with the fix; on a
developer machine it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
]  # headless Chromium: slow, and it must not be skipped under CI

CHROMIUM = os.environ.get("OCEAN_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_SCHEMES = ("file:", "data:", "about:")


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(
            f"{why} (CI must run the browser test: .ci/run installs chromium and "
            f"`pip install -e .[test]` installs playwright)",
            pytrace=False,
        )
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install playwright)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    pg.requests = []  # every URL the page asked for
    pg.errors = []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    yield pg
    ctx.close()


def _records(path: Path) -> dict[int, dict[str, Any]]:
    """replay.jsonl read independently of the judge's reader: turn -> record."""
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return {r["turn"]: r for r in lines[1:]}


SHOWN = """() => {
  const q = s => document.querySelector(s);
  const boat = s => { const b = q('#boat-' + s); return {
      seat: b.dataset.seat, row: +b.dataset.row, col: +b.dataset.col,
      sunk: b.dataset.sunk, shield: b.dataset.shield, hidden: b.hidden}; };
  return {
    turn: +q('#turn').textContent, round: +q('#board').dataset.round,
    gold: [+q('#gold-0').textContent, +q('#gold-1').textContent],
    boats: [boat(0), boat(1)],
    cells: Array.from(document.querySelectorAll('.cell')).map(c =>
        [+c.dataset.row, +c.dataset.col, c.dataset.value, c.dataset.treasure]),
    events: Array.from(document.querySelectorAll('#events li:not(.none)')).map(li => li.textContent),
    slider: +q('#slider').value,
  };
}"""


def check(
    page: Any, recs: dict[int, dict[str, Any]], turn: int, round_no: int = 1
) -> dict[str, Any]:
    """The page shows ``turn`` of the round exactly as the replay records it."""
    s = page.evaluate(SHOWN)
    assert (s["round"], s["turn"], s["slider"]) == (round_no, turn, turn)
    rec = recs[turn]
    assert s["gold"] == rec["gold"]
    for seat in (0, 1):
        b = s["boats"][seat]
        assert b["seat"] == str(seat) and not b["hidden"]
        assert [b["row"], b["col"]] == rec["positions"][seat], (turn, seat)
        assert b["sunk"] == ("true" if rec["sunk"][seat] else "false")
        assert b["shield"] == ("true" if rec["shield"][seat] else "false")
    grid = [row.split() for row in rec["grid"]]
    assert len(s["cells"]) == len(grid) * len(grid[0])
    for i, j, value, _ in s["cells"]:
        assert value == grid[i - 1][j - 1], (turn, i, j)
    return s


@pytest.fixture
def html_match(match_dir: Path, tmp_path: Path) -> Path:
    out = tmp_path / "usb stick" / "final.html"  # a space in the path, as on real sticks
    assert main(["replay", str(match_dir), "--html", str(out)]) == 0
    return out


def test_steps_match_the_replay(
    page: Any, html_match: Path, match_dir: Path, tmp_path: Path
) -> None:
    r1 = _records(match_dir / "round-1" / "replay.jsonl")
    r2 = _records(match_dir / "round-2" / "replay.jsonl")
    page.goto(html_match.as_uri())
    page.wait_for_selector("body[data-ready='true']")
    check(page, r1, 1)

    page.click("#next")
    page.click("#next")
    s = check(page, r1, 3)  # B sinks on the reef, A has taken the shield
    assert "beta sank on a reef at (6,4)" in s["events"]
    assert "alpha picked up a shield at (4,2)" in s["events"]

    page.keyboard.press("ArrowRight")
    check(page, r1, 4)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check(page, r1, 2)

    page.eval_on_selector(
        "#slider",
        "(el) => { el.value = 10; el.dispatchEvent(new Event('input', {bubbles: true})); }",
    )
    s = check(page, r1, 10)  # half time: the treasure appears on the centre
    assert [c for c in s["cells"] if c[3] == "true"] == [[4, 4, "6", "true"]]

    page.click("#last")
    check(page, r1, 20)
    assert page.text_content("#result").startswith("alpha wins 23")
    page.keyboard.press("Home")
    check(page, r1, 1)

    page.select_option("#round-select", "2")
    check(page, r2, 1, round_no=2)
    page.eval_on_selector(
        "#slider",
        "(el) => { el.value = 21; el.dispatchEvent(new Event('input', {bubbles: true})); }",
    )
    check(page, r2, 21, round_no=2)
    page.keyboard.press("End")
    check(page, r2, 40, round_no=2)

    # play at the fastest speed from turn 30 until it stops by itself at the last turn
    page.evaluate("() => window.oceanReplay.goto(30)")
    check(page, r2, 30, round_no=2)
    page.select_option("#speed", "16")
    page.keyboard.press(" ")
    page.wait_for_function("() => +document.querySelector('#turn').textContent >= 33")
    page.keyboard.press(" ")  # pause
    turn = int(page.text_content("#turn"))
    assert page.get_attribute("#play", "data-playing") == "false"
    page.wait_for_timeout(250)
    assert int(page.text_content("#turn")) == turn  # paused means paused
    check(page, r2, turn, round_no=2)

    shot = tmp_path / "replay-round2.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    shutil.copy(shot, html_match.parent / shot.name)  # beside the HTML, for people to look at

    assert page.errors == []
    assert page.requests and all(u.startswith(LOCAL_SCHEMES) for u in page.requests), page.requests
    assert page.requests == [html_match.as_uri()]


def test_start_from_the_url_and_index_links(page: Any, match_dir: Path, tmp_path: Path) -> None:
    from judge.views.html import write_index_html

    r2 = _records(match_dir / "round-2" / "replay.jsonl")
    tour = tmp_path / "tournament"
    match_dir = Path(shutil.copytree(match_dir, tour / "final #1 (alpha vs beta)"))
    index = write_index_html(
        tour,
        [{"team": "alpha", "points": 20}, {"team": "beta", "points": 20}],
        [{"dir": match_dir.name}],
    )
    page.goto(index.as_uri())
    assert page.text_content("#standings tbody tr:first-child td:nth-child(2)") == "alpha"
    page.click("text=round 2: big15.txt")  # the map by its name, not a path
    page.wait_for_selector("body[data-ready='true']")
    assert page.url == (match_dir / "round-2" / "replay.html").as_uri()
    check(page, r2, 1, round_no=2)
    assert page.is_hidden("#round-select")  # a one-round page has no round picker

    page.goto((match_dir / "replay.html").as_uri() + "#round=2&turn=17")
    page.wait_for_selector("body[data-ready='true']")
    check(page, r2, 17, round_no=2)
    page.click("#back")
    assert page.url == index.as_uri()
    assert page.errors == []
    assert all(u.startswith(LOCAL_SCHEMES) for u in page.requests), page.requests


def test_scales_to_a_projector_and_a_small_window(browser: Any, html_match: Path) -> None:
    for w, h in ((1920, 1080), (800, 600)):
        ctx = browser.new_context(viewport={"width": w, "height": h})
        pg = ctx.new_page()
        pg.goto(html_match.as_uri() + "#round=2&turn=20")
        pg.wait_for_selector("body[data-ready='true']")
        box = pg.locator("#board").bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= w
        # the board uses the height it is given: most of the screen, never past it
        assert box["y"] + box["height"] <= h and box["height"] > h * 0.6
        ctx.close()


def test_void_moves_are_said_in_words(
    page: Any, eventful: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The page says why a move was void, as log.txt and the board do."""
    from ._replays import write_match

    rec = next(r for r in eventful[1:] if r["turn"] == 5)
    rec.update(verdicts=["TLE", "OK"], move_status=["run_failed", "no_move_out"])
    rec["why"] = [None, "move_on_stdout"]  # seat 0 as an older replay (no reasons) has it
    folder = write_match(tmp_path / "m", [eventful])
    out = tmp_path / "void.html"
    assert main(["replay", str(folder), "--html", str(out)]) == 0
    page.goto(out.as_uri() + "#round=1&turn=5")
    page.wait_for_selector("body[data-ready='true']")
    assert page.text_content("#turn") == "5"
    assert page.text_content("#status-0") == "void: the program ran out of time (TLE)"
    assert page.get_attribute("#status-0", "data-status") == "run_failed"
    assert page.text_content("#status-1") == (
        "void: no MOVE.OUT — the move was printed on standard output"
    )
    page.evaluate("() => window.oceanReplay.goto(6)")
    assert page.text_content("#status-0") in ("moved", "stayed")
    assert page.errors == []
