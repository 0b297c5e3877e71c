"""What a replay says happened, turn by turn, without its timings: for comparing rounds.

Two plays of the same round (same seed, same bots) must give equal traces,
whatever the machine was doing: verdicts, the raw first line of
each MOVE.OUT, what became of each move, every placement attempt, positions,
gold, shields and sinkings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The fields of a replay's turn line that the game depends on (not times, memory, paths).
GAME_FIELDS = (
    "turn",
    "raw",
    "moves",
    "verdicts",
    "move_status",
    "reask",
    "positions",
    "gold",
    "shield",
    "sunk",
    "treasure",
    "ended",
    "end_reason",
)


def game_trace(replay: Path) -> list[dict[str, Any]]:
    """Each turn's game fields, placement attempts included."""
    out = []
    for line in replay.read_text(encoding="utf-8").splitlines()[1:]:
        rec = json.loads(line)
        turn = {k: rec.get(k) for k in GAME_FIELDS}
        turn["attempts"] = [
            {k: a.get(k) for k in ("raw", "verdicts", "move_status")}
            for a in rec.get("attempts") or []
        ]
        out.append(turn)
    return out
