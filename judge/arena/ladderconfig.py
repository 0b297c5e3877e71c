"""The ladder's sections of arena.yaml: ``ladder:``, ``house_bots:``, ``scoreboard:``.

:mod:`judge.arena.config` reads the file and keeps these sections as written;
they are checked here, every problem at once, each naming its key::

    ladder:
      seed: 2027                # practice maps and pairings derive from it
      round_robin_max: 40       # up to this many entrants: rounds of a round robin
      pairs_per_entrant: 1.0    # a larger field: pairs chosen per entrant at a time
      placement: 3              # a new version also meets this many nearest in rating
      generated: [7x7, 9x9]     # generated practice seas besides the listed maps ([]: none)
      turns: null               # K of every practice game (null: each map's own K)
      challenge_pairs_per_hour: 10
      challenge_max_pairs: 5
    house_bots:                 # besides the reference, which always plays
      - {name: greedy, bot: greedy}
    scoreboard:
      hidden: false             # true: the public board is hidden from the freeze to the release
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import bundled
from judge.arena import ArenaError
from judge.arena.challenges import ChallengeRules
from judge.arena.ladder import LadderRules
from judge.arena.scoreboard import ScoreboardRules
from judge.evaluate import EvalError, Size, parse_sizes
from judge.inputfiles import excerpt
from judge.maps import MAX_TURNS, MIN_TURNS
from judge.names import name_problem, normalise
from judge.settings import Range

#: The bundled bot every ladder has: the bar a team's bot is measured against.
REFERENCE = "reference"

_LADDER_KEYS: dict[str, Range | None] = {
    "seed": Range(0, 2**48, integer=True),
    "round_robin_max": Range(2, 10_000, integer=True),
    "pairs_per_entrant": Range(0.05, 100, integer=False),
    "placement": Range(0, 50, integer=True),
    "generated": None,
    "turns": None,
    "challenge_pairs_per_hour": Range(0, 10_000, integer=True),
    "challenge_max_pairs": Range(1, 100, integer=True),
}


@dataclass(frozen=True)
class HouseBot:
    """A bot of the organisers that plays in the ladder like a team (never in the final)."""

    name: str
    bot: str  # a bundled bot's name, or a path relative to the arena folder


@dataclass(frozen=True)
class LadderSettings:
    seed: int = 0
    rules: LadderRules = field(default_factory=LadderRules)
    generated: tuple[Size, ...] = ((7, 7), (9, 9))
    turns: int | None = None
    challenges: ChallengeRules = field(default_factory=ChallengeRules)
    house_bots: tuple[HouseBot, ...] = (HouseBot(REFERENCE, REFERENCE),)
    scoreboard: ScoreboardRules = field(default_factory=ScoreboardRules)


#: The ladder's sections as ``judge arena init`` writes them into arena.yaml (the defaults).
TEMPLATE = """\
ladder:                 # the practice ladder (docs/arena.md: its rules)
  seed: 0               # the practice maps and the pairings derive from it
  round_robin_max: 40   # up to this many players: rounds of a round robin
  pairs_per_entrant: 1.0  # a larger field: games chosen per player at a time
  placement: 3          # a new version also meets this many nearest in rating
  generated: [7x7, 9x9] # generated practice seas besides the listed maps ([]: none)
  turns: null           # K of every practice game (null: each map's own)
  challenge_pairs_per_hour: 10  # unrated pairs a team may ask for in any hour
  challenge_max_pairs: 5        # ... and at once

# The organisers' bots that play the ladder like a team (never the final), besides the
# reference, which always plays; e.g. - {name: greedy, bot: greedy} (a bundled bot, or a
# folder of this arena).
house_bots: []

scoreboard:
  hidden: false         # true: the public board is hidden from the freeze to the release
"""


def ladder_settings(later: Mapping[str, Any]) -> LadderSettings:
    """The ladder's sections (as :attr:`ArenaConfig.later` keeps them), checked."""
    problems: list[str] = []
    ladder = _mapping("ladder", later.get("ladder"), problems)
    values: dict[str, Any] = {}
    for key, v in ladder.items():
        if key not in _LADDER_KEYS:
            problems.append(
                f"ladder: unknown key {excerpt(key)} (known: {', '.join(_LADDER_KEYS)})"
            )
            continue
        rng = _LADDER_KEYS[key]
        if rng is not None and not rng.holds(v):
            kind = "a whole number" if rng.integer else "a number"
            problems.append(
                f"ladder: {key}: {excerpt(v)}: give {kind} from {rng.low:g} to {rng.high:g}"
            )
            continue
        values[key] = v
    generated = _generated(ladder.get("generated", ["7x7", "9x9"]), problems)
    turns = ladder.get("turns")
    if turns is not None and not (
        isinstance(turns, int)
        and not isinstance(turns, bool)
        and MIN_TURNS <= turns <= MAX_TURNS
        and turns % 2 == 0
    ):
        problems.append(
            f"ladder: turns: {excerpt(turns)}: give an even K from {MIN_TURNS} to {MAX_TURNS}, or null"
        )
        turns = None
    house = _house_bots(later.get("house_bots"), problems)
    board = _mapping("scoreboard", later.get("scoreboard"), problems)
    hidden = board.get("hidden", False)
    for key in board:
        if key != "hidden":
            problems.append(f"scoreboard: unknown key {excerpt(key)} (known: hidden)")
    if not isinstance(hidden, bool):
        problems.append(f"scoreboard: hidden: {excerpt(hidden)}: give true or false")
        hidden = False
    if problems:
        raise ArenaError("arena.yaml: " + "; ".join(problems))
    defaults = LadderRules()
    return LadderSettings(
        seed=values.get("seed", 0),
        rules=LadderRules(
            values.get("round_robin_max", defaults.round_robin_max),
            float(values.get("pairs_per_entrant", defaults.pairs_per_entrant)),
            values.get("placement", defaults.placement_nearest),
        ),
        generated=generated,
        turns=turns,
        challenges=ChallengeRules(
            values.get("challenge_pairs_per_hour", ChallengeRules.pairs_per_hour),
            values.get("challenge_max_pairs", ChallengeRules.max_pairs),
        ),
        house_bots=house,
        scoreboard=ScoreboardRules(hidden=hidden),
    )


def _mapping(name: str, value: Any, problems: list[str]) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{name}: must be a mapping of keys")
        return {}
    return value


def _generated(value: Any, problems: list[str]) -> tuple[Size, ...]:
    if value is None or value == []:
        return ()
    if not isinstance(value, list):
        problems.append(f"ladder: generated: {excerpt(value)}: give a list of sizes like [7x7, 9]")
        return ()
    try:
        return tuple(parse_sizes(",".join(str(v) for v in value)))
    except EvalError as exc:
        problems.append(f"ladder: generated: {exc}")
        return ()


def _house_bots(value: Any, problems: list[str]) -> tuple[HouseBot, ...]:
    out = [HouseBot(REFERENCE, REFERENCE)]
    if value is None:
        return tuple(out)
    if not isinstance(value, list):
        problems.append("house_bots: give a list of {name, bot}")
        return tuple(out)
    seen = {REFERENCE.casefold()}
    for i, entry in enumerate(value):
        if (
            not isinstance(entry, dict)
            or set(entry) - {"name", "bot"}
            or not all(isinstance(entry.get(k), str) and entry[k].strip() for k in ("name", "bot"))
        ):
            problems.append(f"house_bots[{i}]: {excerpt(entry)}: give {{name: ..., bot: ...}}")
            continue
        name = normalise(entry["name"].strip())
        why = name_problem(name)
        if why is not None:
            problems.append(f"house_bots[{i}].name: {excerpt(name)}: {why}")
        elif name.casefold() in seen:
            problems.append(f"house_bots[{i}].name: {excerpt(name)} is already a house bot's name")
        else:
            seen.add(name.casefold())
            out.append(HouseBot(name, entry["bot"].strip()))
    return tuple(out)


def house_bot_path(arena_dir: Path, bot: str) -> str:
    """A house bot as :func:`judge.bots.resolve_bot` takes it: a path relative to the arena
    folder when one is there, else the bundled bot of that name (never the current
    folder's: the server means the same from anywhere)."""
    candidate = arena_dir / bot
    if candidate.exists():
        return str(candidate)
    shipped = bundled.bundled_dir(bundled.BOTS)
    if shipped is not None and (shipped / bot).exists():
        return str(shipped / bot)
    return str(candidate)
