"""In-process harness for the reference bot: rounds on judge.rules.Game.

The reference bot is called through its pure function ``brain.decide``; the
bundled Python bots (greedy, random) run their own ``main()`` in a private
folder per seat (os.chdir), exactly as over the file protocol but without a
process per turn.  Placement follows the referee (re-asks, random placement
seeded from the round seed).

Command line (prints a table)::

    python tests/reference_bot/harness.py --rounds 200 --opponents greedy,random --jobs 2
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge.mapgen import generate_map  # noqa: E402
from judge.maps import GameMap  # noqa: E402
from judge.protocol import parse_move_out, render_map_inp  # noqa: E402
from judge.rules import Game  # noqa: E402

REF_DIR = ROOT / "bots" / "reference"
SIZES = (5, 7, 9, 11, 13, 15)


def load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, str(path))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_brain = None


def brain() -> Any:
    global _brain
    if _brain is None:
        path = os.environ.get("REF_BRAIN") or str(REF_DIR / "brain.py")
        _brain = load_module("reference_brain", Path(path))
        # Experiments: REF_PARAMS="RHO=0.3,PHI=1" overrides module constants.
        for item in os.environ.get("REF_PARAMS", "").split(","):
            if "=" in item:
                k, v = item.split("=", 1)
                setattr(_brain, k.strip(), type(getattr(_brain, k.strip()))(float(v)))
    return _brain


class RefBot:
    """The reference bot, in-process."""

    name = "reference"

    def __init__(self) -> None:
        self.state: str | None = None
        self.times: list[float] = []

    def new_round(self) -> None:
        self.state = None

    def turn(self, map_text: str) -> bytes:
        t0 = time.perf_counter()
        move, state = brain().decide(map_text, self.state)
        self.times.append(time.perf_counter() - t0)
        self.state = state
        return move.encode()


class ScriptBot:
    """A bundled Python bot (a main() reading MAP.INP in the cwd), run in a private folder."""

    _mods: dict[str, Any] = {}

    def __init__(self, name: str) -> None:
        self.name = name
        if name not in ScriptBot._mods:
            path = ROOT / "bots" / name / "bot.py"
            extra = os.environ.get("EXTRA_BOTS")  # experiments: bots outside the project
            if extra and not path.exists():
                path = Path(extra) / name / "bot.py"
            ScriptBot._mods[name] = load_module(f"bot_{name}", path)
        self.mod = ScriptBot._mods[name]
        self.dir = tempfile.mkdtemp(prefix=f"refh-{name}-")
        self.times: list[float] = []

    def new_round(self) -> None:
        for f in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, f))

    def turn(self, map_text: str) -> bytes | None:
        old = os.getcwd()
        os.chdir(self.dir)
        try:
            for f in ("MOVE.OUT",):
                if os.path.exists(f):
                    os.unlink(f)
            with open("MAP.INP", "w") as fh:
                fh.write(map_text)
            t0 = time.perf_counter()
            try:
                self.mod.main()
            except Exception:
                pass
            self.times.append(time.perf_counter() - t0)
            try:
                with open("MOVE.OUT", "rb") as fh:
                    return fh.read()
            except OSError:
                return None
        finally:
            os.chdir(old)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class NullBot:
    """Starts on the last 0-cell and never moves (for solo collection tests)."""

    name = "null"

    def __init__(self) -> None:
        self.times: list[float] = []

    def new_round(self) -> None:
        self.tried = 0

    def turn(self, map_text: str) -> bytes:
        tok = map_text.split()
        m, n = int(tok[0]), int(tok[1])
        if int(tok[3]) > 0:
            return f"{tok[3]} {tok[4]}".encode()
        zeros = [i for i, t in enumerate(tok[9 : 9 + m * n]) if t == "0"]
        self.tried += 1
        z = zeros[-(1 + (self.tried - 1) % len(zeros))]
        return f"{z // n + 1} {z % n + 1}".encode()


def make_bot(name: str) -> Any:
    if name == "reference":
        return RefBot()
    if name == "null":
        return NullBot()
    return ScriptBot(name)


def play(game_map: GameMap, bots: list[Any], seed: int) -> Game:
    """One round; returns the finished Game."""
    game = Game(game_map)
    rng = random.Random(f"ocean-placement:{seed}")
    for b in bots:
        b.new_round()
    reasks = 0
    while True:
        asked = []
        for s in (0, 1):
            raw = bots[s].turn(render_map_inp(game, s))
            asked.append(parse_move_out(raw).target)
        decision = game.decide_placement((asked[0], asked[1]), reasks, rng)
        if decision.reask:
            reasks += 1
            continue
        assert decision.positions is not None
        game.place(decision.positions)
        break
    while not game.ended:
        moves = []
        for s in (0, 1):
            if game.sunk[s]:
                moves.append(None)
                continue
            raw = bots[s].turn(render_map_inp(game, s))
            moves.append(parse_move_out(raw).target)
        game.step((moves[0], moves[1]))
    return game


def random_case(rng: random.Random) -> tuple[int, int, int, int]:
    rows = rng.choice(SIZES)
    cols = rng.choice(SIZES) if rng.random() < 0.3 else rows
    k = 2 * rng.randint(1, 50)
    return rows, cols, k, rng.randrange(10**9)


def run_case(args: tuple[str, int, int, int, int, int]) -> dict[str, Any]:
    """(opponent, rows, cols, K, map seed, seat of the reference bot) -> result row."""
    opp, rows, cols, k, seed, seat = args
    gm = generate_map(rows, cols, k, seed=seed)
    ref = RefBot()
    other = make_bot(opp)
    bots = [ref, other] if seat == 0 else [other, ref]
    g = play(gm, bots, seed)
    out = g.outcome()
    assert out is not None
    res = "draw" if out.winner is None else ("win" if out.winner == seat else "loss")
    if isinstance(other, ScriptBot):
        other.close()
    return {
        "opp": opp,
        "rows": rows,
        "cols": cols,
        "k": k,
        "seed": seed,
        "seat": seat,
        "result": res,
        "gold": (g.gold[seat], g.gold[1 - seat]),
        "reason": out.reason.value,
        "sunk": (g.sunk[seat], g.sunk[1 - seat]),
        "tmax": max(ref.times),
        "tsum": sum(ref.times),
        "n": len(ref.times),
    }


def cases(
    opponents: list[str], rounds: int, seed: int
) -> list[tuple[str, int, int, int, int, int]]:
    rng = random.Random(seed)
    out = []
    for i in range(rounds):
        rows, cols, k, mseed = random_case(rng)
        for opp in opponents:
            out.append((opp, rows, cols, k, mseed, i % 2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--opponents", default="greedy,random")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show-losses", action="store_true")
    a = ap.parse_args()
    todo = cases(a.opponents.split(","), a.rounds, a.seed)
    t0 = time.time()
    if a.jobs > 1:
        import multiprocessing as mp

        with mp.Pool(a.jobs) as pool:
            rows = pool.map(run_case, todo, chunksize=2)
    else:
        rows = [run_case(c) for c in todo]
    print(f"{len(rows)} rounds in {time.time() - t0:.0f}s")
    print(
        f"{'opponent':10} {'win':>5} {'draw':>5} {'loss':>5} {'win% dec':>9} "
        f"{'gold':>11} {'tmax ms':>8} {'tmean ms':>8}"
    )
    for opp in a.opponents.split(","):
        rs = [r for r in rows if r["opp"] == opp]
        w = sum(r["result"] == "win" for r in rs)
        d = sum(r["result"] == "draw" for r in rs)
        lo = sum(r["result"] == "loss" for r in rs)
        gm = sum(r["gold"][0] for r in rs) / max(1, len(rs))
        go = sum(r["gold"][1] for r in rs) / max(1, len(rs))
        tmax = max(r["tmax"] for r in rs) * 1000
        tmean = sum(r["tsum"] for r in rs) / max(1, sum(r["n"] for r in rs)) * 1000
        print(
            f"{opp:10} {w:5} {d:5} {lo:5} {100 * w / max(1, w + lo):8.1f}% "
            f"{gm:5.1f}/{go:5.1f} {tmax:8.0f} {tmean:8.1f}"
        )
        if a.show_losses:
            for r in rs:
                if r["result"] != "win":
                    print(
                        "   ",
                        r["result"],
                        r["rows"],
                        r["cols"],
                        r["k"],
                        r["seed"],
                        "seat",
                        r["seat"],
                        "gold",
                        r["gold"],
                        r["reason"],
                        "sunk",
                        r["sunk"],
                    )


if __name__ == "__main__":
    main()
