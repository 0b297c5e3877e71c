"""Same seed, same rounds, whatever the machine is doing.

One 3-team tournament of bots whose every move depends on how many times they
have been run (they count their runs in STATE.OUT, tests/fixtures/counting):
a CPU-heavy Windows .exe (``--exe-cpu-ms`` of CPU a turn, through wine), a
CPU-heavy Python bot (``--py-cpu-ms``) and a fast native bot.  It is played

* ``quiet``:  alone;
* ``bursts``: under bursts of outside CPU load on every core, at a higher
  priority than the bots (real-time as root, else many busy processes);
* ``beside``: while a second judge plays the same tournament at the same time
  (both plays are compared);
* ``cluster``: on ``--cluster local:2`` (two Dask workers on this machine);

and every turn of every round (verdicts, the raw first line of each MOVE.OUT,
what became of each move, placements, positions, gold) must be the same in all
of them, every verdict OK.  A play the judge stops with exit 3 (the machine too
busy to time a run fairly) is resumed with ``--resume``, as README says.  It
prints each play's time, its IE retries (runs the judge discarded and ran
again) and resumes, and the rounds that differ from the quiet play.

    python benchmarks/determinism.py [--turns 6] [--exe-cpu-ms 1500] [--py-cpu-ms 600]
        [--limit 2] [--burst 0.3,2.0] [--plays quiet,bursts,beside,cluster] [--keep DIR] [--json]

Needs wine and the MinGW-w64 C compiler for the .exe bot, a C compiler for the
fast bot, and the cluster extra for the cluster play.  Exit status 0 when every
play equals the quiet one with every verdict OK, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from tests.referee.game_trace import game_trace  # noqa: E402

COUNTING = ROOT / "tests" / "fixtures" / "counting"
PLAYS = ("quiet", "bursts", "beside", "cluster")
#: A play stopped with exit 3 is resumed at most this many times.
RESUMES = 5

#: Bursts of load on one core: busy ``on`` seconds, idle ``off`` seconds, for ever;
#: real-time (ahead of the bots at nice -10) where allowed, else 4 busy processes.
LOAD = """
import os, random, sys, time
core, on, off = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
os.sched_setaffinity(0, {core})
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
except OSError:
    for _ in range(3):
        if os.fork() == 0:
            break
random.seed(core)
time.sleep(random.uniform(0, off))
while True:
    until = time.monotonic() + on
    while time.monotonic() < until:
        pass
    time.sleep(off * random.uniform(0.5, 1.5))
"""


def make_bots(folder: Path, exe_cpu_ms: int, py_cpu_ms: int) -> dict[str, Path]:
    """The three bot folders, each with its bot.yaml."""
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if mingw is None:
        raise SystemExit("the .exe bot needs x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64)")
    bots = {name: folder / name for name in ("heavy_exe", "heavy_py", "fast")}
    for path in bots.values():
        path.mkdir(parents=True)
    subprocess.run(
        [mingw, "-O2", "-o", str(bots["heavy_exe"] / "counting.exe"), str(COUNTING / "counting.c")],
        check=True,
    )
    (bots["heavy_exe"] / "bot.yaml").write_text(
        f"name: heavy_exe\ncommand: [counting.exe, '{exe_cpu_ms}']\n"
    )
    shutil.copy(COUNTING / "counting.py", bots["heavy_py"] / "counting.py")
    (bots["heavy_py"] / "bot.yaml").write_text(
        f"name: heavy_py\ncommand: [python3, counting.py, '{py_cpu_ms}']\n"
    )
    shutil.copy(COUNTING / "counting.c", bots["fast"] / "counting.c")
    (bots["fast"] / "bot.yaml").write_text(
        "name: fast\ncommand: [./counting]\n"
        "build:\n  command: [cc, -O2, -o, counting, counting.c]\n"
        "  output: counting\n  sources: [counting.c]\n"
    )
    return bots


TEAMS = (
    ("Đội Hải Âu", "heavy_exe", "m1"),
    ("Rồng Biển", "heavy_py", "m2"),
    ("Cá Mập", "fast", "m3"),
)


def write_config(
    folder: Path, bots: dict[str, Path], turns: int, limit: float, teams: int = 3
) -> Path:
    data = {
        "seed": 2026,
        "turns": turns,
        "time_limit": limit,
        "memory_limit_mb": 512,
        "output": "out",
        "maps_dir": str(ROOT / "maps"),
        "organiser_map": str(ROOT / "maps" / "organiser" / "final.txt"),
        "teams": [
            {"name": name, "bot": str(bots[bot]), "map": m} for name, bot, m in TEAMS[:teams]
        ],
    }
    path = folder / "judge.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _judge(config: Path, out: Path, extra: list[str]) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "judge", "tournament", str(config), "--out", str(out), *extra]
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(config.parent)
    )


def finish(config: Path, out: Path, extra: list[str], first: subprocess.Popen[bytes]) -> int:
    """Wait for a play; resume it while the judge stops it with exit 3. Returns the resumes."""
    proc, resumes = first, 0
    while True:
        _, err = proc.communicate()
        if proc.returncode == 0:
            return resumes
        if proc.returncode != 3 or resumes >= RESUMES:
            raise SystemExit(
                f"the play in {out} ended with exit {proc.returncode}:\n"
                f"{err.decode('utf-8', 'replace')[-2000:]}"
            )
        resumes += 1
        proc = _judge(config, out, [*extra, "--resume"])


@contextmanager
def bursts(on_s: float, off_s: float) -> Iterator[None]:
    """Outside load on every core this process may use, while the block runs."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", LOAD, str(core), str(on_s), str(off_s)],
            start_new_session=True,  # its helpers too are in its process group
        )
        for core in sorted(os.sched_getaffinity(0))
    ]
    try:
        yield
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def rounds_of(out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every round's game, by its replay's path inside the tournament folder."""
    return {str(p.relative_to(out)): game_trace(p) for p in sorted(out.rglob("replay.jsonl"))}


def retries_of(out: Path) -> int:
    return sum(
        p.read_text(encoding="utf-8", errors="replace").count("; run again ---")
        for p in out.rglob("stderr.log")
    )


def not_ok(rounds: dict[str, list[dict[str, Any]]]) -> int:
    return sum(
        1
        for turns in rounds.values()
        for t in turns
        for v in [*t["verdicts"], *(v for a in t["attempts"] for v in a["verdicts"])]
        if v not in (None, "OK")
    )


def play(name: str, config: Path, work: Path, on_s: float, off_s: float) -> list[dict[str, Any]]:
    """One way of playing; a row per tournament played (two for ``beside``)."""
    started = time.monotonic()
    if name == "quiet":
        outs, extra = [work / "quiet"], []
    elif name == "bursts":
        outs, extra = [work / "bursts"], []
    elif name == "beside":
        outs, extra = [work / "beside-1", work / "beside-2"], []
    elif name == "cluster":
        outs, extra = [work / "cluster"], ["--cluster", "local:2"]
    else:
        raise SystemExit(f"unknown play {name!r}: choose from {', '.join(PLAYS)}")
    if name == "bursts":
        with bursts(on_s, off_s):
            resumes = [finish(config, outs[0], extra, _judge(config, outs[0], extra))]
    else:
        procs = [_judge(config, out, extra) for out in outs]
        resumes = [finish(config, out, extra, p) for out, p in zip(outs, procs, strict=True)]
    elapsed = time.monotonic() - started
    return [
        {
            "play": name if len(outs) == 1 else f"{name} ({i + 1})",
            "out": out,
            "seconds": round(elapsed, 1),
            "resumes": r,
        }
        for i, (out, r) in enumerate(zip(outs, resumes, strict=True))
    ]


def measure(
    work: Path,
    plays: list[str],
    turns: int,
    exe_cpu_ms: int,
    py_cpu_ms: int,
    limit: float = 2.0,
    on_s: float = 0.3,
    off_s: float = 2.0,
    teams: int = 3,
) -> dict[str, Any]:
    """Play the tournament each way; the figures and the verdict.  ``teams``: 3, or 2
    for the two CPU-heavy bots alone (the test suite's smaller version)."""
    bots = make_bots(work / "bots", exe_cpu_ms, py_cpu_ms)
    config = write_config(work, bots, turns, limit, teams)
    rows: list[dict[str, Any]] = []
    for name in ["quiet", *[p for p in plays if p != "quiet"]]:
        rows.extend(play(name, config, work, on_s, off_s))
    base = rounds_of(rows[0]["out"])
    for row in rows:
        rounds = rounds_of(row["out"])
        row["rounds"] = len(rounds)
        row["ie_retries"] = retries_of(row["out"])
        row["not_ok"] = not_ok(rounds)
        row["differ"] = sorted(k for k in set(base) | set(rounds) if base.get(k) != rounds.get(k))
        row["out"] = str(row["out"])
    same = all(not r["differ"] and not r["not_ok"] for r in rows) and len(base) > 0
    return {"rows": rows, "same": same, "turns": turns, "loadavg": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=6, help="K of every round (even)")
    ap.add_argument("--exe-cpu-ms", type=int, default=1500, help="CPU a turn of the .exe bot")
    ap.add_argument("--py-cpu-ms", type=int, default=600, help="CPU a turn of the Python bot")
    ap.add_argument("--limit", type=float, default=2.0, help="time limit per run (s)")
    ap.add_argument("--teams", type=int, choices=(2, 3), default=3, help="3, or the heavy 2")
    ap.add_argument("--plays", default=",".join(PLAYS), help="which plays besides quiet")
    ap.add_argument("--burst", default="0.3,2.0", help="load bursts: seconds on,off")
    ap.add_argument("--keep", type=Path, help="keep the plays in this folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    on_s, off_s = (float(x) for x in args.burst.split(","))
    plays = [p.strip() for p in args.plays.split(",") if p.strip()]
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            work = args.keep
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="determinism-")))
        report = measure(
            work,
            plays,
            args.turns,
            args.exe_cpu_ms,
            args.py_cpu_ms,
            args.limit,
            on_s,
            off_s,
            args.teams,
        )
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0 if report["same"] else 1
    print(
        f"{args.teams} teams (.exe {args.exe_cpu_ms} ms of CPU a turn, Python {args.py_cpu_ms} ms"
        f"{', a fast native bot' if args.teams == 3 else ''}), K={args.turns}, limit {args.limit:g} s; {os.cpu_count()} cores; load "
        "average at the "
        f"end {' '.join(f'{x:.2f}' for x in report['loadavg'])}"
    )
    print(
        f"{'play':<14}{'time':>8}{'rounds':>8}{'IE retries':>12}{'resumes':>9}"
        f"{'not OK':>8}  rounds unlike the quiet play"
    )
    for r in report["rows"]:
        differ = ", ".join(r["differ"]) if r["differ"] else "none"
        print(
            f"{r['play']:<14}{r['seconds']:>7.0f}s{r['rounds']:>8}{r['ie_retries']:>12}"
            f"{r['resumes']:>9}{r['not_ok']:>8}  {differ}"
        )
    print(
        "every play the same round for round, every verdict OK"
        if report["same"]
        else "NOT the same: see the rounds listed"
    )
    return 0 if report["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
