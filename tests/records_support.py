"""Typed records for tests that need a finished round without playing one."""

from __future__ import annotations

from typing import Any

from judge.records import RoundResult
from judge.rules import EndReason, score


def a_result(
    seats: tuple[str, str] | None,
    gold: tuple[int, int],
    reason: EndReason = EndReason.TURNS,
    **fields: Any,
) -> RoundResult:
    """A round scored by the rules (20/0, 10/10 for a draw with gold on both sides, else 0/0)."""
    values: dict[str, Any] = {
        "map_label": "maps/m1.txt",
        "turns": 6,
        "turns_played": 6,
        "outcome": score(gold, reason),
        "gold": gold,
        "sunk": (False, False),
        "shield": (False, False),
        "positions": ((1, 1), (2, 2)),
        "treasure": None,
        "replay": "round-1/replay.jsonl",
        "seed": 123456789012,
        "seats": seats,
    }
    values.update(fields)
    return RoundResult(**values)
