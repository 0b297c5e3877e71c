"""benchmarks/turn_cost.py's file-system probe: what the seats' and the bare loop's folders are
on, and what making (or writing over) three small files costs there right now."""

from __future__ import annotations

from pathlib import Path

from tests.benchmark_module import load_benchmark


def _root_type() -> str:
    with open("/proc/self/mounts", encoding="utf-8") as f:
        return [line.split()[2] for line in f if line.split()[1] == "/"][-1]


def test_the_type_is_that_of_the_deepest_mount_above_the_path(tmp_path: Path) -> None:
    bench = load_benchmark("turn_cost")
    assert bench.fs_type(Path("/proc/self")) == "proc"
    assert bench.fs_type(Path("/")) == _root_type()
    assert bench.fs_type(Path("/procfoo")) == _root_type()  # not under /proc: a prefix only


def test_the_probe_times_both_ways_and_leaves_nothing(tmp_path: Path) -> None:
    bench = load_benchmark("turn_cost")
    (tmp_path / "keep").write_text("x")
    made = bench.file_probe(tmp_path, over=False, reps=5)
    over = bench.file_probe(tmp_path, over=True, reps=5)
    assert 0 < made < 1 and 0 < over < 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]
