"""Sandbox overhead per run: judge's run_turn vs a bare subprocess.run of the same program.

Both are measured side by side in one process, interleaved run by run, so
machine noise hits both equally.  The program is a trivial C program (``return
0``) built with the system compiler; the sandbox run includes everything a turn
does (folder hygiene, writing MAP.INP, the seat's cgroups, the exec helper,
namespaces, reading MOVE.OUT).  Target: median overhead <= 3 ms with
every protection the machine allows on.

    python benchmarks/sandbox.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.sandbox import Limits, Sandbox, Verdict  # noqa: E402

TARGET_MS = 3.0
TRIVIAL_C = "int main(void) { return 0; }\n"


def build_trivial(folder: Path) -> Path:
    """Compile the trivial program; SystemExit if there is no compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise SystemExit("benchmark needs a C compiler (cc, gcc or clang)")
    src = folder / "trivial.c"
    src.write_text(TRIVIAL_C)
    exe = folder / "trivial"
    subprocess.run([cc, "-O2", "-o", str(exe), str(src)], check=True)
    src.unlink()
    return exe


def _median_run_ms(
    sb: Sandbox, work: Path, exe: Path, inputs: dict[str, bytes], runs: int
) -> float:
    with sb.seat("bench", work) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / exe.name)]
        seat.check(argv)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            seat.run_turn(argv, inputs, ["MOVE.OUT"], Limits())
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def breakdown(work: Path, exe: Path, inputs: dict[str, bytes], runs: int) -> None:
    """Where the time goes: per-seat set-up, and per-run cost of each mechanism."""
    with Sandbox() as sb:
        t = []
        for _ in range(20):
            t0 = time.perf_counter()
            sb.seat("bench", work).close()
            t.append(time.perf_counter() - t0)
        print(
            f"seat create+close median (uid lease, folders, program copy, namespaces): "
            f"{statistics.median(t) * 1000:.2f} ms"
        )
        full = _median_run_ms(sb, work, exe, inputs, runs)
    configs = [
        ("all protections", None),
        ("no namespaces (no setns)", {"namespaces": False}),
        ("no cgroups", {"cgroup": "none"}),
        ("Python helper", {"helper": "python"}),
    ]
    for label, kw in configs:
        if kw is None:
            ms = full
        else:
            with Sandbox(**kw) as sb:  # type: ignore[arg-type]
                ms = _median_run_ms(sb, work, exe, inputs, runs)
        print(f"  run_turn median, {label:26s} {ms:7.3f} ms")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print both medians and their difference."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--runs", type=int, default=300, help="measured runs of each kind (default 300)"
    )
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also measure seat creation and runs with namespaces / cgroups switched off",
    )
    args = ap.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="sandbox-bench-"))
    try:
        exe = build_trivial(work)
        bare_dir = work / "bare"
        bare_dir.mkdir()
        limits = Limits()
        with Sandbox() as sb, sb.seat("bench", work) as seat:
            assert seat.program_dir is not None
            argv_seat = [str(seat.program_dir / exe.name)]
            inputs = {"MAP.INP": b"5 5 10\n0 0 0 0\n0 0\n" + b"0 0 0 0 0\n" * 5}
            bare, judged = [], []
            for i in range(args.warmup + args.runs):
                t0 = time.perf_counter()
                subprocess.run(
                    [str(exe)],
                    cwd=bare_dir,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    check=False,
                )
                t1 = time.perf_counter()
                run = seat.run_turn(argv_seat, inputs, ["MOVE.OUT"], limits)
                t2 = time.perf_counter()
                if run.result.verdict is not Verdict.OK:
                    raise SystemExit(
                        f"sandbox run {i} was {run.result.verdict.value}: {run.result.message}"
                    )
                if i >= args.warmup:
                    bare.append(t1 - t0)
                    judged.append(t2 - t1)
            isolation = sb.isolation
        bare_ms = statistics.median(bare) * 1000
        judged_ms = statistics.median(judged) * 1000
        overhead = judged_ms - bare_ms
        on = [name for name, is_on, _ in isolation.items if is_on]
        off = [name for name, is_on, _ in isolation.items if not is_on]
        print(f"runs: {args.runs} of each, interleaved (after {args.warmup} warm-up)")
        print(f"bare subprocess.run median:  {bare_ms:7.3f} ms")
        print(f"sandbox run_turn median:     {judged_ms:7.3f} ms")
        print(
            f"overhead (median difference): {overhead:6.3f} ms   target <= {TARGET_MS:g} ms: "
            f"{'met' if overhead <= TARGET_MS else 'NOT met'}"
        )
        print(f"protections on:  {', '.join(on)}")
        print(f"protections off: {', '.join(off) or 'none'}")
        if args.breakdown:
            breakdown(work, exe, inputs, args.runs // 2)
        if args.json:
            print(
                json.dumps(
                    {
                        "bare_ms": round(bare_ms, 3),
                        "sandbox_ms": round(judged_ms, 3),
                        "overhead_ms": round(overhead, 3),
                        "runs": args.runs,
                        "protections_off": off,
                    }
                )
            )
        return 0 if overhead <= TARGET_MS else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
