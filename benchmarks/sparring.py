"""The reference bot against every bundled bot, on maps of every style: win rates, time, memory.

Each opponent plays the reference on the same maps: for every style of
``judge genmap --style`` a number of generated maps (by default as many as
there are hand-made maps; sizes drawn from a list that includes the
rectangular extremes 5 x 15 and 15 x 5, K from 20 to 100), plus the hand-made
maps of ``maps/styles/``.  Every map is played twice with the
seats swapped, with real processes in the sandbox, exactly as ``judge match``
plays.  The table gives, per opponent and per style, wins / draws / losses of
the reference, its share of the decided rounds with a 95 % Wilson interval that
counts each map once (deterministic bots replay the same game in both seat
orders, so a map's two rounds are one sample, not two), and the seat-swapped
pairs' statistics of ``judge eval`` (judge/pentanomial.py): the pentanomial
counts, the score per round with its 95 % interval and the Elo difference.  A closing section
checks the reference's targets: at least 70 % of the decided rounds against every
bundled bot (65 % against ``planner``, the whole-route planner of bots/planner), no failed runs, and per turn on 15 x 15 with K = 100 (start-up
included) p99 < 300 ms, max < 1 s, peak memory < 128 MiB.

Run: ``python benchmarks/sparring.py [--maps-per-style N] [--opponents a,b] [--jobs J]``.
Against every bundled bot the default run takes about an hour on a 2-core machine;
``--opponents hunter`` about 7 minutes.
The timings are this machine's under ``--jobs`` parallel rounds (each round runs
its two programs one after the other); the timing rounds run one at a time.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from judge.bots import BotError, BotSpec, resolve_bot  # noqa: E402
from judge.evaluate import wilson_interval  # noqa: E402
from judge.maps import GameMap, load_map  # noqa: E402
from judge.mapstyles import STYLES, generate_styled  # noqa: E402
from judge.pentanomial import Pentanomial, estimate, round_points  # noqa: E402
from judge.referee import RoundAborted, RoundConfig, RoundResult, play_round  # noqa: E402
from judge.sandbox import Limits, Sandbox  # noqa: E402
from judge.stats import percentile  # noqa: E402

SEED = 20240615
#: Map sizes drawn from (rows, cols): squares, and rectangles up to the extremes.
SIZES = [(5, 7), (7, 7), (9, 9), (11, 11), (13, 13), (15, 15), (5, 15), (15, 5), (7, 13), (13, 9)]
#: Bundled bots that are not opponents: the reference itself.
NOT_OPPONENTS = {"reference"}
TARGET_RATE = 0.70
#: Opponents with a target of their own: planner (bots/planner, a whole-route
#: planner for both boats, the kind of rival the reference is measured against) is
#: the strongest sparring partner; the reference's aim is 65 % of decided rounds against it.
TARGET_RATES = {"planner": 0.65}
#: Generated maps per style by default: as many as there are hand-made maps
#: (maps/styles/), so that every style, "hand" included, weighs the same in the
#: style mix, and 72 maps put the 95 % interval at about +-11 points near the
#: 70 % target (30 maps, 3 a style, left it at +-17: too wide to tell 60 % from 80 %).
MAPS_PER_STYLE = 9
#: The old default: this many maps a style come first, drawn as they always were.
FIRST_STREAM = 3
COLUMNS = (
    "wins",
    "draws",
    "losses",
    "won of decided",
    "95% Wilson",
    "pairs",
    "score",
    "Elo",
)


@dataclass(frozen=True)
class MapCase:
    """One map of the benchmark, played twice (the reference in seat 0, then in seat 1)."""

    style: str  # a generator style, or "hand"
    label: str
    game_map: GameMap
    seed: int


@dataclass
class Outcome:
    opponent: str
    case: MapCase
    ref_seat: int
    result: RoundResult | None
    error: str | None = None

    @property
    def verdict(self) -> str | None:
        r = self.result
        if r is None:
            return None
        if r.winner is None:
            return "draw"
        return "win" if r.winner == self.ref_seat else "loss"


def bundled_opponents() -> list[str]:
    """Every folder of bots/ with a bot.yaml, the reference excepted."""
    return sorted(
        p.name
        for p in (ROOT / "bots").iterdir()
        if (p / "bot.yaml").is_file() and p.name not in NOT_OPPONENTS
    )


def map_cases(per_style: int, seed: int, hand: bool) -> list[MapCase]:
    """``per_style`` generated maps of each style, then the hand-made maps.

    From ``FIRST_STREAM`` maps a style up, a larger sample holds every smaller
    one: those first maps (and the hand maps' seeds) come from one stream over
    the styles, drawn as in the benchmark's first versions, so a figure measured
    on the old default sample stays part of every larger one; the maps after
    them come from a stream of their own per style, so asking for more adds
    maps and changes none.  (Below that, as before, the samples do not nest.)
    """
    rng = random.Random(f"bench-bots:{seed}")
    first = min(per_style, FIRST_STREAM)
    firsts = {style: [_generated(style, i, rng) for i in range(first)] for style in STYLES}
    cases: list[MapCase] = []
    for style in STYLES:
        more = random.Random(f"bench-bots:{seed}:{style}")
        cases += firsts[style] + [_generated(style, i, more) for i in range(first, per_style)]
    if hand:
        for path in sorted((ROOT / "maps" / "styles").glob("*.txt")):
            cases.append(MapCase("hand", path.stem, load_map(path), rng.randrange(10**9)))
    return cases


def _generated(style: str, i: int, rng: random.Random) -> MapCase:
    """The i-th map of a style: size, K and the generator's seed drawn from rng."""
    rows, cols = rng.choice(SIZES)
    k = 2 * rng.randint(10, 50)
    mseed = rng.randrange(10**9)
    gm = generate_styled(rows, cols, k, seed=mseed, style=style)
    return MapCase(style, f"{style}-{rows}x{cols}-k{k}-s{mseed}", gm, mseed + i)


def timing_cases(rounds: int, seed: int) -> list[MapCase]:
    """The maps the turn times are measured on: 15 x 15 with K = 100 (the targets'
    size), one of each of the first ``rounds`` styles."""
    return [
        MapCase(s, f"timing-{s}", generate_styled(15, 15, 100, seed=seed + i, style=s), seed + i)
        for i, s in enumerate(STYLES[:rounds])
    ]


def play_all(
    ref: BotSpec,
    opponents: Sequence[BotSpec],
    cases: Sequence[MapCase],
    sandbox: Sandbox,
    out: Path,
    jobs: int,
    console: Console,
) -> list[Outcome]:
    """Every (opponent, map, seat order), ``jobs`` rounds at a time."""
    tasks = [(o, c, s) for o in opponents for c in cases for s in (0, 1)]
    done = [0]
    lock = threading.Lock()

    def one(task: tuple[BotSpec, MapCase, int]) -> Outcome:
        opp, case, seat = task
        bots = [ref, opp] if seat == 0 else [opp, ref]
        names = ["reference", opp.name] if seat == 0 else [opp.name, "reference"]
        cfg = RoundConfig(case.game_map, case.label, case.seed, Limits(), sequential=True)
        folder = out / f"{opp.name}-{case.label}-seat{seat}"
        try:
            rr = play_round(cfg, bots, names, sandbox, folder)
            outcome = Outcome(opp.name, case, seat, rr)
        except RoundAborted as exc:
            outcome = Outcome(opp.name, case, seat, None, str(exc))
        with lock:
            done[0] += 1
            if done[0] % 20 == 0 or done[0] == len(tasks):
                console.print(f"  {done[0]}/{len(tasks)} rounds", highlight=False)
        return outcome

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, tasks))


def wdl(outcomes: Sequence[Outcome]) -> tuple[int, int, int]:
    v = [o.verdict for o in outcomes]
    return v.count("win"), v.count("draw"), v.count("loss")


def pairs_of(outcomes: Sequence[Outcome]) -> Pentanomial:
    """The seat-swapped pairs (a map's two rounds against one opponent), scored for the reference."""
    by_pair: dict[tuple[str, str], list[float]] = {}
    for o in outcomes:
        if o.verdict is not None:
            by_pair.setdefault((o.opponent, o.case.label), []).append(round_points(o.verdict))
    return Pentanomial.from_pair_scores(sum(v) for v in by_pair.values() if len(v) == 2)


def rate_cells(outcomes: Sequence[Outcome]) -> list[str]:
    """W, D, L, rate of decided rounds, 95 % Wilson counting each map once, then the
    pairs: pentanomial counts, score per round [95 %], Elo +- (judge/pentanomial.py)."""
    w, d, lo = wdl(outcomes)
    cells = [str(w), str(d), str(lo)]
    dr = decided_rate(w, lo)
    if dr is not None:
        rate, a, b = dr
        cells += [f"{100 * rate:.1f}%", f"{100 * a:.0f}-{100 * b:.0f}%"]
    else:
        cells += ["-", "-"]
    penta = pairs_of(outcomes)
    est = estimate(penta)
    if est is None:
        return cells + ["-", "-", "-"]
    return cells + [
        " ".join(str(c) for c in penta.counts),
        f"{100 * est.score:.0f}% [{100 * est.score_lo:.0f}-{100 * est.score_hi:.0f}]",
        f"{est.elo:+.0f} +-{est.elo_pm:.0f}",
    ]


def decided_rate(w: int, lo: int) -> tuple[float, float, float] | None:
    """The share of decided rounds won and its 95 % Wilson interval counting each
    map once (a map's two seat orders are one sample); None when none was decided."""
    if not w + lo:
        return None
    a, b = wilson_interval(w / 2, (w + lo) / 2)
    return w / (w + lo), a, b


def rate_with_interval(w: int, lo: int) -> str:
    """The verdict line's "63.0%, 95% 44-78%", so that a verdict on a small sample
    shows how little it can tell (a few maps more or fewer can move the point
    estimate across 70 %)."""
    dr = decided_rate(w, lo)
    if dr is None:
        return "-"
    rate, a, b = dr
    return f"{100 * rate:.1f}%, 95% {100 * a:.0f}-{100 * b:.0f}%"


def ref_times(outcomes: Sequence[Outcome]) -> tuple[list[float], float, int]:
    """The reference's wall times (ms), its peak memory (MiB) and its failed runs."""
    walls: list[float] = []
    peak = 0.0
    failed = 0
    for o in outcomes:
        if o.result is None:
            continue
        st = o.result.stats[o.ref_seat]
        walls += st.wall_ms
        peak = max(peak, st.peak_mem_mb)
        failed += st.failed()
    walls.sort()
    return walls, peak, failed


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--maps-per-style",
        type=int,
        default=MAPS_PER_STYLE,
        help=f"generated maps per style (default {MAPS_PER_STYLE}, as many as the hand maps)",
    )
    ap.add_argument("--no-hand", action="store_true", help="leave out maps/styles/")
    ap.add_argument("--opponents", default="", help="comma-separated (default: every bundled bot)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument(
        "--timing-rounds",
        type=int,
        default=2,
        help="rounds on 15x15 with K = 100, one at a time, for the time targets",
    )
    args = ap.parse_args()
    console = Console()
    bots_dir = ROOT / "bots"
    names = [o.strip() for o in args.opponents.split(",") if o.strip()] or bundled_opponents()
    try:
        ref = resolve_bot("reference", bots_dir)
        opponents = [resolve_bot(n, bots_dir) for n in names]
    except BotError as exc:
        console.print(f"[bold red]benchmark:[/] {exc}")
        return 2
    cases = map_cases(args.maps_per_style, args.seed, not args.no_hand)
    styles = list(dict.fromkeys(c.style for c in cases))
    console.print(
        f"reference vs {', '.join(names)}: {len(cases)} maps ({', '.join(styles)}) x 2 seat "
        f"orders, seed {args.seed}, {args.jobs} rounds at a time",
        highlight=False,
    )
    with Sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        outcomes = play_all(ref, opponents, cases, sandbox, Path(tmp), args.jobs, console)
        timing: list[Outcome] = []
        if args.timing_rounds > 0:
            big = timing_cases(args.timing_rounds, args.seed)
            timing = play_all(ref, opponents[:1], big, sandbox, Path(tmp) / "t", 1, console)

    table = Table(
        title="the reference's results: rounds (95% Wilson counts each map once), then "
        "seat-swapped pairs (pentanomial LL LD WL/DD WD WW, score per round [95%], Elo)"
    )
    table.add_column("opponent")
    table.add_column("maps")
    for col in COLUMNS:
        table.add_column(col, justify="right")
    verdicts: list[str] = []
    for name in names:
        mine = [o for o in outcomes if o.opponent == name]
        table.add_row(f"[bold]{name}[/]", "all", *rate_cells(mine))
        for style in styles:
            table.add_row("", style, *rate_cells([o for o in mine if o.case.style == style]))
        w, _, lo = wdl(mine)
        dr = decided_rate(w, lo)
        target = TARGET_RATES.get(name, TARGET_RATE)
        ok = dr is not None and dr[0] >= target
        verdicts.append(
            f"{'ok' if ok else 'MISSED'}: vs {name} {w}/{w + lo} decided rounds won "
            f"({rate_with_interval(w, lo)}; target >= {100 * target:.0f}%)"
        )
    console.print(table)
    by_style = Table(title="all opponents together, by map style")
    by_style.add_column("maps")
    for col in COLUMNS:
        by_style.add_column(col, justify="right")
    for style in styles:
        by_style.add_row(style, *rate_cells([o for o in outcomes if o.case.style == style]))
    console.print(by_style)
    aborted = [o for o in outcomes + timing if o.result is None]
    walls, peak, failed = ref_times(outcomes + timing)
    t_walls, _, _ = ref_times(timing)
    console.print("[bold]targets[/]")
    for line in verdicts:
        console.print("  " + line, highlight=False)
    console.print(
        f"  {'ok' if failed == 0 and not aborted else 'MISSED'}: failed runs of the reference "
        f"{failed}, rounds abandoned {len(aborted)} (target 0)",
        highlight=False,
    )
    if t_walls:
        p99, mx = percentile(t_walls, 99), t_walls[-1]
        assert p99 is not None
        console.print(
            f"  {'ok' if p99 < 300 else 'MISSED'}: time p99 {p99:.0f} ms on 15x15, K = 100 "
            f"({len(t_walls)} turns, one round at a time; target < 300)",
            highlight=False,
        )
        console.print(
            f"  {'ok' if mx < 1000 else 'MISSED'}: time max {mx:.0f} ms (target < 1000)",
            highlight=False,
        )
    if walls:
        p99_all = percentile(walls, 99)
        console.print(
            f"  (all rounds, {args.jobs} at a time: {len(walls)} turns, p50 "
            f"{percentile(walls, 50):.0f} ms, p99 {p99_all:.0f} ms, max {walls[-1]:.0f} ms)",
            highlight=False,
        )
    console.print(
        f"  {'ok' if peak < 128 else 'MISSED'}: peak memory {peak:.1f} MiB (target < 128)",
        highlight=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
