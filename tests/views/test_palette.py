"""One team palette everywhere: seat A blue and seat B red on every page and the terminal."""

from __future__ import annotations

import re
from pathlib import Path

from judge.views import board, palette
from judge.views.html import replay_html
from judge.views.replayfile import load

#: The colours the live pages used to give the seats (red and yellow), before one palette.
OLD_LIVE = ("#e63946", "#ffd166")


def test_the_terminal_and_the_replays_use_the_palette(match_dir: Path) -> None:
    assert board.TEAM_COLOURS == palette.FILL
    assert [s.split()[-1] for s in board.NAME_STYLES] == list(palette.TEXT)
    page = replay_html(load(match_dir).rounds)
    colours = re.search(r'"colours":\[(.*?)\]', page)
    assert colours is not None and colours.group(1) == ",".join(f'"{c}"' for c in palette.FILL)


def test_the_live_pages_and_the_play_page_use_the_palette() -> None:
    import starlette  # noqa: F401  (the web extra: a broken install must fail)

    from judge.web import pages, projector

    state = {"name": "t", "title": "t", "rounds": [], "total": 0, "done": 0, "complete": False}
    for page in (
        pages.play_page(),
        pages.editor_page("5 5 20\n0 0 0 0\n0 0\n"),
        pages.round_page("m/round-1", "/replay?p=m"),
        projector.projector_page("", state, 5.0, list(palette.FILL)),
    ):
        for c in palette.FILL:
            assert c in page
        for old in OLD_LIVE:
            assert old not in page.split("<script")[-1].split("</script>")[0]  # the board's JS
