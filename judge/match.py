"""A match: one or more rounds between the same two bots, and its ``result.json``.

Seats are indexes 0 and 1 in the order the bots were given.  A match is scored
with points (20/10/0 a round); ties between the two are broken as standings
are (ruling R18): points, then rounds won, then total gold.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge import atomic
from judge.bots import BotSpec
from judge.maps import GameMap
from judge.records import MatchResult
from judge.referee import RoundConfig, RoundObserver, play_round
from judge.sandbox import Limits, Sandbox
from judge.seeds import derive

RESULT_FILE = "result.json"


def round_seed(match_seed: int, index: int) -> int:
    """Each round's seed derives from the match seed, so one number replays the whole match."""
    return derive("ocean-round", match_seed, index)


@dataclass(frozen=True)
class RoundPlan:
    game_map: GameMap
    map_label: str


def write_result(out_dir: Path, result: MatchResult) -> None:
    """``result.json`` of a match folder, written atomically."""
    atomic.write_json(out_dir / RESULT_FILE, result.to_json())


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
    stop: threading.Event | None = None,
) -> MatchResult:
    """Play every round in order; ``result.json`` is rewritten (atomically) after each one.

    Until the last round is in, result.json says ``"complete": false``, so a match
    that was interrupted never passes for a finished shorter one.  ``stop`` is
    handed to every round (:class:`~judge.referee.RoundStopped` once it is set).
    """
    result = MatchResult(
        (names[0], names[1]),
        seed,
        planned=len(rounds),
        bots=tuple(b.source for b in bots),
        time_limit_lifted=limits.time_s is None,
    )
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
            stop=stop,
        )
        result.rounds.append(rr)
        write_result(out_dir, result)
    return result
