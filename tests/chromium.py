"""The browser of every browser test: Debian's Chromium, headless, driven by Playwright.

``tests/conftest.py`` makes it the module-scoped ``browser`` fixture.  Under CI (``.ci/run``
installs Chromium and the test extra installs Playwright) a missing browser fails the test
instead of skipping it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = os.environ.get("OCEAN_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def missing(why: str) -> None:
    """Skip for what the machine lacks, or fail under CI, which must have it."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(
            f"{why} (CI must run the browser test: .ci/run installs chromium and "
            f"`pip install -e .[test]` installs playwright)",
            pytrace=False,
        )
    pytest.skip(why)


def launched() -> Iterator[Any]:
    """A headless Chromium for as long as the generator is not closed."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright for Python is not installed (pip install playwright)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()
