"""Where a judged turn's time goes, beside bare spawns of the same programs.

A turn of the referee (``judge.referee.play_round``: MAP.INP for both seats,
both programs in the sandbox, MOVE.OUT read, the rules, the replay line) is
compared with the bare loop a contest organiser would write: write MAP.INP,
start the same program twice with ``subprocess.run`` (one turn of two seats).
Both are measured in one process, interleaved turn by turn (the bare turn runs
inside the round's observer, between two judged turns), so machine noise hits
both alike; the figures are medians over every measured turn.

Two kinds of bots, the same trivial C source (it reads MAP.INP and STATE.OUT,
writes STATE.OUT and MOVE.OUT): built natively, and as a 64-bit Windows
``.exe`` (MinGW-w64) run through wine (bare: ``wine bot.exe`` on a wineserver
kept running, as the judge keeps one per seat).

Printed for each: the judged turn, the bare turn, their ratio (target for
native bots: at most 1.3x), and the time of each step of a seat's run
(:mod:`judge.sandbox.steps`, the median per run), the referee's own work
(the turn less the span of its two runs) and the replay line.  As root the
benchmark runs again as the unprivileged user ``nobody`` (the system's
``/usr/bin/python3``), where the sandbox has weaker isolation.

    python benchmarks/turn_cost.py [--turns N] [--rounds R] [--no-exe] [--no-user] [--no-arm] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.bots import BotSpec  # noqa: E402
from judge.maps import load_map  # noqa: E402
from judge.records import ReplayHeader, RoundResult, TurnRecord  # noqa: E402
from judge.referee import RoundConfig, play_round  # noqa: E402
from judge.sandbox import Sandbox, zygote  # noqa: E402
from judge.sandbox.procfs import mounts  # noqa: E402
from judge.sandbox.steps import STEPS  # noqa: E402

NATIVE_TARGET = 1.3
#: what the bare loop writes as MAP.INP
MAP_INP = b"5 5 20\n0 0 0 0\n0 0\n" + b"5 5 5 5 5\n" * 5
EXE_TARGET_MS = 10.0
NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"
ROOT = Path(__file__).resolve().parent.parent
BOT_C = r"""
#include <stdio.h>
int main(void) {
    int m = 0, n = 0, k = 0, i = 0, j = 0, turns = 0;
    FILE *f = fopen("MAP.INP", "r");
    if (f) { if (fscanf(f, "%d %d %d %d %d", &m, &n, &k, &i, &j) != 5) m = 0; fclose(f); }
    f = fopen("STATE.OUT", "r");
    if (f) { if (fscanf(f, "%d", &turns) != 1) turns = 0; fclose(f); }
    f = fopen("STATE.OUT", "w");
    if (f) { fprintf(f, "%d\n", turns + 1); fclose(f); }
    f = fopen("MOVE.OUT", "w");
    if (f) { fprintf(f, "%d %d\n", i > 0 ? i : 1, j > 0 ? j : 1); fclose(f); }
    return 0;
}
"""


def build(folder: Path, exe: bool) -> dict[str, Path]:
    """The bot built natively (and as an .exe): kind -> its program file."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("benchmark needs a C compiler (cc or gcc)")
    src = folder / "bot.c"
    src.write_text(BOT_C)
    out = {"native": folder / "native" / "bot"}
    out["native"].parent.mkdir()
    subprocess.run([cc, "-O2", "-o", str(out["native"]), str(src)], check=True)
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if exe and mingw is not None and shutil.which("wine") is not None:
        out["exe"] = folder / "windows" / "bot.exe"
        out["exe"].parent.mkdir()
        subprocess.run([mingw, "-O2", "-o", str(out["exe"]), str(src)], check=True)
    return out


def cpu_now() -> float:
    """CPU seconds of this process and every child it has waited for (their children too,
    when they waited for them: the exec helper reaps the program), so a turn's CPU is the
    difference of two readings.  Unlike wall time it hardly moves with the machine's load.
    A seat's persistent exec helper (its zygote) is reaped only when the seat closes, and
    it reaps the runs: their CPU and its own so far are added (``zygote.cpu_seconds``)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + zygote.cpu_seconds()


class BareTurn:
    """The bare loop's turn: MAP.INP written, the program started twice, one after the other."""

    def __init__(self, folder: Path, argv: list[str], env: dict[str, str]) -> None:
        self.dirs = [folder / "bare0", folder / "bare1"]
        for d in self.dirs:
            d.mkdir(parents=True)
        self.argv, self.env = argv, env

    def __call__(self, map_inp: bytes) -> float:
        t0 = time.perf_counter()
        for d in self.dirs:
            (d / "MAP.INP").write_bytes(map_inp)
            # Output to /dev/null, not pipes: wine's own daemons (services.exe, ...) would
            # hold a pipe open and the run would never see its end.
            subprocess.run(
                self.argv,
                cwd=d,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        return time.perf_counter() - t0


class Observer:
    """Times the judged turns (between two of its calls) and runs a bare turn in between."""

    def __init__(self, bare: BareTurn, replay: Path) -> None:
        self.bare = bare
        self.replay = replay
        self.judged: list[float] = []
        self.bare_s: list[float] = []
        #: CPU seconds of each judged and each bare turn (see cpu_now)
        self.judged_cpu: list[float] = []
        self.bare_cpu: list[float] = []
        self._cpu_since = 0.0
        self.line_s: list[float] = []
        self.spans: list[tuple[float, float]] = []  #: each judged turn's start and end
        self._since = 0.0

    def start(self, header: ReplayHeader) -> None:
        self._since = time.perf_counter()
        self._cpu_since = cpu_now()

    def turn(self, record: TurnRecord) -> None:
        now = time.perf_counter()
        self.judged_cpu.append(cpu_now() - self._cpu_since)
        self.spans.append((self._since, now))
        self.judged.append(now - self._since)
        # The replay line again, as the referee wrote it just now: its cost alone.
        t0 = time.perf_counter()
        with open(self.replay, "a", encoding="utf-8") as f:
            f.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        self.line_s.append(time.perf_counter() - t0)
        cpu = cpu_now()
        self.bare_s.append(self.bare(MAP_INP))
        self.bare_cpu.append(cpu_now() - cpu)
        self._since = time.perf_counter()
        self._cpu_since = cpu_now()

    def end(self, result: RoundResult) -> None:
        pass


class SpanObserver:
    """Times the judged turns of a round played back to back (nothing in between), as
    in a real match: what a seat does after its run (arming the next) has only the
    referee's own work and the other seat's run to hide behind."""

    def __init__(self) -> None:
        self.judged: list[float] = []
        self._since = 0.0

    def start(self, header: ReplayHeader) -> None:
        self._since = time.perf_counter()

    def turn(self, record: TurnRecord) -> None:
        now = time.perf_counter()
        self.judged.append(now - self._since)
        self._since = now

    def end(self, result: RoundResult) -> None:
        pass


class TimedSandbox(Sandbox):
    """A Sandbox whose seats remember when each run took place and its step times."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.runs: list[tuple[float, float, dict[str, float]]] = []
        self._runs_lock = threading.Lock()

    def seat(self, *args: Any, **kw: Any) -> Any:
        s = super().seat(*args, **kw)
        run_turn = s.run_turn

        def timed(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            run = run_turn(*a, **k)
            t1 = time.perf_counter()
            with self._runs_lock:
                self.runs.append((t0, t1, dict(run.steps.seconds if run.steps else {})))
            return run

        s.run_turn = timed  # type: ignore[method-assign]
        return s


def fs_type(path: Path) -> str:
    """The type of the file system ``path`` is on (the longest mount point above it)."""
    best, kind = "", "?"
    for m in mounts():
        point = m.mountpoint
        if (str(path) + "/").startswith(point.rstrip("/") + "/") and len(point) >= len(best):
            best, kind = point, m.fstype
    return kind


def file_probe(folder: Path, over: bool, reps: int = 200) -> float:
    """Median seconds to make three small files and remove them (a judged turn's way: the
    folder is emptied after each run) or, ``over``, to write over three existing ones (the
    bare loop's way).  Both move with the file system's state more than anything else a
    turn does (docs/turn-cost.md)."""
    probe = folder / ".file-probe"
    probe.mkdir(parents=True, exist_ok=True)
    names = [probe / n for n in ("MAP.INP", "MOVE.OUT", "STATE.OUT")]
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for name in names:
            name.write_bytes(b"1 1\n" * 20)
        if not over:
            for name in names:
                name.unlink()
        times.append(time.perf_counter() - t0)
    shutil.rmtree(probe)
    return statistics.median(times)


def measure(
    kind: str,
    program: Path,
    work: Path,
    turns: int,
    rounds: int,
    leases: bool = True,
    launcher: str = "armed",
) -> dict[str, Any]:
    """Judged and bare turns of one kind of bot, and the steps of the judged runs."""
    bot = BotSpec(kind, str(program), program.parent, (program.name,))
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    argv = [str(program)]
    if kind == "exe":
        env["WINEPREFIX"] = str(work / "bare-prefix")
        env["WINEDEBUG"] = "-all"
        argv = ["wine", str(program)]
        subprocess.run(["wineboot", "-i"], env=env, capture_output=True, check=False)
        subprocess.run(["wineserver", "-p"], env=env, check=False)
    bare = BareTurn(work / kind, argv, env)
    game_map = load_map(ROOT / "maps" / "m1.txt")
    cfg = RoundConfig(game_map, "m1", seed=1, turns=turns)
    with TimedSandbox(core_leases=None if leases else False, launcher=launcher) as sb:
        warm = Observer(bare, work / f"{kind}-warm.jsonl")
        play_round(cfg, [bot, bot], ["a", "b"], sb, work / f"{kind}-warm", observer=warm)
        sb.runs.clear()
        obs = Observer(bare, work / f"{kind}.jsonl")
        for r in range(rounds):
            play_round(cfg, [bot, bot], ["a", "b"], sb, work / f"{kind}-{r}", observer=obs)
        runs = list(sb.runs)
        isolation = [name for name, on, _ in sb.isolation.items if not on]
        with sb.seat("files", None) as seat:  # where a seat's runs make their files
            files = {
                "seats": str(seat.workdir),
                "seats_fs": fs_type(seat.workdir),
                "seats_us": file_probe(seat.workdir, over=False) * 1e6,
            }
        files.update(
            {
                "bare": str(work),
                "bare_fs": fs_type(work),
                "bare_us": file_probe(work, over=True) * 1e6,
            }
        )
        # Back to back: judged rounds with nothing between their turns, and as many bare
        # turns in a row, alternately.
        b2b_judged: list[float] = []
        b2b_bare: list[float] = []
        for r in range(rounds):
            spans = SpanObserver()
            play_round(cfg, [bot, bot], ["a", "b"], sb, work / f"{kind}-b2b-{r}", observer=spans)
            b2b_judged += spans.judged[1:]  # the first turn also starts the round
            b2b_bare += [bare(MAP_INP) for _ in range(turns)]
    if kind == "exe":
        subprocess.run(["wineserver", "-k"], env=env, check=False)
    own = []
    for t0, t1 in obs.spans[1:]:  # the first turn of each round also starts the round
        inside = [(a, b) for a, b, _ in runs if t0 <= a and b <= t1]
        if inside:
            own.append((t1 - t0) - (max(b for _, b in inside) - min(a for a, _ in inside)))
    steps = {s: statistics.median(r[2].get(s, 0.0) for r in runs) for s in STEPS}
    judged = statistics.median(obs.judged)
    bare_turn = statistics.median(obs.bare_s)
    return {
        "kind": kind,
        "turns": len(obs.judged),
        "judged_ms": judged * 1000,
        "bare_ms": bare_turn * 1000,
        "ratio": judged / bare_turn,
        "b2b_judged_ms": statistics.median(b2b_judged) * 1000,
        "b2b_bare_ms": statistics.median(b2b_bare) * 1000,
        "b2b_ratio": statistics.median(b2b_judged) / statistics.median(b2b_bare),
        "judged_cpu_ms": statistics.median(obs.judged_cpu) * 1000,
        "bare_cpu_ms": statistics.median(obs.bare_cpu) * 1000,
        "run_ms": statistics.median(b - a for a, b, _ in runs) * 1000,
        "steps_ms": {s: v * 1000 for s, v in steps.items()},
        "referee_ms": statistics.median(own) * 1000 if own else None,
        "replay_line_ms": statistics.median(obs.line_s) * 1000,
        "protections_off": isolation,
        "files": files,
    }


def report(who: str, results: list[dict[str, Any]]) -> None:
    """The table of one user's measurements."""
    print(f"== as {who} ==")
    for r in results:
        print(
            f"{r['kind']:6s} judged turn {r['judged_ms']:7.2f} ms   bare turn (2 spawns) "
            f"{r['bare_ms']:7.2f} ms   ratio {r['ratio']:.2f}x   ({r['turns']} turns)"
        )
    for r in results:
        print(
            f"  {r['kind']} back to back (a round's turns in a row, then as many bare turns): "
            f"judged {r['b2b_judged_ms']:.2f} ms, bare {r['b2b_bare_ms']:.2f} ms, "
            f"ratio {r['b2b_ratio']:.2f}x"
        )
    for r in results:
        print(
            f"  {r['kind']} CPU a turn (judge, helpers and programs): judged "
            f"{r['judged_cpu_ms']:.2f} ms, bare {r['bare_cpu_ms']:.2f} ms, ratio "
            f"{r['judged_cpu_ms'] / max(r['bare_cpu_ms'], 1e-9):.2f}x"
        )
    for r in results:
        steps = "  ".join(f"{s} {v:.2f}" for s, v in r["steps_ms"].items() if v > 0.0005)
        print(f"  {r['kind']} run {r['run_ms']:.2f} ms median, by step (ms): {steps}")
        referee = r["referee_ms"]
        f = r["files"]
        print(
            f"  {r['kind']} files: seats in {f['seats']} ({f['seats_fs']}), three made and "
            f"removed {f['seats_us']:.0f} us; bare turns in {f['bare']} ({f['bare_fs']}), "
            f"three written over {f['bare_us']:.0f} us"
        )
        print(
            f"  {r['kind']} referee's own work a turn: "
            f"{'-' if referee is None else f'{referee:.2f}'} ms, replay line "
            f"{r['replay_line_ms']:.3f} ms; protections off: {', '.join(r['protections_off']) or 'none'}"
        )
    native = next((r for r in results if r["kind"] == "native"), None)
    exe = next((r for r in results if r["kind"] == "exe"), None)
    if native is not None:
        met = "met" if max(native["ratio"], native["b2b_ratio"]) <= NATIVE_TARGET else "NOT met"
        print(
            f"native: {native['ratio']:.2f}x two bare spawns interleaved, "
            f"{native['b2b_ratio']:.2f}x back to back (target <= {NATIVE_TARGET}x: {met})"
        )
    if native is not None and exe is not None:
        extra = (exe["judged_ms"] - exe["bare_ms"]) - (native["judged_ms"] - native["bare_ms"])
        met = "met" if extra <= EXE_TARGET_MS else "NOT met"
        print(
            f".exe: judged turn {exe['judged_ms'] - native['judged_ms']:+.2f} ms over the native one; "
            f"its overhead over bare wine {extra:+.2f} ms over the native overhead "
            f"(target <= {EXE_TARGET_MS:g} ms: {met})"
        )


def as_nobody(args: argparse.Namespace) -> list[dict[str, Any]] | None:
    """The same measurement as the unprivileged user nobody (None: cannot be run here)."""
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        print(f"(as a normal user: skipped, {SYSTEM_PYTHON} is missing)")
        return None
    tmp = Path(tempfile.mkdtemp(prefix="turn-cost-nobody-"))
    os.chmod(tmp, 0o777)
    try:
        cmd = [SYSTEM_PYTHON, str(Path(__file__).resolve()), "--child", "--turns", str(args.turns)]
        cmd += ["--rounds", str(args.rounds)] + (["--no-exe"] if args.no_exe else [])
        cmd += ["--no-leases"] if args.no_leases else []
        cmd += ["--no-arm"] if args.no_arm else []
        proc = subprocess.run(
            cmd,
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd=tmp,
            capture_output=True,
            env={
                "PATH": "/usr/local/bin:/usr/bin:/bin",
                "PYTHONPATH": str(ROOT),
                "HOME": str(tmp),
                "TMPDIR": str(tmp),
                "LANG": "C.UTF-8",
            },
            check=False,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if proc.returncode != 0:
        print(f"(as a normal user: failed: {proc.stderr.decode(errors='replace')[-2000:]})")
        return None
    return list(json.loads(proc.stdout.decode().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--turns", type=int, default=40, help="turns a round (even, <= 100)")
    ap.add_argument("--rounds", type=int, default=3, help="measured rounds of each kind")
    ap.add_argument("--no-exe", action="store_true", help="native bots only")
    ap.add_argument("--no-user", action="store_true", help="as root, do not run as nobody too")
    ap.add_argument(
        "--no-leases",
        action="store_true",
        help="no machine-wide core leases (a shared machine: other judges' runs are not "
        "waited for; the 'core' step then counts this process's own budget only)",
    )
    ap.add_argument(
        "--no-arm",
        action="store_true",
        help="start every run on its turn, none armed ahead by the seat's zygote (to compare)",
    )
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="turn-cost-"))
    try:
        programs = build(work, exe=not args.no_exe)
        results = [
            measure(
                kind,
                program,
                work,
                args.turns,
                args.rounds,
                not args.no_leases,
                "zygote" if args.no_arm else "armed",
            )
            for kind, program in programs.items()
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.child:
        print(json.dumps(results))
        return 0
    who = "root" if os.geteuid() == 0 else "a normal user"
    print(f"load average {os.getloadavg()[0]:.1f}; medians of every measured turn")
    report(who, results)
    user = None
    if os.geteuid() == 0 and not args.no_user:
        user = as_nobody(args)
        if user is not None:
            report("a normal user (nobody)", user)
    if args.json:
        print(json.dumps({who: results, "nobody": user}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
