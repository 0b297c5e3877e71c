"""Cost of a turn for a Windows .exe bot against the same bot built natively.

One trivial bot source (it reads MAP.INP and writes MOVE.OUT and STATE.OUT, as a
real bot does) is built twice: with the system C compiler and as a 64-bit
Windows program with the MinGW-w64 cross compiler.  Each gets a seat of one
Sandbox, and their turns are measured interleaved, turn by turn, so machine
noise hits both alike.  A turn is the whole of ``Seat.run_turn`` (folder
hygiene, the run, wine's start-up for the .exe).  Also printed: the first turn
of the .exe (it must not be slow either), how long a seat takes to get ready
for an .exe (its prefix and wineserver, before turn 1), and the one-time cost
of the prefix template when it was not cached yet.

Target: the .exe's median turn at most 60 ms above the native one.
Wall times grow with the machine's load (printed), so the CPU time of each run
(the program and everything it started) is printed too: the .exe's extra CPU
is what wine itself costs, whatever else the machine is doing.

    python benchmarks/exe.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.sandbox import Limits, Sandbox, Verdict  # noqa: E402

TARGET_MS = 60.0
BOT_C = r"""
#include <stdio.h>
int main(void) {
    int m = 0, n = 0, k = 0, turns = 0;
    FILE *f = fopen("MAP.INP", "r");
    if (f) { if (fscanf(f, "%d %d %d", &m, &n, &k) != 3) m = 0; fclose(f); }
    f = fopen("STATE.OUT", "r");
    if (f) { if (fscanf(f, "%d", &turns) != 1) turns = 0; fclose(f); }
    f = fopen("STATE.OUT", "w");
    if (f) { fprintf(f, "%d\n", turns + 1); fclose(f); }
    f = fopen("MOVE.OUT", "w");
    if (f) { fprintf(f, "%d %d\n", m > 0 ? 1 : 0, 1); fclose(f); }
    return 0;
}
"""
MAP_INP = b"5 5 10\n1 1 5 5\n0 0\n" + b"0 1 2 1 0\n" * 5


def build(folder: Path) -> tuple[Path, Path]:
    """The bot built natively and as an .exe (SystemExit naming a missing compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if cc is None or mingw is None:
        raise SystemExit("benchmark needs cc and x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64)")
    src = folder / "bot.c"
    src.write_text(BOT_C)
    native, exe = folder / "native" / "bot", folder / "windows" / "bot.exe"
    native.parent.mkdir()
    exe.parent.mkdir()
    subprocess.run([cc, "-O2", "-o", str(native), str(src)], check=True)
    subprocess.run([mingw, "-O2", "-o", str(exe), str(src)], check=True)
    return native, exe


def _turn(seat: object, argv: list[str], limits: Limits, cpu: list[float] | None = None) -> float:
    t0 = time.perf_counter()
    run = seat.run_turn(argv, {"MAP.INP": MAP_INP}, ["MOVE.OUT"], limits)  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - t0
    if run.result.verdict is not Verdict.OK:
        raise SystemExit(f"{argv[0]}: {run.result.verdict.value}: {run.result.message}")
    if cpu is not None:
        cpu.append(run.result.cpu_s)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    """Measure and print the medians side by side."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=200, help="measured turns of each (default 200)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="exe-bench-"))
    try:
        native, exe = build(work)
        limits = Limits()
        with Sandbox() as sb:
            if sb.wine.install is None:
                raise SystemExit("benchmark needs wine (apt install wine)")
            t0 = time.perf_counter()
            sb.wine.template()
            template_s = time.perf_counter() - t0
            ready = []
            for _ in range(3):  # a seat's wine, made ready and closed again
                with sb.seat("ready", exe.parent) as seat:
                    assert seat.program_dir is not None
                    t0 = time.perf_counter()
                    seat.check([str(seat.program_dir / exe.name)])
                    ready.append(time.perf_counter() - t0)
            with (
                sb.seat("native", native.parent) as ns,
                sb.seat("windows", exe.parent) as ws,
            ):
                assert ns.program_dir is not None and ws.program_dir is not None
                nargv = [str(ns.program_dir / native.name)]
                wargv = [str(ws.program_dir / exe.name)]
                t0 = time.perf_counter()
                ws.check(wargv)
                seat_ready_s = time.perf_counter() - t0
                ns.check(nargv)
                first_exe = _turn(ws, wargv, limits)
                first_native = _turn(ns, nargv, limits)
                nat, win, nat_cpu, win_cpu = [], [], [], []
                load = os.getloadavg()[0]
                for i in range(args.warmup + args.runs):
                    measured = i >= args.warmup
                    a = _turn(ns, nargv, limits, nat_cpu if measured else None)
                    b = _turn(ws, wargv, limits, win_cpu if measured else None)
                    if measured:
                        nat.append(a)
                        win.append(b)
            install = sb.wine.install
    finally:
        shutil.rmtree(work, ignore_errors=True)
    nat_ms = statistics.median(nat) * 1000
    win_ms = statistics.median(win) * 1000
    extra = win_ms - nat_ms
    p90 = sorted(win)[int(0.9 * len(win))] * 1000
    nat_cpu_ms = statistics.median(nat_cpu) * 1000
    win_cpu_ms = statistics.median(win_cpu) * 1000
    print(f"wine: {install.describe()}")
    print(f"turns measured: {args.runs} of each, interleaved; load average {load:.1f} at start")
    print(f"native bot:   median turn {nat_ms:7.2f} ms, CPU {nat_cpu_ms:6.2f} ms")
    print(
        f"Windows .exe: median turn {win_ms:7.2f} ms, CPU {win_cpu_ms:6.2f} ms (p90 {p90:.2f} ms)"
    )
    print(
        f"difference:  {extra:+7.2f} ms per turn, CPU {win_cpu_ms - nat_cpu_ms:+6.2f} ms   "
        f"(target: at most +{TARGET_MS:g} ms)"
    )
    print(f"first turn:  .exe {first_exe * 1000:.2f} ms, native {first_native * 1000:.2f} ms")
    print(
        f"seat ready for an .exe (prefix + wineserver + a probe run): "
        f"{seat_ready_s * 1000:.0f} ms (others: {', '.join(f'{r * 1000:.0f}' for r in ready)})"
    )
    print(f"prefix template: {template_s:.2f} s ({'built now' if template_s > 1 else 'cached'})")
    verdict = "PASS" if extra <= TARGET_MS else "FAIL"
    print(f"{verdict}: .exe turn overhead {extra:.2f} ms vs target {TARGET_MS:g} ms")
    if args.json:
        print(
            json.dumps(
                {
                    "native_ms": round(nat_ms, 3),
                    "exe_ms": round(win_ms, 3),
                    "extra_ms": round(extra, 3),
                    "exe_p90_ms": round(p90, 3),
                    "native_cpu_ms": round(nat_cpu_ms, 3),
                    "exe_cpu_ms": round(win_cpu_ms, 3),
                    "load_average": round(load, 2),
                    "first_exe_ms": round(first_exe * 1000, 3),
                    "seat_ready_ms": round(seat_ready_s * 1000, 1),
                    "template_s": round(template_s, 2),
                    "target_ms": TARGET_MS,
                }
            )
        )
    return 0 if extra <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
