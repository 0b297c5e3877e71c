"""What the commands share: the limit options, their checks, and the one way to fail.

Kept cheap to import (argparse and :mod:`judge.settings` only): every command
module imports it, and ``judge --help`` builds every command's options.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.errors import SandboxUnavailable, UsageError
from judge.settings import JOBS, MEMORY_LIMIT_MB, TIME_LIMIT_S

if TYPE_CHECKING:
    from rich.console import Console

    from judge.sandbox import Sandbox
    from judge.sandbox.types import Limits


def add_limit_options(
    p: argparse.ArgumentParser, time_help: str | None = None, memory_help: str | None = None
) -> None:
    """``--time-limit S`` and ``--memory-limit MB``, with the contest's values as defaults."""
    p.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT_S.contest,
        metavar="S",
        help=time_help
        or f"seconds per run (default {TIME_LIMIT_S.contest:g}; 0 lifts the limit, for debugging)",
    )
    p.add_argument(
        "--memory-limit",
        type=int,
        default=MEMORY_LIMIT_MB.contest,
        metavar="MB",
        help=memory_help or f"peak memory per run in MiB (default {MEMORY_LIMIT_MB.contest})",
    )


def limits_from(args: argparse.Namespace, needs_time_limit: str | None = None) -> Limits:
    """The run limits of the options, checked (a :class:`UsageError` names the option).

    ``needs_time_limit``: why this command refuses 0 (no limit), said in the message.
    """
    from judge.sandbox.types import Limits

    t, mb = args.time_limit, args.memory_limit
    top = f"{TIME_LIMIT_S.high:g}"
    if needs_time_limit is not None and not (t > 0 and TIME_LIMIT_S.holds(t)):
        raise UsageError(f"--time-limit {t}: give seconds from 0 to {top} ({needs_time_limit})")
    if not TIME_LIMIT_S.holds(t):
        raise UsageError(f"--time-limit {t}: give seconds from 0 (no limit) to {top}")
    if not MEMORY_LIMIT_MB.holds(mb):
        raise UsageError(
            f"--memory-limit {mb}: give MiB from {MEMORY_LIMIT_MB.low} to {MEMORY_LIMIT_MB.high}"
        )
    return Limits(time_s=None if t == 0 else t, memory_bytes=mb * 2**20)


def jobs_from(value: int | None, default: int | None = None) -> int:
    """``--jobs``: the value given, else ``default``, else one per core; checked."""
    jobs = value if value is not None else default if default is not None else os.cpu_count() or 1
    if not JOBS.holds(jobs):
        raise UsageError(f"--jobs {jobs}: give 1 to {JOBS.high} rounds at a time")
    return jobs


CORES_HELP = (
    "cores for the bots: a number (how many) or a list like 0,2-3 (one core alone: 3-3); "
    "one program per core, so this is how many programs run at once "
    "(default: every core this process may use, one kept for the judge from 3 on)"
)


def add_cores_option(p: argparse.ArgumentParser) -> None:
    """``--cores N|LIST``: how many programs run at once decides whether a
    CPU-bound bot gets its whole time limit, so every command that runs bots has it
    (default None: the sandbox's automatic choice)."""
    p.add_argument("--cores", metavar="N|LIST", default=None, help=CORES_HELP)


def add_bot_folder_options(p: argparse.ArgumentParser, maps: bool = False) -> None:
    """``--bots-dir DIR`` (and with ``maps``, ``--maps-dir DIR``): folders of your own, repeatable."""
    kinds = [("bots", "bots")] + ([("maps", "maps")] if maps else [])
    for option, what in kinds:
        p.add_argument(
            f"--{option}-dir",
            type=Path,
            action="append",
            metavar="DIR",
            help=f"a folder of your own {what}, looked in before {what}/ of the current folder "
            f"and the bundled {what} (repeatable)",
        )


def open_sandbox(**options: Any) -> Sandbox:
    """``Sandbox(**options)``, or the JudgeError that says why not (a --cores this machine
    lacks: exit 2; a sandbox that cannot be set up: exit 3)."""
    from judge.sandbox import CoreSpecError, Sandbox, SandboxError

    try:
        return Sandbox(**options)
    except CoreSpecError as exc:
        raise UsageError(str(exc)) from None
    except (OSError, SandboxError) as exc:
        raise SandboxUnavailable(f"cannot set up the sandbox: {exc}") from None


def cores_line(sandbox: object) -> str:
    """``programs: at most 2 at once, ...`` for a command's header."""
    cores = getattr(sandbox, "cores", None)
    return f"programs: {cores.describe()}" if cores is not None else ""


#: Columns for output that goes to a pipe or a file, where there is no terminal to fit.
PIPE_WIDTH = 160


def make_console(stderr: bool = False, **options: Any) -> Console:
    """The rich console a command prints on (stdout, or stderr).

    On a terminal it fits the terminal.  Piped or redirected (``| tee log``,
    a CI log, ``> out.txt``) there is nothing to fit, and rich's default of 80
    columns cut progress bars and wrapped lines in the middle of a team's
    name: there the console has ``PIPE_WIDTH`` columns (unless ``COLUMNS``
    says how many), so that a line stays whole for ``grep`` and for copying.
    Tables still take only the width they need.
    """
    from rich.console import Console

    console = Console(stderr=stderr, **options)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
        console.width = PIPE_WIDTH
    return console


def fail(command: str, message: str, code: int) -> int:
    """Say why ``judge COMMAND`` failed, on stderr (the message is text, never markup).

    Returns ``code`` so a command can ``return fail(...)``; :func:`judge.cli.main`
    calls it for every :class:`~judge.errors.JudgeError` a command raises.
    """
    from rich.markup import escape

    err = make_console(stderr=True)
    # soft_wrap: a path or a command in the message must stay whole, to be copied
    err.print(f"[bold red]judge {command}:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.stderr.flush()
    return code


def add_name_option(p: argparse.ArgumentParser, bots: int) -> None:
    """``--name NAME`` (once per bot, in the order the bots are given): the name a bot
    plays under instead of its own (a lone ``bot.exe`` is otherwise named after its folder)."""
    which = "the bot plays under" if bots == 1 else "BOT_A plays under (twice: BOT_A's, BOT_B's)"
    p.add_argument(
        "--name",
        action="append",
        metavar="NAME",
        help=f"the name {which}; default: its bot.yaml name or folder's name, or a lone "
        "program's file name, or its folder's when that is generic like bot.exe or main",
    )


def given_names(values: list[str] | None, bots: int) -> list[str | None]:
    """The --name values, one per bot (None: its own name), or the UsageError that says why not."""
    from judge.names import name_problem, normalise

    values = values or []
    if len(values) > bots:
        raise UsageError(f"--name is given {len(values)} times; at most {bots} (one per bot)")
    for v in values:
        problem = name_problem(v)
        if problem is not None:
            raise UsageError(f"--name {v!r}: {problem}")
    return [normalise(v) for v in values] + [None] * (bots - len(values))
