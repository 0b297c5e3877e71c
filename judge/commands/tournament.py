"""``judge tournament``: the round robin of the contest, its ledger, resume and standings."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.commands.options import add_cores_option, fail, jobs_from, make_console
from judge.settings import DEFAULT_CONFIG

if TYPE_CHECKING:
    from rich.console import Console

    from judge.tournament.play import RunReport

HELP = "play the round robin of a judge.yaml and publish standings"
DESCRIPTION = """\
Every pair of teams plays one match of 3 rounds: the first team's map, the
second team's map, then the organisers' map; seat 0 alternates between rounds.
Points per round 20/10/0 (a draw gives 10 only if both teams have gold).
Standings (ruling R18): points, then rounds won, then total gold, then name.

Each finished round is committed to ledger.sqlite in the tournament folder at
once, so a stopped or killed tournament loses at most the rounds in flight:
run the same command with --resume to play only what is missing (same
standings as an uninterrupted run).  All randomness derives from the
configuration's seed; the results do not depend on --jobs.

A resume checks every team's program against the ledger's last run: when one
has changed (a .exe replaced in place), it is refused, naming the team,
unless told what to do: --replace TEAM plays that team's matches again with
its new program (repeat it for more teams; it also replays a team's matches
when nothing changed), --keep-changed keeps the rounds the old program played.
Either is recorded in the ledger, and standings.json says which program
played which round.  A recorded round whose replay is gone from the folder (a
match folder deleted) is played again, and the run says so.  Rounds played
again take standings.json, standings.csv and index.html away until the last
round is in again.

Every program runs on a core of its own (--cores, or 'cores' in the
configuration; default: every core the judge may use), so --jobs only bounds
the rounds in flight: a round whose seats find no free core waits before its
clock starts, and a CPU-bound bot gets its whole time limit at any --jobs.

The folder gets, per match, <A>-vs-<B>/result.json (as `judge match` writes
it; A and B are the teams' folder forms) and round-N/ folders, then
standings.json (the standings, the seed, the date, the judge's version, the
configuration's hash, each team's program hash and how isolated every run
was), standings.csv and index.html.

An official tournament runs untrusted programs: when any sandbox protection is
off on this machine (not root, no cgroups...; see `judge sandbox-info`), it is
refused unless --unsandboxed is given, and that choice is recorded in the
ledger and in standings.json.
Run as root with sudo (sudo .venv/bin/judge tournament ...), the tournament
folder is given to the user who ran sudo when the command ends (a folder that
was someone else's before the run is left as it was, and the judge says so).

--cluster ADDRESS plays the rounds on a Dask cluster (the 'cluster:' key of
the configuration says the same): the scheduler at ADDRESS and its workers
(docs/cluster.md); --cluster local:N starts N worker
processes on this machine for the run.  Each bot is sent to each worker once
and built there; only this command writes the ledger and the folder.  There
the isolation is each worker's: a worker with a protection off (or no
sandbox) when the judge joins is named and the tournament refused before any
round is played; one that joins later has the rounds sent to it refused,
naming it, and the tournament stops (the finished rounds are kept).
--unsandboxed lets such rounds count (each replay records the worker that
played it and its protections).  The judge killed: --resume, as locally.
Needs the [cluster] extra (Dask distributed).

Exit status: 0 all rounds played; 2 a refused configuration, folder or
isolation (nothing is run); 3 the judge itself failed, or lost its Dask
scheduler (the finished rounds are kept); 130/143 stopped by SIGINT/SIGTERM
(resume with --resume).

examples:
  judge tournament                      # judge.yaml, its output folder
  judge tournament final.yaml --out matches/final --jobs 4
  judge tournament final.yaml --out matches/final --resume
  judge tournament final.yaml --out matches/final --resume --replace "Rồng Biển"
  judge tournament final.yaml --cluster tcp://10.0.0.1:8786
  judge tournament final.yaml --cluster local:2
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "config",
        nargs="?",
        default=DEFAULT_CONFIG,
        metavar="CONFIG",
        help=f"the tournament's YAML configuration (default {DEFAULT_CONFIG})",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the tournament folder (default: the configuration's 'output')",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="rounds played at the same time (default: the configuration's 'jobs', "
        "else the number of cores)",
    )
    add_cores_option(p)
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the tournament in the folder: play only the rounds missing "
        "from its ledger (the configuration must be the same)",
    )
    p.add_argument(
        "--replace",
        action="append",
        default=[],
        metavar="TEAM",
        help="with --resume: play TEAM's matches again with its program as it is now "
        "(its changed .exe, or the same program); repeatable; recorded in the ledger",
    )
    p.add_argument(
        "--keep-changed",
        action="store_true",
        help="with --resume: keep the rounds a changed program played and play the rest with "
        "the new one (without it, or --replace, a resume whose programs changed is "
        "refused); recorded in the ledger and standings.json",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the rounds on the Dask scheduler at ADDRESS (tcp://host:8786), or on "
        "local:N worker processes started for the run (default: the configuration's "
        "'cluster', else this machine)",
    )
    p.add_argument(
        "--unsandboxed",
        action="store_true",
        help="play even if some sandbox protection is off on this machine, or on a "
        "cluster's worker (not as root, no cgroups...); without it such a tournament, or "
        "round, is refused. The choice is recorded in the ledger and in standings.json",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar or per-round lines; only the standings and errors",
    )
    p.add_argument(
        "--serve",
        nargs="?",
        type=int,
        const=8000,
        metavar="PORT",
        help="also show the tournament live in the browser while it is played, on "
        "http://127.0.0.1:PORT/ (default 8000; projector view: /live), as judge serve does; "
        "needs the web extra",
    )
    from judge.commands.serve import add_pace_option

    add_pace_option(p)


def _resume_hint(args: argparse.Namespace, out: Path) -> str:
    import shlex

    # Never --replace or --keep-changed: this run has recorded what they decided, and a
    # --replace given again would play the team's new rounds once more.
    parts = ["judge", "tournament", str(args.config), "--out", str(out), "--resume"]
    if args.jobs:
        parts += ["--jobs", str(args.jobs)]
    if args.cluster:
        parts += ["--cluster", args.cluster]
    if args.unsandboxed:
        parts += ["--unsandboxed"]
    if args.cores is not None:
        parts += ["--cores", str(args.cores)]
    return " ".join(shlex.quote(p) for p in parts)


def run(args: argparse.Namespace) -> int:
    import functools

    from judge.commands.signals import stop_on_signals
    from judge.owner import Handover
    from judge.sandbox import CoreSpecError, Sandbox
    from judge.sandbox.cores import plan_cores, usable_cores
    from judge.tournament.config import load_config
    from judge.tournament.play import INDEX_HTML, Runner
    from judge.tournament.resume import ResumeChoices
    from judge.views.tournament import RunView, write_index

    console = make_console()
    if args.jobs is not None:
        jobs_from(args.jobs)
    cfg = load_config(args.config, build=False if args.cluster else None)
    out: Path = args.out if args.out is not None else cfg.output
    jobs = args.jobs or cfg.jobs
    cores = args.cores if args.cores is not None else cfg.cores
    try:  # refused before anything is written
        plan_cores(cores, *usable_cores())
    except CoreSpecError as exc:
        return fail("tournament", str(exc), 2)
    view = RunView(console, progress=not args.quiet)
    cluster = args.cluster or cfg.cluster
    venue_for = None
    if cluster:
        from judge.cluster.session import cluster_venue

        def venue_for(_jobs: int) -> Any:
            # On a cluster, rounds at once = the workers' threads unless --jobs says fewer.
            return cluster_venue(cluster, args.jobs, require_full=not args.unsandboxed)

    runner = Runner(
        cfg,
        out,
        jobs,
        functools.partial(Sandbox, cores=cores),
        events=view,
        venue_for=venue_for,
        unsandboxed=args.unsandboxed,
    )

    def first_signal(name: str) -> None:
        runner.request_stop(name)
        view.stopping(name)

    # Made before anything is written: the folders made for the output are given back too.
    handover = Handover.for_sudo(out)
    web = None
    try:
        if args.serve is not None:
            web = _start_web(console, args, out)
        try:
            with stop_on_signals(first_signal):
                report = runner.run(
                    resume=args.resume,
                    choices=ResumeChoices(tuple(args.replace), args.keep_changed),
                )
        except KeyboardInterrupt:
            web = None  # a second Ctrl-C: the pages go with the judge
            return fail(
                "tournament",
                f"stopped; the ledger keeps every finished round; resume with "
                f"--resume:\n  {_resume_hint(args, out)}",
                130,
            )
        except BaseException:
            if web is not None:
                web.stop()
            raise
        if report.complete:
            try:
                write_index(out, runner.schedule, report.standings, title=cfg.title)
            except Exception as exc:  # noqa: BLE001 - the standings are out; the page is a view
                view.warning(f"{INDEX_HTML} not written: {type(exc).__name__}: {exc}")
        code = _report(console, args, out, report)
    finally:
        said = handover.give_back()  # however the run ended
        if said:
            console.print(said, markup=False, highlight=False, soft_wrap=True)
    if web is not None:
        _keep_serving(console, web, args.serve)
    return code


def _start_web(console: Console, args: argparse.Namespace, out: Path) -> Any:
    """The pages of ``--serve``, up before the first round."""
    from judge.tournament.play import check_fresh_folder
    from judge.web.app import Background, import_web

    import_web()
    from judge.commands.serve import check_pace

    check_pace(args.pace)
    if not args.resume:
        check_fresh_folder(out)  # refused before the page promises anything
    out.mkdir(parents=True, exist_ok=True)
    web = Background(out, "127.0.0.1", args.serve, pace=args.pace)
    web.start()
    console.print(
        f"live at http://127.0.0.1:{args.serve}/ (projector view: "
        f"http://127.0.0.1:{args.serve}/live)",
        highlight=False,
    )
    return web


def _keep_serving(console: Console, web: Any, port: int) -> None:
    """After the last round the room still looks at the final standings: the pages stay up
    until Ctrl-C (or SIGTERM)."""
    import signal
    import threading

    done = threading.Event()
    old = {s: signal.signal(s, lambda *_: done.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    console.print(f"the pages stay up at http://127.0.0.1:{port}/ until Ctrl-C", highlight=False)
    try:
        while not done.wait(0.5):
            pass
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        web.stop()


def _report(console: Console, args: argparse.Namespace, out: Path, report: RunReport) -> int:
    from judge.commands.signals import exit_code
    from judge.tournament.play import INDEX_HTML, STANDINGS_CSV, STANDINGS_JSON
    from judge.views.tables import print_table
    from judge.views.tournament import standings_table

    done = report.done_before + report.played
    title = (
        "standings" if report.complete else f"standings so far ({done} of {report.total} rounds)"
    )
    print_table(console, standings_table(report.standings, title))
    if report.complete:
        console.print(
            f"{report.played} round(s) played in {report.elapsed_s:.1f} s; written to "
            f"{out}/ ({STANDINGS_JSON}, {STANDINGS_CSV}, {INDEX_HTML}, one folder per "
            "match)",
            highlight=False,
        )
        return 0
    hint = f"resume with --resume:\n  {_resume_hint(args, out)}"
    if report.failure is not None:
        return fail(
            "tournament",
            f"stopped after a failure ({done} of {report.total} rounds in the "
            f"ledger): {report.failure}\n{hint}",
            report.failure_code,
        )
    code = exit_code(report.interrupted_by)
    why = report.interrupted_by or "an interruption"
    return fail(
        "tournament",
        f"stopped by {why}: {done} of {report.total} rounds are in the ledger; {hint}",
        code,
    )
