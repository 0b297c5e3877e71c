"""``judge play BOT``: take one seat yourself against a bot, in the browser or the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from judge.commands.options import make_console, open_sandbox
from judge.errors import UsageError

HELP = "play one round yourself against a bot (in the browser, or --terminal)"
DESCRIPTION = """\
Take one seat against a bot, under the same referee, rules and limits for the
bot as in a match: the bot runs in its sandbox seat with the 2 s / 512 MiB
limits; you move your boat.  In the browser (http://127.0.0.1:PORT/): click a
cell (at the start, an empty cell; then a cell next to your boat: a reef only
with a shield) or use the arrow keys; the page shows what the bot wrote, why a
move was void, when your boat sinks, and a link to the replay at the end.
/editor is a position editor, starting from the bot's view of the turn being
played: set the boats, gold, shields and turns left, then ask "what does my
bot do here?" (one run of the bot on that MAP.INP, as judge check-bot runs
it: its move and what the rules make of it, a void move with why, check-bot's
findings, time and stderr).

With --terminal the board is drawn in the terminal: arrow keys (or w/a/s/d,
or a cell typed as "row col") move you; type "row col" for your start cell.

The round is recorded like any other match (result.json, round-1/replay.jsonl,
your seat named as you): judge replay shows it.

Exit status: 0 when the round is over (or stopped with Ctrl-C), 2 for a bot or
map that cannot be used, 3 if the judge failed."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot", metavar="BOT", help="the bot to play against: a bots/ name or a path")
    p.add_argument("--map", default="m1", help="a map name or file (default m1)")
    p.add_argument("--seat", type=int, choices=(1, 2), default=1, help="your seat: 1 (first) or 2")
    p.add_argument("--turns", type=int, metavar="K", help="override the map's K (even, 2..100)")
    p.add_argument("--seed", type=int, help="the round's seed (default: a fresh one, printed)")
    p.add_argument("--name", default="You", help="your name in the round (default: You)")
    p.add_argument("--port", type=int, default=8000, help="the page's port (default 8000)")
    p.add_argument("--terminal", action="store_true", help="play in the terminal, not the browser")
    p.add_argument("--out", type=Path, metavar="DIR", help="where the round is written")
    p.add_argument("--bots-dir", type=Path, action="append", default=[], metavar="DIR")
    p.add_argument("--maps-dir", type=Path, action="append", default=[], metavar="DIR")


def first_map_inp(gm: Any, k: int) -> str:
    """The placement MAP.INP of a map (for the position editor's first position)."""
    rows = [" ".join(r) for r in gm.row_tokens()]
    return "\n".join([f"{gm.rows} {gm.cols} {k}", "0 0 0 0", "0 0", *rows]) + "\n"


def run(args: argparse.Namespace) -> int:
    import secrets
    import time

    from judge.bots import resolve_bot
    from judge.maps import MAX_TURNS, MIN_TURNS, load_map, resolve_map_path
    from judge.names import name_problem
    from judge.sandbox import Limits
    from judge.web.play import PlaySession, ask_bot

    if args.turns is not None and not (
        MIN_TURNS <= args.turns <= MAX_TURNS and args.turns % 2 == 0
    ):
        raise UsageError(f"--turns {args.turns}: K must be even, from {MIN_TURNS} to {MAX_TURNS}")
    problem = name_problem(args.name)
    if problem:
        raise UsageError(f"--name: {problem}")
    bot = resolve_bot(args.bot, args.bots_dir)
    path = resolve_map_path(args.map, args.maps_dir)
    gm = load_map(path)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    out = args.out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-play-{bot.name}"
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty: give a new folder with --out")
    if not args.terminal:
        from judge.web.app import import_web

        import_web()
    console = make_console()
    sandbox = open_sandbox()
    limits = Limits()
    with sandbox:
        session = PlaySession(
            bot,
            gm,
            path.name,
            args.seat - 1,
            sandbox,
            out,
            limits,
            seed,
            turns=args.turns,
            human_name=args.name,
        )
        console.print(
            f"you ({args.name}, seat {args.seat}) against {bot.name} on {path.name}, seed {seed}; "
            f"the round is written to {out}",
            highlight=False,
            markup=False,
        )
        session.start()
        try:
            if args.terminal:
                from judge.views.playterm import play_in_terminal

                play_in_terminal(session, console)
            else:
                _serve(
                    session,
                    args.port,
                    lambda text: ask_bot(bot, sandbox, text, limits),
                    first_map_inp(gm, args.turns or gm.turns),
                    console,
                )
        finally:
            session.close()
    if session.error:
        print(f"judge play: {session.error}", file=sys.stderr)
        return 3
    return 0


def _serve(session: Any, port: int, ask: Any, first: str, console: Any) -> None:
    from judge.web.app import PlaySite, make_server

    site = PlaySite(session, ask, first)
    server = make_server(site.app(), "127.0.0.1", port, site.site.stopping)
    console.print(
        f"open http://127.0.0.1:{port}/ to play (position editor: http://127.0.0.1:{port}/editor);"
        " Ctrl-C stops",
        highlight=False,
    )
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    site.site.stopping.set()
    if not server.started:
        raise UsageError(f"cannot listen on 127.0.0.1:{port} (is the port in use?)")
