"""``judge submit URL FILE``: upload a version to an arena and wait for its check's verdict."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

HELP = "upload a bot to an arena (judge arena serve) and wait for its check's verdict"
DESCRIPTION = """\
Upload FILE (a 64-bit .exe, or a .zip of a bot folder) to the arena at URL as a
new version of your team's bot, with its source archive and report if given,
then wait for the check (check-bot's battery and a strict round against the
reference bot in each seat) and print its verdict and log.

The team's upload token (in credentials.csv, or from the team's page) is given
with --token or in the environment variable JUDGE_ARENA_TOKEN.

Exit status: 0 accepted, 1 rejected (the reason is printed), 2 refused (not
logged in, the arena closed, too large, too many uploads, not an .exe or a bot
.zip, the arena not reachable), 3 no verdict within --wait seconds.

examples:
  judge submit http://10.0.0.5:8000 bot.exe --source src.zip --report report.pdf
  JUDGE_ARENA_TOKEN=arena_... judge submit https://arena.school.vn mybot.zip"""

TOKEN_VARIABLE = "JUDGE_ARENA_TOKEN"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", metavar="URL", help="the arena's address, e.g. http://10.0.0.5:8000")
    p.add_argument(
        "file", type=Path, metavar="FILE", help="the bot: a 64-bit .exe or a .zip of a bot folder"
    )
    p.add_argument("--source", type=Path, metavar="FILE", help="the source archive")
    p.add_argument("--report", type=Path, metavar="FILE", help="the report")
    p.add_argument("--token", help=f"the team's upload token (default: ${TOKEN_VARIABLE})")
    p.add_argument(
        "--wait",
        type=float,
        default=900.0,
        metavar="S",
        help="seconds to wait for the verdict (default 900)",
    )
    p.add_argument(
        "--cafile",
        type=Path,
        metavar="FILE",
        help="trust this certificate (an arena serving HTTPS with its own)",
    )


def run(args: argparse.Namespace) -> int:
    from judge.arena.client import Client, Refused
    from judge.commands.options import fail

    token = args.token or os.environ.get(TOKEN_VARIABLE, "")
    if not token.strip():
        return fail(
            "submit",
            f"not logged in: give the team's upload token with --token or ${TOKEN_VARIABLE}",
            2,
        )
    for what, f in (("FILE", args.file), ("--source", args.source), ("--report", args.report)):
        if f is not None and not f.is_file():
            return fail("submit", f"{what} {f}: no such file", 2)
    client = Client(args.url, token.strip(), args.cafile)
    try:
        sent = client.upload(args.file, args.source, args.report)
        print(
            f"uploaded {args.file.name} as version {sent['version']} of {sent['team']} (submission {sent['id']})",
            flush=True,
        )
        verdict = client.wait(int(sent["id"]), args.wait, lambda s: print(f"  {s}", flush=True))
    except Refused as exc:
        return fail("submit", str(exc), 2)
    if verdict is None:
        return fail(
            "submit", f"no verdict after {args.wait:g} s: the check goes on; see the team's page", 3
        )
    print(f"{verdict['status']}: {verdict['reason']}")
    if verdict.get("log"):
        print("\n".join("  " + line for line in str(verdict["log"]).splitlines()))
    return 0 if verdict["status"] == "accepted" else 1
