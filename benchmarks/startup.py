"""Start-up time of the command line: ``judge --version`` and ``judge --help`` (target: 80 ms).

Each command is started ``--runs`` times as a new process, interleaved with a
bare ``python -c pass`` so that machine load hits all of them alike; the
minimum is the figure to compare (the least disturbed run), the median says
how noisy the machine was.  The ratio to a bare interpreter is measured in
the same run, so it holds on a busy machine too.

Run: ``python benchmarks/startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def _time(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    judge = shutil.which("judge") or "judge"
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "judge --version": [judge, "--version"],
        "judge --help": [judge, "--help"],
        "judge match --help": [judge, "match", "--help"],
    }
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs):
        for label, argv in cases.items():
            times[label].append(_time(argv))
    bare = min(times["python -c pass"])
    for label, ts in times.items():
        best = min(ts)
        print(
            f"{label:20s} min {best * 1000:6.1f} ms   median {statistics.median(ts) * 1000:6.1f} ms"
            f"   min over bare python {best / bare:4.2f}x"
        )


if __name__ == "__main__":
    main()
