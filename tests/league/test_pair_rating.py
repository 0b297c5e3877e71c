"""The league rates seat-swapped pairs, not rounds.

A pair (one map, the seats swapped) is one game for the ratings, as it is the
unit of ``judge eval``: its result is A's score over its two rounds, so the
order the rounds came in does not matter, and a mirrored win-win of two
deterministic bots moves the ratings once, not twice.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from judge.bots import BotSpec
from judge.league.config import LeagueBot, LeagueConfig
from judge.league.run import League, PairTask, pair_points
from judge.league.store import RoundRow


@pytest.mark.parametrize(
    "outcomes, points",
    [
        (["win", "win"], 1.0),
        (["win", "loss"], 0.5),
        (["draw", "draw"], 0.5),
        (["win", "draw"], 1.0),
        (["loss", "draw"], 0.0),
        (["loss", "loss"], 0.0),
        (["win"], 1.0),  # the other round abandoned by the judge
    ],
)
def test_a_pairs_points_do_not_depend_on_the_order_of_its_rounds(
    outcomes: list[str], points: float
) -> None:
    for order in itertools.permutations(outcomes):
        assert pair_points(list(order)) == points


def _league(
    tmp: Path, results: dict[int, str], order: Sequence[int]
) -> dict[str, tuple[float, float]]:
    """Two bots play one pair; A's result as seat 0 and 1 given, the rounds reported in ``order``."""

    def play(
        tasks: Sequence[PairTask],
        on_round: Callable[[PairTask, RoundRow], None],
        stop: threading.Event,
    ) -> None:
        for task in tasks:
            for seat in order:
                if seat in task.a_seats:
                    on_round(task, RoundRow(task.pair, seat, results[seat], 5, 5, "turns", None))

    bots = tuple(
        LeagueBot(n, BotSpec(n, n, None, ("true",)), "1", "fresh") for n in ("alpha", "beta")
    )
    cfg = LeagueConfig(
        Path("league.yaml"), 5, Path("out"), ((5, 5),), (6,), 1, 1, 2.0, 512, 1, bots
    )
    league = League(cfg, tmp, play)
    try:
        league.run(resume=False)
        return {
            b.name: (round(b.rating.mu, 9), round(b.rating.sigma, 9)) for b in league.store.bots()
        }
    finally:
        league.close()


def test_a_split_pair_leaves_two_equal_bots_equal_whichever_round_came_first(
    tmp_path: Path,
) -> None:
    first = _league(tmp_path / "a", {0: "win", 1: "loss"}, order=(0, 1))
    second = _league(tmp_path / "b", {0: "win", 1: "loss"}, order=(1, 0))
    assert first == second
    assert first["alpha"] == first["beta"]


def test_a_mirrored_win_win_counts_once(tmp_path: Path) -> None:
    """Two wins of the pair move the ratings as one won game would, not as two."""
    from judge.league.ratings import Rater, Rating

    got = _league(tmp_path, {0: "win", 1: "win"}, order=(0, 1))
    once = Rater().rate(Rating(), Rating(), 1.0)
    assert got["alpha"] == (round(once[0].mu, 9), round(once[0].sigma, 9))
    assert got["beta"] == (round(once[1].mu, 9), round(once[1].sigma, 9))
