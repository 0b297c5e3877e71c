"""Engine throughput: resolved turns per second of two in-process random policies.

Rounds on generated 15x15 maps with K = 100.  Each policy picks a random
neighbour of its boat (or stays) every turn; both figures below include the
policies' own cost.  Run: ``python benchmarks/engine.py [--seconds S]``.
"""

from __future__ import annotations

import argparse
import random
import time

from judge.mapgen import generate_map
from judge.rules import Game


def run(seconds: float, seed: int, api: str = "flat") -> tuple[int, int, float]:
    rng = random.Random(seed)
    maps = [generate_map(15, 15, 100, seed=s) for s in range(20)]
    turns = rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for gm in maps:
            game = Game(gm)
            cells = game.start_cells()
            a, b = rng.sample(cells, 2)
            game.place((a, b))
            nb = game.board.neighbours
            choice = rng.choice
            pos = game.pos
            if api == "flat":
                step = game.step_flat
                while not game.ended:
                    step(choice(nb[pos[0]]), choice(nb[pos[1]]))
            else:  # the public (i, j) API, as the referee calls it
                to_pos = game.board.pos
                while not game.ended:
                    game.step((to_pos(choice(nb[pos[0]])), to_pos(choice(nb[pos[1]]))))
            turns += game.turn
            rounds += 1
    return turns, rounds, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for api, label in (
        ("flat", "Game.step_flat (flat cells)"),
        ("pos", "Game.step ((i, j) moves)"),
    ):
        turns, rounds, elapsed = run(args.seconds, args.seed, api)
        print(f"{label}:")
        print(f"  rounds played       : {rounds}")
        print(f"  turns resolved      : {turns}")
        print(f"  mean turns per round: {turns / rounds:.1f}")
        print(f"  turns per second    : {turns / elapsed:,.0f}  (target >= 300,000)")


if __name__ == "__main__":
    main()
