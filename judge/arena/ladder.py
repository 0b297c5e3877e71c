"""The practice ladder's choice of games (pure: no I/O; randomness is injected).

Every game of the ladder is a *pair*: one practice map played twice, seats
swapped, rated as one game (:mod:`.ratings`).  Who plays whom is chosen two
ways, by the size of the field:

* **A class** (at most ``round_robin_max`` entrants, 40 by default): rounds
  of a round robin of every entrant (each team's current accepted version,
  the bundled reference and the house bots).  Every pair of entrants meets
  once a round, on a practice map of its own; the next round is chosen when
  the last one has ended, from the entrants current then.  Nobody starves:
  the strongest and the newest bot play exactly as many games as anyone.
* **A larger field**: Halite III's matchmaking (which is the AI
  Challenge's): the next pair's first bot is the one that needs a game most
  (fewest games, or longest idle) and its opponent is drawn from the bots
  nearest it in mu, a window whose width follows a Pareto law (usually a
  handful, now and then most of the field), preferring the one it has met
  least.

A newly accepted version plays a **placement burst** ahead of the round's
games: a pair against the reference and one against each of the entrants
nearest its rating, so its rating settles within minutes, not a round.

Practice maps are the teams' published map list and generated maps, never
the organisers' final map (compared by sea, as ruling R19 does).
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.evaluate import MapPlan, Size
from judge.league.ratings import Rating
from judge.mapgen import generate_map
from judge.maps import GameMap, load_map
from judge.seeds import derive
from judge.tournament.config import sea_key

#: A field of at most this many entrants plays rounds of a round robin.
ROUND_ROBIN_MAX = 40
#: Halite's seed choice: fewest games (weighted), an idle bot among the most idle, the most idle.
SEED_SHARES = (0.65, 0.25, 0.10)
#: The "idle" seed is drawn from this many of the bots longest without a game.
IDLE_POOL = 15


class PairKind(str, enum.Enum):
    """Why a pair is played: it decides its priority and whether it is rated."""

    PLACEMENT = "placement"  #: a new version's first games (rated, played first)
    CHALLENGE = "challenge"  #: asked for by a team (never rated)
    LADDER = "ladder"  #: a game of the ladder's round (rated)


@dataclass(frozen=True)
class Entrant:
    """What the choice of games needs to know of one bot of the ladder."""

    key: str  # the store's name for it (a team's version, or a house bot)
    rating: Rating
    games: int  # rated pairs played
    #: when it last finished a game, or joined (seconds on any clock; larger = later)
    idle_since: float = 0.0


@dataclass(frozen=True)
class Pick:
    """A pair to play: ``a`` and ``b`` are entrant keys (each plays seat 0 once)."""

    a: str
    b: str
    kind: PairKind = PairKind.LADDER


# ------------------------------------------------------------------ a class
def round_robin(entrants: Sequence[Entrant], rng: random.Random) -> list[Pick]:
    """One round: every pair of entrants once, in a shuffled order.

    Which of the two is ``a`` is drawn too, though it decides nothing: a pair
    plays both seat orders.
    """
    keys = sorted(e.key for e in entrants)
    picks = []
    for a, b in itertools.combinations(keys, 2):
        picks.append(Pick(a, b) if rng.random() < 0.5 else Pick(b, a))
    rng.shuffle(picks)
    return picks


# ---------------------------------------------------------- a larger field
def window(rng: random.Random) -> int:
    """How many of the nearest bots an opponent is drawn from (Halite: ``5/(0.01+r)^0.65``):
    at least 5, usually under 20, now and then most of the field."""
    return int(5 / (0.01 + rng.random()) ** 0.65)


def choose_seed(entrants: Sequence[Entrant], rng: random.Random) -> Entrant:
    """The bot that needs a game most, drawn as Halite draws it.

    65 %: by fewest games, weighted ``rand(0.5..1) / (games + 1)`` (a bot is
    always chosen before one with more than twice its games); 25 %: one of the
    ``IDLE_POOL`` bots longest without a game; 10 %: the bot longest without one.
    """
    by_idle = sorted(entrants, key=lambda e: (e.idle_since, e.key))
    draw = rng.random()
    if draw < SEED_SHARES[0]:
        return max(entrants, key=lambda e: (rng.uniform(0.5, 1.0) / (e.games + 1), e.key))
    if draw < SEED_SHARES[0] + SEED_SHARES[1]:
        return rng.choice(by_idle[:IDLE_POOL])
    return by_idle[0]


def choose_opponent(
    seed: Entrant,
    entrants: Sequence[Entrant],
    met: Mapping[frozenset[str], int],
    rng: random.Random,
) -> Entrant:
    """An opponent near ``seed`` in mu: from a Pareto-sized window of the nearest, the one
    it has met least (ties drawn at random)."""
    others = [e for e in entrants if e.key != seed.key]
    others.sort(key=lambda e: (abs(e.rating.mu - seed.rating.mu), e.key))
    pool = others[: window(rng)]
    rng.shuffle(pool)
    return min(pool, key=lambda e: met.get(frozenset((seed.key, e.key)), 0))


def matchmade(
    entrants: Sequence[Entrant],
    n: int,
    rng: random.Random,
    met: Mapping[frozenset[str], int] | None = None,
) -> list[Pick]:
    """``n`` pairs chosen one after another as Halite chooses them; each choice counts the
    pairs chosen before it (games and meetings), so a batch does not pick one bot n times."""
    if len(entrants) < 2:
        return []
    meetings = dict(met or {})
    state = {e.key: e for e in entrants}
    later = max(e.idle_since for e in entrants)
    picks: list[Pick] = []
    for _ in range(n):
        current = list(state.values())
        seed = choose_seed(current, rng)
        other = choose_opponent(seed, current, meetings, rng)
        picks.append(Pick(seed.key, other.key))
        pair = frozenset((seed.key, other.key))
        meetings[pair] = meetings.get(pair, 0) + 1
        later += 1
        for e in (seed, other):  # chosen: it has a game coming, and is idle no longer
            state[e.key] = Entrant(e.key, e.rating, e.games + 1, later)
    return picks


# ---------------------------------------------------------------- placement
def placement(
    new: Entrant, others: Sequence[Entrant], reference: str | None, nearest: int
) -> list[Pick]:
    """A new version's first pairs: against the reference, then against the ``nearest``
    other entrants by mu (the new version is ``a`` of each)."""
    rest = [e for e in others if e.key not in (new.key, reference)]
    rest.sort(key=lambda e: (abs(e.rating.mu - new.rating.mu), e.key))
    keys = ([reference] if reference is not None and reference != new.key else []) + [
        e.key for e in rest[:nearest]
    ]
    return [Pick(new.key, k, PairKind.PLACEMENT) for k in keys]


# ------------------------------------------------------------- the choice
@dataclass(frozen=True)
class LadderRules:
    """The ladder's settings (``ladder:`` in arena.yaml)."""

    round_robin_max: int = ROUND_ROBIN_MAX
    #: for a larger field: how many pairs a "round" is (chosen at once), per entrant
    pairs_per_entrant: float = 1.0
    #: a new version's placement burst: the reference and this many nearest entrants
    placement_nearest: int = 3


def next_round(
    entrants: Sequence[Entrant],
    rules: LadderRules,
    rng: random.Random,
    met: Mapping[frozenset[str], int] | None = None,
) -> list[Pick]:
    """The ladder's next round of pairs, by the size of the field (see the module's text)."""
    if len(entrants) < 2:
        return []
    if len(entrants) <= rules.round_robin_max:
        return round_robin(entrants, rng)
    n = max(1, round(rules.pairs_per_entrant * len(entrants)))
    return matchmade(entrants, n, rng, met)


# -------------------------------------------------------------- the maps
@dataclass(frozen=True)
class PracticeMaps:
    """Where practice games are played: the teams' map list and generated seas.

    Made with :meth:`load`, which leaves out every listed map that is the
    organisers' sea; a generated sea that happens to be it is drawn again.
    """

    files: tuple[tuple[Path, GameMap], ...] = ()
    sizes: tuple[Size, ...] = ((7, 7), (9, 9))
    #: K of every practice map (None: a file's own K; for a generated map, 40)
    turns: int | None = None
    organiser: GameMap | None = None

    @classmethod
    def load(
        cls,
        paths: Sequence[Path],
        sizes: Sequence[Size],
        turns: int | None = None,
        organiser: GameMap | None = None,
    ) -> PracticeMaps:
        banned = sea_key(organiser) if organiser is not None else None
        files = []
        for p in paths:
            gm = load_map(p)
            if banned is None or sea_key(gm) != banned:
                files.append((p, gm))
        if not files and not sizes:
            raise NoPracticeMap(
                "no practice map: the list is empty, or every map of it is the organisers' "
                "sea; list other maps or generated sizes under 'practice_maps'"
            )
        return cls(tuple(files), tuple(sizes), turns, organiser)


class NoPracticeMap(ValueError):
    """There is nothing to practise on (no map, or only the organisers' sea)."""


def practice_plan(number: int, maps: PracticeMaps, seed: int) -> MapPlan:
    """Pair ``number``'s map: a file of the list or a generated sea, drawn from the seed and
    the number alone (the same pair gets the same map on any machine, at any time), never
    the organisers' sea."""
    rng = random.Random(derive("ocean-arena-map", seed, number))
    k = rng.randrange(len(maps.files) + len(maps.sizes))
    round_seed = derive("ocean-arena-round", seed, number)
    if k < len(maps.files):
        path, gm = maps.files[k]
        turns = maps.turns if maps.turns is not None else gm.turns
        return MapPlan(number, gm.rows, gm.cols, turns, 0, round_seed, str(path), path.stem)
    rows, cols = maps.sizes[k - len(maps.files)]
    turns = maps.turns if maps.turns is not None else 40
    banned = sea_key(maps.organiser) if maps.organiser is not None else None
    for attempt in itertools.count():
        map_seed = derive("ocean-arena-sea", seed, number, attempt)
        if banned is None or sea_key(generate_map(rows, cols, turns, seed=map_seed)) != banned:
            return MapPlan(number, rows, cols, turns, map_seed, round_seed)
    raise AssertionError("unreachable")  # pragma: no cover
