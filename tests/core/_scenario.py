"""Small hand-written seas for rule scenarios (not valid contest maps: no 100-gold rule)."""

from __future__ import annotations

from judge.maps import GameMap, map_from_text
from judge.rules import Game, Pos


def sea(rows: list[str], turns: int = 20) -> GameMap:
    """A map from rows of tokens, e.g. ``["0 1 D", "S 0 0"]``; limits are not enforced."""
    n = len(rows[0].split())
    text = f"{len(rows)} {n} {turns}\n" + "\n".join(rows) + "\n"
    return map_from_text(text, name="scenario", allow_invalid=True)


def game(rows: list[str], a: Pos, b: Pos, turns: int = 20) -> Game:
    """A round on ``rows`` with boat A (seat 0) on ``a`` and B (seat 1) on ``b``: turn 1 done."""
    g = Game(sea(rows, turns))
    g.place((a, b))
    return g


def state(g: Game) -> tuple[object, ...]:
    """Everything observable about a round, for equality checks."""
    return (
        g.position(0),
        g.position(1),
        tuple(g.gold),
        tuple(g.shield),
        tuple(g.sunk),
        g.turn,
        g.treasure,
        g.ended,
        g.reason,
        tuple(g.grid),
    )
