"""Command-line entry point: ``judge <command> ...``.

Each command lives in its own module under :mod:`judge.commands` and exposes
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.  This
module only dispatches, so adding a command is one line in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from judge import __version__

#: (command name, module path).  Order is the order shown by ``judge --help``.
COMMANDS: list[tuple[str, str]] = [
    ("match", "judge.commands.match"),
    ("tournament", "judge.commands.tournament"),
    ("validate", "judge.commands.validate"),
    ("genmap", "judge.commands.genmap"),
    ("eval", "judge.commands.eval"),
    ("league", "judge.commands.league"),
    ("check-bot", "judge.commands.check_bot"),
    ("replay", "judge.commands.replay"),
    ("sandbox-info", "judge.commands.sandbox_info"),
]


def _load(module: str) -> ModuleType:
    return importlib.import_module(module)


def build_parser() -> argparse.ArgumentParser:
    """Build the full parser; every command registers its own arguments."""
    parser = argparse.ArgumentParser(
        prog="judge",
        description="Referee and tournament runner for the Ocean Treasure AI contest.",
    )
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_path in COMMANDS:
        module = _load(module_path)
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
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
