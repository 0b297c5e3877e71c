"""``--cores``: the one option every command that runs bots shares, and the line stating it.

Why every such command has it: how many programs run at once decides whether
a CPU-bound bot gets its whole time limit (see :mod:`judge.sandbox.cores`), so
the organiser must be able to see it in every header and change it.
"""

from __future__ import annotations

import argparse
from typing import Any

CORES_HELP = (
    "cores for the bots: a number (how many) or a list like 0,2-3 (one core alone: 3-3); "
    "one program per core, so this is how many programs run at once "
    "(default: every core this process may use, one kept for the judge from 3 on)"
)


def add_cores_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--cores N|LIST`` (default: None = the sandbox's automatic choice)."""
    p.add_argument("--cores", metavar="N|LIST", default=None, help=CORES_HELP)


def cores_line(sandbox: Any) -> str:
    """``programs: at most 2 at once, ...`` for a command's header ('' for a stand-in sandbox)."""
    cores = getattr(sandbox, "cores", None)
    return f"programs: {cores.describe()}" if cores is not None else ""
