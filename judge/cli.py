"""Command-line entry point: ``judge <command> ...``.

Each command lives in its own module under :mod:`judge.commands` and exposes
``HELP`` (one line), ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> int``.  This module only dispatches, so adding a command is one
line in ``COMMANDS``.

The command modules are imported here, plainly; they import what they need
(rich, the sandbox, the referee) inside ``run``, so ``judge --version`` and
``judge --help`` start without loading any of it (``benchmarks/startup.py``
measures it).

A command fails one way: it raises a :class:`~judge.errors.JudgeError` (or
returns :func:`~judge.commands.options.fail`), and the user gets
``judge COMMAND: message`` on stderr and the error's exit status, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from judge import __version__
from judge.commands import (
    arena,
    check_bot,
    genmap,
    league,
    match,
    play,
    replay,
    sandbox_info,
    serve,
    submit,
    tournament,
    validate,
)
from judge.commands import eval as eval_
from judge.commands.options import fail
from judge.errors import JudgeError

#: (command name, module).  Order is the order shown by ``judge --help``.
COMMANDS: list[tuple[str, ModuleType]] = [
    ("match", match),
    ("tournament", tournament),
    ("validate", validate),
    ("genmap", genmap),
    ("eval", eval_),
    ("league", league),
    ("check-bot", check_bot),
    ("replay", replay),
    ("serve", serve),
    ("arena", arena),
    ("submit", submit),
    ("play", play),
    ("sandbox-info", sandbox_info),
]


def build_parser() -> argparse.ArgumentParser:
    """Build the full parser; every command registers its own arguments."""
    parser = argparse.ArgumentParser(
        prog="judge",
        description="Referee and tournament runner for the Ocean Treasure AI contest.",
    )
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS:
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit status (never a traceback for user errors)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args))
    except JudgeError as exc:
        return fail(args.command, str(exc), exc.exit_code)
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
