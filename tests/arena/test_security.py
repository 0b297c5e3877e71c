"""The arena's security, each measure through HTTP: CSRF, throttled logins, sessions a password
change ends, hashed secrets, text that stays text, files that stay private, headers."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from judge.arena.store import Status
from judge.arena.submissions import set_status
from tests.arena.conftest import (
    TEAMS,
    Made,
    Served,
    bearer,
    csrf_of,
    make,
    page_data,
    python_bot_zip,
)

TEAM, OTHER, EVIL = TEAMS


def test_passwords_are_argon2id_and_tokens_are_stored_hashed(served: Served, made: Made) -> None:
    store = served.arena.store
    hashes = [r[0] for r in store.rows("SELECT password_hash FROM accounts")]
    assert hashes and all(h.startswith("$argon2id$") for h in hashes)
    raw = (made.root / "arena.sqlite").read_bytes()
    for c in made.creds.values():
        assert c.password.encode() not in raw
        if c.token:
            assert c.token.encode() not in raw
    tokens = [r[0] for r in store.rows("SELECT token_hash FROM accounts WHERE role = 'team'")]
    assert all(len(t) == 64 for t in tokens)  # SHA-256, hex


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("/login", {"team": TEAM, "password": "x"}),
        ("/logout", {}),
        ("/password", {"current": "x", "new": "y" * 10}),
        ("/team/token", {}),
    ],
)
def test_a_post_without_its_csrf_token_is_403(
    served: Served, path: str, fields: dict[str, str]
) -> None:
    c = served.login(TEAM)
    for csrf in (None, "wrong"):
        data = dict(fields) if csrf is None else {**fields, "csrf": csrf}
        r = c.post(path, data=data)
        assert r.status_code == 403, (path, csrf)
    # still logged in: none of them did anything
    assert c.get("/team").status_code == 200


def test_an_upload_form_without_its_csrf_token_is_403_and_records_nothing(served: Served) -> None:
    c = served.login(TEAM)
    files = {"bot": ("greedy.zip", python_bot_zip())}
    assert c.post("/team/upload", files=files).status_code == 403
    assert c.post("/team/upload", data={"csrf": "nope"}, files=files).status_code == 403
    assert served.arena.store.versions() == []
    assert list((served.made.root / "tmp").iterdir()) == []
    page = c.get("/team").text
    ok = c.post("/team/upload", data={"csrf": csrf_of(page)}, files=files)
    assert ok.status_code == 303 and ok.headers["location"] == "/team?uploaded=1"


def test_a_form_from_another_site_is_refused(served: Served) -> None:
    c = served.login(TEAM)
    csrf = csrf_of(c.get("/team").text)
    r = c.post("/logout", data={"csrf": csrf}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    assert (
        c.post("/logout", data={"csrf": csrf}, headers={"origin": "http://arena.test"}).status_code
        == 303
    )


def test_logins_are_held_back_per_team_then_per_address(tmp_path: Path) -> None:
    made = make(
        tmp_path,
        settings={
            "rate_limits.login_failures_per_team": 3,
            "rate_limits.login_failures_per_address": 5,
        },
    )
    s = Served(made)
    try:
        c = s.client()

        def attempt(team: str, password: str, ip_client=c) -> int:  # type: ignore[no-untyped-def]
            csrf = csrf_of(ip_client.get("/login").text)
            return int(
                ip_client.post(
                    "/login", data={"team": team, "password": password, "csrf": csrf}
                ).status_code
            )

        assert [attempt(TEAM, "guess") for _ in range(3)] == [401, 401, 401]
        assert (
            attempt(TEAM, made.password(TEAM)) == 429
        )  # even the right one, until the window passes
        r = c.post(
            "/login", data={"team": TEAM, "password": "x", "csrf": csrf_of(c.get("/login").text)}
        )
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
        # the same address guessing other teams: held back too, at its own count
        assert [attempt(OTHER, "guess") for _ in range(2)] == [401, 401]
        assert attempt(OTHER, made.password(OTHER)) == 429
        assert attempt(EVIL, made.password(EVIL)) == 429
    finally:
        s.close()


def test_a_rival_guessing_a_teams_name_cannot_lock_the_team_out(tmp_path: Path) -> None:
    """Wrong passwords from one machine hold that machine back, not the team: the team
    logs in from its own; only guesses from many machines hold the team back everywhere."""
    made = make(
        tmp_path,
        settings={
            "rate_limits.login_failures_per_team": 3,
            "rate_limits.login_failures_per_team_everywhere": 7,
            "rate_limits.login_failures_per_address": 5,
        },
    )
    s = Served(made)
    try:

        def attempt(address: str, password: str) -> int:
            c = s.client(address)
            csrf = csrf_of(c.get("/login").text)
            return int(
                c.post(
                    "/login", data={"team": TEAM, "password": password, "csrf": csrf}
                ).status_code
            )

        assert [attempt("10.0.0.66", "guess") for _ in range(4)] == [401, 401, 401, 429]
        assert attempt("10.0.0.66", made.password(TEAM)) == 429  # the rival's machine waits
        assert attempt("10.0.0.7", made.password(TEAM)) == 303  # the team's own does not
        # guesses from ever new machines: the team is held back everywhere at the team's count
        assert [attempt(f"10.0.1.{i}", "guess") for i in range(4)] == [401] * 4
        assert attempt("10.0.0.7", made.password(TEAM)) == 429
    finally:
        s.close()


def test_a_password_change_ends_every_session_of_the_team(served: Served, made: Made) -> None:
    laptop, phone = served.login(TEAM), served.login(TEAM)
    bystander = served.login(OTHER)
    assert phone.get("/team").status_code == 200
    csrf = csrf_of(laptop.get("/team").text)
    r = laptop.post(
        "/password", data={"csrf": csrf, "current": made.password(TEAM), "new": "a new secret"}
    )
    assert r.status_code == 303
    assert laptop.get("/team").status_code == 200  # the one who changed it: a new session
    assert phone.get("/team").status_code == 303  # logged out
    assert phone.get("/team").headers["location"] == "/login"
    assert bystander.get("/team").status_code == 200
    c = served.client()
    csrf = csrf_of(c.get("/login").text)
    assert (
        c.post(
            "/login", data={"team": TEAM, "password": made.password(TEAM), "csrf": csrf}
        ).status_code
        == 401
    )
    assert served.login(TEAM, "a new secret").get("/team").status_code == 200


def test_wrong_current_passwords_are_held_back_as_wrong_logins_are(tmp_path: Path) -> None:
    made = make(tmp_path, settings={"rate_limits.login_failures_per_team": 3})
    s = Served(made)
    try:
        team = s.login(TEAM)

        def change(current: str) -> int:
            csrf = csrf_of(team.get("/team").text)
            r = team.post(
                "/password", data={"csrf": csrf, "current": current, "new": "a new secret"}
            )
            return int(r.status_code)

        assert [change("guess") for _ in range(3)] == [400, 400, 400]
        assert change(made.password(TEAM)) == 429  # even the right one, until the window passes
        # the guesses counted for the login page too: the open session gave no more tries
        c = s.client()
        csrf = csrf_of(c.get("/login").text)
        login = c.post("/login", data={"team": TEAM, "password": made.password(TEAM), "csrf": csrf})
        assert login.status_code == 429
        assert team.get("/team").status_code == 200  # nothing changed: the session stays
    finally:
        s.close()


def test_a_new_token_replaces_the_old_one(served: Served, made: Made) -> None:
    c = served.login(TEAM)
    page = c.post("/team/token", data={"csrf": csrf_of(c.get("/team").text)}).text
    new = page.split("no longer works): ", 1)[1].split("<", 1)[0]
    api = served.client()
    assert api.get("/api/submissions", headers=bearer(made.token(TEAM))).status_code == 401
    assert api.get("/api/submissions", headers=bearer(new)).status_code == 200


def test_names_file_names_and_bot_output_are_text(served: Served, made: Made) -> None:
    r = served.client().post(
        "/api/submissions",
        headers=bearer(made.token(EVIL)),
        files={"bot": ("<script>alert(2)</script>.zip", python_bot_zip())},
    )
    vid = r.json()["id"]
    served.arena.store.write(
        lambda conn: set_status(
            conn,
            vid,
            Status.REJECTED,
            "<b onmouseover=x>crash</b>",
            "</script><script>alert(3)</script>",
        )
    )
    pages = [served.login(EVIL).get("/team").text, served.login("organiser").get("/organiser").text]
    for page in pages:
        for raw in ("<img src=x", "<script>alert", "</script><script>", "<b onmouseover"):
            assert raw not in page, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[0]  # the title, escaped


@pytest.mark.parametrize(
    "path",
    [
        "/arena.sqlite",
        "/credentials.csv",
        "/arena.yaml",
        "/store",
        "/files/arena.sqlite",
        "/static/../credentials.csv",
        "/team/versions/1/../../../credentials.csv",
        "/team/versions/1/config",
        "/organiser/teams/1/versions/1/..%2F..%2Farena.sqlite",
    ],
)
def test_the_judges_own_files_are_never_served(served: Served, made: Made, path: str) -> None:
    served.client().post(
        "/api/submissions",
        headers=bearer(made.token(TEAM)),
        files={"bot": ("g.zip", python_bot_zip())},
    )
    secret = made.password(TEAM).encode()
    for c in (served.client(), served.login(TEAM), served.login("organiser")):
        r = c.get(path)
        assert r.status_code in (303, 403, 404), (path, r.status_code)
        assert secret not in r.content and b"SQLite format" not in r.content


def test_every_answer_carries_the_security_headers(served: Served, made: Made) -> None:
    c = served.client()
    answers = [
        c.get("/login"),
        c.get("/nowhere"),
        c.get("/api/submissions/1"),
        c.post("/api/submissions", headers={"content-length": str(10**9)}),
        served.login(TEAM).get("/team"),
    ]
    for r in answers:
        assert "default-src 'none'" in r.headers["content-security-policy"], r.status_code
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["cache-control"] == "no-store"
    cookie = answers[-1]
    assert cookie.status_code == 200
    assert "strict-transport-security" not in cookie.headers  # plain HTTP: no HSTS


def test_under_tls_answers_ask_for_https_only(served: Served) -> None:
    from starlette.testclient import TestClient

    served.site.secure = True
    c = TestClient(served.site.app(), base_url="https://arena.test", follow_redirects=False)
    for r in (c.get("/login"), c.get("/nowhere")):
        assert r.headers["strict-transport-security"].startswith("max-age=")
    assert "secure" in c.get("/login").headers["set-cookie"].lower()


def test_the_session_cookie_is_httponly_and_samesite(served: Served, made: Made) -> None:
    c = served.client()
    csrf = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"team": TEAM, "password": made.password(TEAM), "csrf": csrf})
    cookie = r.headers["set-cookie"].lower()
    assert "arena_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie


def test_a_team_sees_its_own_files_only_and_the_organiser_everything(
    served: Served, made: Made
) -> None:
    api = served.client()
    for team in (TEAM, OTHER):
        r = api.post(
            "/api/submissions",
            headers=bearer(made.token(team)),
            files={
                "bot": (f"{team}.zip", python_bot_zip()),
                "source": ("src.zip", f"source of {team}".encode()),
                "report": ("report.pdf", f"report of {team}".encode()),
            },
        )
        assert r.status_code == 202
        vid = r.json()["id"]
        served.arena.store.write(
            lambda conn, vid=vid, team=team: set_status(
                conn, vid, Status.ACCEPTED, "ok", f"log of {team}"
            )
        )
    mine = served.login(TEAM)
    assert mine.get("/team/versions/1/source").content == f"source of {TEAM}".encode()
    page = page_data(mine.get("/team").text)
    assert [v["log"] for v in page["state"]["versions"]] == [f"log of {TEAM}"]
    assert OTHER not in json.dumps(page, ensure_ascii=False)
    assert mine.get("/organiser").status_code == 403
    assert mine.get("/organiser/archive.zip").status_code == 403
    other_id = next(t.id for t in served.arena.store.teams() if t.name == OTHER)
    assert mine.get(f"/organiser/teams/{other_id}/versions/1/source").status_code == 403
    organiser = served.login("organiser")
    assert (
        organiser.get(f"/organiser/teams/{other_id}/versions/1/report").content
        == f"report of {OTHER}".encode()
    )
    archive = organiser.get("/organiser/archive.zip")
    assert archive.status_code == 200
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zf:
        names = set(zf.namelist())
        assert {
            f"{TEAM}/{TEAM}.zip",
            f"{TEAM}/source.zip",
            f"{TEAM}/report.pdf",
            f"{OTHER}/report.pdf",
            "versions.csv",
        } <= names
        assert zf.read(f"{OTHER}/source.zip") == f"source of {OTHER}".encode()
        index = zf.read("versions.csv").decode("utf-8-sig")
        assert (
            TEAM in index and "_img src=x onerror=alert(1)_" not in names
        )  # no version: no folder
    assert list((made.root / "tmp").iterdir()) == []  # the archive made for the download is gone


def test_the_store_refuses_a_second_server_on_the_same_folder(served: Served, made: Made) -> None:
    from judge.arena import ArenaError
    from judge.arena.folder import open_arena

    with pytest.raises(ArenaError, match="another judge arena serve"):
        open_arena(made.root)
    conn = sqlite3.connect(made.root / "arena.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
