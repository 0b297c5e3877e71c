"""``judge match``: play rounds between two bot programs and record them."""

from __future__ import annotations

import argparse
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
    limits_from,
    make_console,
    open_sandbox,
)
from judge.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from judge.bots import BotSpec
    from judge.match import RoundPlan
    from judge.owner import Handover
    from judge.sandbox import Limits

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
    add_limit_options(p)
    add_cores_option(p)
    p.add_argument(
        "--sequential",
        action="store_true",
        help="run the two programs one after the other instead of at once",
    )
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
        "--speed",
        type=float,
        metavar="N",
        help="with the board drawn, show N turns a second at most (default about 8 on a "
        "terminal; 0 = as fast as the bots play); implies --watch",
    )
    add_name_option(p, 2)
    add_bot_folder_options(p, maps=True)


def run(args: argparse.Namespace) -> int:
    from rich.text import Text

    from judge.bots import distinct_bot_names, named, resolve_bot
    from judge.maps import MAX_TURNS, MIN_TURNS, MapError, MapNotFound, load_map, resolve_map_path
    from judge.match import RoundPlan
    from judge.names import distinct_folders

    console = make_console()
    if args.turns is not None and not (
        MIN_TURNS <= args.turns <= MAX_TURNS and args.turns % 2 == 0
    ):
        raise UsageError(f"--turns {args.turns}: K must be even, from {MIN_TURNS} to {MAX_TURNS}")
    if args.speed is not None and not (0 <= args.speed <= 1000):  # also refuses nan
        raise UsageError(
            f"--speed {args.speed:g}: give turns a second from 0 (as fast as the bots) to 1000"
        )
    limits = limits_from(args)
    wanted = given_names(args.name, 2)
    bots = [
        named(resolve_bot(spec, args.bots_dir), name)
        for spec, name in zip((args.bot_a, args.bot_b), wanted, strict=True)
    ]
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
            return fail("match", f"{exc}{hint}", 2)
        plans.append(RoundPlan(gm, str(path)))
    names = distinct_bot_names(bots)
    out, problem, handover = _output_folder(args.out, distinct_folders(names))
    if problem:
        return fail("match", problem, 2)
    try:
        return _play(args, console, bots, names, plans, limits, out)
    finally:
        said = handover.give_back()  # however the match ended
        if said and not args.quiet:
            console.print(Text(said), soft_wrap=True)


def _play(
    args: argparse.Namespace,
    console: Console,
    bots: list[BotSpec],
    names: list[str],
    plans: list[RoundPlan],
    limits: Limits,
    out: Path,
) -> int:
    """Play the match into ``out`` and show it; the exit status."""
    import secrets
    import threading

    from rich.text import Text

    from judge.commands.signals import stop_on_signals
    from judge.match import play_match
    from judge.referee import RoundAborted, RoundStopped
    from judge.sandbox import ProgramUnreachable
    from judge.views.matchview import header, observers, result_line, summary

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    sandbox = open_sandbox(cores=args.cores)
    stop = threading.Event()
    interrupted = (
        f"interrupted: the rounds finished so far are in {out} "
        '(its result.json says "complete": false)'
    )
    with sandbox:
        if not args.quiet:
            header(
                console,
                bots,
                names,
                plans,
                seed,
                limits,
                sandbox.isolation,
                out,
                programs=cores_line(sandbox),
            )
        try:
            with stop_on_signals(lambda name: stop.set()):
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
                    observer_for=observers(args, console, names),
                    stop=stop,
                )
        except RoundAborted as exc:
            return fail("match", f"{exc}\n(the partial match is in {out})", 3)
        except ProgramUnreachable as exc:  # the sandbox's own error: it imports nothing of ours
            return fail("match", str(exc), 2)
        except (RoundStopped, KeyboardInterrupt):
            return fail("match", interrupted, 130)
    if args.quiet:
        console.print(Text(result_line(result)))
    else:
        summary(console, result, out, bots)
    return 0


def _output_folder(given: Path | None, folders: list[str]) -> tuple[Path, str | None, Handover]:
    """The match folder: a new or empty one, so old and new output never mix; and what
    gives it to the user who ran sudo (made before the folder is)."""
    import datetime as _dt

    from judge.owner import Handover

    nobody = Handover(given or Path("."), None)

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
            return out, f"--out {out}: this is a file, not a folder; give a new folder", nobody
        if out.is_dir() and any(out.iterdir()):
            return (
                out,
                f"--out {out}: the folder is not empty; give a new folder "
                "(or remove this one) so old and new results never mix",
                nobody,
            )
    handover = Handover.for_sudo(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return out, f"--out {out}: cannot write there ({exc.strerror or exc})", handover
    return out, None, handover
