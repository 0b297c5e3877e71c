"""The arena's JSON API and uploads, through HTTP (Starlette's TestClient; no check runs here).

POST /api/submissions and GET /api/submissions/ID as docs/arena.md gives them:
every status the API promises (202, 400, 401, 403, 404, 413, 429), the zip and
PE checks, the body cap, the store by content hash.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import zipfile
from pathlib import Path

from judge.arena.store import Phase, Status
from judge.arena.submissions import set_status
from tests.arena.conftest import (
    Made,
    Served,
    bearer,
    csrf_of,
    make,
    pe_bytes,
    python_bot_zip,
    zip_of,
)

TEAM, OTHER = "Rồng Biển", "Cá Mập"


def _post(served: Served, token: str | None, files: dict[str, tuple[str, bytes]]) -> object:
    headers = bearer(token) if token is not None else {}
    return served.client().post("/api/submissions", headers=headers, files=files)


def _everything_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_an_upload_is_queued_and_its_owner_reads_it(served: Served, made: Made) -> None:
    r = _post(served, made.token(TEAM), {"bot": ("greedy.zip", python_bot_zip())})
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["status"] == "queued" and isinstance(body["id"], int) and body["version"] == 1
    assert served.woken == 1  # the workers were told at once
    got = served.client().get(f"/api/submissions/{body['id']}", headers=bearer(made.token(TEAM)))
    assert got.status_code == 200
    data = got.json()
    assert {k: data[k] for k in ("id", "team", "version", "status", "reason", "log")} == {
        "id": body["id"],
        "team": TEAM,
        "version": 1,
        "status": "queued",
        "reason": "",
        "log": "",
    }
    # stored under its content hash, never under the name the client gave
    v = served.version(body["id"])
    assert v.path == f"store/{v.sha256[:2]}/{v.sha256}/bot.zip" and v.original_name == "greedy.zip"
    assert (made.root / v.path).read_bytes() == python_bot_zip()
    assert os.stat(made.root / v.path).st_mode & 0o077 == 0  # the team's own file


def test_no_token_or_a_wrong_one_is_401(served: Served, made: Made) -> None:
    files = {"bot": ("greedy.zip", python_bot_zip())}
    for token in (None, "arena_not-a-token", "", made.token(TEAM)[:-2]):
        r = _post(served, token, files)
        assert r.status_code == 401, token
        assert "token" in r.json()["error"]
    # a cookie is no way in to the API
    c = served.login(TEAM)
    assert c.post("/api/submissions", files=files).status_code == 401
    assert served.arena.store.versions() == []


def test_another_teams_submission_answers_404_as_a_missing_one(served: Served, made: Made) -> None:
    r = _post(served, made.token(TEAM), {"bot": ("greedy.zip", python_bot_zip())})
    vid = r.json()["id"]
    c = served.client()
    other = c.get(f"/api/submissions/{vid}", headers=bearer(made.token(OTHER)))
    missing = c.get("/api/submissions/99999", headers=bearer(made.token(OTHER)))
    assert other.status_code == missing.status_code == 404
    assert other.json() == missing.json()
    assert c.get(f"/api/submissions/{vid}").status_code == 401
    listed = c.get("/api/submissions", headers=bearer(made.token(OTHER))).json()
    assert listed["submissions"] == []


def test_a_32_bit_exe_a_gui_exe_and_other_files_are_400_saying_which(
    served: Served, made: Made
) -> None:
    cases = {
        "bot32.exe": (pe_bytes(machine=0x14C, magic=0x10B), "32-bit"),
        "gui.exe": (pe_bytes(subsystem=2), "GUI"),
        "notes.txt": (b"int main(){}", "neither a 64-bit .exe"),
        "fake.exe": (b"MZ" + b"\0" * 100, "not a 64-bit Windows program"),
        "empty.zip": (zip_of({"readme.txt": "hello"}), "no bot in it"),
    }
    for name, (data, words) in cases.items():
        r = _post(served, made.token(TEAM), {"bot": (name, data)})
        assert r.status_code == 400, name
        assert words in r.json()["error"] and name in r.json()["error"], r.json()
    assert _post(served, made.token(TEAM), {"source": ("s.zip", b"x")}).status_code == 400
    assert served.arena.store.versions() == []
    assert list((made.root / "tmp").iterdir()) == []  # nothing left of the refused uploads


def test_a_64_bit_console_exe_is_taken_and_a_zip_of_one_with_its_dlls(
    served: Served, made: Made
) -> None:
    r = _post(served, made.token(TEAM), {"bot": ("bot.exe", pe_bytes())})
    assert r.status_code == 202
    assert served.version(r.json()["id"]).kind == "exe"
    bundle = zip_of({"Release/bot.exe": pe_bytes(), "Release/libstdc++-6.dll": b"MZ"})
    r = _post(served, made.token(OTHER), {"bot": ("release.zip", bundle)})
    assert r.status_code == 202 and served.version(r.json()["id"]).kind == "zip"


def test_a_zip_bomb_and_a_zip_slip_are_refused_and_write_nothing_outside(
    served: Served, made: Made, tmp_path: Path
) -> None:
    before = _everything_under(tmp_path)
    bot = {"bot/bot.yaml": "command: [python3, bot.py]\n", "bot/bot.py": "print(1)\n"}
    hostile = {
        "bomb": (zip_of({**bot, "bot/zeros": b"\0" * (3 << 20)}), "unpacks to more than 1 MiB"),
        "slip": (zip_of({**bot, "../../evil.txt": "x"}), "leads out of the folder"),
        "absolute": (zip_of({**bot, "/tmp/evil.txt": "x"}), "absolute path"),
        "drive": (zip_of({**bot, "C:\\evil.txt": "x"}), "absolute path"),
        "link": (zip_of({**bot, "bot/link": "/etc/passwd"}, {"bot/link": 0o120777}), "is a link"),
        "device": (zip_of({**bot, "bot/dev": ""}, {"bot/dev": 0o020644}), "a device"),
        "twice": (zip_of({**bot, "bot/BOT.PY": "x"}), "twice"),
        "file and folder": (
            zip_of({**bot, "bot/lib": "x", "bot/lib/x.py": "y"}),
            "'bot/lib' is a file, and a folder of other entries too",
        ),
        "deflate64": (_method(zip_of(bot, stored=True), 9), "cannot unpack (method 9)"),
        "long name": (zip_of({**bot, "bot/" + "x" * 256: "x"}), "longer than a file system"),
        "long path": (
            zip_of({**bot, "bot/" + "/".join(["d" * 200] * 6): "x"}),
            "longer than a file system",
        ),
    }
    for name, (data, words) in hostile.items():
        r = _post(served, made.token(TEAM), {"bot": (f"{name}.zip", data)})
        assert r.status_code == 400, name
        assert words in r.json()["error"], (name, r.json())
    assert served.arena.store.versions() == []
    assert _everything_under(tmp_path) - before <= {"arena/arena.lock"}
    assert not list((made.root / "store").iterdir())


def _method(data: bytes, method: int) -> bytes:
    """A stored zip's entries marked as compressed with ``method`` (one zipfile cannot read)."""
    out = bytearray(data)
    for sig, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = 0
        while (i := out.find(sig, start)) >= 0:
            out[i + at : i + at + 2] = method.to_bytes(2, "little")
            start = i + 4
    return bytes(out)


def test_too_many_entries_are_refused(tmp_path: Path) -> None:
    made = make(tmp_path, settings={"uploads.zip_entries": 3})
    s = Served(made)
    try:
        data = zip_of(
            {"b/bot.yaml": "command: [python3, bot.py]\n", "b/bot.py": "", "b/x": "", "b/y": ""}
        )
        r = _post(s, made.token(TEAM), {"bot": ("many.zip", data)})
        assert r.status_code == 400 and "4 entries; at most 3" in r.json()["error"]
    finally:
        s.close()


def test_a_body_over_the_cap_is_413_whatever_its_length_says(served: Served, made: Made) -> None:
    cap = served.arena.config.uploads.body_bytes
    big = b"PK\x03\x04" + b"\0" * (cap + 1000)
    client = served.client()
    boundary = "xyz"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="bot"; filename="b.zip"\r\n\r\n'.encode()
        + big
        + f"\r\n--{boundary}--\r\n".encode()
    )
    kind = f"multipart/form-data; boundary={boundary}"
    headers = {**bearer(made.token(TEAM)), "content-type": kind}
    # an honest length over the cap: refused before the body is read
    r = client.post(
        "/api/submissions", headers={**headers, "content-length": str(len(body))}, content=body
    )
    assert r.status_code == 413 and "too large" in r.json()["error"]
    # a length that lies: cut at the cap all the same
    r = client.post("/api/submissions", headers={**headers, "content-length": "100"}, content=body)
    assert r.status_code == 413

    def chunks():  # no length at all (chunked)
        for i in range(0, len(body), 65536):
            yield body[i : i + 65536]

    r = client.post("/api/submissions", headers=headers, content=chunks())
    assert r.status_code == 413
    # one file over its own cap, the body under the whole one
    r = _post(served, made.token(TEAM), {"bot": ("b.zip", b"PK\x03\x04" + b"\0" * (1 << 20))})
    assert r.status_code == 413 and "bot file is larger than its cap" in r.json()["error"]
    # a page's form is capped far lower
    assert (
        client.post(
            "/login",
            content=b"x" * 70_000,
            headers={"content-type": "application/x-www-form-urlencoded"},
        ).status_code
        == 413
    )
    assert served.arena.store.versions() == []
    assert list((made.root / "tmp").iterdir()) == []


def test_one_version_waits_at_a_time_and_n_uploads_an_hour(served: Served, made: Made) -> None:
    token = made.token(TEAM)
    files = {"bot": ("greedy.zip", python_bot_zip())}
    first = _post(served, token, files)
    assert first.status_code == 202
    waiting = _post(served, token, files)
    assert waiting.status_code == 429 and "still being checked" in waiting.json()["error"]
    store = served.arena.store
    for _ in range(2):  # its verdict comes, the next upload is taken
        v = store.versions()[-1]
        store.write(lambda c, v=v: set_status(c, v.id, Status.ACCEPTED, "ok"))
        assert _post(served, token, files).status_code == 202
    v = store.versions()[-1]
    store.write(lambda c: set_status(c, v.id, Status.REJECTED, "no"))
    many = _post(served, token, files)
    assert many.status_code == 429 and "at most 3 an hour" in many.json()["error"]
    assert _post(served, made.token(OTHER), files).status_code == 202  # another team's own count
    # the same bytes four times: one file in the store
    assert len({v.path for v in store.versions()}) == 1


def test_uploads_only_while_open_enforced_on_the_server(served: Served, made: Made) -> None:
    files = {"bot": ("greedy.zip", python_bot_zip())}
    for phase in (Phase.FROZEN, Phase.FINAL):
        served.arena.store.set_phase(phase)
        r = _post(served, made.token(TEAM), files)
        assert (
            r.status_code == 403
            and f"closed for uploads (it is {phase.value})" in r.json()["error"]
        )
    c = served.login(TEAM)
    assert 'id="closed"' in c.get("/team").text
    page = c.get("/team").text
    r = c.post("/team/upload", data={"csrf": csrf_of(page)}, files=files)
    assert r.status_code == 403
    assert served.arena.store.versions() == []


def test_uploads_close_at_the_deadline(tmp_path: Path) -> None:
    past = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=1)).isoformat()
    made = make(tmp_path, settings={"deadline": past})
    s = Served(made)
    try:
        r = _post(s, made.token(TEAM), {"bot": ("greedy.zip", python_bot_zip())})
        assert r.status_code == 403 and "the deadline" in r.json()["error"]
        assert s.arena.store.versions() == []
    finally:
        s.close()


def test_a_zip_whose_modes_name_no_file_type_is_taken(served: Served, made: Made) -> None:
    # ZipFile.writestr records permissions without a file type (0o600): a plain file, as
    # unpacking makes it; only a link, a device, a pipe or a socket is refused
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("greedy/bot.yaml", "command: [python3, bot.py]\n")
        zf.writestr("greedy/bot.py", "print(1)\n")
    r = _post(served, made.token(TEAM), {"bot": ("writestr.zip", out.getvalue())})
    assert r.status_code == 202, r.text
    fifo = zip_of({"b/bot.yaml": "command: [x]\n", "b/f": ""}, {"b/f": 0o010644})
    r = _post(served, made.token(OTHER), {"bot": ("fifo.zip", fifo)})
    assert r.status_code == 400 and "a pipe" in r.json()["error"]


def test_a_small_routes_body_without_a_length_is_cut_at_its_cap_with_413(
    served: Served, made: Made
) -> None:
    def chunks(n: int = 20):  # chunked: no Content-Length to refuse it by
        for _ in range(n):
            yield b"a=" + b"x" * 8192 + b"&"

    c = served.login(TEAM)
    form = {"content-type": "application/x-www-form-urlencoded"}
    for path, client, headers in (
        ("/login", served.client(), form),
        ("/team/token", c, form),
        ("/api/map", served.client(), {**bearer(made.token(TEAM)), **form}),
        (
            "/api/map",
            served.client(),
            {**bearer(made.token(TEAM)), "content-type": "application/json"},
        ),
    ):
        r = client.post(path, content=chunks(), headers=headers)
        assert r.status_code == 413, (path, r.status_code, r.text[:200])
        assert "too large" in r.text
