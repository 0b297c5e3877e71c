"""``judge check-bot``: does a bot follow the protocol?  Explains each mistake and its likely cause."""

from __future__ import annotations

import argparse
import sys

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
coordinates, i and j swapped, the move printed on standard output instead of
written to MOVE.OUT, a misnamed file (move.out), W expected instead of D,
trailing text or missing newline handling, a crash (with the end of its error
output, the bot's own paths shown rather than the sandbox's; a Windows
program's exception by name, e.g. an access violation), a data file of
the bot opened by a bare name (the current folder is the team folder, not the
program's), STATE.OUT read before it exists, too slow or too big (a warning
over half of a limit).  A bot.yaml that is not YAML, a command naming a file
the bot's folder does not have, or a script saved with Windows line endings
is refused before anything runs, with that cause.

Moving situations start without STATE.OUT (as after one was discarded):
a bot must cope with that.

Exit status: 0 when the bot follows the protocol everywhere (warnings and
advice allowed, unless --strict); 1 when it breaks it (an invalid answer or a
failed run in any situation); 2 for a bad bot; 3 when the judge failed.

examples:
  judge check-bot greedy
  judge check-bot ./my_bot/run --show-input
  judge check-bot mybot --json > check.json
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
    bot = named(resolve_bot(args.bot, args.bots_dir), given_names(args.name, 1)[0])
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
