"""The reference bot against greedy and random: win rates, timings and memory.

Plays ``bots/reference`` against each opponent with :mod:`judge.evaluate`
(the engine of ``judge eval``) on a fixed seed set: every odd square size
5..15 plus two rectangular ones, K varied over every even value, each map in
both seat orders.  Prints the eval table for each pairing and a closing line
against the targets (>= 85 % of decided rounds won against greedy, no
loss to random, p99 < 300 ms and max < 1 s a turn, peak memory < 128 MiB).

Run: ``python benchmarks/bots.py [--rounds N] [--jobs J] [--seed S]``.
The figures are timings on this machine under ``--jobs`` parallel rounds;
``--jobs 1`` gives the cleanest times.  Skips (exit 0, with a message) while
bots/reference does not exist.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from judge.bots import BotError, resolve_bot  # noqa: E402
from judge.evaluate import EvalRequest, evaluate, parse_sizes  # noqa: E402
from judge.records import EvalSummary  # noqa: E402
from judge.sandbox import Limits, Sandbox  # noqa: E402
from judge.views.evalreport import render  # noqa: E402

SIZES = "5,7,9,11,13,15,7x13,15x9"
SEED = 20240601
OPPONENTS = ("greedy", "random")


def _result_targets(opponent: str, s: EvalSummary) -> list[str]:
    """The result targets, each as 'ok'/'MISSED' with the figure."""
    res, a = s.result, s.a
    lines = []
    if opponent == "greedy":
        rate = res.win_rate
        ok = rate is not None and rate >= 0.85
        lo, hi = res.wilson95
        map_lo, map_hi = res.wilson95_per_map
        lines.append(
            f"{'ok' if ok else 'MISSED'}: decided rounds won {res.wins}/{res.decided}"
            f" = {'-' if rate is None else f'{100 * rate:.1f}%'} (target >= 85%; 95% Wilson "
            f"{100 * lo:.1f}%-{100 * hi:.1f}%, counting "
            f"each map once {100 * map_lo:.1f}%-{100 * map_hi:.1f}%)"
        )
    elif opponent == "random":
        lines.append(
            f"{'ok' if res.losses == 0 else 'MISSED'}: {res.losses} rounds lost (target 0)"
        )
    lines.append(
        f"{'ok' if a.peak_mem_mb < 128 else 'MISSED'}: peak memory "
        f"{a.peak_mem_mb:.1f} MiB (target < 128)"
    )
    if a.failed_total:
        lines.append(f"MISSED: failed runs {dict(a.failed_runs)}")
    return lines


def _time_targets(s: EvalSummary) -> list[str]:
    t = s.a.time_ms
    if t.p99 is None or t.max is None:
        return ["MISSED: no timed runs"]
    return [
        f"{'ok' if t.p99 < 300 else 'MISSED'}: time p99 {t.p99:.0f} ms (target < 300)",
        f"{'ok' if t.max < 1000 else 'MISSED'}: time max {t.max:.0f} ms (target < 1000)",
        f"{'ok' if s.a.peak_mem_mb < 128 else 'MISSED'}: peak memory "
        f"{s.a.peak_mem_mb:.1f} MiB (target < 128)",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--rounds", type=int, default=96, help="rounds per pairing (default 96 = 48 maps x 2)"
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--sizes", default=SIZES)
    ap.add_argument("--opponents", default=",".join(OPPONENTS))
    ap.add_argument(
        "--timing-rounds",
        type=int,
        default=4,
        help="rounds on 15x15 with K = 100, one at a time, for the time targets (default 4)",
    )
    args = ap.parse_args()
    console = Console()
    bots_dir = ROOT / "bots"
    if not (bots_dir / "reference" / "bot.yaml").is_file():
        console.print("bots/reference does not exist yet: skipping the bot benchmark")
        return 0
    try:
        ref = resolve_bot("reference", bots_dir)
        opponents = [
            resolve_bot(o.strip(), bots_dir) for o in args.opponents.split(",") if o.strip()
        ]
    except BotError as exc:
        console.print(f"[bold red]benchmark:[/] {exc}")
        return 2
    sizes = parse_sizes(args.sizes)
    summary_lines: list[tuple[str, list[str]]] = []
    with Sandbox() as sandbox, tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        for opp in opponents:
            req = EvalRequest(
                [ref, opp],
                ["reference", opp.name],
                args.rounds,
                sizes,
                None,
                args.seed,
                args.jobs,
                Limits(),
            )
            console.print(
                f"reference vs {opp.name}: {2 * req.n_maps} rounds, seed {args.seed}, "
                f"sizes {args.sizes}, K varied, {args.jobs} at once",
                highlight=False,
            )
            s = evaluate(req, sandbox, Path(tmp) / opp.name, keep_out=False)
            for item in render(s):
                console.print(item)
            summary_lines.append((f"vs {opp.name}", _result_targets(opp.name, s)))
        if args.timing_rounds > 0:
            # The time targets are per turn on a 15 x 15 map with K = 100, one program at a time.
            req = EvalRequest(
                [ref, opponents[0]],
                ["reference", opponents[0].name],
                args.timing_rounds,
                [(15, 15)],
                [100],
                args.seed,
                1,
                Limits(),
            )
            console.print(
                f"timing: reference vs {opponents[0].name} on 15x15, K = 100, "
                f"{2 * req.n_maps} rounds, one at a time",
                highlight=False,
            )
            s = evaluate(req, sandbox, Path(tmp) / "timing", keep_out=False)
            for item in render(s)[1:2]:
                console.print(item)
            summary_lines.append(("timing 15x15 K=100", _time_targets(s)))
    console.print("[bold]targets[/]")
    for name, lines in summary_lines:
        for line in lines:
            console.print(f"  {name}: {line}", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
