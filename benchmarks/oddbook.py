"""Write a book of maps unlike every style of ``judge genmap --style``.

The reference bot is measured on maps of styles unlike the bundled
ones, where the races decide: the half-time treasure, the last gold cells.
This writes maps of six odd styles (built with the same mirrored sea as
``judge.mapstyles``; the validator has the last word on each):

* ``ring``: gold on a ring round the centre (2 to 4 steps away), where the
  treasure appears: the boats meet there;
* ``rim``: gold only on the border and next to it, far from the centre and the
  treasure;
* ``dust``: 1-gold cells everywhere (about 100 cells): no pile matters, the
  count of cells reached first does;
* ``jackpot``: 20 full cells (5 gold) in a few tight piles anywhere;
* ``maze``: a dense reef maze (corridors of one cell) with the gold in the
  middle third of the sea, near the centre;
* ``axis``: gold on and next to the mirror axis, where both boats are as
  close: every cell a race.

Sizes are large and odd (9 to 15, rectangles included) and K long (60 to 100),
so the round reaches half time, the treasure appears and gold is left after it.

Run: ``python benchmarks/oddbook.py OUT_DIR [--per-style 10] [--seed 34]``,
then ``judge eval reference planner --book OUT_DIR/book.txt --sprt 0 50``.
The same seed writes the same book.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.maps import REEF, GameMap, format_map, validate_text  # noqa: E402
from judge.mapstyles import _Sea  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from stylebook import write_styled_book  # noqa: E402

SIZES = (9, 11, 13, 15)


def _ring(sea: _Sea) -> bool:
    lo, hi = 2, sea.rng.choice((3, 4))

    def w(f: int) -> float:
        return 1.0 if lo <= sea.dist(f, sea.centre) <= hi else 0.0

    return sea.place_shields(lambda f: 1.0) and sea.place_gold(w, chunk=3)


def _rim(sea: _Sea) -> bool:
    def w(f: int) -> float:
        r, c = divmod(f, sea.cols)
        edge = min(r, c, sea.rows - 1 - r, sea.cols - 1 - c)
        return 1.0 if edge <= 1 else 0.0

    return sea.place_shields(lambda f: 1.0) and sea.place_gold(w, chunk=4)


def _dust(sea: _Sea) -> bool:
    rng = sea.rng
    for _ in range(rng.randint(0, sea.size // 20)):
        sea.add_reef(rng.choice(sea.reps))
    sea.connect()
    return sea.place_shields(lambda f: 1.0) and sea.place_gold(lambda f: 1.0, chunk=1)


def _jackpot(sea: _Sea) -> bool:
    rng = sea.rng
    piles = [rng.randrange(sea.size) for _ in range(rng.randint(2, 4))]

    def w(f: int) -> float:
        return sum(1.0 for p in piles if sea.dist(f, p) <= 2)

    if not sea.place_shields(lambda f: 1.0):
        return False
    # Full cells only: place_gold with chunk 5 on an empty sea fills whole cells mostly;
    # top every pile up so that the map is made of 5s and a few remainders.
    return sea.place_gold(w, chunk=5)


def _maze(sea: _Sea) -> bool:
    rng = sea.rng
    reps = sea.reps[:]
    rng.shuffle(reps)
    for f in reps:
        r, c = divmod(f, sea.cols)
        if (r % 2 == 1 and rng.random() < 0.75) or rng.random() < 0.2:
            sea.add_reef(f)
    sea.connect()

    def w(f: int) -> float:
        r, c = divmod(f, sea.cols)
        cr, cc = divmod(sea.centre, sea.cols)
        return 1.0 if abs(r - cr) <= sea.rows // 3 and abs(c - cc) <= sea.cols // 3 else 0.05

    return sea.place_shields(lambda f: 1.0) and sea.place_gold(w, chunk=2)


def _axis(sea: _Sea) -> bool:
    def w(f: int) -> float:
        d = sea.dist(f, sea.mirror[f])
        return 1.0 if d <= 2 else 0.02

    return sea.place_shields(lambda f: 1.0) and sea.place_gold(w, chunk=3)


ODD_STYLES: dict[str, Callable[[_Sea], bool]] = {
    "ring": _ring,
    "rim": _rim,
    "dust": _dust,
    "jackpot": _jackpot,
    "maze": _maze,
    "axis": _axis,
}


def generate_odd(rows: int, cols: int, turns: int, seed: int, style: str) -> GameMap:
    rng = random.Random(f"oddbook:{style}:{rows}x{cols}:{turns}:{seed}")
    build = ODD_STYLES[style]
    for _ in range(400):
        sea = _Sea(rows, cols, rng.choice(("row", "col")), rng)
        if not build(sea) or len(sea.components()) != 1:
            continue
        if sum(1 for v in sea.grid if v != REEF) < 30:
            continue
        gm = GameMap(rows, cols, turns, tuple(sea.grid), "")
        if not validate_text(format_map(gm)):
            return gm
    raise RuntimeError(f"could not build a {rows}x{cols} {style} map (seed {seed})")


def write_book(out: Path, per_style: int, seed: int) -> Path:
    """The maps and book.txt in out; returns the book's path."""
    return write_styled_book(
        out,
        per_style,
        seed,
        tag="oddbook",
        styles=tuple(ODD_STYLES),
        sizes=SIZES,
        k_halves=(30, 50),
        generate=generate_odd,
        title="odd style",
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path)
    ap.add_argument("--per-style", type=int, default=10, help="maps per style (default 10)")
    ap.add_argument("--seed", type=int, default=34)
    a = ap.parse_args()
    print(write_book(a.out, a.per_style, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
