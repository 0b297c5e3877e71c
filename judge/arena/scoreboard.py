"""What the public may see of the ladder and the final, phase by phase (pure).

The arena is ``open`` (uploads, the ladder), then ``frozen`` (uploads
closed, versions fixed), then ``final`` (the official round robin is played).
With ``scoreboard: {hidden: true}`` in arena.yaml the public scoreboard is
hidden from the freeze until the organiser's ``judge arena release``, in the
way DOMjudge freezes a scoreboard, but stricter: nothing that changes while
the final is played is shown at all.  A hidden board lists the teams and
their frozen versions in name order, and nothing else: no rating, no game
count, no "last played", no order by result.  Every public page and JSON
answer is built from :func:`public_board`, so no page can show more.

Once released, the board shows the ladder as it stood at the freeze and the
final's standings (``DIR/final/standings.json``), and the final's pages.
The organiser always sees everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge.arena.ratings import Standing
from judge.names import folder_name

PHASES = ("open", "frozen", "final")


@dataclass(frozen=True)
class ScoreboardRules:
    """``scoreboard:`` of arena.yaml."""

    #: hide the public board from the freeze until ``judge arena release``
    hidden: bool = False


def is_hidden(phase: str, rules: ScoreboardRules, released: bool) -> bool:
    """Whether the public sees the hidden board now."""
    return rules.hidden and phase != "open" and not released


def public_board(
    phase: str,
    hidden: bool,
    ladder: Sequence[Standing],
    final: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``GET /api/standings``: ``{"phase", "standings": [{"team", "version", "mu", "sigma",
    "rating", "games"}...]}``; hidden: the same keys, every value that could tell a result
    ``None``, in name order (by the names' plain-ASCII form, so "Ánh" sorts with "A"); released after a final: ``"final"``, its standings rows."""
    if hidden:
        rows = sorted(ladder, key=lambda s: (folder_name(s.team).casefold(), s.team))
        return {
            "phase": phase,
            "hidden": True,
            "standings": [
                {
                    "team": s.team,
                    "version": s.version,
                    "mu": None,
                    "sigma": None,
                    "rating": None,
                    "games": None,
                    "house": s.house,
                    "last_change": None,
                }
                for s in rows
            ],
        }
    board: dict[str, Any] = {
        "phase": phase,
        "hidden": False,
        "standings": [s.to_json() for s in ladder],
    }
    if final is not None:
        board["final"] = [dict(r) for r in final]
    return board
