"""``judge match``: play rounds between two bot programs and record them."""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import secrets
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judge import voidwhy
from judge.bots import BotError, BotSpec, resolve_bot
from judge.commands.cores_option import add_cores_argument, cores_line
from judge.maps import MapError, MapNotFound, load_map, resolve_map_path
from judge.match import RoundPlan, play_match
from judge.names import distinct_folders, distinct_names
from judge.records import MatchResult, ReplayHeader, RoundResult, TurnRecord
from judge.referee import RoundAborted
from judge.sandbox import CoreSpecError, Limits, Sandbox
from judge.stats import median

HELP = "play a match (one round per --map) between two bots"
DESCRIPTION = """\
Play one round per --map between BOT_A (seat 0) and BOT_B (seat 1) over the
file protocol, and write result.json, replays and logs to the output folder.

BOT is a bot's name or a path: a folder holding a bot.yaml, or an executable
file (a Windows .exe runs through wine, sandboxed like a native program; a
32-bit or broken .exe is refused before the round).  A name is
looked up in each --bots-dir, then bots/ of the current folder, then the
bundled bots (greedy, greedy_c, random, reference, template), so they work
from any folder.  MAP is a path, or a name looked up the same way in
--maps-dir, maps/ and the bundled maps (m1 -> m1.txt).

Exit status: 0 when the match was played, whatever its result; 2 for a bad
bot, a broken bot.yaml or a refused map; 3 when the judge itself failed.

examples:
  judge match greedy random --map m1
  judge match greedy ./my_bot/run --map m1 --map m2 --map m3 --seed 7
  judge match mybot greedy --map maps/m4.txt --time-limit 0 --sequential
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot_a", metavar="BOT_A", help="seat 0: a bots/ name or a path")
    p.add_argument("bot_b", metavar="BOT_B", help="seat 1: a bots/ name or a path")
    p.add_argument(
        "--map",
        dest="maps",
        action="append",
        required=True,
        metavar="MAP",
        help="a map path or a name in maps/; repeat for more rounds",
    )
    p.add_argument("--turns", type=int, metavar="K", help="override every map's K (even, 2..100)")
    p.add_argument("--seed", type=int, help="fixes all randomness (default: a fresh seed, printed)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output folder (default: matches/<time>-<a>-vs-<b>/)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds per run (default 2; 0 lifts the limit, for debugging)",
    )
    p.add_argument(
        "--memory-limit",
        type=int,
        default=512,
        metavar="MB",
        help="peak memory per run in MiB (default 512)",
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="run the two programs one after the other instead of at once",
    )
    add_cores_argument(p)
    p.add_argument(
        "--allow-invalid-map",
        action="store_true",
        help="play maps that break the contest limits (experiments only)",
    )
    p.add_argument("--quiet", action="store_true", help="print only the result line")
    p.add_argument(
        "--watch",
        action="store_true",
        help="draw the board every turn (plain text when not a terminal)",
    )
    p.add_argument(
        "--step",
        action="store_true",
        help="with the board drawn, wait for Enter after each turn "
        "(q + Enter stops watching; the match goes on); implies --watch",
    )
    p.add_argument(
        "--bots-dir",
        type=Path,
        action="append",
        metavar="DIR",
        help="a folder of your own bots, looked in before bots/ of the current folder and "
        "the bundled bots (repeatable)",
    )
    p.add_argument(
        "--maps-dir",
        type=Path,
        action="append",
        metavar="DIR",
        help="a folder of your own maps, looked in before maps/ of the current folder and "
        "the bundled maps (repeatable)",
    )


def _fail(console: Console, msg: str, code: int = 2) -> int:
    console.print(f"[bold red]judge match:[/] {escape(msg)}", highlight=False, soft_wrap=True)
    return code


def _check_limits(args: argparse.Namespace) -> str | None:
    if args.turns is not None and (args.turns < 2 or args.turns > 100 or args.turns % 2):
        return f"--turns {args.turns}: K must be even, from 2 to 100"
    if not math.isfinite(args.time_limit) or args.time_limit < 0 or args.time_limit > 60:
        return f"--time-limit {args.time_limit}: give seconds from 0 (no limit) to 60"
    if args.memory_limit < 16 or args.memory_limit > 16384:
        return f"--memory-limit {args.memory_limit}: give MiB from 16 to 16384"
    return None


def run(args: argparse.Namespace) -> int:
    err_console = Console(stderr=True)
    console = Console()
    problem = _check_limits(args)
    if problem:
        return _fail(err_console, problem)
    try:
        bots = [resolve_bot(args.bot_a, args.bots_dir), resolve_bot(args.bot_b, args.bots_dir)]
    except BotError as exc:
        return _fail(err_console, str(exc))
    plans = []
    for spec in args.maps:
        try:
            path = resolve_map_path(spec, args.maps_dir)
            gm = load_map(path, allow_invalid=args.allow_invalid_map)
        except MapError as exc:
            hint = (
                ""
                if args.allow_invalid_map or isinstance(exc, MapNotFound)
                else "\n(use --allow-invalid-map to play it anyway, for experiments)"
            )
            return _fail(err_console, f"{exc}{hint}")
        plans.append(RoundPlan(gm, str(path)))
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    names = distinct_names([b.name for b in bots])
    out, problem = _output_folder(args.out, distinct_folders(names))
    if problem:
        return _fail(err_console, problem)
    limits = Limits(
        time_s=None if args.time_limit == 0 else args.time_limit,
        memory_bytes=args.memory_limit * 2**20,
    )
    try:
        sandbox = Sandbox(cores=args.cores)
    except CoreSpecError as exc:
        return _fail(err_console, str(exc))
    except (OSError, RuntimeError) as exc:
        return _fail(err_console, f"cannot set up the sandbox: {exc}", 3)
    previous = _sigterm_as_interrupt()
    with sandbox:
        if not args.quiet:
            _header(console, bots, names, plans, seed, limits, sandbox, out)
        observer_for = _observers(args, console, names)
        try:
            result = play_match(
                bots,
                names,
                plans,
                seed,
                out,
                sandbox,
                limits,
                turns=args.turns,
                sequential=args.sequential,
                observer_for=observer_for,
            )
        except RoundAborted as exc:
            return _fail(err_console, f"{exc}\n(the partial match is in {out})", 3)
        except ValueError as exc:  # e.g. a map with no room to start on, or an unreachable bot
            return _fail(err_console, str(exc), 2)
        except KeyboardInterrupt:
            return _fail(
                err_console,
                f"interrupted: the rounds finished so far are in {out} "
                '(its result.json says "complete": false)',
                130,
            )
        finally:
            _restore_sigterm(previous)
    if args.quiet:
        console.print(Text(_result_line(result)))
    else:
        _summary(console, result, out, bots)
    return 0


def _output_folder(given: Path | None, folders: list[str]) -> tuple[Path, str | None]:
    """The match folder: a new or empty one, so old and new output never mix."""
    if given is None:
        stem = Path("matches") / (
            f"{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}-{folders[0]}-vs-{folders[1]}"
        )
        out, n = stem, 1
        while out.exists():
            n += 1
            out = stem.with_name(f"{stem.name}-{n}")
    else:
        out = given
        if out.exists() and not out.is_dir():
            return out, f"--out {out}: this is a file, not a folder; give a new folder"
        if out.is_dir() and any(out.iterdir()):
            return out, (
                f"--out {out}: the folder is not empty; give a new folder "
                "(or remove this one) so old and new results never mix"
            )
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return out, f"--out {out}: cannot write there ({exc.strerror or exc})"
    return out, None


def _sigterm_as_interrupt() -> Any:
    """SIGTERM stops a match like Ctrl-C: running bots are killed, finished rounds are kept."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (e.g. called from a test runner thread)
        return signal.getsignal(signal.SIGTERM)


def _restore_sigterm(previous: Any) -> None:
    try:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    except (ValueError, TypeError):
        pass


def _observers(args: argparse.Namespace, console: Console, names: list[str]) -> Any:
    """Per-round observers: a progress line per round, and the live board with --watch/--step."""
    watch = None
    if getattr(args, "watch", False) or getattr(args, "step", False):
        from judge.views.live import WatchSession

        watch = WatchSession(console, names, step=args.step)
    if args.quiet and watch is None:
        return None

    class Progress:
        def __init__(self, idx: int, plan: RoundPlan):
            self.idx, self.plan = idx, plan
            self.live = watch.round(idx, plan.map_label) if watch is not None else None

        def start(self, header: ReplayHeader) -> None:
            if self.live is not None:
                self.live.start(header)

        def turn(self, record: TurnRecord) -> None:
            if self.live is not None:
                self.live.turn(record)

        def end(self, rr: RoundResult) -> None:
            if self.live is not None:
                self.live.end(rr)
            if args.quiet:
                return
            who = "draw" if rr.winner is None else f"{names[rr.winner]} wins"
            console.print(
                Text(
                    f"round {self.idx} on {self.plan.map_label}: {who} — "
                    f"gold {rr.gold[0]}–{rr.gold[1]}, points {rr.points[0]}–{rr.points[1]}, "
                    f"{rr.turns_played}/{rr.turns} turns, ended by {rr.end_reason.value}"
                )
            )

    return lambda idx, plan: Progress(idx, plan)


def _header(
    console: Console,
    bots: list[BotSpec],
    names: list[str],
    plans: list[RoundPlan],
    seed: int,
    limits: Limits,
    sandbox: Sandbox,
    out: Path,
) -> None:
    console.print(
        f"[bold]{escape(names[0])}[/] (seat 0, {escape(bots[0].source)}) vs "
        f"[bold]{escape(names[1])}[/] (seat 1, {escape(bots[1].source)})",
        highlight=False,
    )
    console.print(Text(f"maps: {', '.join(p.map_label for p in plans)}; seed {seed}"))
    if limits.time_s is None:
        console.print(
            "[bold yellow]TIME LIMIT LIFTED (--time-limit 0): for debugging only; "
            "recorded in the replay[/]"
        )
    else:
        console.print(
            f"limits: {limits.time_s:g} s, {limits.memory_bytes // 2**20} MiB per run",
            highlight=False,
        )
    console.print(cores_line(sandbox), markup=False)
    iso = sandbox.isolation
    off = [(n, d) for n, on, d in iso.items if not on]
    head = iso.describe().splitlines()[0]
    console.print(Text(f"isolation: {head} (details: judge sandbox-info)"))
    for name, detail in off:
        console.print(f"  [yellow]OFF[/] {escape(name)}: {escape(detail)}", highlight=False)
    console.print(Text(f"output: {out}"))


def _result_line(result: MatchResult) -> str:
    p = result.points
    if result.winner is None:
        head = "draw"
    else:
        head = f"{result.teams[result.winner]} wins"
    gold = result.gold
    return (
        f"{head}: {result.teams[0]} {p[0]} points ({gold[0]} gold), "
        f"{result.teams[1]} {p[1]} points ({gold[1]} gold)"
    )


def _void_lines(result: MatchResult, s: int, out: Path, source: str) -> list[str]:
    """Why a team's moves were void, in words, and where to look next (check-bot, stderr.log)."""
    counts: dict[str, int] = {}
    moves = 0
    logs: list[Path] = []
    folder = distinct_folders(result.teams)[s]
    for idx, r in enumerate(result.rounds, start=1):
        st = r.stats[s]
        moves += st.moves
        for k, n in st.why_void.items():
            counts[k] = counts.get(k, 0) + n
        if any(voidwhy.parse(k) in voidwhy.IN_STDERR for k in st.why_void):
            logs.append(out / f"round-{idx}" / folder / "stderr.log")
    if not counts:
        return []
    lines = [f"{result.teams[s]}: {voidwhy.summary(counts, moves)}"]
    hints = []
    if any(voidwhy.parse(k) in voidwhy.PROTOCOL for k in counts):
        hints.append(
            f"run 'judge check-bot {shlex.quote(source)}' to see why, situation by situation"
        )
    if logs:
        more = f" (and {len(logs) - 1} more round(s))" if len(logs) > 1 else ""
        hints.append(f"its error output is in {logs[0]}{more}")
    if hints:
        lines[0] += "\n  " + "\n  ".join(hints)
    return lines


def _summary(
    console: Console, result: MatchResult, out: Path, bots: list[BotSpec] | None = None
) -> None:
    from judge.views.board import final_board

    if result.rounds:
        last = result.rounds[-1]
        board = final_board(out / last.replay, result.teams)
        if board is not None:
            console.print(board)
    table = Table(title="match summary")
    table.add_column("team")
    for col in ("gold", "points", "shield", "sunk", "verdicts", "time p50/max ms", "peak MiB"):
        table.add_column(col, justify="right")
    warnings = []
    for s in (0, 1):
        verdicts: dict[str, int] = {}
        walls: list[float] = []
        peak = 0.0
        for r in result.rounds:
            st = r.stats[s]
            for v, n in st.verdicts.items():
                verdicts[v] = verdicts.get(v, 0) + n
            walls += st.wall_ms
            peak = max(peak, st.peak_mem_mb)
        walls.sort()
        mid = median(walls)
        p50 = f"{mid:.0f}" if mid is not None else "-"
        mx = f"{walls[-1]:.0f}" if walls else "-"
        table.add_row(
            Text(result.teams[s]),
            " / ".join(str(r.gold[s]) for r in result.rounds),
            str(result.points[s]),
            " / ".join("yes" if r.shield[s] else "no" for r in result.rounds),
            " / ".join("yes" if r.sunk[s] else "no" for r in result.rounds),
            ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
            f"{p50}/{mx}",
            f"{peak:.1f}",
        )
        warnings += _void_lines(result, s, out, bots[s].source if bots else result.teams[s])
    console.print(table)
    for w in warnings:
        # soft_wrap: a path or a command in the hint must stay whole, to be copied
        console.print(f"[bold yellow]warning:[/] {escape(w)}", highlight=False, soft_wrap=True)
    console.print(Text(_result_line(result), style="bold"))
    console.print(Text(f"written to {out}/result.json"))
    sys.stdout.flush()
