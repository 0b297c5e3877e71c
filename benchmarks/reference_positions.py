"""The reference bot's decision on a fixed corpus of positions: an earlier brain.py and this one.

A pure optimisation of ``bots/reference/brain.py`` must not change a single
decision.  This script records a corpus of positions (MAP.INP and the STATE.OUT
the bot read) from rounds the earlier version plays against ``hunter`` in
process: the 15 x 15, K = 100 map of several styles (the size the turn-time
target is set on) and smaller maps of every style.  Both versions then decide
every position of the corpus, and the script reports whether each gave exactly
the same MOVE.OUT and STATE.OUT, and each version's CPU time a turn (p50, p99,
max) on the 15 x 15 positions and on all of them.  Both run in this one
process, one after the other, so the times are measured under the same
conditions; they are CPU time (``time.process_time``), which load changes
little.  The searches stop on a fixed amount of work, never on the clock, as
long as the clock's safety net (BUDGET) is not reached: it is raised here for
both versions, so a loaded machine cannot make them differ.

Run: ``python benchmarks/reference_positions.py [--against REV] [--large N] [--small N]``
(REV defaults to HEAD; ``--save FILE`` / ``--load FILE`` keep a corpus as JSON).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "reference_bot"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import harness  # noqa: E402
from sparring import SEED, MapCase, map_cases, timing_cases  # noqa: E402

from judge.mapstyles import STYLES  # noqa: E402
from judge.stats import percentile  # noqa: E402

Position = tuple[str, str, "str | None"]  # (label, MAP.INP, STATE.OUT read)


def record(module: Any, case: MapCase) -> list[Position]:
    """Every position the reference (``module``) decides in a round against hunter."""
    ref = harness.RefBot(module)
    out: list[Position] = []
    decide = ref.turn

    def turn(text: str) -> bytes:
        out.append((case.label, text, ref.state))
        return decide(text)

    ref.turn = turn  # type: ignore[method-assign]
    other = harness.make_bot("hunter")
    try:
        harness.play(case.game_map, [ref, other], case.seed)
    finally:
        other.close()
    return out


def run(module: Any, corpus: list[Position]) -> tuple[list[tuple[str, str]], list[float]]:
    """Each position's (MOVE.OUT, STATE.OUT) and CPU seconds."""
    outs, times = [], []
    for _, text, state in corpus:
        t0 = time.process_time()
        outs.append(module.decide(text, state))
        times.append(time.process_time() - t0)
    return outs, times


def summary(times: list[float]) -> str:
    """p50, p99 and max in ms, as every table of the project computes them (judge.stats)."""
    ms = sorted(t * 1000 for t in times)
    p50, p99 = percentile(ms, 50) or 0.0, percentile(ms, 99) or 0.0
    return f"p50 {p50:5.0f}  p99 {p99:5.0f}  max {max(ms, default=0):5.0f} ms"


def load_brain(name: str, text: str, tmp: Path) -> Any:
    path = tmp / f"{name}.py"
    path.write_text(text)
    mod = harness.load_module(name, path)
    mod.BUDGET = 1000.0  # the clock's safety net out of the way: work alone decides
    return mod


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="HEAD", help="git revision to compare with")
    ap.add_argument("--large", type=int, default=3, help="15 x 15, K = 100 rounds (styles)")
    ap.add_argument("--small", type=int, default=1, help="generated maps a style")
    ap.add_argument("--save", help="write the corpus to this JSON file")
    ap.add_argument("--load", help="read the corpus from this JSON file instead")
    args = ap.parse_args()
    shown = subprocess.run(
        ["git", "show", f"{args.against}:bots/reference/brain.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if shown.returncode != 0:
        print(f"reference_positions: no brain.py at {args.against!r}")
        return 2
    new_text = (ROOT / "bots" / "reference" / "brain.py").read_text()
    with tempfile.TemporaryDirectory(prefix="ref-pos-") as tmp:
        old = load_brain("reference_brain_old", shown.stdout, Path(tmp))
        new = load_brain("reference_brain_new", new_text, Path(tmp))
        if args.load:
            corpus = [tuple(p) for p in json.loads(Path(args.load).read_text())]
        else:
            cases = timing_cases(min(args.large, len(STYLES)), SEED)
            cases += map_cases(args.small, SEED, False) if args.small else []
            corpus = [p for c in cases for p in record(old, c)]
        if args.save:
            Path(args.save).write_text(json.dumps(corpus))
        outs_old, t_old = run(old, corpus)  # type: ignore[arg-type]
        outs_new, t_new = run(new, corpus)  # type: ignore[arg-type]
    large = [i for i, p in enumerate(corpus) if str(p[0]).startswith("timing-")]
    differ = [i for i in range(len(corpus)) if outs_old[i] != outs_new[i]]
    print(f"{len(corpus)} positions ({len(large)} on 15 x 15 with K = 100), CPU time a turn:")
    for name, t in ((args.against, t_old), ("working tree", t_new)):
        print(f"  {name:>12}  15x15 K=100: {summary([t[i] for i in large])}")
        print(f"  {'':>12}  all:         {summary(t)}")
    if differ:
        i = differ[0]
        print(f"  {len(differ)} positions decided differently, first in {corpus[i][0]}")
        return 1
    print("  every position decided the same (MOVE.OUT and STATE.OUT)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
