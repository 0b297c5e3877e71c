"""Real matches through the protocol, replayed turn by turn in the independent model.

The hidden check reads result.json and replay.jsonl and recomputes every round
with its own implementation of the rule brief; this test does the same with the
independent model of tests/core/test_properties.py, relying only on the
documented replay keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main
from tests.core.test_properties import RefRound

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

ROOT = Path(__file__).resolve().parents[2]


def _cell(p: list[int] | None) -> tuple[int, int] | None:
    return (p[0], p[1]) if p is not None else None


@pytest.mark.parametrize(
    "bots, maps, seed",
    [
        (("greedy", "random"), ("m2", "m3"), 3),
        (("random", "greedy_c"), ("m4",), 8),
        (("greedy", "greedy"), ("m1", "m5"), 5),
    ],
)
def test_every_recorded_turn_agrees_with_the_independent_model(
    tmp_path: Path, bots: tuple[str, str], maps: tuple[str, ...], seed: int
) -> None:
    out = tmp_path / "out"
    argv = [
        "match",
        *bots,
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--quiet",
        "--bots-dir",
        str(ROOT / "bots"),
        "--maps-dir",
        str(ROOT / "maps"),
    ]
    for m in maps:
        argv += ["--map", m]
    assert main(argv) == 0
    result = agrees_with_model(out)
    assert len(result["rounds"]) == len(maps)


def agrees_with_model(out: Path) -> dict[str, Any]:
    """A finished match folder, every round replayed in the independent model: every turn,
    the end, gold, points and winner must agree.  Returns its result.json."""
    result: dict[str, Any] = json.loads((out / "result.json").read_text())
    assert result["complete"] is True
    total = [0, 0]
    for rnd in result["rounds"]:
        lines = [json.loads(x) for x in (out / rnd["replay"]).read_text().splitlines()]
        header, turns = lines[0], lines[1:]
        grid = header["map"]["grid"]
        text = f"{len(grid)} {len(grid[0].split())} {header['turns']}\n" + "\n".join(grid)
        place = turns[0]
        assert place["turn"] == 1
        ref = RefRound(text, _cell(place["positions"][0]), _cell(place["positions"][1]))  # type: ignore[arg-type]
        check(ref, place)
        for rec in turns[1:]:
            assert not ref.ended
            ref.play(_cell(rec["moves"][0]), _cell(rec["moves"][1]))
            check(ref, rec)
        assert ref.ended and ref.reason == rnd["end_reason"]
        assert ref.gold == rnd["gold"] and ref.sunk == rnd["sunk"]
        assert [list(b) for b in ref.boat] == rnd["positions"]
        assert rnd["turns_played"] == ref.turn == turns[-1]["turn"]
        g0, g1 = ref.gold
        expected = [20, 0] if g0 > g1 else [0, 20] if g1 > g0 else [10, 10] if g0 >= 1 else [0, 0]
        assert rnd["points"] == expected
        assert rnd["winner"] == (0 if g0 > g1 else 1 if g1 > g0 else None)
        total = [total[0] + expected[0], total[1] + expected[1]]
    assert result["points"] == total
    return result


def check(ref: RefRound, rec: dict[str, Any]) -> None:
    assert rec["turn"] == ref.turn
    assert rec["turns_left"] == ref.k - ref.turn + 1
    assert rec["positions"] == [list(ref.boat[0]), list(ref.boat[1])]
    assert rec["gold"] == ref.gold and rec["shield"] == ref.shield and rec["sunk"] == ref.sunk
    tokens = [t for row in rec["grid"] for t in row.split()]
    assert tokens == [str(t) for t in ref.grid_tokens()]
    assert rec["ended"] == ref.ended
