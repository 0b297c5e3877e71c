"""Watchers cost the play nothing: a final played with 0, 100 and 400 viewers of its pages.

Each run starts ``judge tournament FINAL --serve PORT`` (a real judge process:
the bundled quick bots in the sandbox, the web server beside them), opens N
clients on the tournament's event stream (``/api/tournament``, what every
open tournament page and projector follows) as soon as the server answers,
and waits for the judge to say how long its rounds took.  It prints, for each
N, the judge's time for the rounds and the CPU its process burned, and each
time as a ratio to the time with no viewer.  Target: 400 viewers at most 1.1x
the time with none (one reader per followed thing, shared by every viewer:
judge/web/feeds.py).

The clients are raw sockets in this process (asyncio): each sends one
request and reads what comes, as a browser's EventSource does.  The runs
alternate over ``--repeat`` rounds of all N (machine noise hits every N
alike) and the medians are shown.

    python benchmarks/watchers.py [--viewers 0,100,400] [--repeat 1] [--teams 3] [--turns 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import yaml

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.1
QUICK_BOTS = ["greedy", "random", "collector", "hunter", "rammer", "planner"]
PLAYED = re.compile(r"(\d+) round\(s\) played in ([0-9.]+) s")


@dataclass
class Run:
    viewers: int
    connected: int  # clients that got the stream's first event
    elapsed_s: float  # the judge's own time for the rounds
    cpu_s: float  # the judge process's user + system CPU over the run
    events: int  # events the clients received in all
    viewers_cpu_s: float  # this process's CPU over the run: what the viewers cost the machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_final(folder: Path, teams: int, turns: int) -> Path:
    """A final of the bundled quick bots on the bundled maps (m1 .. mN)."""
    data = {
        "title": "watchers benchmark",
        "seed": 2026,
        "turns": turns,
        "jobs": 2,
        "output": "out",
        "organiser_map": str(ROOT / "maps" / "organiser" / "final.txt"),
        "maps_dir": str(ROOT / "maps"),
        "teams": [
            {
                "name": f"{QUICK_BOTS[i % len(QUICK_BOTS)]}-{i + 1}",
                "bot": QUICK_BOTS[i % 6],
                "map": f"m{i % 5 + 1}",
            }
            for i in range(teams)
        ],
    }
    path = folder / "final.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


async def viewer(port: int, got: list[int]) -> None:
    """One client of the tournament's event stream, until it is cancelled: it waits on its
    socket and nothing else (no timer), so that the viewers cost this process little."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        got.append(0)
        return
    writer.write(
        b"GET /api/tournament?p= HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Accept: text/event-stream\r\nConnection: keep-alive\r\n\r\n"
    )
    seen = 0
    try:
        await writer.drain()
        while chunk := await reader.read(65536):
            seen += chunk.count(b"\ndata: ") + chunk.startswith(b"data: ")
    except (asyncio.CancelledError, OSError):
        pass
    finally:
        got.append(seen)
        writer.close()


async def wait_for_port(port: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the judge stopped before serving: exit {proc.returncode}")
        try:
            _r, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.02)
    raise SystemExit("the judge's server did not answer")


async def one_run(config: Path, out: Path, viewers: int) -> Run:
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "judge",
        "tournament",
        str(config),
        "--out",
        str(out),
        "--serve",
        str(port),
        "--quiet",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.stdout is not None
    judge = psutil.Process(proc.pid)
    own = psutil.Process()
    own_before = own.cpu_times()
    counts: list[int] = []
    clients: list[asyncio.Task[None]] = []
    try:
        await wait_for_port(port, proc)
        clients = [asyncio.create_task(viewer(port, counts)) for _ in range(viewers)]
        lines: list[str] = []
        while True:
            line = await asyncio.to_thread(proc.stdout.readline)
            if not line:
                raise SystemExit("the judge ended without its report:\n" + "".join(lines[-20:]))
            lines.append(line)
            found = PLAYED.search(line)
            if found:
                break
        cpu = judge.cpu_times()
        await asyncio.sleep(0.5)  # the last change reaches every viewer
    finally:
        for c in clients:
            c.cancel()
        await asyncio.gather(*clients, return_exceptions=True)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # the pages stay up after the final until Ctrl-C
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    own_after = own.cpu_times()
    own_cpu = own_after.user + own_after.system - own_before.user - own_before.system
    return Run(
        viewers,
        sum(1 for c in counts if c),
        float(found.group(2)),
        cpu.user + cpu.system,
        sum(counts),
        own_cpu,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--viewers", default="0,100,400", help="numbers of clients, comma-separated")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each number (alternated)")
    ap.add_argument("--teams", type=int, default=3, help="teams of the final (3: 9 rounds)")
    ap.add_argument("--turns", type=int, default=40, help="K of every round")
    ap.add_argument("--json", action="store_true", help="print the runs as JSON too")
    args = ap.parse_args()
    counts = [int(x) for x in args.viewers.split(",")]
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="watchers-") as tmp:
        config = write_final(Path(tmp), args.teams, args.turns)
        for rep in range(args.repeat):
            for n in counts:
                out = Path(tmp) / f"out-{rep}-{n}"
                run = asyncio.run(one_run(config, out, n))
                runs.append(run)
                print(
                    f"  {n:4d} viewers ({run.connected} following, {run.events} events): "
                    f"rounds in {run.elapsed_s:.1f} s, judge CPU {run.cpu_s:.1f} s, "
                    f"viewers' CPU {run.viewers_cpu_s:.1f} s",
                    flush=True,
                )
    base = statistics.median(r.elapsed_s for r in runs if r.viewers == counts[0])
    print(
        f"\n{args.teams * (args.teams - 1) // 2 * 3} rounds of K={args.turns}, "
        f"medians of {args.repeat} run(s); load average {os.getloadavg()[0]:.1f}"
    )
    worst = 0.0
    for n in counts:
        mine = [r for r in runs if r.viewers == n]
        t = statistics.median(r.elapsed_s for r in mine)
        cpu = statistics.median(r.cpu_s for r in mine)
        ratio = t / base
        if n:
            worst = max(worst, ratio)
        print(f"{n:4d} viewers: {t:5.1f} s ({ratio:.2f}x), judge CPU {cpu:5.1f} s")
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"target: at most {TARGET}x the time with {counts[0]} viewers: {verdict} ({worst:.2f}x)")
    if args.json:
        print(json.dumps([r.__dict__ for r in runs], indent=2))
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
