"""A match: one or more rounds between the same two bots, and its ``result.json``.

Seats are indexes 0 and 1 in the order the bots were given.  A match is scored
with points (20/10/0 a round); ties between the two are broken as standings
are (ruling R18): points, then rounds won, then total gold.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import atomic
from judge.bots import BotSpec
from judge.maps import GameMap
from judge.referee import RoundConfig, RoundObserver, RoundResult, play_round
from judge.sandbox import Limits, Sandbox

RESULT_FILE = "result.json"


def round_seed(match_seed: int, index: int) -> int:
    """Each round's seed derives from the match seed, so one number replays the whole match."""
    h = hashlib.sha256(f"ocean-round:{match_seed}:{index}".encode()).digest()
    return int.from_bytes(h[:6], "big")


@dataclass(frozen=True)
class RoundPlan:
    game_map: GameMap
    map_label: str


@dataclass
class MatchResult:
    teams: list[str]
    seed: int
    rounds: list[RoundResult] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: rounds the match was to have; result.json says ``complete: false`` until all are in
    planned: int | None = None

    @property
    def complete(self) -> bool:
        return self.planned is None or len(self.rounds) >= self.planned

    @property
    def points(self) -> tuple[int, int]:
        return (sum(r.points[0] for r in self.rounds), sum(r.points[1] for r in self.rounds))

    @property
    def winner(self) -> int | None:
        """R18 order between the two teams; None when they are level on all of it."""
        keys = []
        for s in (0, 1):
            keys.append(
                (
                    self.points[s],
                    sum(1 for r in self.rounds if r.winner == s),
                    sum(r.gold[s] for r in self.rounds),
                )
            )
        if keys[0] == keys[1]:
            return None
        return 0 if keys[0] > keys[1] else 1

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "teams": self.teams,
            "seed": self.seed,
            "rounds": [r.as_dict() for r in self.rounds],
            "points": list(self.points),
            "winner": self.winner,
            "rounds_planned": self.planned if self.planned is not None else len(self.rounds),
            "complete": self.complete,
        }
        d.update(self.extra)
        return d


def write_result(out_dir: Path, result: MatchResult) -> None:
    atomic.write_json(out_dir / RESULT_FILE, result.as_dict())


def play_match(
    bots: Sequence[BotSpec],
    names: Sequence[str],
    rounds: Sequence[RoundPlan],
    seed: int,
    out_dir: Path,
    sandbox: Sandbox,
    limits: Limits,
    turns: int | None = None,
    sequential: bool = False,
    observer_for: Callable[[int, RoundPlan], RoundObserver | None] | None = None,
    extra: dict[str, Any] | None = None,
) -> MatchResult:
    """Play every round in order; ``result.json`` is rewritten (atomically) after each one.

    Until the last round is in, result.json says ``"complete": false``, so a match
    that was interrupted never passes for a finished shorter one.
    """
    result = MatchResult(list(names), seed, extra=dict(extra or {}), planned=len(rounds))
    write_result(out_dir, result)
    for idx, plan in enumerate(rounds, start=1):
        cfg = RoundConfig(
            game_map=plan.game_map,
            map_label=plan.map_label,
            seed=round_seed(seed, idx),
            limits=limits,
            turns=turns,
            sequential=sequential,
        )
        observer = observer_for(idx, plan) if observer_for else None
        rr = play_round(
            cfg,
            bots,
            names,
            sandbox,
            out_dir / f"round-{idx}",
            replay_rel=f"round-{idx}/replay.jsonl",
            observer=observer,
        )
        result.rounds.append(rr)
        write_result(out_dir, result)
    return result
