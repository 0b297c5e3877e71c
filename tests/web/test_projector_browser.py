"""``/live`` on a projector, in real headless Chromium at 1280x720 and 1024x768.

What the room sees: the rounds one after the other at the projector's pace,
behind the real play; standings that count only the rounds shown; the board,
the score line and the standings inside the screen (nothing cut, names on at
most two lines, the score on one); why a boat stands still, in words; the
contest's title, the round number and the map; the sea at placement.
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
import starlette  # noqa: F401  (the web extra: a broken install must fail)

from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.web.app import Background  # noqa: E402
from tests.tournament._helpers import fake_bots, make_config, run_fake

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LONG = "Đội Rồng Biển Xanh Thẳm Của Lớp 10A1"
LATE = "Cá Mập"
VOID = "<b>Hải Âu</b>"
TEAMS = [LONG, LATE, VOID]
TITLE = "Chung kết Kho Báu Đại Dương 2026"
SIZES = [(1280, 720), (1024, 768)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bots(delay: float) -> dict[str, Any]:
    """The long-named team plays; Cá Mập times out after placement; Hải Âu writes void moves."""
    base = fake_bots(TEAMS)

    def placing(name: str, after: Any) -> Any:
        def run(map_inp: str, state: bytes | None) -> Any:
            time.sleep(delay)
            if map_inp.split("\n")[1].split() == ["0", "0", "0", "0"]:
                return base[name](map_inp, state)
            return after(map_inp, state)

        return run

    return {
        LONG: placing(LONG, base[LONG]),
        LATE: placing(LATE, lambda m, s: (None, s, "TLE")),
        VOID: placing(VOID, lambda m, s: (b"hello\n", s, "OK")),
    }


def _config(folder: Path) -> Any:
    teams = [
        {"name": LONG, "bot": "greedy", "map": "m5"},  # 15 x 15: the largest board
        {"name": LATE, "bot": "greedy", "map": "m4"},
        {"name": VOID, "bot": "greedy", "map": "m2"},
    ]
    return make_config(folder, teams=teams, turns=8, title=TITLE)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A finished final, served."""
    root = tmp_path_factory.mktemp("projector")
    out = root / "final"
    assert run_fake(_config(root / "cfg"), out, bots=_bots(0.0)).complete
    port = _free_port()
    web = Background(out, "127.0.0.1", port)
    web.start()
    try:
        yield out, f"http://127.0.0.1:{port}"
    finally:
        web.stop()


#: Every box the room must see whole, and what the lines of text measure.
MEASURE = """() => {
  const W = innerWidth, H = innerHeight, cut = [];
  const boxes = document.querySelectorAll('header, header *, #scorebar, #scorebar *, main, #stage, '
    + '#board, #board .cell, #captions, #captions li, #side, #next, #table-box, #standings, '
    + '#standings th, #standings td, #standings td span, #shown-note');
  boxes.forEach(function(e){
    if(e.closest('[hidden]')){ return; }
    const r = e.getBoundingClientRect();
    if(!r.width || !r.height){ return; }
    if(r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5){
      cut.push((e.id || e.className || e.tagName) + ' ' + JSON.stringify([r.left, r.top, r.right, r.bottom]));
    }
  });
  const lines = function(e){ const cs = getComputedStyle(e);
    const lh = cs.lineHeight === 'normal' ? 1.2 * parseFloat(cs.fontSize) : parseFloat(cs.lineHeight);
    return Math.round(e.getBoundingClientRect().height / lh); };
  const bar = document.getElementById('scorebar');
  const tops = Array.from(bar.children).map(function(c){ return Math.round(c.getBoundingClientRect().top); });
  const cells = document.querySelectorAll('#board .cell');
  const shown = document.querySelectorAll('#standings tbody tr:not([hidden]):not(.more)').length;
  return {cut: cut, scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
          names: Array.from(document.querySelectorAll('#standings td.team span')).map(lines),
          scoreLines: new Set(tops).size, cells: cells.length, rows: shown,
          gold: Array.from(document.querySelectorAll('#standings th')).map(function(t){ return t.textContent; })};
}"""


def _open(browser: Any, url: str, size: tuple[int, int]) -> Any:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector('body[data-ready="true"]')
    return page


def _fits(page: Any, size: tuple[int, int]) -> dict[str, Any]:
    got = page.evaluate(MEASURE)
    assert got["cut"] == [], got["cut"]
    assert got["scroll"] == [size[0], size[1]]  # nothing scrolls: nothing lies outside
    assert got["names"] and max(got["names"]) <= 2, got["names"]
    assert got["scoreLines"] == 1  # the score line on one line
    assert got["rows"] == 3 and got["gold"][-1] == "gold"  # every team, the gold column
    return got


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_projector_fits_the_screen(browser: Any, played: tuple[Path, str], size: Any) -> None:
    out, base = played
    st = json.loads((out / "schedule.json").read_text(encoding="utf-8"))
    # the round on the largest board (15 x 15), from its placement
    maps = {(m["folder"], r["index"]): r["map"] for m in st["matches"] for r in m["rounds"]}
    first = next(
        i for i, key in enumerate(st["play_order"], start=1) if maps[tuple(key)] == "m5.txt"
    )
    # a slow pace: the placement checks below must be done before turn 1 is drawn, also under load
    page = _open(browser, f"{base}/live?from={first}&pace=0.3&hold=30", size)
    page.wait_for_function("() => document.querySelectorAll('#board .cell').length > 0")
    assert page.text_content("#page-title") == TITLE
    assert page.text_content("#round-title").startswith(f"round {first} of 9 · m5.txt")
    assert page.get_attribute("#board", "data-turn") == "0"  # placement: the sea is drawn
    values = page.eval_on_selector_all("#board .cell", "cs => cs.map(c => c.dataset.value)")
    assert (
        len(values) == 225
        and {"D", "S"} <= set(values)
        and any(v.isdigit() and v != "0" for v in values)
    )
    _fits(page, size)
    nxt = st["play_order"][first]  # the round after it: "next" never names the one on the board
    assert page.text_content("#next").startswith("next: ")
    match, index = st["play_order"][first - 1]
    assert page.get_attribute("#stage", "data-round") == f"{match}/round-{index}"
    assert nxt != st["play_order"][first - 1]
    page.wait_for_function("() => +document.getElementById('board').dataset.turn >= 2")
    captions = page.eval_on_selector_all("#captions li.why", "ls => ls.map(l => l.textContent)")
    assert captions and all(c.startswith((LONG + ":", LATE + ":", VOID + ":")) for c in captions)
    _fits(page, size)
    assert page.errors == []
    page.close()


def test_why_a_boat_stands_still_is_said_in_words(browser: Any, played: tuple[Path, str]) -> None:
    out, base = played
    order = json.loads((out / "schedule.json").read_text(encoding="utf-8"))["play_order"]
    k = next(i for i, (m, _r) in enumerate(order, start=1) if "Ca_Map" in m and "Hai_Au" in m)
    page = _open(browser, f"{base}/live?from={k}&pace=4&hold=30", SIZES[0])
    page.wait_for_function(
        "() => +(document.getElementById('board') || {dataset: {}}).dataset.turn >= 2"
    )
    captions = page.eval_on_selector_all("#captions li", "ls => ls.map(l => l.textContent)")
    assert f"{LATE}: time-out" in captions
    assert any(c.startswith(f"{VOID}: void: MOVE.OUT") for c in captions), captions
    assert page.locator("b").count() == 0  # a name like markup stays text
    page.close()


def _points(out: Path, order: list[list[Any]], counted: int) -> dict[str, int]:
    """Each team's points over the first ``counted`` rounds of the play order (the ledger's)."""
    with Ledger.open(out / LEDGER_FILE, read_only=True) as ledger:
        rounds = {(lr.match, lr.round): lr.result for lr in ledger.rounds()}
    points = dict.fromkeys(TEAMS, 0)
    for match, index in order[:counted]:
        rr = rounds[(match, index)]
        assert rr.seats is not None
        for s in (0, 1):
            points[rr.seats[s]] += rr.points[s]
    return points


def test_the_projector_trails_the_play_and_tells_only_what_it_showed(
    browser: Any, tmp_path: Path
) -> None:
    out = tmp_path / "final"
    out.mkdir()
    port = _free_port()
    web = Background(out, "127.0.0.1", port)
    web.start()
    cfg = _config(tmp_path / "cfg")
    player = threading.Thread(target=run_fake, args=(cfg, out), kwargs={"bots": _bots(0.004)})
    pace = 12
    try:
        page = _open(browser, f"http://127.0.0.1:{port}/live?pace={pace}&hold=0.3", SIZES[1])
        player.start()
        samples: list[tuple[int, int, int, dict[str, int]]] = []
        turns_seen: dict[str, dict[int, float]] = {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            got = page.evaluate(
                "() => [+document.getElementById('stage').dataset.index || 0,"
                " +(document.body.dataset.counted || 0), document.getElementById('stage').dataset.round,"
                " (document.getElementById('board') || {dataset: {}}).dataset.turn,"
                " Array.from(document.querySelectorAll('#standings tbody tr')).map(r => [r.dataset.team, +r.dataset.points])]"
            )
            index, counted, rnd, turn, rows = got  # turn: '' while the round has not begun
            done = len(list(out.glob("*/round-*/replay.jsonl")))
            samples.append((index, counted, done, dict(rows)))
            if turn:
                turns_seen.setdefault(rnd, {}).setdefault(int(turn), time.monotonic())
            assert counted <= index  # the round on the board is not counted before its end
            if counted == 9:
                break
            time.sleep(0.05)
        player.join(30)
        assert samples[-1][1] == 9, samples[-1]  # in the end it has shown every round
        # it trailed the real play: rounds were over while the projector was still before them
        assert any(done >= index + 2 for index, _c, done, _r in samples), samples[::10]
        order = json.loads((out / "schedule.json").read_text(encoding="utf-8"))["play_order"]
        for _index, counted, _done, rows in samples:
            # the standings on the screen are those of the rounds shown (those of one round
            # fewer for the moment it takes to fetch them once a round's end is shown)
            if rows:
                told = (_points(out, order, counted), _points(out, order, max(0, counted - 1)))
                assert rows in told, (counted, rows)
        # each round took at least its turns at the pace (never faster than the room can follow;
        # the play itself is ten times faster).  A turn is timed when a poll first sees it, so
        # a poll held up by a busy machine sees the first turn late: one turn is allowed for it
        for rnd, seen in turns_seen.items():
            turns = [t for t in seen if t >= 1]
            if rnd and len(turns) >= 6:
                span = seen[max(turns)] - seen[min(turns)]
                assert span >= 0.8 * (max(turns) - min(turns) - 1) / pace, (rnd, span)
        saved = json.loads((out / "standings.json").read_text(encoding="utf-8"))["standings"]
        page.wait_for_function(
            "() => document.getElementById('shown-note').textContent.startsWith('final')"
        )
        shown = page.eval_on_selector_all(
            "#standings tbody tr", "rs => rs.map(r => [r.dataset.team, +r.dataset.points])"
        )
        assert shown == [[r["team"], r["points"]] for r in saved]
        assert page.errors == []
    finally:
        web.stop()
        player.join(30)


#: Every caption line, and the "next:" line, as the room can read them: what lies outside
#: its box (clipped by it) or is cut short with an ellipsis.
UNREAD = """() => {
  const ul = document.getElementById('captions'), box = ul.getBoundingClientRect(), out = [];
  const cut = function(e){ return e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1; };
  ul.querySelectorAll('li').forEach(function(li){ const r = li.getBoundingClientRect();
    if(r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5){ out.push('clipped: ' + li.textContent); }
    li.querySelectorAll('.what').forEach(function(w){ if(cut(w)){ out.push('cut: ' + li.textContent); } });
  });
  const nx = document.getElementById('next');
  if(cut(nx)){ out.push('cut: ' + nx.textContent); }
  return {unread: out, captions: Array.from(ul.querySelectorAll('li')).map(function(l){ return l.textContent; }),
          next: nx.textContent};
}"""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_caption_and_the_next_round_are_read_whole(
    browser: Any, played: tuple[Path, str], size: Any
) -> None:
    """The end of a round where both boats stood still: its result and why each boat stood
    still, all on the screen; the next round's two teams named in full."""
    out, base = played
    order = json.loads((out / "schedule.json").read_text(encoding="utf-8"))["play_order"]
    k = next(
        i
        for i, (m, _r) in enumerate(order[:-1], start=1)
        if "Ca_Map" in m and "Hai_Au" in m and "Doi_Rong" in order[i][0]
    )
    page = _open(browser, f"{base}/live?from={k}&pace=60&hold=60", size)
    page.wait_for_selector("#captions li.result")
    got = page.evaluate(UNREAD)
    assert got["unread"] == [], got
    captions = got["captions"]
    assert captions[0].startswith("a draw") and len(captions) == 3, captions
    assert f"{LATE}: time-out" in captions
    assert any(c.startswith(f"{VOID}: void: MOVE.OUT") for c in captions), captions
    assert LONG in got["next"] and got["next"].startswith("next: ")
    assert page.errors == []
    page.close()


def test_a_new_final_in_a_folder_of_the_same_name_starts_at_its_beginning(
    browser: Any, played: tuple[Path, str], tmp_path: Path
) -> None:
    """The rehearsal yesterday, the final today, on the same laptop and port, into a fresh
    folder of the same name: the projector does not go on from where the rehearsal ended
    (it would wait at the last round and show none of the others)."""
    from tests.tournament._helpers import StopAfter

    rehearsal, _ = played
    port = _free_port()
    context = browser.new_context(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    web = Background(rehearsal, "127.0.0.1", port)
    web.start()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/live")  # the rehearsal, over: its last round
        page.wait_for_function("() => document.getElementById('stage').dataset.index === '9'")
        page.close()
    finally:
        web.stop()
    with Ledger.open(rehearsal / LEDGER_FILE, read_only=True) as ledger:
        then = ledger.created_at
    while time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) <= then[:19]:
        time.sleep(0.05)  # a ledger made in another second than the rehearsal's
    final = tmp_path / rehearsal.name
    cfg = _config(tmp_path / "cfg")
    stopper = StopAfter(fake_bots(TEAMS), calls=12)
    report = run_fake(
        cfg, final, jobs=1, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r)
    )
    assert not report.complete
    web = Background(final, "127.0.0.1", port)
    web.start()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/live")
        page.wait_for_selector('body[data-ready="true"]')
        st = json.loads(page.text_content("#page-data") or "{}")["state"]
        first = 1 + next(i for i, r in enumerate(st["rounds"]) if r["status"] != "done")
        page.wait_for_function("() => document.getElementById('stage').dataset.index !== undefined")
        assert page.get_attribute("#stage", "data-index") == str(first)
        assert first < 9
    finally:
        web.stop()
        context.close()
