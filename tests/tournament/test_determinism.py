"""The same tournament, the same rounds, whatever the machine is doing.

benchmarks/determinism.py in small: two teams of CPU-heavy bots (a Windows
.exe through wine and a Python bot, both choosing every move from how many
times they have been run) play quietly, under bursts of real-time load on every
core, beside a second judge playing at the same time, and on a local Dask
cluster of two workers: every round must be the same, turn by turn, every
verdict OK.  The bots need two fifths of their (short) limit, so the bursts do make
runs the judge has to throw away and run again.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from judge.sandbox.wine import find_wine
from tests.benchmark_module import load_benchmark

# Bursts of load on every core: never beside the other heavy tests nor an ``alone`` one.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("heavy")]


def test_a_tournament_plays_the_same_under_load_beside_a_judge_and_on_a_cluster(
    tmp_path: Path,
) -> None:
    missing = [
        what
        for what, there in (
            ("wine", find_wine() is not None),
            ("x86_64-w64-mingw32-gcc", shutil.which("x86_64-w64-mingw32-gcc") is not None),
            ("the cluster extra (Dask)", importlib.util.find_spec("distributed") is not None),
        )
        if not there
    ]
    if missing:
        why = f"needs {', '.join(missing)} (.ci/run installs them)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(why)
        pytest.skip(why)
    report = load_benchmark("determinism").measure(
        tmp_path,
        ["bursts", "beside", "cluster"],
        turns=2,
        # Two fifths of a 0.5 s limit (wine's and Python's start-up on top, and wine's
        # processes must be gone by the limit: at 0.4 s, 2 full-suite runs in 5 saw a run
        # exit at 0.225 s with wine's processes still there at the limit, or 0.29 s
        # blocked); a 0.35 s burst pushes a run past its limit: thrown away, run again.
        # Bursts every second or so on each core: the short play meets several.
        exe_cpu_ms=200,
        py_cpu_ms=170,
        limit=0.5,
        on_s=0.35,
        off_s=0.8,
        teams=2,
    )
    rows = {r["play"]: r for r in report["rows"]}
    assert set(rows) == {"quiet", "bursts", "beside (1)", "beside (2)", "cluster"}
    for row in rows.values():
        assert row["rounds"] == 3, row
        assert row["differ"] == [] and row["not_ok"] == 0, row
    assert rows["bursts"]["ie_retries"] > 0, "the bursts never made the judge run a run again"
    assert report["same"]
