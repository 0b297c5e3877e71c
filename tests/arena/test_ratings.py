"""The ladder's ratings (judge.arena.ratings): OpenSkill as the league uses it."""

from __future__ import annotations

from judge.arena.ratings import (
    NEW_VERSION_SIGMA,
    Player,
    Unrated,
    new_version_rating,
    rate_pair,
    standings,
    unrated_because,
)
from judge.league.ratings import DEFAULT_SIGMA, Rater, Rating


def test_a_new_version_keeps_its_teams_mu_and_starts_wide() -> None:
    settled = Rating(31.5, 1.2)
    start = new_version_rating(settled)
    assert start.mu == 31.5 and start.sigma == NEW_VERSION_SIGMA == DEFAULT_SIGMA
    assert new_version_rating(None) == Rating()


def test_a_won_pair_moves_both_ratings_and_a_split_pair_is_a_draw() -> None:
    rater = Rater()
    a, b = Rating(), Rating()
    na, nb, points = rate_pair(rater, a, b, ["win", "win"])
    assert points == 1.0 and na.mu > a.mu and nb.mu < b.mu
    da, db, points = rate_pair(rater, a, b, ["win", "loss"])
    assert points == 0.5 and abs(da.mu - a.mu) < 1e-9 and da.sigma < a.sigma
    # an abandoned round is left out: the other decides the pair
    assert rate_pair(rater, a, b, [None, "loss"])[2] == 0.0


def test_challenges_replaced_versions_and_abandoned_pairs_are_not_rated() -> None:
    assert unrated_because(True, True, ["win", "win"]) is Unrated.CHALLENGE
    assert unrated_because(False, False, ["win", "win"]) is Unrated.REPLACED
    assert unrated_because(False, True, [None, None]) is Unrated.ABANDONED
    assert unrated_because(False, True, [None, "draw"]) is None


def test_the_ladder_sorts_by_the_conservative_rating_so_a_new_bot_reads_unknown() -> None:
    players = [
        Player("Sure", 3, Rating(28.0, 1.0), 60),
        Player("New", 1, Rating(30.0, 8.33), 0),
        Player("reference", None, Rating(27.0, 1.5), 80, house=True),
    ]
    rows = standings(players)
    assert [r.team for r in rows] == ["Sure", "reference", "New"]
    assert (
        rows[2].mu == 30.0 and rows[2].sigma == 8.33 and rows[2].rating == round(30 - 3 * 8.33, 2)
    )
    assert rows[0].to_json()["games"] == 60 and rows[1].house and rows[1].version is None
