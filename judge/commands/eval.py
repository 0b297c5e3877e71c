"""``judge eval``: how good is a bot?  Many rounds on generated maps, with statistics."""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from judge import atomic
from judge.bots import BotError, resolve_bot
from judge.commands.cores_option import add_cores_argument, cores_line
from judge.evaluate import (
    DEFAULT_SIZES,
    EvalError,
    EvalRequest,
    RoundOutcome,
    evaluate,
    parse_sizes,
    parse_turns,
    render,
)
from judge.names import distinct_names
from judge.sandbox import CoreSpecError, Limits, Sandbox

#: More rounds than this would take days; refuse rather than hang.
MAX_ROUNDS = 100_000

HELP = "play many rounds between two bots on generated maps and report statistics"
DESCRIPTION = """\
Play --rounds rounds between BOT_A and BOT_B on maps made by the generator and
print a table from BOT_A's view: wins / draws / losses, the win rate over the
decided rounds with a 95% Wilson interval, mean gold and points, end reasons,
time p50 / p99 / max and peak memory of each bot, and failed runs by verdict.

Every map is played twice, BOT_A in seat 0 and then in seat 1 (so an odd
--rounds is rounded up).  Map sizes are taken in turn from --sizes: N is an
N x N map, RxC is R rows by C columns (e.g. --sizes 5,9,15,7x13).  Without
--turns each map gets its own K, drawn from every even value 2..100; with
--turns (one K or a list) the maps go through every (size, K) pair.

The same --seed gives the same maps and, for deterministic bots, the same
results.  Rounds run --jobs at a time (default: one per core); inside a round
the two programs run one after the other.  Every program runs on a core of
its own (--cores; default: every core the judge may use), so at any --jobs
each bot's timings are those of a program with a core to itself.

Replays go to a temporary folder that is removed at the end, unless --out DIR
keeps them (with eval.json, the --json object).

Exit status: 0 when every round was played; 2 for a bad bot or option; 3 when
the judge itself failed (a round it could not play, or no sandbox).

examples:
  judge eval greedy random
  judge eval mybot greedy --rounds 200 --sizes 5,7,9,11,13,15 --seed 1
  judge eval mybot greedy --turns 100 --sizes 15 --jobs 1   # clean timings
  judge eval mybot greedy --json > eval.json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot_a", metavar="BOT_A", help="the bot under test: a bots/ name or a path")
    p.add_argument("bot_b", metavar="BOT_B", help="its opponent: a bots/ name or a path")
    p.add_argument(
        "--rounds",
        type=int,
        default=60,
        metavar="N",
        help="rounds to play (default 60 = 30 maps x 2 seat orders)",
    )
    p.add_argument(
        "--sizes",
        default=DEFAULT_SIZES,
        metavar="LIST",
        help=f"map sizes, N or RxC, comma-separated (default {DEFAULT_SIZES})",
    )
    p.add_argument(
        "--turns",
        metavar="K[,K...]",
        help="K of every map, or a list to go through (default: varied, every even 2..100)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="J",
        help="rounds played at once (default: the number of cores)",
    )
    p.add_argument(
        "--seed", type=int, help="fixes every map and placement (default: fresh, printed)"
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="keep replays, logs and eval.json here (default: a temporary folder)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object instead of the tables (no progress bar)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds per run (default 2; 0 lifts the limit)",
    )
    p.add_argument(
        "--memory-limit",
        type=int,
        default=512,
        metavar="MB",
        help="peak memory per run in MiB (default 512)",
    )
    add_cores_argument(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--bots-dir", type=Path, default=Path("bots"), help=argparse.SUPPRESS)


def _fail(console: Console, msg: str, code: int = 2) -> int:
    console.print(f"[bold red]judge eval:[/] {escape(msg)}", highlight=False)
    return code


def _request(args: argparse.Namespace) -> EvalRequest:
    """Check the options and resolve the bots (raises EvalError / BotError with the fix)."""
    if args.rounds < 1 or args.rounds > MAX_ROUNDS:
        raise EvalError(f"--rounds {args.rounds}: give 1 to {MAX_ROUNDS} rounds")
    if not math.isfinite(args.time_limit) or args.time_limit < 0 or args.time_limit > 60:
        raise EvalError(f"--time-limit {args.time_limit}: give seconds from 0 (no limit) to 60")
    if args.memory_limit < 16 or args.memory_limit > 16384:
        raise EvalError(f"--memory-limit {args.memory_limit}: give MiB from 16 to 16384")
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise EvalError(f"--jobs {jobs}: give at least 1")
    sizes = parse_sizes(args.sizes)
    turns = parse_turns(args.turns) if args.turns is not None else None
    bots = [resolve_bot(args.bot_a, args.bots_dir), resolve_bot(args.bot_b, args.bots_dir)]
    limits = Limits(
        time_s=None if args.time_limit == 0 else args.time_limit,
        memory_bytes=args.memory_limit * 2**20,
    )
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    return EvalRequest(
        bots, distinct_names([b.name for b in bots]), args.rounds, sizes, turns, seed, jobs, limits
    )


def run(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    try:
        req = _request(args)
    except (EvalError, BotError) as exc:
        return _fail(err, str(exc))
    try:
        sandbox = Sandbox(cores=args.cores)
    except CoreSpecError as exc:
        return _fail(err, str(exc))
    except (OSError, RuntimeError) as exc:
        return _fail(err, f"cannot set up the sandbox: {exc}", 3)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if args.out is not None:
        out_dir: Path = args.out
        out_dir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="judge-eval-")
        out_dir = Path(tmp.name)
    total = 2 * req.n_maps
    if not args.json and not args.quiet:
        extra = (
            "" if total == args.rounds else f" ({args.rounds} rounded up: each map is played twice)"
        )
        err.print(
            f"{req.names[0]} vs {req.names[1]}: {total} rounds{extra}, seed {req.seed}, "
            f"{req.jobs} at once",
            markup=False,
        )
        err.print(cores_line(sandbox), markup=False)
    try:
        with sandbox:
            summary = _play(
                req,
                sandbox,
                out_dir,
                err,
                show=not (args.json or args.quiet),
                keep=args.out is not None,
            )
    except ValueError as exc:  # a bot the seats cannot run at all
        return _fail(err, str(exc), 2)
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.out is not None:
        atomic.write_json(out_dir / "eval.json", summary)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        console = Console()
        for item in render(summary):
            console.print(item)
        if args.out is not None:
            console.print(f"replays and eval.json in {out_dir}", markup=False)
    sys.stdout.flush()
    return 3 if summary["rounds_aborted"] else 0


def _play(
    req: EvalRequest, sandbox: Sandbox, out_dir: Path, err: Console, show: bool, keep: bool
) -> dict[str, Any]:
    """Run the evaluation with a live progress bar (on stderr, so stdout stays the table/JSON)."""
    if not show:
        return evaluate(req, sandbox, out_dir, keep_out=keep)
    tally: dict[str | None, int] = {"win": 0, "draw": 0, "loss": 0, None: 0}
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[wdl]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )
    task = progress.add_task("rounds", total=2 * req.n_maps, wdl="")

    def done(o: RoundOutcome) -> None:
        tally[o.outcome] += 1
        wdl = f"{req.names[0]} W {tally['win']} D {tally['draw']} L {tally['loss']}"
        if tally[None]:
            wdl += f" [red]abandoned {tally[None]}[/]"
        progress.update(task, advance=1, wdl=wdl)

    with progress:
        return evaluate(req, sandbox, out_dir, on_done=done, keep_out=keep)
