"""The results pages say what went wrong for each team: failed runs and void moves, with why.

A final where one team writes only void moves (a cell outside the sea) and
another times out now and then, played on the fake sandbox: index.html and
the live tournament page (its state) both name the void moves beside the
time-outs, per team and per round, with the reason, under a legend; "none" is
not drawn as an error; the tournament page gives each round's map and its gold
in the order index.html gives it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import httpx2  # noqa: F401
import pytest
import starlette  # noqa: F401  (the web extra: a broken install must fail)
from starlette.testclient import TestClient  # noqa: E402

from judge.web.app import Site  # noqa: E402
from tests.tournament._helpers import fake_bots, make_config, run_fake

TEAMS = ["Đội Rồng Biển", "Cá Mập", "Alpha"]


def _void_writer(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    """Places itself well, then always asks for a cell outside the sea."""
    if map_inp.split("\n")[1].split() == ["0", "0", "0", "0"]:
        return fake_bots(["x"])["x"](map_inp, state)
    return b"99 99\n", state, "OK"


@pytest.fixture(scope="module")
def final(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    teams = [{"name": n, "bot": "greedy", "map": f"m{i + 1}"} for i, n in enumerate(TEAMS)]
    cfg = make_config(root / "cfg", teams=teams, turns=6, title="Chung kết 10A")
    bots = fake_bots(TEAMS)
    bots["Đội Rồng Biển"] = _void_writer
    greedy, calls = bots["Cá Mập"], {"n": 0}

    def sometimes_late(map_inp: str, state: bytes | None) -> Any:
        calls["n"] += 1
        return (None, state, "TLE") if calls["n"] % 4 == 0 else greedy(map_inp, state)

    bots["Cá Mập"] = sometimes_late
    assert run_fake(cfg, root / "final", bots=bots).complete
    return root / "final"


def _row(page: str, team: str) -> str:
    """The standings row of ``team`` in index.html."""
    for row in re.findall(r"<tr data-rank.*?</tr>", page):
        if f"<td>{html.escape(team)}</td>" in row:
            return row
    raise AssertionError(f"no row for {team}")


def test_index_html_shows_void_moves_beside_the_failed_runs(final: Path) -> None:
    page = (final / "index.html").read_text(encoding="utf-8")
    assert "<title>Chung kết 10A</title>" in page
    void = _row(page, "Đội Rồng Biển")
    assert 'data-verdict="void"' in void and "the cell is outside the map" in void
    late = _row(page, "Cá Mập")
    assert 'data-verdict="TLE"' in late and 'data-verdict="void"' not in late
    fine = _row(page, "Alpha")
    assert '<span class="none">none</span>' in fine and "badge" not in fine
    # every round of the void writer names its void moves, with the reason
    rounds = re.findall(r'<li><a class="round-link".*?</li>', page)
    played = [r for r in rounds if "Đội Rồng Biển" in r]
    assert len(played) == 6 and all("void moves: " in r for r in rounds if "v-void" in r)
    assert all('data-verdict="void"' in r and "outside the map" in r for r in played)
    # a legend says what each badge means
    legend = re.search(r'<ul class="legend".*?</ul>', page)
    assert legend is not None
    for word in ("TLE", "RE", "MLE", "OLE", "IE", "void"):
        assert f">{word}</span>" in legend.group(0)


def test_the_tournament_page_shows_void_moves_maps_and_the_same_gold_order(final: Path) -> None:
    client = TestClient(Site(final.parent).app())
    st = client.get("/api/tournament", params={"p": "final"}).json()
    assert st["title"] == "Chung kết 10A"
    assert st["failures"]["Đội Rồng Biển"]["badges"][0][0] == "void"
    assert st["failures"]["Đội Rồng Biển"]["void"][0][0] == "the cell is outside the map"
    assert "Alpha" not in st["failures"]
    index = (final / "index.html").read_text(encoding="utf-8")
    for r in st["rounds"]:
        assert r["map"] and r["map"].endswith(".txt")
        result = json.loads((final / r["match"] / "result.json").read_text(encoding="utf-8"))
        listed = result["rounds"][r["index"] - 1]
        assert r["teams"] == result["teams"] and r["team_gold"] == listed["gold"]
        g = r["team_gold"]
        assert f"gold {g[0]}&ndash;{g[1]}" in index  # the order index.html gives
        if "Đội Rồng Biển" in r["seats"]:
            assert r["failures"]["Đội Rồng Biển"]["badges"][0][0] == "void"
    page = client.get("/tournament", params={"p": "final"}).text
    assert "void move: the program ran, but its move did not count" in page  # the legend


def test_the_front_page_of_a_served_tournament_is_the_tournament(final: Path) -> None:
    client = TestClient(Site(final, tournament_root=True).app())
    front = client.get("/").text
    assert 'data-page="tournament"' in front and "projector view" in front
    assert 'data-page="index"' in client.get("/index").text
    assert 'data-page="index"' in TestClient(Site(final.parent).app()).get("/").text
