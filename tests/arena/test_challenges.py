"""Challenges (judge.arena.challenges): who may ask for what, how often."""

from __future__ import annotations

from judge.arena.challenges import Ask, ChallengeRules, refusal

RULES = ChallengeRules(pairs_per_hour=6, max_pairs=3)
OPPONENTS = frozenset({"Rồng Biển", "Beta", "reference"})


def test_a_challenge_within_the_limits_is_played() -> None:
    assert refusal(Ask("Beta", "Rồng Biển", 3), RULES, 3, OPPONENTS, True) is None
    assert refusal(Ask("Beta", "reference", 1), RULES, 0, OPPONENTS, True) is None


def test_a_challenge_is_refused_with_a_status_and_a_reason() -> None:
    cases = [
        (Ask("Beta", "reference", 1), 0, False, 409, "no accepted version"),
        (Ask("Beta", "Beta", 1), 0, True, 400, "itself"),
        (Ask("Beta", "Gamma", 1), 0, True, 404, "no bot"),
        (Ask("Beta", "reference", 4), 0, True, 400, "1 to 3"),
        (Ask("Beta", "reference", 0), 0, True, 400, "1 to 3"),
        (Ask("Beta", "reference", 2), 5, True, 429, "1 left"),
        (Ask("Beta", "reference", 1), 9, True, 429, "0 left"),
    ]
    for ask, asked, has, status, words in cases:
        got = refusal(ask, RULES, asked, OPPONENTS, has)
        assert got is not None and got[0] == status and words in got[1], (ask, got)
