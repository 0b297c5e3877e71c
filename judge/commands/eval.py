"""``judge eval``: how good is a bot?  Many rounds on generated maps, with statistics."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from judge.commands.options import (
    add_bot_folder_options,
    add_cores_option,
    add_limit_options,
    add_name_option,
    cores_line,
    fail,
    given_names,
    jobs_from,
    limits_from,
    make_console,
    open_sandbox,
)
from judge.settings import DEFAULT_SIZES

if TYPE_CHECKING:
    from rich.console import Console

    from judge.evaluate import EvalRequest
    from judge.pentanomial import Sprt
    from judge.scheduler import Venue

#: More rounds than this would take days; refuse rather than hang.
MAX_ROUNDS = 100_000
DEFAULT_ROUNDS = 60
DEFAULT_MAX_ROUNDS = 1000

HELP = "play many rounds between two bots on generated maps and report statistics"
DESCRIPTION = """\
Play --rounds rounds between BOT_A and BOT_B and print, from BOT_A's view:
wins / draws / losses, the win rate over the decided rounds with a 95% Wilson
interval (which assumes independent rounds), mean gold and points, end
reasons, time p50 / p99 / max and peak memory of each bot, and failed runs.

Rounds come in pairs: every map is played twice, BOT_A in seat 0 and then in
seat 1 (so an odd --rounds is rounded up), and the pair scores 0, 1/2, 1, 3/2
or 2 points (1 per round won, 1/2 per draw).  Pairs are independent where
rounds are not, so the report counts pairs by score (the pentanomial: LL, LD,
WL+DD, WD, WW) and gives BOT_A's score, its Elo difference with a 95%
interval from the variance of the pair scores, and the likelihood of
superiority (LOS).  A pair whose two rounds are the same game mirrored (both
bots made the same moves in both seat orders, as deterministic bots do on a
symmetric map) is one game played twice, seen from both sides, which the pair
figures count once: the report says how many pairs were ("mirrored pairs"),
and the distinct games won, drawn and lost, such a pair counted once.

--sprt ELO0 ELO1 runs a sequential test (the generalised SPRT on the
pentanomial model, as fishtest computes it) of H0 "BOT_A is ELO0 Elo better"
against H1 "BOT_A is ELO1 Elo better", with error rates --alpha and --beta
(default 0.05 each).  It stops as soon as the log-likelihood ratio (LLR)
leaves the bounds log(beta/(1-alpha)) and log((1-beta)/alpha), or at
--max-rounds (default 1000): inconclusive.  Pairs enter the test in map
order whatever order they finish in, so the verdict does not depend on
--jobs; no round starts once the test decides, and the rounds still running
then are finished but not counted.  The verdict is the last line (and "sprt"
in --json): "H1 accepted: A is stronger than B" (the results fit a gain of
ELO1 far better than one of ELO0), "H0 accepted: no evidence that A is ELO1
Elo better than B" (they fit ELO0 far better: A may still be better, by
less), or inconclusive.

Maps: without --book, map sizes are taken in turn from --sizes (N is N x N,
RxC is R rows by C columns, default 5,9,15), each map's K is drawn from every
even value 2..100 (or, with --turns, the maps go through every (size, K)
pair), and --seed fixes every map.  --book FILE plays the maps of a book in
its order, one per line:
    gen ROWSxCOLS K SEED [placement=SEED]     a generated map (as judge genmap)
    file PATH [K] [placement=SEED]            a map file, relative to the book
('#' starts a comment).  --out DIR writes the book that was played to
DIR/book.txt, so another version of a bot can be evaluated on the same maps.

The same --seed gives the same maps and, for deterministic bots, the same
results.  Rounds run --jobs at a time (default: one per core); inside a round
the two programs run one after the other.  Every program runs on a core of
its own (--cores; default: every core the judge may use), so at any --jobs
each bot's timings are those of a program with a core to itself.

Replays go to a temporary folder that is removed at the end, unless --out DIR
keeps them (with eval.json, the --json object).

--cluster ADDRESS plays the rounds on a Dask cluster (the scheduler at
ADDRESS and its workers; --cluster local:N starts N worker processes here for
the run): each bot is sent to each worker once and built there, the replays
come back here, and the results are the same as on this machine.  --jobs then
caps the rounds at once (default: the workers' threads).  Each replay records
the worker that played it and its isolation.  Needs the [cluster] extra.

Exit status: 0 when every round was played (whatever the SPRT verdict); 2 for
a bad bot or option; 3 when the judge itself failed (a round it could not
play, no sandbox, or its Dask scheduler lost).

examples:
  judge eval greedy random
  judge eval mybot-v2 mybot-v1 --sprt 0 50 --sizes 9,15 --seed 7
  judge eval mybot-v2 mybot-v1 --book matches/eval-v1/book.txt
  judge eval mybot greedy --rounds 200 --sizes 5,7,9,11,13,15 --seed 1
  judge eval mybot greedy --turns 100 --sizes 15 --jobs 1   # clean timings
  judge eval mybot greedy --json > eval.json
  judge eval mybot greedy --rounds 2000 --cluster tcp://10.0.0.1:8786
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot_a", metavar="BOT_A", help="the bot under test: a bots/ name or a path")
    p.add_argument("bot_b", metavar="BOT_B", help="its opponent: a bots/ name or a path")
    p.add_argument(
        "--rounds",
        type=int,
        default=None,
        metavar="N",
        help=f"rounds to play (default {DEFAULT_ROUNDS} = {DEFAULT_ROUNDS // 2} maps x 2 seat "
        "orders; with --book, the whole book)",
    )
    p.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        help="sequential test of H0 (BOT_A is ELO0 Elo better) against H1 (ELO1 better); "
        "stops as soon as it decides",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT: false H1 rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT: false H0 rate (default 0.05)")
    p.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        metavar="N",
        help=f"SPRT: stop undecided after N rounds (default {DEFAULT_MAX_ROUNDS})",
    )
    p.add_argument(
        "--book",
        type=Path,
        metavar="FILE",
        help="play the maps of this book, in order (see above; --out writes one)",
    )
    p.add_argument(
        "--sizes",
        default=None,
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
    add_limit_options(p, time_help="seconds per run (default 2; 0 lifts the limit)")
    add_cores_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the rounds on the Dask scheduler at ADDRESS (tcp://host:8786), or on "
        "local:N worker processes started for the run",
    )
    add_name_option(p, 2)
    add_bot_folder_options(p)


def _rounds(args: argparse.Namespace, sprt: Sprt | None) -> int:
    """How many rounds to play (or, with --sprt, at most)."""
    from judge.evaluate import EvalError

    if sprt is None:
        if args.max_rounds is not None:
            raise EvalError("--max-rounds caps an --sprt test; without one, give --rounds")
        rounds = args.rounds if args.rounds is not None else DEFAULT_ROUNDS
        if args.rounds is None and args.book is not None:
            rounds = MAX_ROUNDS  # the whole book
        what = "--rounds"
    else:
        if args.rounds is not None:
            raise EvalError("--rounds: with --sprt the test decides; cap it with --max-rounds")
        rounds = args.max_rounds if args.max_rounds is not None else DEFAULT_MAX_ROUNDS
        what = "--max-rounds"
    if rounds < 1 or rounds > MAX_ROUNDS:
        raise EvalError(f"{what} {rounds}: give 1 to {MAX_ROUNDS} rounds")
    return rounds


def _request(args: argparse.Namespace) -> EvalRequest:
    """Check the options and resolve the bots (raises EvalError / BotError with the fix)."""
    from judge.bots import distinct_bot_names, named, resolve_bot
    from judge.evalbook import load_book
    from judge.evaluate import EvalError, EvalRequest, parse_sizes, parse_turns
    from judge.pentanomial import Sprt

    sprt = None
    if args.sprt is not None:
        try:
            sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as exc:
            raise EvalError(f"--sprt: {exc}") from None
    elif (args.alpha, args.beta) != (0.05, 0.05):
        raise EvalError("--alpha and --beta set the error rates of --sprt; give --sprt too")
    rounds = _rounds(args, sprt)
    limits = limits_from(args)
    # On a cluster, rounds at once are the workers' threads unless --jobs says (0: theirs).
    jobs = 0 if args.cluster and args.jobs is None else jobs_from(args.jobs)
    book = None
    if args.book is not None:
        if args.sizes is not None or args.turns is not None:
            raise EvalError("--book fixes every map: leave out --sizes and --turns")
        book = load_book(args.book)
        if args.rounds is not None and args.rounds > 2 * len(book):
            raise EvalError(
                f"--rounds {args.rounds}: the book has {len(book)} maps, "
                f"so at most {2 * len(book)} rounds"
            )
    sizes = parse_sizes(args.sizes if args.sizes is not None else DEFAULT_SIZES)
    turns = parse_turns(args.turns) if args.turns is not None else None
    # On a cluster each worker builds the bots (the judge's machine may have no compiler).
    build = not args.cluster
    wanted = given_names(args.name, 2)
    bots = [
        named(resolve_bot(b, args.bots_dir, build=build), name)
        for b, name in zip((args.bot_a, args.bot_b), wanted, strict=True)
    ]
    import secrets

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    return EvalRequest(
        bots,
        distinct_bot_names(bots),
        rounds,
        sizes,
        turns,
        seed,
        jobs,
        limits,
        book=book,
        book_name=str(args.book) if args.book is not None else None,
        sprt=sprt,
    )


@contextlib.contextmanager
def _venue(cluster: str | None, jobs: int, cores: str | None) -> Iterator[Venue]:
    """This machine's sandbox (``jobs`` threads, ``cores``), or the cluster's workers."""
    from judge.scheduler import ThreadExecutor, Venue

    if cluster:
        from judge.cluster.session import cluster_venue

        with cluster_venue(cluster, jobs or None, require_full=False) as venue:
            yield venue
        return
    with open_sandbox(cores=cores) as sandbox:
        yield Venue(ThreadExecutor(sandbox, jobs), "", sandbox, lambda: f"{jobs} at once")


def _announce(req: EvalRequest, args: argparse.Namespace, err: Console, venue: Venue) -> None:
    """What is about to be played, and where (on stderr)."""
    total = 2 * req.n_maps
    if req.sprt is not None:
        what = f"SPRT of Elo {req.sprt.elo0:g} against {req.sprt.elo1:g}, at most {total} rounds"
    else:
        what = f"{total} rounds"
        if args.rounds is not None and total != args.rounds:
            what += f" ({args.rounds} rounded up: each map is played twice)"
    maps = f"book {args.book}" if req.book is not None else f"seed {req.seed}"
    err.print(f"{req.names[0]} vs {req.names[1]}: {what}, {maps}, {venue.status()}", markup=False)
    if venue.sandbox is None:
        err.print(venue.isolation, markup=False)
    else:
        err.print(cores_line(venue.sandbox), markup=False)


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import json
    import tempfile
    import threading

    from judge import atomic
    from judge.commands.signals import exit_code, stop_on_signals
    from judge.evalbook import BOOK_FILE, format_book
    from judge.evaluate import PairTracker, evaluate
    from judge.views.evalreport import EvalProgress, render, sprt_line
    from judge.views.tables import print_item

    err = make_console(stderr=True)
    req = _request(args)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if args.out is not None:
        out_dir: Path = args.out
        out_dir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="judge-eval-")
        out_dir = Path(tmp.name)
    show = not (args.json or args.quiet)
    tracker = PairTracker(req.sprt)
    stop = threading.Event()
    try:
        with _venue(args.cluster, req.jobs, args.cores) as venue:
            if show:
                _announce(req, args, err, venue)
            with stop_on_signals(lambda name: stop.set()) as caught:
                with EvalProgress(err, req, tracker, show, venue.status) as progress:
                    summary = evaluate(
                        req,
                        venue.sandbox,
                        out_dir,
                        on_done=progress.done,
                        keep_out=args.out is not None,
                        tracker=tracker,
                        stop=stop,
                        executor=venue.executor,
                    )
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.cluster:  # rounds at once were the cluster's to decide
        summary = dataclasses.replace(summary, jobs=req.jobs or None, cluster=args.cluster)
    if args.out is not None:
        atomic.write_json(out_dir / "eval.json", summary.to_json())
        atomic.write_text(out_dir / BOOK_FILE, format_book(req.plans()))
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        console = make_console()
        for item in render(summary):
            print_item(console, item)
        if args.out is not None:
            console.print(f"replays, eval.json and {BOOK_FILE} in {out_dir}", markup=False)
        verdict = sprt_line(summary, req.names)
        if verdict is not None:
            # one line even through a pipe (rich would wrap it at 80 columns): `tail -1` is the verdict
            console.print(verdict, markup=False, highlight=False, soft_wrap=True)
    sys.stdout.flush()
    if caught:
        played = summary.rounds_played
        return fail("eval", f"stopped by {caught[0]} after {played} rounds", exit_code(caught[0]))
    return 3 if summary.rounds_aborted else 0
