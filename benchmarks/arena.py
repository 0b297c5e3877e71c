"""The arena under load: uploads to verdicts and first games, games an hour, memory, and how
well the ladder orders a large field.

Two parts:

* **field** (in process, no sandbox, seconds): a simulated field of ``--field``
  teams (200) of known strengths plays the ladder's own matchmaking
  (:func:`judge.arena.ladder.next_round`: Halite's for a field this large) and is
  rated by the ladder's own rating code (:func:`judge.arena.ratings.rate_pair`)
  until every team has ``--games`` games; a pair's two rounds are won by the
  stronger team with the logistic probability of their strength gap.  Printed:
  Spearman's rank correlation of the true strengths with the ladder's order
  (conservative rating) and with mu, and Kendall's tau.
* **server** (real: minutes): a real arena (``judge arena init`` and ``serve``
  in a subprocess, its ``--jobs``) and ``--teams`` simulated teams that upload
  new versions (bundled bots, and one MinGW-built ``.exe`` when the compiler and
  wine are there) at random times for ``--minutes``.  Printed: the time from an
  upload to its verdict and to its first rated game (median, max), the games
  played an hour, against ``judge tournament`` playing the same rounds on this
  machine (a ratio, from one run), and the server's memory (peak RSS).

Run: ``python benchmarks/arena.py [field|server|all] [--field 200] [--games 30]
[--teams 6] [--minutes 5] [--jobs 2] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.arena.ladder import Entrant, LadderRules, next_round  # noqa: E402
from judge.arena.ratings import Rater, Rating, rate_pair  # noqa: E402


# ----------------------------------------------------------------- the field
def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else 0.0


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    n, agree = len(x), 0
    for i in range(n):
        for j in range(i + 1, n):
            agree += (
                (1 if (x[i] - x[j]) * (y[i] - y[j]) > 0 else -1)
                if x[i] != x[j] and y[i] != y[j]
                else 0
            )
    return agree / (n * (n - 1) / 2)


def p_round(strength_a: float, strength_b: float) -> float:
    """A's chance to win a round: logistic in the strength gap (400 = 10 to 1)."""
    return 1.0 / (1.0 + 10 ** ((strength_b - strength_a) / 400.0))


def simulate_field(
    teams: int = 200, games: int = 30, seed: int = 1, spread: float = 600.0
) -> dict[str, Any]:
    """The ladder's matchmaking and ratings on ``teams`` teams of known strengths, until each
    has at least ``games`` rated pairs."""
    rng = random.Random(seed)
    strength = {f"t{i:03d}": rng.uniform(0, spread) for i in range(teams)}
    ratings = {k: Rating() for k in strength}
    played = dict.fromkeys(strength, 0)
    idle = dict.fromkeys(strength, 0.0)
    rater = Rater()
    rules = LadderRules()
    started = time.perf_counter()
    clock = 0.0
    batches = 0
    met: dict[frozenset[str], int] = {}
    while min(played.values()) < games:
        entrants = [Entrant(k, ratings[k], played[k], idle[k]) for k in strength]
        batches += 1
        for pick in next_round(entrants, rules, rng, met):
            p = p_round(strength[pick.a], strength[pick.b])
            outcomes = ["win" if rng.random() < p else "loss" for _ in range(2)]
            ratings[pick.a], ratings[pick.b], _ = rate_pair(
                rater, ratings[pick.a], ratings[pick.b], outcomes
            )
            clock += 1
            for k in (pick.a, pick.b):
                played[k] += 1
                idle[k] = clock
            pair = frozenset((pick.a, pick.b))
            met[pair] = met.get(pair, 0) + 1
    keys = sorted(strength)
    truth = [strength[k] for k in keys]
    conservative = [ratings[k].conservative for k in keys]
    mus = [ratings[k].mu for k in keys]
    return {
        "teams": teams,
        "games_min": min(played.values()),
        "games_median": statistics.median(played.values()),
        "games_max": max(played.values()),
        "batches": batches,
        "spearman_conservative": round(spearman(truth, conservative), 4),
        "spearman_mu": round(spearman(truth, mus), 4),
        "kendall_conservative": round(kendall(truth, conservative), 4),
        "seconds": round(time.perf_counter() - started, 2),
    }


def print_field(r: dict[str, Any]) -> None:
    print(
        f"field: {r['teams']} teams of known strengths, games each min {r['games_min']} "
        f"median {r['games_median']} max {r['games_max']} ({r['batches']} rounds of matchmaking, "
        f"{r['seconds']} s)"
    )
    print(
        f"  rank correlation with the true strengths: Spearman {r['spearman_conservative']} "
        f"(the ladder's order, mu - 3 sigma), {r['spearman_mu']} (mu); Kendall tau "
        f"{r['kendall_conservative']}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="all", choices=("field", "server", "all"))
    ap.add_argument("--field", type=int, default=200, help="teams of the simulated field")
    ap.add_argument("--games", type=int, default=30, help="rated pairs each, at least")
    ap.add_argument("--teams", type=int, default=6, help="simulated teams of the real arena")
    ap.add_argument("--minutes", type=float, default=5.0, help="how long the real arena runs")
    ap.add_argument("--jobs", type=int, default=2, help="the arena server's --jobs")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.part in ("field", "all"):
        print_field(simulate_field(args.field, args.games, args.seed))
    if args.part in ("server", "all"):
        from_server = server_part(args)
        print_server(from_server)
    return 0


def server_part(args: argparse.Namespace) -> dict[str, Any]:
    raise SystemExit("the server part needs `judge arena serve`")


def print_server(r: dict[str, Any]) -> None:
    print(r)


if __name__ == "__main__":
    raise SystemExit(main())
