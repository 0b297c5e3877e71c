"""``judge league``: dozens of bots, OpenSkill ratings kept in SQLite, a live leaderboard."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judge.commands.options import (
    add_cores_option,
    cores_line,
    fail,
    jobs_from,
    make_console,
    open_sandbox,
)

if TYPE_CHECKING:
    from judge.league.config import LeagueConfig
    from judge.league.run import RunReport

HELP = "rate many bots in a persistent league (OpenSkill) and publish a leaderboard"
DESCRIPTION = """\
A league rates every bot of a league file (YAML) with OpenSkill (the
Plackett-Luce model: a rating and its uncertainty), keeps everything in
league.sqlite in the league folder, and each run plays 'pairs' more pairs:
a map twice, seats swapped.  Pairs are chosen a batch at a time where a
result tells most: bots with the fewest rounds first (new bots first), then
the most uncertain, each against the opponent whose result is hardest to
predict (the closest rating).  Ratings move when a batch is done, in pair
order, so the league does not depend on --jobs or timing.

Between runs bots may join (a new name), leave (removed from the file: kept
in the database, no longer played) or be replaced: a bot whose files changed
(or whose 'version' changed) is a new version that starts fresh or inherits
the old rating ('new_version: fresh | inherit', for all or per bot).

The leaderboard (rating, uncertainty, conservative rating = rating - 3 x
uncertainty, the sort key; rounds, wins, draws, losses, win rate) is printed
and written as leaderboard.csv, leaderboard.json and index.html, which links
the HTML replays of the latest pairs.

A league file:
  seed: 7
  output: matches/league       # relative to the file
  sizes: [5, 9]                # default 5, 9, 15; 'turns: [10, 40]' (default varied)
  pairs: 50                    # per run (default 50); batch: 4 (pairs chosen at once)
  new_version: fresh           # or inherit
  bots:
    - {name: greedy, bot: greedy}
    - {name: mine, bot: ../mybot, new_version: inherit}
(also time_limit, memory_limit_mb, jobs, bots_dir, and 'version' per bot.)

A stopped run (Ctrl-C, SIGTERM, a kill) loses at most the rounds in flight:
run the same command with --resume to finish it, with the same result as an
uninterrupted run.

Exit status: 0 the run was played; 2 a refused league file or folder; 3 the
judge failed (rounds abandoned, or no sandbox); 130/143 stopped (--resume).

examples:
  judge league league.yaml
  judge league league.yaml --pairs 200 --jobs 2
  judge league league.yaml --resume
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG", help="the league file (YAML)")
    p.add_argument("--out", type=Path, metavar="DIR", help="the league folder (default: 'output')")
    p.add_argument("--pairs", type=int, metavar="N", help="pairs to play in this run")
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="rounds played at the same time")
    add_cores_option(p)
    p.add_argument("--resume", action="store_true", help="finish the stopped run")
    p.add_argument("--quiet", action="store_true", help="only the leaderboard and errors")
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the rounds on the Dask scheduler at ADDRESS (tcp://host:8786), or on "
        "local:N worker processes started for the run (default: the file's 'cluster'); "
        "--jobs then caps the rounds at once",
    )


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from judge.league.config import PAIRS, load_league
    from judge.owner import Handover

    cfg = load_league(args.config, build=False if args.cluster else None)
    if args.pairs is not None and not PAIRS.holds(args.pairs):
        return fail("league", f"--pairs {args.pairs}: give 1 to {PAIRS.high} pairs", 2)
    if args.pairs is not None:
        cfg = replace(cfg, pairs=args.pairs)
    out: Path = args.out if args.out is not None else cfg.output
    handover = Handover.for_sudo(out)  # before the folder is made
    try:
        return _run(args, cfg, out)
    finally:
        said = handover.give_back()  # however the run ended
        if said and not args.quiet:
            make_console(stderr=True).print(said, markup=False, highlight=False, soft_wrap=True)


def _run(args: argparse.Namespace, cfg: LeagueConfig, out: Path) -> int:
    """Play the league's run into ``out``; the exit status."""
    import contextlib
    import threading

    from rich.markup import escape

    from judge.commands.signals import exit_code, stop_on_signals
    from judge.league.run import League, RoundsPlayer
    from judge.sandbox import Limits
    from judge.views.league import leaderboard_table, write_index

    err, console = make_console(stderr=True), make_console()
    jobs = jobs_from(args.jobs, cfg.jobs)
    limits = Limits(time_s=cfg.time_limit, memory_bytes=cfg.memory_limit_mb * 2**20)
    stop = threading.Event()
    cluster = args.cluster or cfg.cluster
    with contextlib.ExitStack() as stack:
        if cluster:
            from judge.cluster.session import cluster_venue

            venue = stack.enter_context(cluster_venue(cluster, args.jobs, require_full=False))
            player = RoundsPlayer(None, limits, jobs, venue.executor)
            if not args.quiet:
                err.print(venue.isolation, markup=False)
        else:
            sandbox = stack.enter_context(open_sandbox(cores=args.cores))
            if not args.quiet:
                err.print(cores_line(sandbox), markup=False)
            player = RoundsPlayer(sandbox, limits, jobs)
        league = League(cfg, out, player)
        stack.callback(league.close)
        caught = stack.enter_context(stop_on_signals(lambda name: stop.set()))

        def progress(rep: RunReport) -> None:
            if not args.quiet:
                err.print(f"pairs played {rep.pairs}, rounds {rep.rounds}", highlight=False)

        report = league.run(args.resume, stop, progress)
        board = league.write_outputs()
        write_index(out, board, league.latest_pairs())
    for what, names in (("joined", report.joined), ("replaced", report.replaced), ("retired", report.retired)):  # fmt: skip
        if names and not args.quiet:
            err.print(f"{what}: {escape(', '.join(names))}", highlight=False)
    console.print(leaderboard_table(board, f"leaderboard ({escape(str(out))})"))
    if report.stopped:
        code = exit_code(caught[0] if caught else None)
        return fail("league", f"stopped after {report.rounds} rounds; finish with --resume", code)
    console.print(
        f"{_count(report.pairs, 'pair')} ({_count(report.rounds, 'round')}) played; "
        "leaderboard.csv, "
        f"leaderboard.json and index.html in {escape(str(out))}",
        highlight=False,
    )
    return 3 if report.aborted else 0


def _count(n: int, noun: str) -> str:
    """``1 pair``, ``2 pairs``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
