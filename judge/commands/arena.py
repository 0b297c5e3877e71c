"""``judge arena init|serve``: a place where teams submit their bot before the final."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

HELP = "the arena before the final: teams upload their bot and see it checked on the real judge"
DESCRIPTION = """\
judge arena init DIR --teams TEAMS.csv [--maps-dir DIR] [--organiser-map FILE]
  makes the arena folder DIR: arena.yaml (every setting, commented), the store
  arena.sqlite, and credentials.csv (mode 0600: each team's password and upload
  token, and the organiser's login, to hand out).  TEAMS.csv has a header with
  a 'team' column and optionally 'members' (UTF-8, with or without Excel's BOM);
  names are kept as written.  A bad line is named and nothing is written.  The
  practice maps are the bundled ones unless --maps-dir gives a folder of them.

judge arena serve DIR [--host 127.0.0.1] [--port 8000] [--jobs N] [--cluster ADDRESS]
                      [--tls-cert FILE --tls-key FILE]
  serves the arena: a login page, each team's page (upload a version, watch it
  checked, download its own files), the organiser's page (every team, every
  version, one archive of every team's current .exe, source and report), and the
  JSON API (POST /api/submissions, GET /api/submissions/ID; see docs/arena.md).
  Every upload is checked at once on this machine's sandbox: check-bot's battery
  under the contest's limits, then a strict short round against the reference bot
  in each seat.  --jobs N tasks run at once (default: one per core).  It listens
  on 127.0.0.1 only unless --host says otherwise; without --tls-cert/--tls-key on
  another address, passwords and tokens travel in clear, and it says so.  Ctrl-C
  stops it; a check under way is run again at the next start.

Needs the arena extra: pip install -e '.[arena]'.

Exit status: 0 done (serve: stopped with Ctrl-C), 2 for a bad input (a TEAMS.csv
line, a folder that is not an arena, a port in use), 3 when the judge failed.

examples:
  judge arena init arena --teams teams.csv
  judge arena serve arena --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem
  judge submit https://arena.example:8000 bot.exe --source src.zip --report report.pdf"""


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folder", type=Path, metavar="DIR", help="the arena folder to make (new or empty)"
    )
    p.add_argument(
        "--teams",
        type=Path,
        required=True,
        metavar="TEAMS.csv",
        help="the teams (a 'team' column, optional 'members')",
    )
    p.add_argument(
        "--maps-dir",
        type=Path,
        metavar="DIR",
        help="the practice maps (*.txt); default: the bundled maps",
    )
    p.add_argument(
        "--organiser-map", type=Path, metavar="FILE", help="the organiser's map for the final"
    )


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folder", type=Path, metavar="DIR", help="the arena folder (judge arena init made it)"
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: only here)"
    )
    p.add_argument("--port", type=int, default=8000, help="default 8000")
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="tasks (checks) at once (default: one per core)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="a Dask cluster for the rounds that may be played there (checks stay on this machine)",
    )
    p.add_argument(
        "--tls-cert", type=Path, metavar="FILE", help="serve HTTPS with this certificate (PEM)"
    )
    p.add_argument("--tls-key", type=Path, metavar="FILE", help="... and this private key (PEM)")


def _init(args: argparse.Namespace) -> int:
    from judge.arena.folder import CREDENTIALS_FILE, make_arena

    creds = make_arena(args.folder, args.teams, args.maps_dir, args.organiser_map)
    teams = sum(1 for c in creds if c.role == "team")
    print(f"made the arena {args.folder} for {teams} team{'s' if teams != 1 else ''}")
    print(
        f"hand out {args.folder / CREDENTIALS_FILE} (each team its own line: password and upload "
        "token; the organiser's login is the first line); then: judge arena serve "
        f"{args.folder}"
    )
    return 0


def _serve(args: argparse.Namespace) -> int:
    from judge.commands.options import jobs_from, open_sandbox
    from judge.web.arenaserve import import_arena, serve

    import_arena()
    return serve(
        args.folder,
        host=args.host,
        port=args.port,
        slots=jobs_from(args.jobs),
        cluster=args.cluster,
        tls=(args.tls_cert, args.tls_key),
        open_sandbox=open_sandbox,
    )


#: The subcommands: name -> (help, arguments, run).  More are added here.
SUBCOMMANDS: dict[
    str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
] = {
    "init": ("make an arena folder for a list of teams", _init_arguments, _init),
    "serve": (
        "serve an arena: logins, uploads, checks, the organiser's page",
        _serve_arguments,
        _serve,
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="arena_command", metavar="SUBCOMMAND", required=True)
    for name, (help_, arguments, run_) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        arguments(p)
        p.set_defaults(_arena_run=run_)


def run(args: argparse.Namespace) -> int:
    result: int = args._arena_run(args)
    return result
