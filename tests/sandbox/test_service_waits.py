"""The waiting of a service that works for a run (the seat's wineserver) is the run's.

:class:`~judge.sandbox.cpuwait.ServiceMeter` with scripted counters: its waiting
is added to the run's own, capped by the time neither ran; when the service is
in the run's pressure group for the run, PSI counts it already and nothing is
added twice.  The Windows tests check it with a real wineserver.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import judge.sandbox.cpuwait as cpuwait
from judge.sandbox.cpuwait import ServiceMeter, io_stall_us, read_psi_totals
from judge.sandbox.supervise import RawRun, Tail
from judge.sandbox.verdicts import time_spent
from tests.sandbox.sandbox_support import ScriptedMeter

MS = 1_000_000  # ns


def _meter(
    monkeypatch: pytest.MonkeyPatch,
    inner: ScriptedMeter,
    service_now: tuple[int, int],
    counted: bool,
) -> ServiceMeter:
    monkeypatch.setattr(cpuwait, "tree_times", lambda pids: service_now)
    return ServiceMeter(inner, (123,), (10 * MS, 5 * MS), counted=counted)


def test_the_services_waiting_is_added(monkeypatch: pytest.MonkeyPatch) -> None:
    # the service waited 300 ms and worked 100 ms during the run
    m = _meter(monkeypatch, ScriptedMeter(0.2, 0.5), (110 * MS, 305 * MS), counted=False)
    assert m.read(2.0) == pytest.approx(0.5)
    assert m.service_cpu_s == pytest.approx(0.1)


def test_never_more_than_the_time_neither_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1.5 s elapsed, the program ran 1.0 s and the service 0.3 s: at most 0.2 s of waiting
    m = _meter(monkeypatch, ScriptedMeter(0.1, 1.0), (310 * MS, 505 * MS), counted=False)
    assert m.read(1.5) == pytest.approx(0.2)


def test_a_service_in_the_runs_group_is_not_counted_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = _meter(monkeypatch, ScriptedMeter(0.25, 0.9), (110 * MS, 305 * MS), counted=True)
    assert m.read(2.0) == pytest.approx(0.25)
    assert m.service_cpu_s == pytest.approx(0.1)


def test_nothing_measured_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _meter(monkeypatch, ScriptedMeter(None, None), (10 * MS, 5 * MS), counted=False)
    assert m.read(1.0) is None


def test_a_time_out_says_where_the_time_went() -> None:
    raw = RawRun(None, 0, 2.0017, 1.51, Tail(10), Tail(10), wait_s=0.0327, service_cpu_s=0.21)
    assert time_spent(raw) == (
        "1.51 s CPU, 0.03 s waiting for a CPU, 0.46 s neither: sleeping or blocked, "
        "0.21 s of it while the seat's wineserver worked for it"
    )
    raw.service_cpu_s, raw.wait_s = None, None
    assert time_spent(raw) == (
        "1.51 s CPU, waiting not measured, 0.49 s neither: sleeping or blocked"
    )
    raw.io_stall_s = 0.29  # the run's group says how long it was stalled on the disk
    assert time_spent(raw) == (
        "1.51 s CPU, waiting not measured, 0.49 s neither: sleeping or blocked, "
        "0.29 s of it stalled on the disk"
    )
    raw.io_stall_s = 0.001  # a trace of it is not worth saying
    assert time_spent(raw).endswith("0.49 s neither: sleeping or blocked")


def test_a_groups_disk_stall_is_read_from_its_io_pressure(tmp_path: Path) -> None:
    (tmp_path / "io.pressure").write_text(
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=290123\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=280000\n"
    )
    (tmp_path / "cpu.pressure").write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n")
    assert io_stall_us(str(tmp_path)) == 290123
    assert read_psi_totals(str(tmp_path))["io_some"] == 290123
    (tmp_path / "io.pressure").unlink()  # no I/O pressure here: said by its absence
    assert io_stall_us(str(tmp_path)) is None
    assert "io_some" not in read_psi_totals(str(tmp_path))
