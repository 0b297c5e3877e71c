"""A bot (the reference by default) against sparring partners on fresh map books, through the judge.

Every partner plays the bot on every book, each map twice with the seats
swapped, with real processes in the sandbox, exactly as ``judge eval --book``
plays (it is :func:`judge.evaluate.evaluate`).  The table has a row per
partner and book (and one per partner over all its books):

* **distinct games** won / drawn / lost: deterministic bots on a symmetric map
  replay one game in both seat orders, so a map's two rounds that were the same
  game (the same moves in both seat orders) count once, and a pair that was two
  games counts twice;
* the share of the decided distinct games won, with its 95 % Wilson interval
  (each distinct game one sample);
* the Elo difference with its 95 % interval from the seat-swapped pairs'
  scores (judge/pentanomial.py, as ``judge eval`` reports it);
* the bot's turn time p99 and max (start-up included) and its peak memory.

Books (``--book``, repeatable): ``style:SEED`` (benchmarks/stylebook.py: every
style of ``judge genmap --style``), ``odd:SEED`` (benchmarks/oddbook.py: styles
unlike the generator's), ``mix:SEED`` (every style and the hand-made maps of
``maps/styles/``), or the path of a ``judge eval`` book.  ``--per-style`` maps
of each style.  Without ``--book``: a style book and an odd book on fresh seeds,
printed, so that no tuning has seen them (a held-out measurement names its
seeds; docs/reference-bot.md keeps the current ones).

A closing section checks the targets: at least 60 % of the decided distinct
games against every partner (70 % against ``hunter``), no failed runs, and on
15 x 15 with K = 100 (``--timing-rounds`` maps, one round at a time, start-up
included) time p99 at most 300 ms, max at most 1 s, peak memory at most 128 MiB.

Run: ``python benchmarks/sparring.py [--bot reference] [--partners a,b] [--book style:SEED]
[--per-style N] [--jobs J]``.  The time is the machine's: each round runs its two
programs one after the other, on a core leased for each (every judge on the
machine shares the cores), so at any ``--jobs`` the figures are a program's with
a core to itself.  Each partner and book of 3 maps a style (21 or 18 maps, about
40 rounds) takes some 10 minutes of a core against the reference.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from judge.bots import BotError, BotSpec, distinct_bot_names, resolve_bot  # noqa: E402
from judge.evalbook import load_book  # noqa: E402
from judge.evaluate import EvalRequest, MapPlan, evaluate, wilson_interval  # noqa: E402
from judge.maps import GameMap, format_map, load_map  # noqa: E402
from judge.mapstyles import STYLES, generate_styled  # noqa: E402
from judge.pentanomial import Pentanomial, estimate  # noqa: E402
from judge.records.evaluation import EvalSummary  # noqa: E402
from judge.sandbox import Limits, Sandbox  # noqa: E402

SEED = 20240615
#: Map sizes of the ``mix`` book (rows, cols): squares, and rectangles up to the extremes.
SIZES = [(5, 7), (7, 7), (9, 9), (11, 11), (13, 13), (15, 15), (5, 15), (15, 5), (7, 13), (13, 9)]
#: The sparring partners: bots built to test the reference, each on an idea of its own.
PARTNERS = ("planner", "hunter", "duel", "stepper", "racer", "collector", "rammer")
TARGET_RATE = 0.60
#: Partners with a target of their own.
TARGET_RATES = {"hunter": 0.70}
TIME_P99_MS = 300.0
TIME_MAX_MS = 1000.0
MEMORY_MIB = 128.0
#: Generated maps per style of the ``mix`` book by default: as many as there are
#: hand-made maps (maps/styles/), so that every style, "hand" included, weighs the same.
MAPS_PER_STYLE = 9
#: The ``mix`` book's first this many maps a style come first, drawn as they always were.
FIRST_STREAM = 3
PER_STYLE = 3


@dataclass(frozen=True)
class MapCase:
    """One map of the ``mix`` book (or of the timing rounds)."""

    style: str  # a generator style, or "hand"
    label: str
    game_map: GameMap
    seed: int


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


def write_cases(out: Path, cases: Sequence[MapCase], title: str) -> Path:
    """Map files and a book.txt that plays them in order (K as each map has it)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {title}"]
    for i, c in enumerate(cases):
        name = f"{i:03d}-{c.label}.txt"
        (out / name).write_text(format_map(c.game_map))
        lines.append(f"file {name} {c.game_map.turns} placement={c.seed}")
    book = out / "book.txt"
    book.write_text("\n".join(lines) + "\n")
    return book


@dataclass(frozen=True)
class Book:
    """A book of maps to play: its name in the table and its maps."""

    name: str
    plans: list[MapPlan]


def make_book(spec: str, per_style: int, tmp: Path) -> Book:
    """``style:SEED``, ``odd:SEED``, ``mix:SEED`` (written to tmp) or a book file's path."""
    kind, _, seed = spec.partition(":")
    if kind in ("style", "odd", "mix") and seed.lstrip("-").isdigit():
        folder = tmp / f"{kind}-{seed}"
        if kind == "style":
            from stylebook import write_book as write_style

            path = write_style(folder, per_style, int(seed))
        elif kind == "odd":
            from oddbook import write_book as write_odd

            path = write_odd(folder, per_style, int(seed))
        else:
            cases = map_cases(per_style, int(seed), True)
            path = write_cases(folder, cases, f"every style and the hand maps; seed {seed}")
        return Book(spec, load_book(path))
    return Book(spec, load_book(Path(spec)))


@dataclass
class Row:
    """One partner on one book (or on all of them): what the table shows."""

    games: tuple[int, int, int]  # distinct games won, drawn, lost by the bot
    mirrored: int  # pairs that were one game played twice
    pairs: int
    penta: Pentanomial
    p99: float | None  # the bot's turn time, ms (over several books: the worst book's)
    max_ms: float | None
    peak: float
    failed: int
    aborted: int


def row_of(summaries: Sequence[EvalSummary]) -> Row:
    """The summaries of one partner (one book, or all) as a row."""
    w = d = lo = mirrored = pairs = failed = aborted = 0
    counts = [0, 0, 0, 0, 0]
    p99s: list[float] = []
    maxes: list[float] = []
    peak = 0.0
    for s in summaries:
        gw, gd, gl = s.distinct_games()
        w, d, lo = w + gw, d + gd, lo + gl
        if s.pairs is not None:
            mirrored += s.pairs.mirrored
            pairs += s.pairs.pairs
            counts = [a + b for a, b in zip(counts, s.pairs.pentanomial, strict=True)]
        if s.a.time_ms.p99 is not None:
            p99s.append(s.a.time_ms.p99)
        if s.a.time_ms.max is not None:
            maxes.append(s.a.time_ms.max)
        peak = max(peak, s.a.peak_mem_mb)
        failed += s.a.failed_total
        aborted += len(s.rounds_aborted)
    return Row(
        (w, d, lo),
        mirrored,
        pairs,
        Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4])),
        # Over several books: the worst book's p99 (a mean of p99s would flatter).
        max(p99s) if p99s else None,
        max(maxes) if maxes else None,
        peak,
        failed,
        aborted,
    )


def decided_rate(w: int, lo: int) -> tuple[float, float, float] | None:
    """The share of the decided distinct games won and its 95 % Wilson interval (each
    distinct game one sample); None when none was decided."""
    if not w + lo:
        return None
    a, b = wilson_interval(w, w + lo)
    return w / (w + lo), a, b


def rate_with_interval(w: int, lo: int) -> str:
    """The verdict line's "63.0%, 95% 44-78%", so that a verdict on a small sample
    shows how little it can tell (a few games more or fewer can move the point
    estimate across a target)."""
    dr = decided_rate(w, lo)
    if dr is None:
        return "-"
    rate, a, b = dr
    return f"{100 * rate:.1f}%, 95% {100 * a:.0f}-{100 * b:.0f}%"


def cells(r: Row) -> list[str]:
    w, d, lo = r.games
    dr = decided_rate(w, lo)
    rate = f"{100 * dr[0]:.1f}% [{100 * dr[1]:.0f}-{100 * dr[2]:.0f}]" if dr else "-"
    est = estimate(r.penta)
    elo = f"{est.elo:+.0f} [{est.elo_lo:+.0f}, {est.elo_hi:+.0f}]" if est else "-"
    ms = "-" if r.p99 is None else f"{r.p99:.0f}"
    mx = "-" if r.max_ms is None else f"{r.max_ms:.0f}"
    return [str(w + d + lo), str(w), str(d), str(lo), rate, elo, f"{r.mirrored}/{r.pairs}", ms, mx]


def play(
    bot: BotSpec, partner: BotSpec, book: Book, sandbox: Sandbox, out: Path, jobs: int
) -> EvalSummary:
    names = distinct_bot_names([bot, partner])
    req = EvalRequest(
        [bot, partner],
        names,
        2 * len(book.plans),
        [],
        None,
        0,
        jobs,
        Limits(),
        book=book.plans,
        book_name=book.name,
    )
    return evaluate(req, sandbox, out, keep_out=False)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bot", default="reference", help="the bot under test (default reference)")
    ap.add_argument(
        "--partners", default=",".join(PARTNERS), help="comma-separated (default: %(default)s)"
    )
    ap.add_argument(
        "--book",
        action="append",
        default=[],
        help="style:SEED, odd:SEED, mix:SEED or a book file (repeatable; default: a style "
        "and an odd book on fresh seeds)",
    )
    ap.add_argument(
        "--per-style", type=int, default=PER_STYLE, help="maps per style (default %(default)s)"
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--timing-rounds",
        type=int,
        default=2,
        help="rounds on 15x15 with K = 100 against the first partner, one at a time, "
        "for the time targets (default %(default)s)",
    )
    args = ap.parse_args()
    console = Console(width=max(160, Console().width))  # the table is wide; so is a log
    names = [p.strip() for p in args.partners.split(",") if p.strip()]
    try:
        bot = resolve_bot(args.bot, ROOT / "bots")
        partners = [resolve_bot(n, ROOT / "bots") for n in names]
    except BotError as exc:
        console.print(f"[bold red]benchmark:[/] {exc}")
        return 2
    specs = args.book or [
        f"style:{random.SystemRandom().randrange(10**6)}",
        f"odd:{random.SystemRandom().randrange(10**6)}",
    ]
    console.print(
        f"{args.bot} vs {', '.join(names)} on {', '.join(specs)} ({args.per_style} maps a "
        f"style), {args.jobs} rounds at a time",
        highlight=False,
    )
    results: dict[tuple[str, str], EvalSummary] = {}
    with Sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="sparring-") as tmp_name:
        tmp = Path(tmp_name)
        books = [make_book(s, args.per_style, tmp / "books") for s in specs]
        for partner, name in zip(partners, names, strict=True):
            for book in books:
                out = tmp / "rounds" / f"{name}-{len(results)}"
                results[(name, book.name)] = play(bot, partner, book, sandbox, out, args.jobs)
                w, d, lo = results[(name, book.name)].distinct_games()
                console.print(f"  {name} on {book.name}: {w}/{d}/{lo}", highlight=False)
        timing = None
        if args.timing_rounds > 0 and partners:
            cases = timing_cases(args.timing_rounds, SEED)
            tbook = write_cases(tmp / "timing", cases, "15x15, K = 100")
            timing = play(bot, partners[0], Book("timing", load_book(tbook)), sandbox, tmp / "t", 1)

    table = Table(
        title=f"{args.bot} against each partner: distinct games (a pair that replayed one game "
        "counted once), decided ones won [95% Wilson], Elo [95%] from the seat-swapped pairs, "
        f"turn time of {args.bot}"
    )
    for col in ("partner", "book"):
        table.add_column(col)
    for col in ("games", "won", "drawn", "lost", "won of decided", "Elo", "mirrored",
                "p99 ms", "max ms"):  # fmt: skip
        table.add_column(col, justify="right")
    verdicts: list[str] = []
    every = list(results.values())
    for name in names:
        mine = [results[(name, b.name)] for b in books]
        for b, s in zip(books, mine, strict=True):
            table.add_row(name, b.name, *cells(row_of([s])))
        total = row_of(mine)
        if len(books) > 1:
            table.add_row(f"[bold]{name}[/]", "all", *cells(total))
        w, _, lo = total.games
        target = TARGET_RATES.get(name, TARGET_RATE)
        dr = decided_rate(w, lo)
        ok = dr is not None and dr[0] >= target
        verdicts.append(
            f"{'ok' if ok else 'MISSED'}: vs {name} {w}/{w + lo} decided distinct games won "
            f"({rate_with_interval(w, lo)}; target >= {100 * target:.0f}%)"
        )
    console.print(table)
    all_rows = row_of(every + ([timing] if timing else []))
    console.print("[bold]targets[/]")
    for line in verdicts:
        console.print("  " + line, highlight=False)
    bad = all_rows.failed + all_rows.aborted
    console.print(
        f"  {'ok' if bad == 0 else 'MISSED'}: failed runs of {args.bot} {all_rows.failed}, "
        f"rounds abandoned {all_rows.aborted} (target 0)",
        highlight=False,
    )
    if timing is not None and timing.a.time_ms.p99 is not None:
        p99, mx = timing.a.time_ms.p99, timing.a.time_ms.max or 0.0
        console.print(
            f"  {'ok' if p99 <= TIME_P99_MS else 'MISSED'}: time p99 {p99:.0f} ms on 15x15, "
            f"K = 100 ({timing.a.runs} turns, one round at a time; target <= "
            f"{TIME_P99_MS:.0f})",
            highlight=False,
        )
        cpu = timing.a.cpu_ms_max
        console.print(
            f"  {'ok' if mx <= TIME_MAX_MS else 'MISSED'}: time max {mx:.0f} ms "
            f"(target <= {TIME_MAX_MS:.0f}; CPU time at most "
            f"{'-' if cpu is None else f'{cpu:.0f}'} ms: on a busy machine the wall time "
            "also holds the waits of other programs)",
            highlight=False,
        )
    console.print(
        f"  {'ok' if all_rows.peak <= MEMORY_MIB else 'MISSED'}: peak memory "
        f"{all_rows.peak:.1f} MiB (target <= {MEMORY_MIB:.0f})",
        highlight=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
