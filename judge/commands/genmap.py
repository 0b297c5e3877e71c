"""``judge genmap``: generate a valid map, the same one for the same seed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge.commands.options import fail
from judge.settings import AXIS_CHOICES, STYLES

HELP = "generate a valid map (deterministic for a given seed)"
DESCRIPTION = """\
Generate a map that keeps every limit of the rules: odd sizes 5..15, even K,
100 gold, 2 mirrored shields, centre 0, connected water, symmetric about the
middle row or column.  The same --seed always gives the same map; without
--seed a fresh seed is drawn and printed on stderr so the map can be made again.

--style picks the kind of sea: classic (the default: short reef walls, clustered
gold), open (no reefs), corridors (a maze of channels), islands (reef blobs),
reefs (a dense reef field), sparse (few full piles far from the centre) or
walled (gold in reef-walled rooms).  --danger applies to the classic style.

Prints the map, or writes it atomically to -o FILE.  A refused request (even or
out-of-range size, odd K, ...) exits with status 2."""

DEFAULT_TURNS = 40
DEFAULT_DANGER = 0.12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rows", "-M", type=int, required=True, metavar="M", help="rows (odd, 5..15)"
    )
    parser.add_argument(
        "--cols", "-N", type=int, required=True, metavar="N", help="columns (odd, 5..15)"
    )
    parser.add_argument(
        "--turns",
        "-K",
        type=int,
        default=DEFAULT_TURNS,
        metavar="K",
        help=f"turns per team (even, 2..100; default {DEFAULT_TURNS})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed (default: a fresh random one, printed on stderr)",
    )
    parser.add_argument(
        "--danger",
        type=float,
        default=DEFAULT_DANGER,
        metavar="F",
        help=f"share of reef cells, 0..0.4 (default {DEFAULT_DANGER})",
    )
    parser.add_argument(
        "--axis",
        choices=AXIS_CHOICES,
        default=None,
        help="mirror axis (default: drawn from the seed)",
    )
    parser.add_argument(
        "--style",
        choices=STYLES,
        default="classic",
        help="kind of sea (default classic; see above)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write the map to FILE (atomically) instead of printing it",
    )


def run(args: argparse.Namespace) -> int:
    import secrets

    from judge import atomic
    from judge.mapgen import GenerateError, generate_map
    from judge.maps import format_map
    from judge.mapstyles import generate_styled

    seed = args.seed
    if seed is None:
        seed = secrets.randbelow(2**31)
    try:
        if args.style == "classic":
            game_map = generate_map(
                args.rows, args.cols, args.turns, seed=seed, danger=args.danger, axis=args.axis
            )
        else:
            game_map = generate_styled(
                args.rows, args.cols, args.turns, seed=seed, style=args.style, axis=args.axis
            )
    except GenerateError as exc:
        return fail("genmap", f"refused: {exc}", 2)
    if args.seed is None:
        print(f"judge genmap: seed {seed} (--seed {seed} makes this map again)", file=sys.stderr)
    text = format_map(game_map)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    out = Path(args.output)
    if out.is_dir():
        return fail("genmap", f"cannot write {out}: it is a folder", 1)
    try:
        atomic.write_text(out, text)  # temp file beside it, fsync, os.replace
    except OSError as exc:
        return fail("genmap", f"cannot write {out}: {exc.strerror or exc}", 1)
    print(
        f"judge genmap: wrote {out} ({args.rows}x{args.cols}, K={args.turns}, "
        f"{args.style}, seed {seed})",
        file=sys.stderr,
    )
    return 0
