"""Fairness of the clock: wall time over CPU time of a CPU-bound bot, at three --jobs settings.

A 3-team tournament of bots that each need CPU_S seconds of CPU a turn
(default 1.2 s of the contest's 2 s) is played at ``--jobs 1``, at the default
(one round per core) and at ``--jobs 4``, one after the other in one run, with
everything else at the judge's defaults.  For every recorded run it takes wall
time / CPU time: a bot with a core to itself is at about 1.0; two busy
programs sharing one core are at about 2.0 (an old default, two rounds a core,
measured p50 2,002 ms of wall for 1.2 s of CPU).  Target: at most 1.15 at every
setting (the sum of wall over the sum of CPU, and the median run).

The judge measures how long each run was kept waiting for a CPU; the table
also shows the ratio without that waiting ("own"), which is what the judge
answers for when the machine is shared with other work, and how many runs
had to be run again because of it (IE, never TLE).

    python benchmarks/fairness.py [--cpu 1.2] [--limit 2] [--turns 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.sandbox import Sandbox  # noqa: E402
from judge.tournament.config import load_config  # noqa: E402
from judge.tournament.play import Runner  # noqa: E402
from tests.tournament._helpers import config_dict, make_burner, write_config  # noqa: E402

TARGET = 1.15


def _runs(out: Path) -> tuple[list[dict[str, Any]], int]:
    """Every recorded run (verdict, wall, cpu, wait) and how many runs were run again."""
    runs: list[dict[str, Any]] = []
    for replay in sorted(out.rglob("replay.jsonl")):
        for line in replay.read_text().splitlines()[1:]:
            rec = json.loads(line)
            waits = rec.get("wait_ms") or [None, None]
            for s in (0, 1):
                if rec["verdicts"][s] is None:
                    continue
                runs.append(
                    {
                        "verdict": rec["verdicts"][s],
                        "wall": rec["wall_ms"][s],
                        "cpu": rec["cpu_ms"][s],
                        "wait": waits[s] or 0.0,
                    }
                )
    again = sum(p.read_text().count("; run again") for p in out.rglob("stderr.log"))
    return runs, again


def play(folder: Path, cpu_s: float, limit: float, turns: int, jobs: int | None) -> dict[str, Any]:
    """One tournament at one --jobs setting (None: the default); its figures."""
    bots = [str(make_burner(folder / f"bot{i}", cpu_s)) for i in range(3)]
    data = config_dict(3, bots=bots, turns=turns, time_limit=limit)
    del data["jobs"]
    cfg = load_config(write_config(folder, data))
    used = jobs if jobs is not None else cfg.jobs
    runner = Runner(cfg, folder / "out", used, Sandbox)
    started = time.monotonic()
    report = runner.run(resume=False)
    elapsed = time.monotonic() - started
    runs, again = _runs(folder / "out")
    if not runs:
        raise SystemExit(f"the tournament at --jobs {used} recorded no run: {report.failure}")
    wall = sum(r["wall"] for r in runs)
    cpu = sum(r["cpu"] for r in runs)
    wait = sum(r["wait"] for r in runs)
    ratios = sorted(r["wall"] / r["cpu"] for r in runs if r["cpu"])
    verdicts: dict[str, int] = {}
    for r in runs:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    return {
        "setting": f"--jobs {jobs}" if jobs is not None else f"default (--jobs {cfg.jobs})",
        "runs": len(runs),
        "verdicts": verdicts,
        "run_again": again,
        "ratio": round(wall / cpu, 3),
        "ratio_p50": round(statistics.median(ratios), 3),
        "ratio_max": round(ratios[-1], 3),
        "own_ratio": round((wall - wait) / cpu, 3),
        "wall_p50_ms": round(statistics.median(r["wall"] for r in runs), 1),
        "cpu_p50_ms": round(statistics.median(r["cpu"] for r in runs), 1),
        "wait_total_s": round(wait / 1000, 2),
        "elapsed_s": round(elapsed, 1),
        "rounds": f"{report.played} of {report.total}",
        "stopped": report.failure,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", type=float, default=1.2, help="CPU seconds a bot needs a turn")
    ap.add_argument("--limit", type=float, default=2.0, help="time limit per run (s)")
    ap.add_argument("--turns", type=int, default=2, help="K of every round (even)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fairness-") as tmp:
        for i, jobs in enumerate((1, None, 4)):
            rows.append(play(Path(tmp) / str(i), args.cpu, args.limit, args.turns, jobs))
    load = os.getloadavg()
    met = all(r["ratio"] <= TARGET and r["ratio_p50"] <= TARGET and not r["stopped"] for r in rows)
    if args.json:
        print(json.dumps({"rows": rows, "target": TARGET, "met": met, "loadavg": load}, indent=2))
        return 0
    print(
        f"3 teams, bots needing {args.cpu:g} s of CPU a turn, limit {args.limit:g} s, "
        f"K={args.turns}; {os.cpu_count()} cores; load average at the end "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    head = (
        f"{'setting':<22}{'runs':>5}{'verdicts':>14}{'again':>6}{'wall/cpu':>9}"
        f"{'p50':>7}{'max':>7}{'own':>7}{'wall p50':>10}{'cpu p50':>9}{'time':>7}"
    )
    print(head)
    for r in rows:
        if r["stopped"]:
            print(f"{r['setting']}: stopped after {r['rounds']} rounds: {r['stopped']}")
    for r in rows:
        v = ",".join(f"{k} {n}" for k, n in sorted(r["verdicts"].items()))
        print(
            f"{r['setting']:<22}{r['runs']:>5}{v:>14}{r['run_again']:>6}{r['ratio']:>9.3f}"
            f"{r['ratio_p50']:>7.3f}{r['ratio_max']:>7.3f}{r['own_ratio']:>7.3f}"
            f"{r['wall_p50_ms']:>8.0f}ms{r['cpu_p50_ms']:>7.0f}ms{r['elapsed_s']:>6.0f}s"
        )
    print(
        f"target: wall/cpu (sum and median run) at most {TARGET} at every setting: "
        f"{'met' if met else 'NOT met'}"
        + ("" if met else " (see 'own': waiting for a CPU that other work on the machine held)")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
