"""What every test shares: an environment that does not depend on the terminal, and the markers.

Markers (registered in pyproject.toml; CONTRIBUTING.md says how to use them):

* ``slow``: runs real programs in the sandbox, a whole tournament, a browser or
  wine; ``python -m pytest -m "not slow"`` is the fast subset.
* ``root("why")``: needs root; skipped with that reason as a normal user.
* ``browser``: drives headless Chromium (fails, not skips, when it is missing
  under CI).
* ``alone``: loads the machine on purpose (an outside hog) or times something
  to a few tens of milliseconds: under xdist no other test runs beside it.

The suite runs in three processes (pytest-xdist, ``-n 3 --dist loadgroup``
in pyproject.toml's addopts; ``-n 0`` runs it in this one process): on a
2-core machine the third fills the time the others spend waiting for
processes to start, for sleeping bots and for Dask.  That is honest for the
sandboxed bots: every run leases its core machine-wide
(judge/sandbox/leases.py, shared by every process), waits for it before its
clock starts, and a run that another process's own work kept waiting for a
CPU is measured and run again (IE, ``kept_waiting``), never TLE.  A test
marked ``alone`` gets the machine to itself all the same, through a
readers-writer lock on a file every process shares (it holds the lock
exclusively, every other test holds it shared).  Tests that share an expensive
set-up run in one process (``xdist_group``, set below by folder): the Windows
tests (the .exe files built once, the wine prefix), the tests of the shared
Dask cluster, the browser, and the modules whose module-scoped fixture plays
or runs much (the hostile programs, a tournament, a league); the tests whose
bots need most of every core (tests/tournament's fairness and determinism
tests, group ``heavy``) run one after the other.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import chromium

# Compiled modules are kept (in the tree's git-ignored __pycache__ folders) for this run
# and every process it starts, whatever PYTHONDONTWRITEBYTECODE says: with it set, as on
# this project's machines, no .pyc was ever written, so each test process compiled every
# test module and pytest rewrote its asserts again (a collection took 6.0 s of CPU, 2.3 s
# with them), and each `python -m judge` a test starts compiled the judge's modules
# again (0.23 s of CPU against 0.14 s).  Bots are not concerned: the sandbox gives them a
# minimal environment, and a bot's files are hashed and shipped without __pycache__.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for a module's browser tests (tests/chromium.py)."""
    yield from chromium.launched()


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests do not depend on the terminal they run in (``TERM=dumb`` included)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in _TERMINAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(autouse=True)
def _not_under_sudo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests do not depend on how the suite was started: under ``sudo`` the judge would give
    its output folders to sudo's user (judge.owner); the tests of that say so themselves."""
    for name in ("SUDO_UID", "SUDO_GID", "SUDO_USER"):
        monkeypatch.delenv(name, raising=False)
    yield


#: Tests that share an expensive session or module set-up run in one xdist process.
_GROUPS = (
    ("tests/windows/", "wine"),  # the .exe files built once, the wine prefix made once
    ("tests/views/test_html_browser.py", "browser"),  # Chromium
    ("tests/web/test_serve.py", "browser"),
    ("tests/web/test_play.py", "browser"),
    ("tests/arena/test_browser.py", "browser"),
    ("tests/arena/test_ladder_browser.py", "browser"),
    # A module-scoped fixture that plays or runs much, made once only if its module's tests
    # stay in one process (split, each process made it again):
    ("tests/sandbox/test_sandbox_hostile.py", "hostile"),  # every hostile program, run once
    ("tests/tournament/test_tournament_e2e.py", "e2e"),  # the 3-team tournament
    ("tests/views/test_index_pages_browser.py", "index-pages"),  # a league, a tournament
    ("tests/bots/test_starter_kits.py", "kits"),  # the C++ and Pascal kits built
)


#: The groups first, longest first (a group runs in one process from start to end), so
#: that no process is left with one at the end while the others wait to run the
#: ``alone`` tests; then the cluster tests that start a cluster of their own (a minute or
#: more each when busy); the single tests last, which even out the processes' ends.
_FIRST = ("heavy", "cluster", "wine", "browser", "e2e", "index-pages", "hostile", "kits")
_LONG = "tests/cluster/test_cluster.py"
#: The ``alone`` tests in one group, handed out last: one after the other, when the other
#: processes have little or nothing left, instead of each making them stop, mid-way, until
#: the tests they are running end (an ``alone`` test of a grouped folder joins this group instead:
#: tests/windows' builds its own hostile.exe).
_ALONE = "alone"


def _group(item: pytest.Item) -> str:
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0]) if mark is not None and mark.args else ""


def _groups(item: pytest.Item) -> str:
    """Every xdist_group of the item, as pytest-xdist names its work unit."""
    names = {
        str(m.args[0] if m.args else m.kwargs.get("name", "default"))
        for m in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names))


class _GroupIds:
    """A plugin of its own (registered in pytest_configure): this module's
    pytest_collection_modifyitems runs before pytest-xdist's, this one after."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        _name_groups_in_node_ids(config, items)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_GroupIds(), "ocean-xdist-group-ids")


def _name_groups_in_node_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` an item's group must show in its node id (``...@group``):
    that is all xdist's scheduler sees.  pytest-xdist 3.8 sets ``item._nodeid``, which
    pytest 9.2 no longer reads (the id is ``item._id``): every group was silently split
    between the processes, each making the group's set-up again.  Set the id here where
    xdist's did not show, and refuse to run with a group that still does not."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        group = _groups(item)
        if not group or item.nodeid.endswith(f"@{group}"):
            continue
        named = f"{item.nodeid}@{group}"
        if hasattr(item, "_id"):  # pytest >= 9.2
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(named)
        else:
            item._nodeid = named
        if item.nodeid != named:
            raise pytest.UsageError(
                f"cannot put {named} in its xdist group: this pytest keeps node ids "
                "elsewhere (tests/conftest.py)"
            )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        where = Path(str(item.path)).relative_to(root).as_posix()
        alone = item.get_closest_marker("alone") is not None
        for prefix, group in _GROUPS:
            if where.startswith(prefix) and not alone:  # the alone ones: group alone
                item.add_marker(pytest.mark.xdist_group(group))
        if where == _LONG and "cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("cluster"))  # one scheduler, two workers
        if alone and not _group(item):
            item.add_marker(pytest.mark.xdist_group(_ALONE))
    if "PYTEST_XDIST_WORKER" in os.environ:  # the same order in every process
        rank = {name: i for i, name in enumerate(_FIRST)}

        def key(item: pytest.Item) -> tuple[int, bool]:
            alone = item.get_closest_marker("alone") is not None  # last in its group too
            if _group(item) in rank:
                return rank[_group(item)], alone
            if _group(item) == _ALONE:
                return len(rank) + 2, alone
            return len(rank) + (0 if item.nodeid.startswith(_LONG) else 1), alone

        items.sort(key=key)
    if os.geteuid() == 0:
        return
    for item in items:
        mark = item.get_closest_marker("root")
        if mark is not None:
            why = mark.args[0] if mark.args else "it needs root"
            item.add_marker(pytest.mark.skip(reason=f"not root: {why}"))


@pytest.fixture(autouse=True)
def _alone_or_beside(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Under xdist: an ``alone`` test runs with no other test beside it.

    A readers-writer lock (``flock``) on a file in the run's shared temporary folder:
    ``alone`` takes it exclusively, every other test shared.  A turnstile taken first
    keeps a waiting ``alone`` test from being overtaken by shared holders for ever."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    shared = tmp_path_factory.getbasetemp().parent  # popen-gwN's parent: the run's own
    alone = request.node.get_closest_marker("alone") is not None
    with open(shared / "turnstile.lock", "a") as turnstile, open(shared / "alone.lock", "a") as f:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(f, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the golden files (tests/*/golden) from today's outputs instead of "
        "comparing with them; review the diff before committing it",
    )
