"""``judge check-bot``: does a bot follow the protocol?  Explains each mistake and its likely cause."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from judge.commands.options import (
    add_bot_folder_options,
    add_limit_options,
    add_name_option,
    fail,
    given_names,
    limits_from,
    make_console,
    open_sandbox,
)
from judge.errors import UsageError

if TYPE_CHECKING:  # the types only: a run's modules are imported when it runs
    from judge.bots import BotSpec
    from judge.checkbot.replayed import PlayedRound
    from judge.records import ReplayHeader
    from judge.sandbox import Limits

#: ``--max-turns``'s default: how many failed turns are run again.
MAX_TURNS = 10

HELP = "run a bot through a battery of situations and explain protocol mistakes"
DESCRIPTION = """\
Run BOT once in each of these situations, through the same sandbox and
MAP.INP the referee uses, and check every answer:

  placement          line 2 is 0 0 0 0: the answer must be a cell holding 0
  re-ask             the same MAP.INP again, STATE.OUT kept (advice if the
                     same cell is named again)
  reef, no shield    a D next to the boat, gold behind it: entering sinks
  reef, with shield  the same with B = 1: crossing is allowed
  wreck              the other boat sank next to ours: entering sinks
  treasure           after half time, a two-digit treasure next to the boat
  last turn          K = 1 on line 1
  largest map        15 x 15 with K = 100: placement, then the first move
                     (in the same folder), for time and memory

Each problem is said in plain words with its likely cause: 0-based
coordinates, i and j swapped, a diagonal move, the move printed on standard
output instead of written to MOVE.OUT, a misnamed file (move.out), W expected
instead of D, trailing text or missing newline handling, a crash (with the end of its error
output, the bot's own paths shown rather than the sandbox's; a Windows
program's exception by name, e.g. an access violation), a data file of
the bot opened by a bare name (the current folder is the team folder, not the
program's), STATE.OUT read before it exists, too slow or too big (a warning
over half of a limit).  A bot.yaml that is not YAML, a command naming a file
the bot's folder does not have, or a script saved with Windows line endings
is refused before anything runs, with that cause.

Moving situations start without STATE.OUT (as after one was discarded):
a bot must cope with that.

With --from FOLDER (a match's folder, one of its round-N folders, or a
tournament's, or one of its matches), the bot is run instead on the turns
where its move was void in that match (a crash, a time-out, no or a bad
MOVE.OUT, an illegal cell): each with the MAP.INP it was given then and the
STATE.OUT it had (the judge keeps a copy for such turns; a replay from an
older judge has none, and the turn is run without one, saying so), each
explained as above beside what happened in the match.  The bot's team is the
one whose bot or name is BOT (--team NAME says which); at most --max-turns of
its failed turns run, the first of each kind of failure first.

Exit status: 0 when the bot follows the protocol everywhere (warnings and
advice allowed, unless --strict); 1 when it breaks it (an invalid answer or a
failed run in any situation); 2 for a bad bot; 3 when the judge failed.

examples:
  judge check-bot greedy
  judge check-bot ./my_bot/run --show-input
  judge check-bot mybot --json > check.json
  judge check-bot bots/mybot --from matches/20260101-120000-mybot-vs-greedy
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot", metavar="BOT", help="a bots/ name or a path")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the report"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="warnings (the boat sinks itself, over half a limit) fail too",
    )
    p.add_argument(
        "--show-input",
        action="store_true",
        help="print the MAP.INP (and error output) of each failing situation",
    )
    p.add_argument(
        "--from",
        dest="from_dir",
        type=Path,
        metavar="FOLDER",
        help="run the bot on the turns it failed in this match (a match's, round's or "
        "tournament's folder) instead of the battery, each explained",
    )
    p.add_argument(
        "--team",
        metavar="NAME",
        help="with --from: the bot's team in that match (default: the team whose bot or "
        "name is BOT)",
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=MAX_TURNS,
        metavar="N",
        help=f"with --from: run at most N failed turns (default {MAX_TURNS})",
    )
    add_limit_options(
        p,
        time_help="seconds per run (default 2, the contest's)",
        memory_help="peak memory per run in MiB (default 512, the contest's)",
    )
    add_name_option(p, 1)
    add_bot_folder_options(p)


def run(args: argparse.Namespace) -> int:
    import json

    from judge.bots import named, resolve_bot
    from judge.checkbot.report import as_json
    from judge.checkbot.trials import SituationResult, check_bot, passed
    from judge.sandbox import ProgramUnreachable
    from judge.views.checkreport import print_report

    err = make_console(stderr=True)
    limits = limits_from(args, needs_time_limit="check-bot always measures against a limit")
    if args.from_dir is None and args.team is not None:
        raise UsageError("--team names the bot's team in a match: give the match with --from")
    if args.max_turns < 1:
        raise UsageError(f"--max-turns {args.max_turns}: give at least 1")
    bot = named(resolve_bot(args.bot, args.bots_dir), given_names(args.name, 1)[0])
    if args.from_dir is not None:
        return _run_from(args, bot, limits)
    sandbox = open_sandbox()
    show = not args.json and err.is_terminal

    def progress(r: SituationResult) -> None:
        if show:
            err.print(f"  {r.situation.title}: {r.level or 'ok'}", markup=False)

    with sandbox:
        isolation = sandbox.isolation.as_dict()
        try:  # a CheckAborted (exit 3) is a JudgeError: judge.cli says it
            results = check_bot(bot, sandbox, limits, on_result=progress)
        except ProgramUnreachable as exc:  # the sandbox's own error: it imports nothing of ours
            return fail("check-bot", str(exc), 2)
    if args.json:
        print(json.dumps(as_json(bot, results, limits, args.strict, isolation), indent=2))
    else:
        print_report(make_console(), bot, results, limits, args.strict, args.show_input)
    sys.stdout.flush()
    return 0 if passed(results, args.strict) else 1


def _run_from(args: argparse.Namespace, bot: BotSpec, limits: Limits) -> int:
    """``--from FOLDER``: the turns the bot failed in a match, run again and explained."""
    import json

    from judge.checkbot.replayed import choose, failed_turns, recheck
    from judge.checkbot.report import as_json
    from judge.checkbot.trials import SituationResult, passed
    from judge.sandbox import ProgramUnreachable
    from judge.views.checkreport import print_report

    err = make_console(stderr=True)
    rounds = _rounds_in(args.from_dir)
    folder = str(args.from_dir)
    failed = []
    found_team = False
    for played in rounds:
        seats = _seats_of(played.header, bot, args.team)
        found_team = found_team or bool(seats)
        failed += failed_turns(played, seats)
    if not found_team:
        raise UsageError(_which_team(rounds, bot, args.team, folder))
    if not failed:
        print(f"{bot.name} has no void move in {folder}: there is no failed turn to run again")
        return 0
    chosen = choose(failed, args.max_turns)
    show = not args.json and err.is_terminal

    def progress(r: SituationResult) -> None:
        if show:
            err.print(f"  {r.situation.title}: {r.level or 'ok'}", markup=False)

    sandbox = open_sandbox()
    with sandbox:
        isolation = sandbox.isolation.as_dict()
        try:  # a CheckAborted (exit 3) is a JudgeError: judge.cli says it
            results = recheck(bot, sandbox, limits, chosen, on_result=progress)
        except ProgramUnreachable as exc:  # the sandbox's own error: it imports nothing of ours
            return fail("check-bot", str(exc), 2)
    left = len(failed) - len(chosen)
    if args.json:
        out = as_json(bot, results, limits, args.strict, isolation, folder)
        out["failed_turns"] = len(failed)
        print(json.dumps(out, indent=2))
    else:
        console = make_console()
        if left:
            console.print(
                f"{bot.name} failed {len(failed)} turns in {folder}: {len(chosen)} of them run "
                f"again (the first of each kind of failure first; --max-turns {len(failed)} "
                "runs them all)",
                markup=False,
                highlight=False,
            )
        print_report(console, bot, results, limits, args.strict, args.show_input, folder)
    sys.stdout.flush()
    return 0 if passed(results, args.strict) else 1


def _rounds_in(folder: Path) -> list[PlayedRound]:
    """The recorded rounds of a match's, a round's or a tournament's folder (every match
    of a tournament), for :mod:`judge.checkbot.replayed`; a ReplayError (exit 2) says why not."""
    from judge.checkbot.replayed import PlayedRound
    from judge.views.replayfile import RESULT_NAME, load, matches_in

    matches = [] if (folder / RESULT_NAME).is_file() else matches_in(folder)
    if matches:  # a tournament's folder: every match in it
        labelled = [(load(m), f"{m.name} ") for m, _ in matches]
    else:
        labelled = [(load(folder), "")]
    out = []
    for match, prefix in labelled:
        for rnd in match.rounds:
            where = rnd.path.parent
            index = where.name.removeprefix("round-") if where.name.startswith("round-") else None
            label = f"{prefix}round {index or rnd.index}"
            out.append(PlayedRound(where, rnd.header, rnd.records, label))
    return out


def _same_program(source: str, bot: BotSpec) -> bool:
    """Whether a replay's bot (as the match was given it) is ``bot``."""
    if source == bot.source:
        return True
    try:
        return Path(source).exists() and Path(source).resolve() == Path(bot.source).resolve()
    except OSError:
        return False


def _seats_of(header: ReplayHeader, bot: BotSpec, team: str | None) -> list[int]:
    """The seats of a round that ``bot`` (or ``--team``) played; never a person's
    (judge play), whose moves are no program's."""
    seats = [s for s in (0, 1) if s not in header.people]
    if team is not None:
        return [s for s in seats if header.teams[s] == team]
    sources = dict(enumerate(header.bots[:2]))  # none in a replay that did not say
    by_program = [s for s in seats if s in sources and _same_program(sources[s], bot)]
    return by_program or [s for s in seats if header.teams[s] == bot.name]


def _which_team(rounds: list[PlayedRound], bot: BotSpec, team: str | None, folder: str) -> str:
    def teams(person: bool) -> set[str]:
        h = [r.header for r in rounds]
        return {x.teams[s] for x in h for s in (0, 1) if (s in x.people) == person}

    listed = ", ".join(repr(t) for t in sorted(teams(person=False)))
    if team is not None and team in teams(person=True):
        return (
            f"--team {team!r}: that seat was played by a person (judge play), not a program: "
            f"give the bot's team (its teams: {listed})"
        )
    if team is not None:
        return f"--team {team!r}: no team of that name plays in {folder} (its teams: {listed})"
    return (
        f"{bot.source} is not one of the bots of {folder} (its teams: {listed}): say which "
        "team is yours with --team NAME"
    )
