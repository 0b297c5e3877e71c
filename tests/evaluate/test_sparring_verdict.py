"""benchmarks/sparring.py's verdict figures: the share of decided rounds and its interval."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from judge.evaluate import wilson_interval

SPARRING = Path(__file__).resolve().parents[2] / "benchmarks" / "sparring.py"


@pytest.fixture(scope="module")
def sp() -> ModuleType:
    """The benchmark script as a module (benchmarks/ is no package), loaded once."""
    spec = importlib.util.spec_from_file_location("bench_sparring", SPARRING)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    # Registered before it runs: its dataclasses look their module up by name.
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_interval_counts_each_map_once(sp: ModuleType) -> None:
    rate, lo, hi = sp.decided_rate(34, 20)
    assert rate == 34 / 54
    assert lo < rate < hi
    # Counted by round (54 trials) the interval would be narrower than the
    # truth: a deterministic pair of bots replays a map's game in both seats.
    by_round = wilson_interval(34, 54)
    assert hi - lo > by_round[1] - by_round[0]
    assert (lo, hi) == wilson_interval(17, 27)


def test_the_verdict_line_shows_the_interval(sp: ModuleType) -> None:
    lo, hi = wilson_interval(17, 27)
    assert sp.rate_with_interval(34, 20) == f"63.0%, 95% {100 * lo:.0f}-{100 * hi:.0f}%"
    assert sp.decided_rate(0, 0) is None
    assert sp.rate_with_interval(0, 0) == "-"
