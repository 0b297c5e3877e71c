"""``judge eval``'s and ``judge league``'s tables on a StringIO console of fixed width.

The summary is made by :func:`judge.evaluate.summarize` from rounds whose
results are known (no sandbox), so what is drawn is checked against numbers
worked out here; names that look like rich markup must come out as written.
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import pytest
from rich.console import Console

from judge.evaluate import EvalRound, PairTracker, RoundSpec, plan_maps, round_specs, summarize
from judge.pentanomial import Sprt
from judge.records import EvalSummary
from judge.records.leaderboard import LeaderboardRow
from judge.sandbox import Limits
from judge.views.evalreport import render, sprt_line
from judge.views.league import leaderboard_table
from judge.views.tables import print_item
from tests.records_support import a_result

A, B = "[bold]mine[/bold]", "Cá Mập"


def _round(spec: RoundSpec, for_a: str) -> EvalRound:
    """A finished round that BOT_A won, drew or lost."""
    a = spec.a_seat
    winner = {"win": a, "loss": 1 - a, "draw": None}[for_a]
    gold = (5, 5) if winner is None else ((9, 1) if winner == 0 else (1, 9))
    return EvalRound(spec, a_result(None, gold, map_label="m", replay="r", seed=1), trace="t")


def _summary(
    results: list[str], sprt: Sprt | None = None, n_maps: int | None = None
) -> EvalSummary:
    """The summary of rounds with these results for BOT_A (two per map, in order)."""
    plans = plan_maps(n_maps or len(results) // 2, [(5, 5)], [6], seed=0)
    outs = [_round(s, r) for s, r in zip(round_specs(plans), results, strict=False)]
    tracker = PairTracker(sprt)
    for o in outs:
        tracker.add(o)
    tracker.finish()
    return summarize(outs, [A, B], ["x", "y"], 0, plans, [(5, 5)], [6], Limits(), 1, None, tracker)


def _text(items: list[Any], width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    for item in items:
        print_item(console, item)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue()


def test_the_report_shows_the_pentanomial_elo_and_names_as_written() -> None:
    # pairs: WW, WL, LD -> pentanomial LL 0, LD 1, WL+DD 1, WD 0, WW 1
    s = _summary(["win", "win", "win", "loss", "loss", "draw"])
    text = _text(render(s))
    assert "[bold]mine[/bold] vs Cá Mập: 6 rounds (3 maps x 2 seat orders)" in text
    assert "pentanomial LL 0, LD 1, WL+DD 1, WD 0, WW 1" in text
    # 3.5 points of 6 rounds: 58.3 %, Elo 400 log10(3.5 / 2.5) = +58.45; fishtest's 1e-3
    # of a pair in each empty cell (LL, WD) moves it to +58.4, shown whole, with a true
    # minus sign and the asymmetric interval instead of a symmetric +-
    assert "[bold]mine[/bold] scores 58.3%: Elo +58 (95 %: " in text
    assert "+-" not in text
    assert "95% Wilson (if rounds were independent)" in text
    assert "mean gold" in text and "5x5" in text


def test_no_complete_pair_is_said_in_words() -> None:
    s = _summary(["win"], n_maps=1)
    assert "no complete pair" in _text(render(s))


@pytest.mark.parametrize(
    "results, verdict",
    [
        (
            ["win"] * 24,
            "SPRT: H1 accepted: [bold]mine[/bold] is stronger than Cá Mập: its results fit a "
            "gain of 100 Elo (H1) far better than no gain (H0) (",
        ),
        (
            ["loss"] * 24,
            "SPRT: H0 accepted: no evidence that [bold]mine[/bold] is 100 Elo better than Cá "
            "Mập: its results fit no gain (H0) far better than a gain of 100 Elo (H1); it may "
            "still be better, by less (",
        ),
    ],
)
def test_the_verdict_names_the_hypothesis_and_the_llr(results: list[str], verdict: str) -> None:
    s = _summary(results, Sprt(0, 100))
    line = sprt_line(s, [A, B])
    assert line is not None and line.startswith(verdict)
    assert s.sprt is not None and f"LLR {s.sprt.llr:.2f}, bounds -2.94 and 2.94" in line


def test_a_non_regression_tests_verdict_says_weaker_or_not() -> None:
    """--sprt -100 0: H1 is "not weaker", H0 "looks weaker" (never "0 Elo better")."""
    line = sprt_line(_summary(["win"] * 24, Sprt(-100, 0)), [A, B])
    assert line is not None and line.startswith(
        "SPRT: H1 accepted: [bold]mine[/bold] is not weaker than Cá Mập: its results fit no "
        "gain (H1) far better than a loss of 100 Elo (H0)"
    )
    line = sprt_line(_summary(["loss"] * 24, Sprt(-100, 0)), [A, B])
    assert line is not None and line.startswith(
        "SPRT: H0 accepted: [bold]mine[/bold] looks weaker than Cá Mập: its results fit a loss "
        "of 100 Elo (H0) far better than no gain (H1) ("
    )


def test_a_mirrored_pair_is_explained_in_words() -> None:
    from judge.views.evalreport import pair_lines

    s = _summary(["win", "loss"] * 3)
    assert s.pairs is not None
    s = dataclasses.replace(s, pairs=dataclasses.replace(s.pairs, mirrored=2))
    (line,) = [x for x in pair_lines(s) if "mirrored" in x]
    assert "one game seen from both sides, not two" in line and "counts it twice" in line


def test_an_undecided_test_says_whether_the_cap_or_a_stop_ended_it() -> None:
    capped = _summary(["win", "loss"] * 3, Sprt(0, 5))
    line = sprt_line(capped, [A, B])
    assert line is not None and "inconclusive: the round cap came first" in line
    # 10 maps planned, 3 played: stopped (a signal) before the cap
    stopped = _summary(["win", "loss"] * 3, Sprt(0, 5), n_maps=10)
    line = sprt_line(stopped, [A, B])
    assert line is not None and "inconclusive: stopped before the test decided" in line
    assert sprt_line(_summary(["win", "loss"]), [A, B]) is None  # no test, no line


def test_the_leaderboard_table_escapes_names_and_shows_missing_rates() -> None:
    rows = [
        LeaderboardRow(1, "[red]Rồng[/red]", "1", 31.5, 2.25, 24.75, 40, 25, 0, 15, 0.625),
        LeaderboardRow(2, "new", "1", 25.0, 8.33, 0.01, 0, 0, 0, 0, None),
    ]
    text = _text([leaderboard_table(rows, "leaderboard (out)")], width=90)
    assert "[red]Rồng[/red]" in text and "62.5%" in text
    line = next(ln for ln in text.splitlines() if " new " in ln)
    assert line.split("│")[-2].strip() == "-"
