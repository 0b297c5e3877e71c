"""The arena in real headless Chromium, served by a real ``judge arena serve`` with real checks.

A team logs in, uploads a MinGW-built 64-bit .exe and then a zipped Python bot
(with its source and report) from its page, and watches each checked live
(queued, checking, accepted) without reloading; another team's broken .exe is
rejected with check-bot's reason on its page; the organiser downloads the one
archive of every team's current files, named by team.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.programs import cache_root, file_hash
from tests.arena.conftest import ROOT, make, python_bot_zip
from tests.arena.test_checks import _port, _wait_up
from tests.views.test_html_browser import ARGS, CHROMIUM, _missing

pytestmark = [pytest.mark.slow, pytest.mark.browser]
TEAM, OTHER = "Rồng Biển", "Cá Mập"
MINGW = "x86_64-w64-mingw32-gcc"
BROKEN_C = (
    "#include <stdio.h>\n"
    'int main(void) { fprintf(stderr, "reading the map...\\n"); volatile int *p = 0; return *p; }\n'
)
#: A check of an .exe through wine takes seconds; under load, more.
CHECKED_MS = 120_000


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


def _exes(out: Path) -> tuple[Path, Path]:
    if shutil.which(MINGW) is None:
        _missing(f"{MINGW} is not installed (Debian package gcc-mingw-w64-x86-64)")
    if shutil.which("wine") is None:
        _missing("wine is not installed (Debian package wine)")
    greedy, broken = out / "greedy.exe", out / "broken.exe"
    (out / "broken.c").write_text(BROKEN_C)
    for src, exe, opt in (
        (ROOT / "bots" / "greedy_c" / "greedy.c", greedy, "-O2"),
        (out / "broken.c", broken, "-O1"),
    ):
        subprocess.run(
            [MINGW, opt, "-std=c99", "-o", str(exe), str(src)], check=True, capture_output=True
        )
    return greedy, broken


def _login(browser: Any, url: str, team: str, password: str) -> Any:
    page = browser.new_context(accept_downloads=True).new_page()
    page.goto(f"{url}/login")
    page.fill("input[name=team]", team)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("#login button[type=submit]")
    page.wait_for_selector("body[data-ready=true]")
    assert not page.url.endswith("/login"), page.content()
    return page


def _upload(page: Any, files: dict[str, Path]) -> None:
    for field, path in files.items():
        page.set_input_files(f"#upload input[name={field}]", str(path))
    with page.expect_navigation():
        page.click("#upload button[type=submit]")
    page.wait_for_selector("#notice")


def test_teams_upload_and_watch_their_checks_and_the_organiser_downloads_the_archive(
    browser: Any, tmp_path: Path
) -> None:
    greedy, broken = _exes(tmp_path)
    bot_zip = tmp_path / "python-bot.zip"
    bot_zip.write_bytes(python_bot_zip())
    (tmp_path / "src.zip").write_bytes(b"the sources")
    (tmp_path / "report.pdf").write_bytes(b"%PDF the report")
    made = make(tmp_path, [TEAM, OTHER], settings={"check.turns": 4})
    port = _port()
    cmd = [
        sys.executable,
        "-m",
        "judge",
        "arena",
        "serve",
        str(made.root),
        "--port",
        str(port),
        "--jobs",
        "2",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(port, proc)
        mine = _login(browser, url, TEAM, made.password(TEAM))
        assert mine.url.endswith("/team")
        theirs = _login(browser, url, OTHER, made.password(OTHER))
        _upload(mine, {"bot": greedy})
        _upload(theirs, {"bot": broken})
        # live: the row changes without a reload
        seen = mine.wait_for_selector('#versions tr[data-version="1"]').get_attribute("data-status")
        assert seen in ("queued", "checking", "accepted")
        mine.wait_for_selector(
            '#versions tr[data-version="1"][data-status=accepted]', timeout=CHECKED_MS
        )
        assert mine.text_content("#current") == "version 1"
        # checked where it is stored: not staged in the judge's program cache
        assert not (cache_root() / f"file-{file_hash(greedy)[:24]}").exists()
        _upload(
            mine,
            {"bot": bot_zip, "source": tmp_path / "src.zip", "report": tmp_path / "report.pdf"},
        )
        mine.wait_for_selector(
            '#versions tr[data-version="2"][data-status=accepted]', timeout=CHECKED_MS
        )
        assert mine.text_content("#current") == "version 2"
        row = theirs.wait_for_selector(
            '#versions tr[data-version="1"][data-status=rejected]', timeout=CHECKED_MS
        )
        reason = row.query_selector(".reason").text_content()
        assert "check-bot" in reason and "crashed" in reason and "Windows exception" in reason, (
            reason
        )
        log = theirs.text_content('#versions tr.log-row[data-version="1"] .log')
        assert "reading the map..." in log  # the first lines of its error output
        assert theirs.text_content("#current").startswith("none yet")

        organiser = _login(browser, url, "organiser", made.password("organiser"))
        assert organiser.url.endswith("/organiser")
        organiser.wait_for_selector(f'#teams tr[data-team="{TEAM}"][data-current="2"]')
        with organiser.expect_download() as got:
            organiser.click("#archive")
        data = Path(got.value.path()).read_bytes()
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
            assert {
                f"{TEAM}/{TEAM}.zip",
                f"{TEAM}/source.zip",
                f"{TEAM}/report.pdf",
                "versions.csv",
            } <= names
            assert not any(n.startswith(f"{OTHER}/") for n in names)  # no accepted version
            assert zf.read(f"{TEAM}/{TEAM}.zip") == bot_zip.read_bytes()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
