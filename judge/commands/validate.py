"""``judge validate MAP [MAP...]``: check map files against every limit of §1."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "check map files against every limit of the rules (§1)"
DESCRIPTION = """\
Check each map file against every limit of the rules (§1): odd sizes 5..15,
even K in 2..100, 1..5 gold a cell, 100 gold in all, exactly 2 S, centre 0,
non-D cells connected, symmetric about one axis.  A valid map prints
"MAP: ok (MxN, K=.., axis: ..)"; an invalid one prints every broken limit on
its own line.  A map may be a path or a name in maps/ (m1 -> maps/m1.txt).

Exit status: 0 if every map is valid, 1 otherwise."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("maps", nargs="+", metavar="MAP", help="map file (or name in maps/)")


def _locate(spec: str) -> Path:
    """The path as given; a name in maps/ only if no such path exists."""
    from judge.maps import MapError, resolve_map_path

    p = Path(spec)
    if p.exists() or p.is_symlink():
        return p
    try:
        return resolve_map_path(spec)
    except MapError:
        return p  # reading it names the problem ("no such file")


def check_one(spec: str) -> tuple[bool, list[str]]:
    """(valid, lines to print) for one map argument."""
    from judge.maps import MapError, parse_map_text, read_text, symmetry_axes, validate_text

    path = _locate(spec)
    try:
        text = read_text(path)
    except MapError as exc:
        return False, [f"{spec}: cannot check: {p}" for p in exc.problems]
    problems = validate_text(text)
    if problems:
        n = len(problems)
        head = f"{spec}: invalid ({n} problem{'s' if n != 1 else ''})"
        return False, [head] + [f"  - {p}" for p in problems]
    parsed = parse_map_text(text)
    axes = ", ".join(symmetry_axes(parsed.grid))
    return True, [f"{spec}: ok ({parsed.rows}x{parsed.cols}, K={parsed.turns}, axis: {axes})"]


def run(args: argparse.Namespace) -> int:
    all_ok = True
    for spec in args.maps:
        ok, lines = check_one(spec)
        all_ok = all_ok and ok
        for line in lines:
            print(line)
    return 0 if all_ok else 1
