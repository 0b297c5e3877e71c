"""Write a map book of every style of ``judge genmap --style`` for ``judge eval --book``.

``judge eval``'s own maps are of the classic style only, and a book's ``gen``
line cannot name a style, while the reference bot's strength is measured
on generated maps of every style.  This writes ``--per-style`` maps of each style
(sizes from 5 x 5 to 15 x 15, rectangles included, K from 20 to 100) as map
files and a ``book.txt`` that plays them in turn, the styles interleaved so
that an SPRT that stops early has seen every style about equally.

Run: ``python benchmarks/stylebook.py OUT_DIR [--per-style 29] [--seed 34]``,
then ``judge eval reference planner --book OUT_DIR/book.txt --sprt 0 50``.
The same seed writes the same book.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.maps import GameMap, format_map  # noqa: E402
from judge.mapstyles import STYLES, generate_styled  # noqa: E402

SIZES = (5, 7, 9, 11, 13, 15)


def write_styled_book(
    out: Path,
    per_style: int,
    seed: int,
    *,
    tag: str,
    styles: Sequence[str],
    sizes: Sequence[int],
    k_halves: tuple[int, int],
    generate: Callable[[int, int, int, int, str], GameMap],
    title: str,
) -> Path:
    """``per_style`` maps of each of ``styles`` (interleaved, sides from ``sizes``, K twice
    a number in ``k_halves``, made by ``generate(rows, cols, k, seed, style)``) written
    to ``out`` with a ``book.txt`` that plays them in turn; returns the book's path.
    ``tag`` keys the random stream, so one seed writes the same book every time."""
    rng = random.Random(f"{tag}:{seed}")
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {per_style} maps of each {title} {', '.join(styles)}; seed {seed}"]
    for i in range(per_style):
        for style in styles:
            rows, cols = rng.choice(sizes), rng.choice(sizes)
            k = 2 * rng.randint(*k_halves)
            mseed = rng.randrange(10**9)
            gm = generate(rows, cols, k, mseed, style)
            name = f"{style}-{i:03d}-{rows}x{cols}-k{k}.txt"
            (out / name).write_text(format_map(gm))
            lines.append(f"file {name} {k} placement={mseed}")
    book = out / "book.txt"
    book.write_text("\n".join(lines) + "\n")
    return book


def write_book(out: Path, per_style: int, seed: int) -> Path:
    """The maps and book.txt in out; returns the book's path."""
    return write_styled_book(
        out,
        per_style,
        seed,
        tag="stylebook",
        styles=STYLES,
        sizes=SIZES,
        k_halves=(10, 50),
        generate=lambda rows, cols, k, mseed, style: generate_styled(
            rows, cols, k, seed=mseed, style=style
        ),
        title="style",
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path)
    ap.add_argument(
        "--per-style", type=int, default=29, help="maps per style (default 29: 203 maps)"
    )
    ap.add_argument("--seed", type=int, default=34)
    a = ap.parse_args()
    print(write_book(a.out, a.per_style, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
