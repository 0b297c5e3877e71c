"""``judge eval``: statistics maths, map planning, seat swapping, and real rounds end to end.

The maths and planning are pure and checked against known values.  The end
to end tests play greedy against random through the real sandbox on small
maps with small K (a few seconds), and check that the counts add up, that
every map is played once per seat order, the JSON shape, and that the same
seed gives the same rounds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main
from judge.evaluate import (
    ALL_TURNS,
    EvalError,
    parse_sizes,
    parse_turns,
    plan_maps,
    play_rounds,
    round_specs,
    summarize,
    wilson_interval,
)
from judge.sandbox import Limits
from judge.stats import percentile
from tests.referee.fakes import FakeSandbox, spec

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"


# ------------------------------------------------------------------ maths


@pytest.mark.parametrize(
    "k, n, lo, hi",
    [
        (8, 10, 0.4902, 0.9433),  # textbook example
        (0, 10, 0.0, 0.2775),  # upper bound = z^2 / (n + z^2)
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (50, 100, 0.4038, 0.5962),
        (1, 1, 0.2065, 1.0),
        (85, 100, 0.7672, 0.9069),
    ],
)
def test_wilson_interval_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4)
    assert got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(3, 7)
    lo2, hi2 = wilson_interval(4, 7)
    assert 0 < lo < 3 / 7 < hi < 1 and lo < lo2 and hi < hi2  # moves with the rate
    # symmetric: k of n and (n-k) of n mirror each other
    a, b = wilson_interval(2, 9)
    c, d = wilson_interval(7, 9)
    assert a == pytest.approx(1 - d) and b == pytest.approx(1 - c)
    for bad in ((-1, 5), (6, 5), (1, -1)):
        with pytest.raises(ValueError):
            wilson_interval(*bad)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([1.0, 2.0, 3.0], 50) == 2.0
    assert percentile([], 50) is None


# ------------------------------------------------------------------ planning


def test_parse_sizes_square_and_rectangular() -> None:
    assert parse_sizes("5,9,15") == [(5, 5), (9, 9), (15, 15)]
    assert parse_sizes("7x11, 9 ,7X11") == [(7, 11), (9, 9)]
    for bad in ("4", "17", "5x6", "a", "5x7x9", ""):
        with pytest.raises(EvalError):
            parse_sizes(bad)


def test_parse_turns() -> None:
    assert parse_turns("40") == [40]
    assert parse_turns("2,100,2") == [2, 100]
    for bad in ("3", "0", "102", "x", ""):
        with pytest.raises(EvalError):
            parse_turns(bad)


def test_plan_maps_cycles_sizes_and_varies_even_k() -> None:
    plans = plan_maps(30, [(5, 5), (7, 11)], None, seed=4)
    assert [(p.rows, p.cols) for p in plans[:4]] == [(5, 5), (7, 11), (5, 5), (7, 11)]
    assert all(p.turns in ALL_TURNS for p in plans)
    assert len({p.turns for p in plans}) > 5  # varied
    assert len({p.map_seed for p in plans}) == 30
    assert plans == plan_maps(30, [(5, 5), (7, 11)], None, seed=4)  # deterministic
    assert plans != plan_maps(30, [(5, 5), (7, 11)], None, seed=5)


def test_plan_maps_with_turns_goes_through_every_pair() -> None:
    plans = plan_maps(4, [(5, 5), (9, 9)], [10, 40], seed=1)
    assert [(p.rows, p.turns) for p in plans] == [(5, 10), (5, 40), (9, 10), (9, 40)]


def test_round_specs_play_each_map_in_both_seat_orders() -> None:
    specs = round_specs(plan_maps(3, [(5, 5)], [6], seed=0))
    assert [s.number for s in specs] == [1, 2, 3, 4, 5, 6]
    assert [(s.plan.index, s.a_seat) for s in specs] == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    ]


# ------------------------------------------------------------------ in-process rounds


def _first_zero_then_stay(
    map_inp: str, state: bytes | None
) -> tuple[bytes | None, bytes | None, str]:
    """A fake bot: the first 0-cell in reading order (or the last one), then it stays."""
    tok = map_inp.split()
    m, n = int(tok[0]), int(tok[1])
    pos = tok[3:7]
    if pos[0] == "0":
        cells = tok[9 : 9 + m * n]
        zeros = [f for f, t in enumerate(cells) if t == "0"]
        f = zeros[0] if state is None else zeros[-1]
        return f"{f // n + 1} {f % n + 1}".encode(), b"x", "OK"
    return f"{pos[0]} {pos[1]}".encode(), b"x", "OK"


def test_outcomes_are_seen_from_bot_a_and_aborted_rounds_are_recorded(tmp_path: Path) -> None:
    def greedy_gold(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        # steps onto the richest neighbour: beats a bot that stays
        tok = map_inp.split()
        m, n = int(tok[0]), int(tok[1])
        i, j = int(tok[3]), int(tok[4])
        if i == 0:
            return _first_zero_then_stay(map_inp, state)
        cells = tok[9 : 9 + m * n]
        best, where = -1, (i, j)
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            a, b = i + di, j + dj
            if 1 <= a <= m and 1 <= b <= n and cells[(a - 1) * n + b - 1].isdigit():
                v = int(cells[(a - 1) * n + b - 1])
                if v > best:
                    best, where = v, (a, b)
        return f"{where[0]} {where[1]}".encode(), state, "OK"

    sb = FakeSandbox({"a": greedy_gold, "b": _first_zero_then_stay})
    plans = plan_maps(2, [(5, 5)], [10], seed=3)
    outs = play_rounds(
        [spec("a"), spec("b")],
        ["a", "b"],
        round_specs(plans),
        sb,  # type: ignore[arg-type]
        Limits(),
        tmp_path,
        jobs=2,
    )
    assert [o.spec.number for o in outs] == [1, 2, 3, 4]
    for o in outs:
        assert o.result is not None
        g = o.result.gold
        assert g[o.a] > g[o.b] or o.outcome != "win"
        if o.outcome == "win":
            assert o.result.winner == o.a
    s = summarize(outs, ["a", "b"], ["a", "b"], 3, plans, [(5, 5)], [10], Limits(), 2, None)
    assert s.result.rounds == 4 and s.result.wins >= 3

    def broken(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        return None, None, "IE"

    sb2 = FakeSandbox({"a": broken, "b": _first_zero_then_stay})
    outs2 = play_rounds(
        [spec("a"), spec("b")],
        ["a", "b"],
        round_specs(plans[:1]),
        sb2,  # type: ignore[arg-type]
        Limits(),
        tmp_path / "ie",
        jobs=1,
    )
    assert [o.result for o in outs2] == [None, None]
    assert all("could not run" in (o.error or "") for o in outs2)
    s2 = summarize(outs2, ["a", "b"], ["a", "b"], 3, plans[:1], [(5, 5)], [10], Limits(), 1, None)
    assert s2.rounds_played == 0 and len(s2.rounds_aborted) == 2
    assert s2.result.win_rate is None and s2.result.wilson95 == (0.0, 1.0)


# ------------------------------------------------------------------ end to end


def _eval(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, Any]:
    code = main(
        [
            "eval",
            str(BOTS / "greedy"),
            str(BOTS / "random"),
            "--rounds",
            "4",
            "--sizes",
            "5,5x7",
            "--turns",
            "6,10",
            "--jobs",
            "2",
            "--json",
            *extra,
        ]
    )
    out = capsys.readouterr().out
    return code, json.loads(out)


def _outcomes(summary: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            r["round"],
            r["map"],
            r["a_seat"],
            r["outcome"],
            tuple(r["gold"]),
            r["end_reason"],
            r["turns_played"],
        )
        for r in summary["rounds"]
    ]


@pytest.mark.slow
def test_eval_greedy_vs_random_json_counts_seats_and_determinism(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, s = _eval(capsys, "--seed", "11", "--out", str(tmp_path / "kept"))
    assert code == 0
    # the JSON shape
    for key in (
        "bots",
        "seed",
        "rounds_planned",
        "rounds_played",
        "rounds_aborted",
        "sizes",
        "turns",
        "jobs",
        "limits",
        "result",
        "by_seat",
        "by_size",
        "end_reasons",
        "a",
        "b",
        "out",
        "rounds",
    ):
        assert key in s, key
    assert s["bots"]["a"]["name"] == "greedy" and s["bots"]["b"]["name"] == "random"
    assert s["seed"] == 11 and s["sizes"] == ["5x5", "5x7"] and s["turns"] == [6, 10]
    for key in ("p50", "p99", "max"):
        assert s["a"]["time_ms"][key] > 0 and s["b"]["time_ms"][key] > 0
    assert s["a"]["peak_mem_mb"] > 0 and s["a"]["runs"] > 0
    # the counts add up
    res = s["result"]
    assert s["rounds_planned"] == s["rounds_played"] == len(s["rounds"]) == 4
    assert res["wins"] + res["draws"] + res["losses"] == 4
    assert res["decided"] == res["wins"] + res["losses"]
    assert sum(s["end_reasons"].values()) == 4
    assert sum(d["wins"] + d["draws"] + d["losses"] for d in s["by_seat"].values()) == 4
    assert sum(d["wins"] + d["draws"] + d["losses"] for d in s["by_size"].values()) == 4
    assert sum(1 for r in s["rounds"] if r["outcome"] == "win") == res["wins"]
    assert res["wins"] >= 2  # greedy beats random on most maps
    lo, hi = res["wilson95"]
    assert 0 <= lo <= (res["win_rate"] or 0) <= hi <= 1
    # deterministic bots replay the same game in both seat orders: each map is one sample
    assert s["mirrored_maps"] == {"same_result": 2, "of": 2}
    lo_m, hi_m = res["wilson95_per_map"]
    assert lo_m <= lo and hi <= hi_m
    expect = wilson_interval(res["wins"] / 2, res["decided"] / 2)
    assert [lo_m, hi_m] == [round(expect[0], 4), round(expect[1], 4)]
    # every map in both seat orders, with the same placement seed
    by_map: dict[str, list[dict[str, Any]]] = {}
    for r in s["rounds"]:
        by_map.setdefault(r["map"], []).append(r)
    assert len(by_map) == 2
    for rounds in by_map.values():
        assert sorted(r["a_seat"] for r in rounds) == [0, 1]
        assert len({r["seed"] for r in rounds}) == 1
    # the replays were kept, seats in the swapped order
    kept = tmp_path / "kept"
    assert json.loads((kept / "eval.json").read_text())["rounds"] == s["rounds"]
    for r in s["rounds"]:
        header = json.loads((kept / r["replay"]).read_text().splitlines()[0])
        teams = header["teams"]
        assert teams[r["a_seat"]] == "greedy" and teams[1 - r["a_seat"]] == "random"
    # same seed, same rounds (timings aside); default output goes to a temp folder
    code2, s2 = _eval(capsys, "--seed", "11")
    assert code2 == 0 and s2["out"] is None
    assert _outcomes(s2) == _outcomes(s)


@pytest.mark.slow
def test_eval_table_output_and_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "eval",
            str(BOTS / "greedy"),
            str(BOTS / "random"),
            "--rounds",
            "1",
            "--sizes",
            "5",
            "--turns",
            "4",
            "--seed",
            "2",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "greedy vs random: 2 rounds" in out and "95% Wilson" in out
    assert "time p99 ms" in out and "by map size" in out
    # the pair report (on this map both bots insist on one start: random placement,
    # which differs by seat, so the pair need not be the same game mirrored)
    assert "pairs (each map twice, seats swapped): 1;" in out
    assert re.search(r"greedy scores \d+\.\d%: Elo [+\u2212]?\d", out) and "LOS" in out
    for bad, word in (
        (["--sizes", "6"], "--sizes"),
        (["--turns", "7"], "--turns"),
        (["--jobs", "0"], "--jobs"),
        (["--rounds", "0"], "--rounds"),
    ):
        code = main(["eval", str(BOTS / "greedy"), str(BOTS / "random"), *bad])
        err = capsys.readouterr().err
        assert code == 2 and word in err
    code = main(["eval", str(BOTS / "no-such-bot"), str(BOTS / "random")])
    assert code == 2 and "no such bot" in capsys.readouterr().err


def test_elo_is_shown_whole_with_its_interval_and_no_symmetric_plus_minus() -> None:
    """ "-436.3 +- 467.9 (95%: -1199.8 to -263.9)" read as a symmetric interval: it is not one."""
    from judge.views.evalreport import elo_text

    assert elo_text(-436.3, -1199.8, -263.9) == "\u2212436 (95 %: \u22121200 to \u2212264)"
    assert elo_text(120.4, 39.6, 210.0) == "+120 (95 %: +40 to +210)"
    assert elo_text(0.2, -80.0, 81.0) == "0 (95 %: \u221280 to +81)"
