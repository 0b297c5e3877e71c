"""``judge serve [FOLDER]``: the results of a folder on the web, live while they are played."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "show a folder of results in the browser, live while a tournament is played"
DESCRIPTION = """\
Serve a folder of results as web pages: a matches/ folder, a tournament's,
an eval's or a league's folder.  The index lists what is there, newest first.
A tournament's page shows its standings and crosstable, the round being
played and the rounds still to play, and updates by itself while the
tournament is played (by this judge or another one writing into the folder).
A round's page shows its board turn by turn as the referee plays it; a
finished match opens in the replay viewer, an eval in a page of its own.
/live is the projector view of the newest tournament: big type, the board,
the standings and who plays next.  It plays the rounds one after the other
at --pace turns a second, behind the real play if need be, holding each
round's end on the board a few seconds; its standings count only the rounds
it has shown, so the room never learns a result before it sees it.  Why a
boat stands still is said on the board as it happens (a time-out, a crash,
a void move and why).

Read-only: nothing is written, no path outside the folder can be reached, and
every name and every text a bot wrote is shown as text.  It listens on
127.0.0.1 only, unless --host says otherwise (then it says that others on the
network can watch).  Ctrl-C stops it.

Needs the web extra: pip install -e '.[web]'.

Exit status: 0 when stopped with Ctrl-C, 2 for a folder that does not exist or
a port that cannot be used."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "folder", nargs="?", type=Path, default=Path("matches"), help="default: matches/"
    )
    parser.add_argument("--port", type=int, default=8000, help="default 8000")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: only here)"
    )
    add_pace_option(parser)


def add_pace_option(parser: argparse.ArgumentParser) -> None:
    """``--pace``: the projector's turns a second (shared with ``judge tournament --serve``)."""
    from judge.web import DEFAULT_PACE

    parser.add_argument(
        "--pace",
        type=float,
        default=DEFAULT_PACE,
        metavar="T",
        help=f"turns a second on the projector view /live (default {DEFAULT_PACE:g}): it plays "
        "the rounds one after the other at this pace, behind the real play if need be, and "
        "its standings count only the rounds it has shown",
    )


def check_pace(pace: float) -> None:
    from judge.errors import UsageError
    from judge.web import MAX_PACE

    if not 0 < pace <= MAX_PACE:
        raise UsageError(f"--pace {pace:g}: give turns a second above 0 and at most {MAX_PACE:g}")


def run(args: argparse.Namespace) -> int:
    from judge.errors import UsageError
    from judge.web.app import Site, import_web, loopback, make_server

    import_web()
    folder: Path = args.folder
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such folder; give a folder of results (default matches/)")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port}: give a port from 1 to 65535")
    check_pace(args.pace)
    site = Site(folder, pace=args.pace)
    server = make_server(site.app(), args.host, args.port, site.stopping)
    where = f"http://{args.host}:{args.port}/"
    print(f"serving {folder.resolve()} on {where} (projector view: {where}live); Ctrl-C stops")
    if not loopback(args.host):
        print(
            f"listening on {args.host}: anyone who can reach this machine on the network can "
            "watch these pages (they are read-only)"
        )
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn stopped gracefully, then passes Ctrl-C on: the normal end
        pass
    site.stopping.set()
    if not server.started:
        raise UsageError(f"cannot listen on {args.host}:{args.port} (is the port in use?)")
    print("stopped")
    return 0
