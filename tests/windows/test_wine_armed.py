"""The next run's wineserver is armed while a run goes on.

After each .exe run the seat's server is made afresh, so that a program keeps
nothing of wine's state between runs.  The new
server's helper is started one run ahead: it joins its groups and readies the
server's process, which waits, still root and without a single instruction of
wine run, for its go at the refresh after the next run.  Checked here: the
server a refresh starts is the one armed before, and it was idle until then;
an armed server that died is replaced and the run goes on; nothing armed
outlives its seat.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.cpuwait import children
from tests.windows.conftest import Exes

# Alone: each test looks at one run's wine directly, with no retry, and on a machine loaded
# by the tests beside it wine's start can fail (an IE, which the referee runs again)
pytestmark = [pytest.mark.slow, pytest.mark.alone]


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def _children_soon(pid: int, within: float = 5.0) -> list[int]:
    """The helper's child, once it has forked it (it joins its groups first)."""
    deadline = time.monotonic() + within
    while not (found := children(pid)) and time.monotonic() < deadline:
        time.sleep(0.005)
    return found


def _gone(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(os.path.exists(f"/proc/{pid}") for pid in pids):
            return True
        time.sleep(0.01)
    return False


def _one_run(seat: Any) -> tuple[list[str], Any]:
    """hostile.exe's ``ok`` run once on the seat: its command and the seat's wine."""
    assert seat.program_dir is not None
    argv = [str(seat.program_dir / "hostile.exe"), "ok"]
    assert seat.run_turn(argv, {}, ["MOVE.OUT"], Limits()).result.verdict is Verdict.OK
    assert seat.companion.wine is not None  # made at the seat's first .exe run
    return argv, seat.companion.wine


def test_each_refresh_starts_the_server_armed_a_run_before(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    helpers: list[int] = []
    with wine_sandbox.seat("armed", exes.hostile) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "hostile.exe"), "ok"]
        for _ in range(3):
            run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
            assert run.result.verdict is Verdict.OK, run.result.message
            wine = seat.companion.wine  # made at the seat's first .exe run
            assert wine is not None
            assert wine._next is not None
            armed = wine._next.result()  # armed on a thread of its own
            assert armed is not None and armed.proc is not None and armed.alive()
            helpers.append(armed.proc.pid)
            # Idle: its process is readied but is not wine's server yet.
            idle = _children_soon(armed.proc.pid)
            assert idle and all(_comm(pid) != "wineserver" for pid in idle)
            assert all(os.stat(f"/proc/{pid}").st_uid == 0 for pid in idle)
            serving = wine._server
            assert serving is not None and serving is not armed
            # The next run's refresh starts exactly this one.
            run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
            assert run.result.verdict is Verdict.OK, run.result.message
            assert wine._server is armed
            assert any(_comm(pid) == "wineserver" for pid in seat.wine_server_pids())
            assert wine._next is not None
            after = wine._next.result()
            assert after is not None and after is not armed
            helpers.append(after.proc.pid if after.proc else 0)
    assert _gone(helpers), "a wineserver's helper, armed or serving, outlived its seat"


def test_an_armed_server_that_died_is_replaced_and_the_run_goes_on(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    with wine_sandbox.seat("armed-dead", exes.hostile) as seat:
        argv, wine = _one_run(seat)
        assert wine._next is not None
        armed = wine._next.result()
        assert armed is not None and armed.proc is not None
        os.kill(armed.proc.pid, signal.SIGKILL)
        assert _gone([armed.proc.pid])
        for _ in range(2):
            run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
            assert run.result.verdict is Verdict.OK, run.result.message
        assert wine._server is not armed and wine._server is not None and wine._server.alive()


def test_the_server_lent_ahead_survives_its_groups_being_made_afresh(
    wine_sandbox: Sandbox, exes: Exes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the refresh the new server is already in the seat's kept pressure group; when
    the next run cannot reuse those groups they are removed, with the server taken out
    first (their removal kills what is inside)."""
    with wine_sandbox.seat("lent", exes.hostile) as seat:
        argv, wine = _one_run(seat)
        if seat.groups.kept is None or seat.groups.kept.pressure_only_dir is None:
            pytest.skip("no separate pressure group on this machine (cgroup v2)")
        assert wine.lent  # lent ahead, at the refresh
        server = wine._server
        backend = wine_sandbox.machine.cgroup
        assert backend is not None
        monkeypatch.setattr(type(backend), "reuse", lambda self, *a, **k: False)
        run = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
        assert run.result.verdict is Verdict.OK, run.result.message
        assert not any("stopped" in d for d in run.discarded), run.discarded
        assert wine._server is not server  # refreshed after the run, as always
