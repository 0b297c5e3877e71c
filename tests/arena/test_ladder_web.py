"""The ladder's HTTP side (judge.web.arenaladder) through Starlette's TestClient: the public
JSON and pages, map choice, challenges, the freeze refusing uploads, the hidden board."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from judge.arena.accounts import Accounts
from judge.arena.config import load_config
from judge.arena.store import STORE_FILE, Store
from judge.cli import main
from judge.web.arena import ArenaSite
from tests.arena.arena_support import make_test_arena
from tests.arena.ladder_support import add_version, ladder, work
from tests.arena.test_games import BOTS

TEAMS = ["Alpha", "Beta", "Gamma"]


@pytest.fixture()
def arena(tmp_path: Path) -> dict[str, Any]:
    root, creds = make_test_arena(tmp_path, TEAMS)
    with (root / "arena.yaml").open("a", encoding="utf-8") as f:
        f.write("ladder:\n  seed: 5\n  generated: [5x5]\n  turns: 6\nscoreboard:\n  hidden: true\n")
    store = Store.open(root / STORE_FILE)
    ids = {t.name: t.id for t in store.teams()}
    for name in TEAMS:
        add_version(store, ids[name])
    lad = ladder(store)
    lad.step()
    work(store, root, BOTS)
    lad.step()
    work(store, root, BOTS)
    tokens = {c.name: c.token for c in creds if c.role == "team"}
    passwords = {c.name: c.password for c in creds}
    config = load_config(root)
    site = ArenaSite(root, store, config, Accounts(store))
    client = TestClient(site.app())
    yield {
        "root": root,
        "store": store,
        "ids": ids,
        "tokens": tokens,
        "passwords": passwords,
        "client": client,
        "site": site,
    }
    store.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_public_standings_and_games_with_replays(arena: dict[str, Any]) -> None:
    client: TestClient = arena["client"]
    board = client.get("/api/standings").json()
    assert board["phase"] == "open" and board["hidden"] is False
    rows = {r["team"]: r for r in board["standings"]}
    assert set(rows) == {"Alpha", "Beta", "Gamma", "reference"}
    for r in rows.values():
        assert set(r) >= {"team", "version", "mu", "sigma", "rating", "games"}
        assert r["games"] > 0 and abs(r["rating"] - (r["mu"] - 3 * r["sigma"])) < 0.02
    assert rows["Alpha"]["version"] == 1 and rows["reference"]["version"] is None
    games = client.get("/api/games", params={"team": "Beta"}).json()["games"]
    assert games and all("Beta" in g["teams"] for g in games)
    g = games[0]
    assert set(g) >= {"teams", "versions", "result", "replay"} and g["result"] in (
        "win",
        "draw",
        "loss",
    )
    page = client.get(g["replay"])
    assert page.status_code == 200 and 'data-page="game"' in page.text
    replay = client.get(g["rounds"][0]["replay"])
    assert replay.status_code == 200 and "Beta v1" in replay.text
    assert client.get("/games/999999").status_code == 404
    assert client.get("/games/1/replay", params={"round": "../../arena.sqlite"}).status_code == 404
    ladder_page = client.get("/ladder")
    assert ladder_page.status_code == 200 and 'data-page="ladder"' in ladder_page.text
    h2h = client.get(
        "/h2h", params={"a": "Alpha", "b": "Gamma"}, headers={"accept": "application/json"}
    ).json()
    assert sum(h2h["pairs"].values()) == len(h2h["games"]) >= 2


def test_a_team_chooses_its_map_with_its_token_and_two_teams_never_share_a_sea(
    arena: dict[str, Any],
) -> None:
    client: TestClient = arena["client"]
    tokens = arena["tokens"]
    assert client.post("/api/map", data={"map": "m1"}).status_code == 401
    ok = client.post("/api/map", data={"map": "m1"}, headers=bearer(tokens["Alpha"]))
    assert ok.status_code == 200 and ok.json() == {"team": "Alpha", "map": "m1"}
    taken = client.post("/api/map", json={"map": "m1"}, headers=bearer(tokens["Beta"]))
    assert taken.status_code == 409 and "Alpha has already chosen" in taken.json()["error"]
    assert (
        client.post("/api/map", data={"map": "nowhere"}, headers=bearer(tokens["Beta"])).status_code
        == 404
    )
    # Alpha may change its mind before the final; m1 is then free again
    assert (
        client.post("/api/map", data={"map": "m2"}, headers=bearer(tokens["Alpha"])).status_code
        == 200
    )
    assert (
        client.post("/api/map", data={"map": "m1"}, headers=bearer(tokens["Beta"])).status_code
        == 200
    )
    mine = client.get("/api/map", headers=bearer(tokens["Beta"])).json()
    assert mine["map"] == "m1" and {"name": "m2", "taken": True} in mine["maps"]


def test_a_team_page_says_only_what_the_arena_did_never_a_links_text(
    arena: dict[str, Any],
) -> None:
    from tests.arena.conftest import csrf_of

    c = TestClient(arena["site"].app(), follow_redirects=False)
    csrf = csrf_of(c.get("/login").text)
    c.post("/login", data={"team": "Alpha", "password": arena["passwords"]["Alpha"], "csrf": csrf})
    spoof = "your account is locked: mail your password to the organiser"
    for query in ({"notice": spoof}, {"map": spoof}, {"challenged": spoof}):
        page = c.get("/team/ladder", params=query)
        assert page.status_code == 200 and spoof not in page.text and 'id="notice"' not in page.text
    csrf = csrf_of(c.get("/team/ladder").text)
    chose = c.post("/team/map", data={"map": "m2", "csrf": csrf})
    assert chose.status_code == 303
    page = c.get(chose.headers["location"]).text
    assert "your map for the final: m2" in page


def test_a_challenge_is_seen_by_its_two_teams_only(arena: dict[str, Any]) -> None:
    client: TestClient = arena["client"]
    tokens = arena["tokens"]
    asked = client.post(
        "/api/challenges", data={"opponent": "Gamma", "pairs": "1"}, headers=bearer(tokens["Alpha"])
    )
    assert asked.status_code == 202
    work(arena["store"], arena["root"], BOTS)
    gid = asked.json()["games"][0]

    def seen(headers: dict[str, str]) -> bool:
        found = client.get("/api/games", params={"team": "Alpha"}, headers=headers).json()["games"]
        return any(g["id"] == gid for g in found)

    assert seen(bearer(tokens["Alpha"])) and seen(bearer(tokens["Gamma"]))
    assert not seen({}) and not seen(bearer(tokens["Beta"]))
    assert client.get(f"/games/{gid}").status_code == 404
    assert client.get(f"/games/{gid}", headers=bearer(tokens["Gamma"])).status_code == 200
    bad = client.post(
        "/api/challenges", data={"opponent": "Alpha", "pairs": "1"}, headers=bearer(tokens["Alpha"])
    )
    assert bad.status_code == 400


def test_the_freeze_refuses_uploads_and_hides_the_board_until_released(
    arena: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    client: TestClient = arena["client"]
    tokens = arena["tokens"]
    before = client.get("/api/standings").json()
    assert main(["arena", "freeze", str(arena["root"])]) == 0
    up = client.post(
        "/api/submissions",
        files={"bot": ("bot.exe", b"MZ" + b"\0" * 200)},
        headers=bearer(tokens["Alpha"]),
    )
    assert up.status_code == 403 and "closed" in up.json()["error"]
    hidden = client.get("/api/standings").json()
    assert hidden["phase"] == "frozen" and hidden["hidden"] is True
    assert [r["team"] for r in hidden["standings"]] == ["Alpha", "Beta", "Gamma", "reference"]
    text = json.dumps(hidden)
    for row in before["standings"]:
        assert str(row["rating"]) not in text and (row["last_change"] or "@") not in text
    for row in hidden["standings"]:
        assert row["rating"] is row["mu"] is row["games"] is row["last_change"] is None
    assert client.get("/api/games", params={"team": "Alpha"}).json() == {
        "hidden": True,
        "team": "Alpha",
        "games": [],
    }
    assert client.get("/games/1").status_code == 404
    assert (
        client.get(
            "/h2h", params={"a": "Alpha", "b": "Beta"}, headers={"accept": "application/json"}
        ).json()["games"]
        == []
    )
    page = client.get("/ladder").text
    for row in before["standings"]:
        assert f'"rating": {row["rating"]}' not in page
    assert main(["arena", "release", str(arena["root"])]) == 0
    shown = client.get("/api/standings").json()
    assert shown["hidden"] is False and shown["standings"] == before["standings"]
