"""What every test shares: an environment that does not depend on the terminal, and the markers.

Markers (registered in pyproject.toml; CONTRIBUTING.md says how to use them):

* ``slow``: runs real programs in the sandbox, a whole tournament, a browser or
  wine; ``python -m pytest -m "not slow"`` is the fast subset.
* ``root("why")``: needs root; skipped with that reason as a normal user.
* ``browser``: drives headless Chromium (fails, not skips, when it is missing
  under CI).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

#: Variables that change what rich (and so the judge's output) does.
_TERMINAL_VARIABLES = (
    "NO_COLOR",
    "FORCE_COLOR",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "CLICOLOR",
    "CLICOLOR_FORCE",
)


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests do not depend on the terminal they run in (``TERM=dumb`` included)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in _TERMINAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.geteuid() == 0:
        return
    for item in items:
        mark = item.get_closest_marker("root")
        if mark is not None:
            why = mark.args[0] if mark.args else "it needs root"
            item.add_marker(pytest.mark.skip(reason=f"not root: {why}"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the golden files (tests/*/golden) from today's outputs instead of "
        "comparing with them; review the diff before committing it",
    )
