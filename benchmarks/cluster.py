"""Local threads against a local Dask cluster: rounds per minute, per-round overhead, bytes sent.

Plays the same evaluation (``judge eval``'s engine: BOT_A against BOT_B on the
same generated maps, each map in both seat orders) twice, side by side:

* **threads**: ``--jobs`` rounds at a time in this process (the default of
  every command);
* **dask local:N**: ``--workers`` worker processes of a local Dask cluster,
  one round at a time each (``--cluster local:N``), the bots shipped as
  bundles and built on the workers, every round's files sent back.

For each: rounds per minute (wall clock), and the per-round overhead: the
time a round held its slot beyond its bots' own runs (slots x wall clock /
rounds, less the mean of the two seats' summed run times, which the judge
measures in every round), so it is what the judge, the sandbox and, on the
cluster, Dask add to a round.  For the cluster also the bytes that crossed: a
round as submitted, its files as they came back, and the bundles (published
once, fetched once by each worker).  The cluster's start-up (about as long as
starting N Python processes that import Dask) is shown apart.

Run: ``python benchmarks/cluster.py [--rounds N] [--jobs J] [--workers N]``
(needs the [cluster] extra; as root the sandbox is the full one).  Both runs
must give the same results; the script says whether they do.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.bots import resolve_bot  # noqa: E402
from judge.evaluate import EvalRequest, evaluate, parse_sizes, parse_turns  # noqa: E402
from judge.records import EvalSummary  # noqa: E402
from judge.sandbox import Sandbox  # noqa: E402


def _request(args: argparse.Namespace, build: bool) -> EvalRequest:
    bots = [resolve_bot(b, build=build) for b in (args.bot_a, args.bot_b)]
    return EvalRequest(
        bots,
        [args.bot_a, args.bot_b],
        args.rounds,
        parse_sizes(args.sizes),
        parse_turns(args.turns),
        args.seed,
        args.jobs,
    )


def _bot_ms(out: Path) -> float:
    """Mean of a round's bot run time (both seats, summed), from the replays' records."""
    import json

    totals = []
    for replay in sorted(out.glob("round-*/replay.jsonl")):
        ms = 0.0
        for line in replay.read_text(encoding="utf-8").splitlines()[1:]:
            rec = json.loads(line)
            # The placement turn lists every attempt (re-asks); the others are one attempt.
            for attempt in rec.get("attempts") or [rec]:
                ms += sum(w or 0.0 for w in attempt.get("wall_ms") or ())
        totals.append(ms)
    return statistics.fmean(totals) if totals else 0.0


def _figures(
    name: str, summary: EvalSummary, out: Path, elapsed: float, slots: int
) -> dict[str, Any]:
    rounds = summary.rounds_played
    bot = _bot_ms(out)
    slot_ms = elapsed * slots / rounds * 1000
    return {
        "name": name,
        "rounds": rounds,
        "elapsed": elapsed,
        "per_min": rounds / elapsed * 60,
        "slot_ms": slot_ms,
        "bot_ms": bot,
        "overhead_ms": slot_ms - bot,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bot-a", default="greedy_c")
    ap.add_argument("--bot-b", default="random")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--sizes", default="5,9")
    ap.add_argument("--turns", default="10,20")
    ap.add_argument("--jobs", type=int, default=2, help="threads of the local run")
    ap.add_argument("--workers", type=int, default=2, help="workers of the local Dask cluster")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    from judge.cluster.session import open_cluster

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        out = Path(tmp) / "threads"
        req = _request(args, build=True)
        with Sandbox() as sandbox:
            start = time.monotonic()
            local = evaluate(req, sandbox, out)
            rows.append(
                _figures(f"threads x{args.jobs}", local, out, time.monotonic() - start, args.jobs)
            )

        out = Path(tmp) / "dask"
        req = _request(args, build=False)
        start = time.monotonic()
        with open_cluster(f"local:{args.workers}") as session:
            startup = time.monotonic() - start
            ex = session.executor(None, require_full=False)
            start = time.monotonic()
            remote = evaluate(req, None, out, executor=ex)
            elapsed = time.monotonic() - start
            traffic = ex.traffic
        rows.append(_figures(f"dask local:{args.workers}", remote, out, elapsed, args.workers))

    keys = ("result", "pairs", "end_reasons", "by_size")
    same = all(getattr(local, k) == getattr(remote, k) for k in keys)
    print(
        f"{args.bot_a} vs {args.bot_b}: {args.rounds} rounds, sizes {args.sizes}, K {args.turns}, "
        f"seed {args.seed}"
    )
    print(
        f"{'':18} {'rounds/min':>10} {'slot ms/round':>14} {'bots ms/round':>14} {'overhead ms':>12}"
    )
    for r in rows:
        print(
            f"{r['name']:18} {r['per_min']:10.1f} {r['slot_ms']:14.0f} {r['bot_ms']:14.0f} "
            f"{r['overhead_ms']:12.0f}"
        )
    n = max(1, traffic.rounds)
    print(
        f"dask start-up (scheduler + {args.workers} workers): {startup:.1f} s (not counted above)"
    )
    print(
        f"bytes per round: {traffic.task_bytes / n:.0f} sent (the task), "
        f"{traffic.result_bytes / n:.0f} back (replay and logs, gzip'd); threads: 0"
    )
    print(
        f"bundles: {traffic.bundles_published} published once, {traffic.bundle_bytes} bytes; "
        f"fetched by the workers {traffic.fetches} times, {traffic.fetched_bytes} bytes "
        f"(each worker each bundle once)"
    )
    print(f"same results locally and on the cluster: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
