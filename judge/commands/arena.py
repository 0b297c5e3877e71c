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
  in each seat.  While the arena is open it also plays the practice ladder of
  every team's current version, the reference and the house bots (/ladder; the
  rules: docs/arena.md), a game's two rounds at once, on this machine or on the
  --cluster.  --jobs N tasks (checks, games) run at once (default: one per core).  It listens
  on 127.0.0.1 only unless --host says otherwise; without --tls-cert/--tls-key on
  another address, passwords and tokens travel in clear, and it says so.  Ctrl-C
  stops it; a check under way is run again at the next start.

judge arena freeze DIR
  closes uploads (the server refuses them from now on: HTTP 403) and fixes each
  team's current version (its last accepted one) as its version for the final;
  the ladder stops.  The deadline in arena.yaml does the same by itself.

judge arena final DIR [--jobs N] [--cluster ADDRESS] [--serve [PORT]] [--seed N]
  plays the final: judge tournament's round robin of the frozen versions, each
  team on the map it chose from the list (the first free map of the list when it
  chose none), the organiser's map in every match.  It writes DIR/final.yaml (an
  ordinary tournament configuration, once) and plays it into DIR/final/: the
  same ledger, resume, standings.json, standings.csv, index.html and live pages
  (--serve) as judge tournament.  Run it again to resume.  The seed is --seed
  (default: the ladder's seed in arena.yaml), written into final.yaml.

judge arena release DIR
  shows the results: with 'scoreboard: {hidden: true}' the public scoreboard is
  hidden from the freeze until this, showing no rating, count or last game.

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
        help="a Dask cluster for the tasks that play rounds there (the ladder's games); checks always run on this machine's sandbox",
    )
    p.add_argument(
        "--tls-cert", type=Path, metavar="FILE", help="serve HTTPS with this certificate (PEM)"
    )
    p.add_argument("--tls-key", type=Path, metavar="FILE", help="... and this private key (PEM)")


def _folder_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folder", type=Path, metavar="DIR", help="the arena folder (judge arena init made it)"
    )


def _final_arguments(p: argparse.ArgumentParser) -> None:
    _folder_argument(p)
    p.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="rounds at once (as judge tournament)"
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the rounds on a Dask cluster (as judge tournament)",
    )
    p.add_argument(
        "--serve",
        nargs="?",
        type=int,
        const=8000,
        metavar="PORT",
        help="show the final live on http://127.0.0.1:PORT/ (as judge tournament --serve)",
    )
    p.add_argument(
        "--seed", type=int, metavar="N", help="the final's seed (default: the ladder's seed)"
    )
    p.add_argument(
        "--unsandboxed",
        action="store_true",
        help="play even if a sandbox protection is off (recorded, as judge tournament does)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar (as judge tournament)")
    p.add_argument(
        "--wait",
        type=float,
        default=600.0,
        metavar="S",
        help="wait at most S seconds for the ladder's games still being played (default 600)",
    )


def _open_store(folder: Path):  # type: ignore[no-untyped-def]
    from judge.arena.config import load_config
    from judge.arena.store import STORE_FILE, Store

    config = load_config(folder)
    return Store.open(folder / STORE_FILE), config


def _freeze(args: argparse.Namespace) -> int:
    import json

    from judge.arena.phases import FROZEN_VERSIONS, freeze

    store, _config = _open_store(args.folder)
    with store:
        if not freeze(store):
            print(f"{args.folder} is {store.phase.value} already: nothing changed")
            return 0
        frozen = json.loads(store.meta(FROZEN_VERSIONS) or "{}")
        names = {t.id: t.name for t in store.teams()}
        print(f"froze {args.folder}: uploads are closed; the final's versions:")
        for team_id, name in names.items():
            v = store.version(frozen[str(team_id)]) if str(team_id) in frozen else None
            print(
                f"  {name}: {'version ' + str(v.number) if v else 'no accepted version (not in the final)'}"
            )
    return 0


def _release(args: argparse.Namespace) -> int:
    from judge.arena.phases import release

    store, _config = _open_store(args.folder)
    with store:
        release(store)
    print(f"released {args.folder}: the scoreboard shows everything, the final's standings too")
    return 0


def _final(args: argparse.Namespace) -> int:
    from judge.arena.final import FINAL_DIR
    from judge.arena.ladderconfig import ladder_settings
    from judge.arena.phases import freeze, prepare_final, wait_for_games
    from judge.arena.store import Phase
    from judge.commands import tournament
    from judge.tournament.ledger import LEDGER_FILE

    store, config = _open_store(args.folder)
    with store:
        if store.phase is Phase.OPEN:
            if not config.closed_by_deadline():
                from judge.arena import ArenaError

                raise ArenaError(
                    f"{args.folder} is open: freeze it first (judge arena freeze {args.folder}), "
                    "or wait for the deadline in arena.yaml"
                )
            freeze(store, "the deadline")
        seed = args.seed if args.seed is not None else ladder_settings(config.later).seed
        plan = prepare_final(args.folder, store, config, seed)
        for note in plan.notes:
            print(note)
        print(f"{'wrote' if plan.written else 'resuming'} {plan.config}", flush=True)
        left = wait_for_games(store, args.wait)
        if left:
            print(f"{left} game(s) of the ladder still being played: the final starts anyway")
    out = args.folder / FINAL_DIR
    # judge tournament's own options, defaults included, so that the final is exactly it.
    parser = argparse.ArgumentParser(prog="judge tournament")
    tournament.add_arguments(parser)
    final = parser.parse_args([])
    final.config, final.out, final.jobs, final.cluster = plan.config, out, args.jobs, args.cluster
    final.resume = (out / LEDGER_FILE).exists()
    final.unsandboxed, final.quiet, final.serve = args.unsandboxed, args.quiet, args.serve
    return tournament.run(final)


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
    "freeze": (
        "close uploads and fix each team's version for the final",
        _folder_argument,
        _freeze,
    ),
    "final": (
        "play the final: judge tournament on the frozen versions, in DIR/final",
        _final_arguments,
        _final,
    ),
    "release": ("show the results on a hidden scoreboard", _folder_argument, _release),
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
