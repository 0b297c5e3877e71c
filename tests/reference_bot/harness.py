"""In-process harness for the reference bot: rounds on judge.rules.Game.

The reference bot is called through its pure function ``brain.decide``; the
bundled Python bots (greedy, random) run their own ``main()`` in a private
folder per seat (os.chdir), exactly as over the file protocol but without a
process per turn.  Placement follows the referee (re-asks, random placement
seeded from the round seed).

Maps come from ``--maps``: ``classic`` (the project's generator), ``styles``
(every style of judge/mapstyles.py in turn), ``foreign`` (tests/reference_bot/
foreign.py, a generator written apart from the project's), ``hand`` (maps/ and
maps/styles/), ``mixed`` (styles and foreign maps alternately) or ``book:PATH``
(the maps of a ``judge eval --book`` file or its folder, such as
benchmarks/oddbook.py writes, with their K and placement seeds).  Every map is
played twice, the reference bot in seat 0 and then in seat 1.

Command line (prints a table)::

    python tests/reference_bot/harness.py --rounds 200 --opponents greedy,hunter --maps mixed

``--max-area 63`` keeps only small maps (the short races, where the bot is
weakest against hunter); ``--seats 1`` plays each map once; ``--only TEXT`` keeps
the maps whose name holds TEXT, and ``--trace`` prints every turn of those rounds
(both boats' cells and gold; with ``REF_PARAMS=DEBUG=1`` the reference's plan and
the value of each of its moves go to stderr between them), to see how a round was lost.

``--bot NAME`` plays another bot in the reference's place (a sparring partner,
say, against planner or hunter); ``BOT_PARAMS="duel:WORK=200000"`` overrides a
bundled Python bot's module constants, as ``REF_PARAMS`` does the reference's.

An opponent ``brain:PATH`` is another version of the reference's brain.py, in
process.  Against an earlier reference (``git show a6da7f1:bots/reference/
brain.py > /tmp/a6.py``: as far as the history shows, the version a stronger
planning rival was measured against) a change shows whether it makes the bot stronger
against a planner; the bundled bots are weaker than that rival.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import random
import shutil
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT, Path(__file__).resolve().parent):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from judge.maps import GameMap, load_map  # noqa: E402
from judge.mapstyles import STYLES, generate_styled  # noqa: E402
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
    """The reference bot, in-process (``module``: another brain.py, already loaded)."""

    name = "reference"

    def __init__(self, module: Any = None) -> None:
        self.state: str | None = None
        self.times: list[float] = []
        self.module = module

    def new_round(self) -> None:
        self.state = None

    def turn(self, map_text: str) -> bytes:
        t0 = time.process_time()  # CPU time: wall time on a shared machine says little
        move, state = (self.module or brain()).decide(map_text, self.state)
        self.times.append(time.process_time() - t0)
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
            mod = ScriptBot._mods[name] = load_module(f"bot_{name}", path)
            # Experiments: BOT_PARAMS="duel:WORK=200000,duel:EXPLORE=0.4" overrides a bot's
            # module constants, as REF_PARAMS does the reference's.
            for item in os.environ.get("BOT_PARAMS", "").split(","):
                if item.startswith(name + ":") and "=" in item:
                    k, v = item[len(name) + 1 :].split("=", 1)
                    setattr(mod, k.strip(), type(getattr(mod, k.strip()))(float(v)))
        self.mod = ScriptBot._mods[name]
        self.dir = tempfile.mkdtemp(prefix=f"refh-{name}-")
        # Removed when the bot is collected or at exit, whether or not close() is called:
        # tests make these bots freely and must leave no folders behind.
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.dir, True)
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
            t0 = time.process_time()  # CPU time, as RefBot's
            try:
                self.mod.main()
            except Exception:
                pass
            self.times.append(time.process_time() - t0)
            try:
                with open("MOVE.OUT", "rb") as fh:
                    return fh.read()
            except OSError:
                return None
        finally:
            os.chdir(old)

    def close(self) -> None:
        self._cleanup()


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


_other_brains: dict[str, Any] = {}


def make_bot(name: str) -> Any:
    """A bot by name: ``reference``, ``null``, a bundled Python bot, or
    ``brain:PATH``, another version of the reference bot's brain.py (say an
    earlier one, ``git show a6da7f1:bots/reference/brain.py > old.py``): the
    opponent that shows whether a change makes the bot stronger against a
    planner, not only against the bundled bots."""
    if name == "reference":
        return RefBot()
    if name.startswith("brain:"):
        path = name[len("brain:") :]
        if path not in _other_brains:
            _other_brains[path] = load_module(f"other_brain_{len(_other_brains)}", Path(path))
        bot = RefBot(_other_brains[path])
        bot.name = name
        return bot
    if name == "null":
        return NullBot()
    return ScriptBot(name)


def play(game_map: GameMap, bots: list[Any], seed: int, trace: Any = None) -> Game:
    """One round; returns the finished Game.  ``trace``: a file that gets the start
    cells and a line a turn (both boats' cells and gold after it), to follow a lost round."""
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
        if trace is not None:
            trace.write(
                f"start     seat 0: {decision.positions[0]}  seat 1: {decision.positions[1]}\n"
            )
            trace.flush()  # before the next turn's DEBUG lines on stderr
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
        if trace is not None:
            cells = "  ".join(f"seat {s}: {game.position(s)}" for s in (0, 1))
            trace.write(f"turn {game.turn - 1:3d}  {cells}  gold {game.gold[0]}-{game.gold[1]}\n")
            trace.flush()
    return game


def random_case(rng: random.Random) -> tuple[int, int, int, int]:
    rows = rng.choice(SIZES)
    cols = rng.choice(SIZES) if rng.random() < 0.3 else rows
    k = 2 * rng.randint(1, 50)
    return rows, cols, k, rng.randrange(10**9)


#: A map to play: (source, style or path, rows, cols, K, seed).
MapSpec = tuple[str, str, int, int, int, int]


def hand_maps() -> list[Path]:
    return sorted((ROOT / "maps").glob("*.txt")) + sorted((ROOT / "maps" / "styles").glob("*.txt"))


@functools.cache
def book_plans(book: str) -> list[Any]:
    """The maps of a ``judge eval --book`` file, as judge eval reads them (judge.evalbook)."""
    from judge.evalbook import load_book

    return load_book(Path(book))


def book_specs(book: Path) -> list[MapSpec]:
    """A book's maps in order (PATH a book file or its folder), each with the round seed
    judge eval gives it (the referee's placement seed)."""
    if book.is_dir():
        book = book / "book.txt"
    return [("book", str(book), p.index, 0, 0, p.round_seed) for p in book_plans(str(book))]


def map_specs(source: str, n: int, seed: int) -> list[MapSpec]:
    """``n`` maps from a source (see the module docstring), fixed by ``seed``;
    ``book:PATH`` reads the first ``n`` maps of a book file (PATH a book.txt or its folder)."""
    if source.startswith("book:"):
        return book_specs(Path(source[len("book:") :]))[:n]
    rng = random.Random(f"harness:{source}:{seed}")
    out: list[MapSpec] = []
    hands = hand_maps()
    for i in range(n):
        src = source
        if source == "mixed":
            src = "styles" if i % 2 == 0 else "foreign"
        rows, cols, k, mseed = random_case(rng)
        k = max(k, 20) if src != "classic" else k
        if src == "classic":
            out.append(("style", "classic", rows, cols, k, mseed))
        elif src == "styles":
            out.append(
                (
                    "style",
                    STYLES[i // (2 if source == "mixed" else 1) % len(STYLES)],
                    rows,
                    cols,
                    k,
                    mseed,
                )
            )
        elif src == "foreign":
            out.append(("foreign", "", 0, 0, 0, mseed))
        elif src == "hand":
            out.append(("file", str(hands[i % len(hands)]), 0, 0, 0, mseed))
        else:
            raise SystemExit(f"unknown map source {source!r}")
    return out


def build_map(spec: MapSpec) -> GameMap:
    kind, what, rows, cols, k, mseed = spec
    if kind == "style":
        return generate_styled(rows, cols, k, seed=mseed, style=what)
    if kind == "foreign":
        from foreign import foreign_map

        return foreign_map(mseed)
    if kind == "book":
        return book_plans(what)[rows].game_map()  # rows: the map's index in the book
    return load_map(what)


def map_label(spec: MapSpec, gm: GameMap) -> str:
    """The name a row of the table gives the map (a book's: its file's stem)."""
    return spec[1] if spec[0] not in ("file", "book") else Path(gm.name or spec[1]).stem


def run_case(
    args: tuple[str, MapSpec, int] | tuple[str, MapSpec, int, str], trace: Any = None
) -> dict[str, Any]:
    """(opponent, map, seat of the bot under test[, that bot: default the reference]) ->
    result row (its "ref" fields are the bot under test's)."""
    opp, spec, seat = args[:3]
    gm = build_map(spec)
    ref = make_bot(args[3]) if len(args) > 3 else RefBot()
    other = make_bot(opp)
    bots = [ref, other] if seat == 0 else [other, ref]
    if trace is not None:
        trace.write(f"{map_label(spec, gm)}: {ref.name} in seat {seat} against {opp}\n")
    g = play(gm, bots, spec[5], trace)
    out = g.outcome()
    assert out is not None
    res = "draw" if out.winner is None else ("win" if out.winner == seat else "loss")
    for b in (ref, other):
        if isinstance(b, ScriptBot):
            b.close()
    return {
        "opp": opp,
        "map": spec,
        "label": map_label(spec, gm),
        "rows": gm.rows,
        "cols": gm.cols,
        "k": gm.turns,
        "seed": spec[5],
        "seat": seat,
        "result": res,
        "gold": (g.gold[seat], g.gold[1 - seat]),
        "reason": out.reason.value,
        "sunk": (g.sunk[seat], g.sunk[1 - seat]),
        # The half-time treasure: its value (None: never appeared) and who took it
        # ("ref", "opp" or None).
        "treasure": g.treasure,
        "treasure_by": None
        if g.treasure_by is None
        else ("ref" if g.treasure_by == seat else "opp"),
        "tmax": max(ref.times),
        "tsum": sum(ref.times),
        "n": len(ref.times),
        "otmax": max(other.times) if other.times else 0.0,
    }


def small_specs(source: str, n: int, seed: int, max_area: int) -> list[MapSpec]:
    """The first ``n`` maps of the source with at most ``max_area`` cells.

    Small maps are where the rounds are short races and the bot is weakest
    (tuning runs single them out); drawn from the same sequence as map_specs.
    """
    out: list[MapSpec] = []
    for spec in map_specs(source, n * 50, seed):
        if spec[0] == "style":
            area = spec[2] * spec[3]
        else:
            gm = build_map(spec)
            area = gm.rows * gm.cols
        if area <= max_area:
            out.append(spec)
            if len(out) == n:
                break
    return out


def cases(
    opponents: list[str],
    maps: int,
    seed: int,
    source: str = "classic",
    seats: int = 2,
    max_area: int = 0,
    bot: str = "reference",
) -> list[tuple[str, MapSpec, int, str]]:
    """Every map twice (the reference in seat 0, then 1) against every opponent.

    ``seats=1`` plays each map once, seats alternating: deterministic bots on a
    symmetric map play the same game in both seat orders, so tuning runs can
    spend the time on more maps instead.  ``max_area``: only maps of at most
    that many cells (0: any).  ``bot``: the bot under test (default the reference).
    """
    out = []
    specs = small_specs(source, maps, seed, max_area) if max_area else map_specs(source, maps, seed)
    for i, spec in enumerate(specs):
        for opp in opponents:
            for seat in (0, 1) if seats == 2 else (i % 2,):
                out.append((opp, spec, seat, bot))
    return out


def wilson(w: float, n: float, z: float = 1.96) -> tuple[float, float]:
    if n <= 0:
        return (0.0, 1.0)
    p = w / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / den
    return max(0.0, c - h), min(1.0, c + h)


def table(rows: list[dict[str, Any]], key: str, show_losses: bool = False) -> None:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r[key]), []).append(r)
    print(
        f"{key:12} {'win':>4} {'draw':>4} {'loss':>4} {'win% dec':>8} {'95% Wilson':>13} "
        f"{'gold':>11} {'tmax':>5} {'tmean':>6} {'opp tmax':>8}"
    )
    for name, rs in sorted(groups.items()):
        w = sum(r["result"] == "win" for r in rs)
        d = sum(r["result"] == "draw" for r in rs)
        lo = sum(r["result"] == "loss" for r in rs)
        gm = sum(r["gold"][0] for r in rs) / max(1, len(rs))
        go = sum(r["gold"][1] for r in rs) / max(1, len(rs))
        tmax = max(r["tmax"] for r in rs) * 1000
        tmean = sum(r["tsum"] for r in rs) / max(1, sum(r["n"] for r in rs)) * 1000
        otmax = max(r["otmax"] for r in rs) * 1000
        a, b = wilson(w, w + lo)
        print(
            f"{name:12} {w:4} {d:4} {lo:4} {100 * w / max(1, w + lo):7.1f}% "
            f"{100 * a:5.1f}-{100 * b:5.1f}% {gm:5.1f}/{go:5.1f} {tmax:5.0f} {tmean:6.1f} "
            f"{otmax:8.0f}"
        )
        if show_losses:
            for r in rs:
                if r["result"] != "win":
                    print(
                        "   ",
                        r["result"],
                        r["opp"],
                        r["map"],
                        "seat",
                        r["seat"],
                        "gold",
                        r["gold"],
                        r["reason"],
                        "sunk",
                        r["sunk"],
                    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--maps", default="classic", help="classic, styles, foreign, hand, mixed or book:PATH"
    )
    ap.add_argument("--rounds", type=int, default=100, help="maps (each played in both seats)")
    ap.add_argument("--opponents", default="greedy,random")
    ap.add_argument(
        "--bot", default="reference", help="the bot under test (a sparring bot's name too)"
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--by", default="opp", help="group the table by: opp, label, rows, k")
    ap.add_argument("--seats", type=int, default=2, help="2: both seat orders; 1: one per map")
    ap.add_argument("--show-losses", action="store_true")
    ap.add_argument("--json", default="", help="also write every round to this file")
    ap.add_argument("--max-area", type=int, default=0, help="only maps of at most this many cells")
    ap.add_argument("--only", default="", help="only maps whose name holds this text")
    ap.add_argument(
        "--trace",
        action="store_true",
        help="print every turn of each round (one at a time; REF_PARAMS=DEBUG=1 adds the"
        " reference's plan and move values)",
    )
    a = ap.parse_args()
    todo = cases(a.opponents.split(","), a.rounds, a.seed, a.maps, a.seats, a.max_area, a.bot)
    if a.only:
        todo = [c for c in todo if a.only in map_label(c[1], build_map(c[1]))]
    t0 = time.time()
    if a.trace:
        rows = []
        for c in todo:
            rows.append(run_case(c, sys.stdout))
            print(f"  {rows[-1]['result']} {rows[-1]['gold'][0]}-{rows[-1]['gold'][1]}")
    elif a.jobs > 1:
        import multiprocessing as mp

        with mp.Pool(a.jobs) as pool:
            rows = pool.map(run_case, todo, chunksize=1)
    else:
        rows = [run_case(c) for c in todo]
    print(f"{len(rows)} rounds in {time.time() - t0:.0f}s ({a.maps} maps, seed {a.seed})")
    if a.json:
        import json

        with open(a.json, "w") as fh:
            json.dump(rows, fh)
    table(rows, "opp", a.show_losses)
    if a.by != "opp":
        table(rows, a.by)


if __name__ == "__main__":
    main()
