"""``judge eval`` on pairs: the pentanomial report, mirrored pairs, the SPRT and the map book.

The SPRT tests play real bots of known relative strength through the real
sandbox on 5x5 maps with K = 6 (a few seconds each): the bundled greedy and
random, and ``mixed`` bots that play greedy only part of the time
(:mod:`tests.evaluate.weakbots`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main
from judge.evalbook import format_book, load_book, parse_book
from judge.evaluate import (
    EvalError,
    EvalRound,
    PairTracker,
    RoundSpec,
    plan_maps,
    play_rounds,
    round_specs,
    summarize,
)
from judge.pentanomial import Pentanomial, Sprt, SprtVerdict, estimate
from judge.sandbox import Limits
from judge.views.evalreport import pair_lines
from tests.evaluate.weakbots import BOTS, mixed_bot
from tests.records_support import a_result
from tests.referee.fakes import FakeSandbox, spec

SMALL = ["--sizes", "5", "--turns", "6", "--jobs", "2", "--seed", "1"]


def _outcome(spec_: RoundSpec, for_a: str | None, trace: str = "t") -> EvalRound:
    """A finished round whose result for BOT_A is win / draw / loss (None: abandoned)."""
    if for_a is None:
        return EvalRound(spec_, None, "judge failure")
    a = spec_.a_seat
    winner = {"win": a, "loss": 1 - a, "draw": None}[for_a]
    gold = (5, 5) if winner is None else ((9, 1) if winner == 0 else (1, 9))
    rr = a_result(None, gold, map_label="m", replay="r", seed=1)
    return EvalRound(spec_, rr, trace=trace)


def _specs(n_maps: int) -> list[RoundSpec]:
    return round_specs(plan_maps(n_maps, [(5, 5)], [6], seed=0))


# ------------------------------------------------------------------ the tracker


def test_pairs_are_counted_in_map_order_whatever_order_rounds_finish() -> None:
    specs = _specs(4)
    results = ["win", "win", "win", "loss", "draw", "loss", "loss", "loss"]
    outs = [_outcome(s, r) for s, r in zip(specs, results, strict=True)]
    forward, backward = PairTracker(), PairTracker()
    for o in outs:
        forward.add(o)
    for o in reversed(outs):
        backward.add(o)
    for t in (forward, backward):
        assert [p.score for p in t.pairs] == [2.0, 1.0, 0.5, 0.0]
        assert t.penta.counts == (1, 1, 1, 0, 1)
    # a pair is counted only once every earlier map is done
    t = PairTracker()
    t.add(outs[2])
    t.add(outs[3])
    assert t.pairs == []
    t.add(outs[0])
    assert t.pairs == []
    t.add(outs[1])
    assert [p.plan.index for p in t.pairs] == [0, 1]


def test_sprt_verdict_is_fixed_at_the_crossing_and_later_pairs_are_not_counted() -> None:
    specs = _specs(30)
    outs = [_outcome(s, "win") for s in specs]
    sprt = Sprt(0, 200)
    t = PairTracker(sprt)
    stops = [t.add(o) for o in outs]
    first = stops.index(True)
    assert all(stops[first:])
    assert t.verdict is SprtVerdict.H1 and t.llr >= sprt.upper
    n = t.penta.pairs
    assert 2 * n == first + 1  # decided on the pair that completed at that round
    assert sprt.llr(Pentanomial((0, 0, 0, 0, n - 1))) < sprt.upper <= t.llr
    # the same rounds in another finishing order: the same decision
    t2 = PairTracker(sprt)
    for o in sorted(outs, key=lambda o: (o.spec.a_seat, -o.spec.number)):
        t2.add(o)
    assert (t2.penta, t2.llr, t2.verdict) == (t.penta, t.llr, t.verdict)
    s = summarize(outs, ["a", "b"], ["a", "b"], 0, [o.spec.plan for o in outs[::2]],
                  [(5, 5)], [6], Limits(), 2, None, t)  # fmt: skip
    assert s.sprt is not None and s.sprt.verdict is SprtVerdict.H1 and s.sprt.pairs == n
    assert s.sprt.rounds_after_verdict == len(outs) - 2 * n
    assert s.rounds_played == 2 * n and s.result.wins == 2 * n


def test_undecided_test_is_inconclusive_and_abandoned_rounds_make_incomplete_pairs() -> None:
    specs = _specs(3)
    outs = [
        _outcome(specs[0], "win"),
        _outcome(specs[1], None),
        _outcome(specs[2], "win"),
        _outcome(specs[3], "draw"),
        _outcome(specs[4], "loss"),
        _outcome(specs[5], "draw"),
    ]
    t = PairTracker(Sprt(0, 10))
    for o in outs:
        t.add(o)
    assert t.verdict is SprtVerdict.CONTINUE
    t.finish()
    assert t.verdict is SprtVerdict.INCONCLUSIVE
    assert [p.score for p in t.pairs] == [None, 1.5, 0.5]
    s = summarize(outs, ["a", "b"], ["a", "b"], 0, [o.spec.plan for o in outs[::2]],
                  [(5, 5)], [6], Limits(), 2, None, t)  # fmt: skip
    assert s.pairs is not None and s.pairs.pairs == 2 and s.pairs.incomplete == 1
    assert s.pairs.pentanomial == (0, 1, 0, 1, 0)
    assert s.sprt is not None and s.sprt.verdict is SprtVerdict.INCONCLUSIVE


def test_each_round_names_its_pair_even_when_a_book_plays_one_map_twice(tmp_path: Path) -> None:
    """An independent check pairs the rounds of --json by "pair", not by map label."""
    plans = parse_book("gen 5x5 6 1\ngen 5x5 6 1\n", tmp_path)
    specs = round_specs(plans)
    outs = [_outcome(specs[0], "win"), _outcome(specs[1], "win"),
            _outcome(specs[2], "loss"), _outcome(specs[3], "draw")]  # fmt: skip
    s = summarize(outs, ["a", "b"], ["a", "b"], 0, plans, [(5, 5)], [6], Limits(), 1, None)
    assert len({r.map for r in s.rounds}) == 1
    assert [r.pair for r in s.rounds] == [1, 1, 2, 2]
    assert s.pairs is not None and s.pairs.pentanomial == (0, 1, 0, 0, 1)
    _check_against_rounds(s.to_json())


# ------------------------------------------------------------- mirrored pairs


def test_a_mirrored_pair_is_one_distinct_game_and_the_report_says_so() -> None:
    """Pairs 1 and 2 replay one game in both seat orders (equal traces); pair 3 does not."""
    specs = _specs(3)
    outs = [
        _outcome(specs[0], "win", "g1"),
        _outcome(specs[1], "win", "g1"),
        _outcome(specs[2], "draw", "g2"),
        _outcome(specs[3], "draw", "g2"),
        _outcome(specs[4], "win", "g3"),
        _outcome(specs[5], "loss", "g4"),
    ]
    plans = [o.spec.plan for o in outs[::2]]
    s = summarize(outs, ["a", "b"], ["a", "b"], 0, plans, [(5, 5)], [6], Limits(), 1, None)
    assert s.pairs is not None and s.pairs.mirrored == 2
    assert (s.result.wins, s.result.draws, s.result.losses) == (3, 2, 1)
    assert s.distinct_games() == (2, 1, 1)
    text = "\n".join(pair_lines(s))
    assert "mirrored pairs: 2 of 3 (one game played twice" in text
    assert "distinct games: 4 (2 won, 1 drawn, 1 lost by a)" in text
    # No pair mirrored: every round is a game of its own, and the report says none was.
    outs = [_outcome(specs[0], "win", "g0"), _outcome(specs[1], "win", "g1")]
    s = summarize(outs, ["a", "b"], ["a", "b"], 0, plans[:1], [(5, 5)], [6], Limits(), 1, None)
    assert s.distinct_games() == (2, 0, 0)
    text = "\n".join(pair_lines(s))
    assert "mirrored pairs: none of 1\ndistinct games: 2 (2 won, 0 drawn, 0 lost by a)" in text


def _to_zero(which: int):  # type: ignore[no-untyped-def]
    """A fake bot: starts on the ``which``-th 0-cell in reading order, then stays."""

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        tok = map_inp.split()
        m, n = int(tok[0]), int(tok[1])
        if tok[3] == "0":
            cells = tok[9 : 9 + m * n]
            f = [i for i, t in enumerate(cells) if t == "0"][which]
            return f"{f // n + 1} {f % n + 1}".encode(), b"x", "OK"
        return f"{tok[3]} {tok[4]}".encode(), b"x", "OK"

    return bot


@pytest.mark.slow
def test_mirrored_pairs_are_found_from_the_moves(tmp_path: Path) -> None:
    calls = {"n": 0}

    def restless(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        """Starts like the other, but moves in every second round it plays and stays otherwise."""
        tok = map_inp.split()
        m = int(tok[0])
        if tok[3] == "0":
            calls["n"] += 1
            return _to_zero(0)(map_inp, state)
        i, j = int(tok[3]), int(tok[4])
        if calls["n"] % 2 == 0:
            i = i + 1 if i < m else i - 1
        return f"{i} {j}".encode(), b"x", "OK"

    plans = plan_maps(1, [(5, 5)], [6], seed=3)
    for bot, mirrored in ((_to_zero(0), True), (restless, False)):
        sb = FakeSandbox({"a": bot, "b": _to_zero(-1)})
        outs = play_rounds(
            [spec("a"), spec("b")], ["a", "b"], round_specs(plans), sb,  # type: ignore[arg-type]
            Limits(), tmp_path / str(mirrored), jobs=1,
        )  # fmt: skip
        assert all(o.trace for o in outs)
        s = summarize(outs, ["a", "b"], ["a", "b"], 3, plans, [(5, 5)], [6], Limits(), 1, None)
        assert s.pairs is not None and s.pairs.lines[0].mirrored is mirrored
        assert s.pairs.mirrored == (1 if mirrored else 0)


# ---------------------------------------------------------------- the book


def test_book_parses_generated_and_file_maps_and_round_trips(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    sea = (ROOT_MAPS / "m1.txt").read_text(encoding="utf-8")
    (tmp_path / "maps" / "sea.txt").write_text(sea, encoding="utf-8")
    text = (
        "# my book\n"
        "gen 5x7 10 42\n"
        "\n"
        "file maps/sea.txt 20 placement=9   # a published map with K 20\n"
        "gen 9 40 7 placement=3\n"
        "file maps/sea.txt\n"
    )
    plans = parse_book(text, tmp_path)
    assert [(p.rows, p.cols, p.turns) for p in plans[:1]] == [(5, 7, 10)]
    assert plans[0].map_seed == 42 and plans[2].round_seed == 3 and plans[1].round_seed == 9
    assert plans[1].path == str((tmp_path / "maps" / "sea.txt").resolve())
    assert plans[1].turns == 20 and plans[3].turns == plans[3].game_map().turns
    assert plans[1].game_map().turns == 20
    assert [p.index for p in plans] == [0, 1, 2, 3]
    assert plans == parse_book(text, tmp_path)  # derived placement seeds are stable
    # the book written back plays the same maps, placements included
    again = parse_book(format_book(plans), Path("/nonexistent"))
    assert [(p.rows, p.cols, p.turns, p.map_seed, p.round_seed, p.path) for p in again] == [
        (p.rows, p.cols, p.turns, p.map_seed, p.round_seed, p.path) for p in plans
    ]
    assert plans[0].game_map() == again[0].game_map()


ROOT_MAPS = BOTS.parent / "maps"


@pytest.mark.parametrize(
    "line, word",
    [
        ("gen 6x6 10 1", "odd"),
        ("gen 5x5 7 1", "even"),
        ("gen 5x5 10", "gen ROWSxCOLS K SEED"),
        ("gen 5x5 10 x", "seed"),
        ("file nowhere.txt", "no such file"),
        ("play 5x5", "starts with 'gen' or 'file'"),
        ("gen 5x5 10 1 placement=abc", "placement"),
        ("gen 5x5 10 1 colour=red", "unknown option"),
    ],
)
def test_bad_book_lines_are_named(line: str, word: str, tmp_path: Path) -> None:
    with pytest.raises(EvalError) as exc:
        parse_book("gen 5x5 10 1\n" + line + "\n", tmp_path, "b.txt")
    assert "b.txt line 2" in str(exc.value) and word in str(exc.value)
    with pytest.raises(EvalError, match="no maps"):
        parse_book("# nothing\n", tmp_path)
    with pytest.raises(EvalError, match="missing.txt: no such file"):
        load_book(tmp_path / "missing.txt")


# ------------------------------------------------------------------ end to end


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["eval", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _check_against_rounds(s: dict[str, Any]) -> None:
    """The report's pentanomial and Elo, recomputed from its own list of rounds."""
    by_pair: dict[int, float] = {}
    for r in s["rounds"]:
        pts = {"win": 1.0, "draw": 0.5, "loss": 0.0}[r["outcome"]]
        by_pair[r["pair"]] = by_pair.get(r["pair"], 0.0) + pts
    assert [p["pair"] for p in s["pairs"]["list"]] == sorted(by_pair)
    penta = Pentanomial.from_pair_scores(by_pair.values())
    assert s["pairs"]["pentanomial"] == penta.as_list()
    est = estimate(penta)
    assert est is not None
    assert s["pairs"]["elo"] == pytest.approx(est.elo, abs=0.01)
    assert s["pairs"]["elo95"] == pytest.approx([est.elo_lo, est.elo_hi], abs=0.01)
    assert s["pairs"]["los"] == pytest.approx(est.los, abs=1e-4)


@pytest.mark.slow
def test_sprt_accepts_a_clearly_stronger_bot_and_rejects_a_clearly_weaker_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    greedy, rnd = str(BOTS / "greedy"), str(BOTS / "random")
    code, s = _run(capsys, greedy, rnd, "--sprt", "0", "200", "--max-rounds", "60", *SMALL)
    assert code == 0 and s["sprt"]["verdict"] == "H1"
    assert s["sprt"]["llr"] >= s["sprt"]["upper"] and s["rounds_played"] <= 40
    _check_against_rounds(s)
    assert s["sprt"]["llr"] == pytest.approx(
        Sprt(0, 200).llr(Pentanomial(tuple(s["pairs"]["pentanomial"]))),
        abs=1e-3,  # type: ignore[arg-type]
    )
    code, s = _run(capsys, rnd, greedy, "--sprt", "0", "200", "--max-rounds", "60", *SMALL)
    assert code == 0 and s["sprt"]["verdict"] == "H0"
    assert s["sprt"]["llr"] <= s["sprt"]["lower"] and s["rounds_played"] <= 40
    assert s["pairs"]["elo"] < -300 and s["pairs"]["los"] < 0.01


@pytest.mark.slow
def test_sprt_rejects_a_weakened_variant_and_the_verdict_is_the_last_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    weak = mixed_bot(tmp_path / "half-greedy", 0.5)
    code = main(
        ["eval", str(weak), str(BOTS / "greedy"), "--sprt", "0", "200", "--max-rounds", "80",
         *SMALL, "--quiet", "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    text = " ".join(out)
    assert "SPRT: H0 accepted: no evidence that half-greedy is 200 Elo better than greedy" in text
    # the whole verdict is the last line, not wrapped at 80 columns through the pipe
    assert out[-1].startswith("SPRT: H0 accepted:") and out[-1].rstrip().endswith("ELO1 200)")
    assert "pentanomial LL" in text and "LOS" in text
    # Whole numbers, a true minus sign, the interval without a symmetric '+-'.
    assert re.search(r"Elo \u2212\d+ \(95 %: (\u2212\d+|0|\+\d+) to (\u2212\d+|0|\+\d+)\)", text)
    assert "+-" not in text
    s = json.loads((tmp_path / "out" / "eval.json").read_text())
    assert s["sprt"]["verdict"] == "H0" and s["rounds_played"] <= 60
    _check_against_rounds(s)
    # the book written next to it replays the same maps
    book = load_book(tmp_path / "out" / "book.txt")
    assert [p.label for p in book[: s["pairs"]["pairs"]]] == [p["map"] for p in s["pairs"]["list"]]


@pytest.mark.slow
def test_round_cap_makes_an_inconclusive_verdict_and_a_book_is_played_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    book = tmp_path / "book.txt"
    book.write_text("gen 5x5 6 11\ngen 7x7 4 12\ngen 5x7 6 13\n", encoding="utf-8")
    greedy, rnd = str(BOTS / "greedy"), str(BOTS / "random")
    code, s = _run(capsys, greedy, rnd, "--sprt", "0", "5", "--max-rounds", "4", "--book",
                   str(book), "--jobs", "2")  # fmt: skip
    assert code == 0 and s["sprt"]["verdict"] == "inconclusive" and s["rounds_played"] == 4
    assert [r["map"] for r in s["rounds"]] == ["gen-5x5-k6-s11"] * 2 + ["gen-7x7-k4-s12"] * 2
    code, s = _run(capsys, greedy, rnd, "--book", str(book), "--jobs", "2")
    assert code == 0 and s["rounds_played"] == 6 and s["sprt"] is None  # the whole book
    assert s["book"] == str(book) and s["pairs"]["pairs"] == 3


@pytest.mark.parametrize(
    "extra, word",
    [
        (["--sprt", "0", "5", "--rounds", "10"], "--max-rounds"),
        (["--max-rounds", "10"], "--sprt"),
        (["--sprt", "5", "0"], "ELO0 must be below ELO1"),
        (["--alpha", "0.1"], "--sprt"),
        (["--sprt", "0", "5", "--beta", "0.7"], "beta"),
        (["--book", "/nonexistent/book.txt"], "book.txt: no such file"),
    ],
)
def test_bad_sprt_and_book_options(
    extra: list[str], word: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["eval", str(BOTS / "greedy"), str(BOTS / "random"), *extra])
    assert code == 2 and word in capsys.readouterr().err
    book = tmp_path / "b.txt"
    book.write_text("gen 5x5 6 1\n", encoding="utf-8")
    for bad in (["--sizes", "5"], ["--rounds", "4"]):
        code = main(["eval", str(BOTS / "greedy"), str(BOTS / "random"), "--book", str(book), *bad])
        assert code == 2 and "book" in capsys.readouterr().err
