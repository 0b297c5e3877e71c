"""The map book of ``judge eval``: which maps are played, in which order.

Two evaluations of different versions of a bot are comparable only on the
same maps; a book fixes them.  ``judge eval --out DIR`` writes the book it
played to ``DIR/book.txt``, and ``--book FILE`` plays one.

The format (UTF-8 text; one map per line; blank lines and ``#`` comments are
skipped)::

    gen ROWSxCOLS K SEED [placement=SEED]     # a generated map
    file PATH [K] [placement=SEED]            # a map file; K from the file unless given

``gen 9x9 40 1234`` is :func:`judge.mapgen.generate_map` (9 rows, 9 columns,
K = 40, seed 1234), exactly the map ``judge genmap`` makes from those values.
``PATH`` is relative to the book's folder (quote it if it has spaces).
``placement`` seeds the referee's random placement (ruling on a contested
start); without it the seed is derived from the line's content and position,
so the same book always plays the same rounds.  Each map is played twice,
seats swapped.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from judge.evaluate import EvalError, MapPlan, derive_seed, parse_turns
from judge.inputfiles import BOOK_BYTES, InputFileError, excerpt, read_input_text
from judge.maps import MAX_SIZE, MIN_SIZE, MapError, load_map

#: More maps than this would take days.
MAX_BOOK_MAPS = 50_000
BOOK_FILE = "book.txt"


def _k(tok: str, where: str) -> int:
    """K as ``--turns`` takes it (even, 2..100), the message naming the book's line."""
    try:
        return parse_turns(tok)[0]
    except EvalError as exc:
        raise EvalError(f"{where}: K {str(exc).removeprefix('--turns: ')}") from None


def _split_options(tokens: list[str], where: str) -> tuple[list[str], int | None]:
    """Positional tokens and the ``placement=`` seed, if any."""
    placement = None
    rest = []
    for tok in tokens:
        if tok.startswith("placement="):
            try:
                placement = int(tok.split("=", 1)[1])
            except ValueError:
                raise EvalError(
                    f"{where}: {excerpt(tok)}: the placement seed is a number"
                ) from None
            if not 0 <= placement < 2**63:
                raise EvalError(f"{where}: {excerpt(tok)}: the placement seed is from 0 to 2^63-1")
        elif "=" in tok:
            raise EvalError(f"{where}: unknown option {excerpt(tok)} (only placement=SEED)")
        else:
            rest.append(tok)
    return rest, placement


def _gen(index: int, args: list[str], placement: int, where: str) -> MapPlan:
    if len(args) != 3:
        raise EvalError(f"{where}: write 'gen ROWSxCOLS K SEED', e.g. 'gen 9x9 40 1234'")
    dims = args[0].lower().split("x")
    try:
        rows, cols = (int(d) for d in dims) if len(dims) == 2 else (int(dims[0]),) * 2
    except ValueError:
        raise EvalError(
            f"{where}: size {excerpt(args[0])} is not N or RxC (e.g. 9 or 7x11)"
        ) from None
    for d in (rows, cols):
        if not MIN_SIZE <= d <= MAX_SIZE or d % 2 == 0:
            raise EvalError(
                f"{where}: size {excerpt(args[0])}: sizes must be odd, from {MIN_SIZE} to {MAX_SIZE}"
            )
    k = _k(args[1], where)
    try:
        seed = int(args[2])
    except ValueError:
        raise EvalError(f"{where}: seed {excerpt(args[2])} is not a number") from None
    if not 0 <= seed < 2**63:
        raise EvalError(f"{where}: seed {seed}: give 0 to 2^63-1")
    return MapPlan(index, rows, cols, k, seed, placement)


def _file(index: int, args: list[str], placement: int, folder: Path, where: str) -> MapPlan:
    if len(args) not in (1, 2):
        raise EvalError(f"{where}: write 'file PATH [K]', e.g. 'file maps/m1.txt 40'")
    path = Path(args[0]) if Path(args[0]).is_absolute() else folder / args[0]
    try:
        gm = load_map(path)
        resolved = str(path.resolve())
    except MapError as exc:
        raise EvalError(f"{where}: {exc}") from None
    except OSError as exc:
        raise EvalError(f"{where}: {excerpt(args[0])}: {exc.strerror or exc}") from None
    k = _k(args[1], where) if len(args) == 2 else gm.turns
    return MapPlan(index, gm.rows, gm.cols, k, 0, placement, path=resolved, name=args[0])


def parse_book(text: str, folder: Path, source: str = "book") -> list[MapPlan]:
    """The maps of a book, checked (each problem names the line); map files are read now."""
    plans: list[MapPlan] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        where = f"{source} line {lineno}"
        try:
            tokens = shlex.split(body)
        except ValueError as exc:
            raise EvalError(f"{where}: {exc}") from None
        args, placement = _split_options(tokens[1:], where)
        index = len(plans)
        if placement is None:
            placement = derive_seed("book:" + " ".join(tokens[:1] + args), 0, index)
        if tokens[0] == "gen":
            plans.append(_gen(index, args, placement, where))
        elif tokens[0] == "file":
            plans.append(_file(index, args, placement, folder, where))
        else:
            raise EvalError(
                f"{where}: a line starts with 'gen' or 'file', not {excerpt(tokens[0])} "
                "(e.g. 'gen 9x9 40 1234' or 'file maps/m1.txt')"
            )
        if len(plans) > MAX_BOOK_MAPS:
            raise EvalError(f"{source}: more than {MAX_BOOK_MAPS} maps")
    if not plans:
        raise EvalError(f"{source}: no maps (write lines like 'gen 9x9 40 1234')")
    return plans


def load_book(path: Path) -> list[MapPlan]:
    """Read ``--book FILE`` (errors name the file and line)."""
    try:
        text = read_input_text(path, "a book", BOOK_BYTES)
    except InputFileError as exc:
        raise EvalError(f"--book {exc}") from None
    return parse_book(text, path.parent, source=str(path))


def format_book(plans: Sequence[MapPlan]) -> str:
    """A book that plays exactly these maps and placements (file maps by absolute path)."""
    lines = [
        "# judge eval book: one map per line, each played twice with seats swapped",
        "# gen ROWSxCOLS K SEED [placement=SEED] | file PATH [K] [placement=SEED]",
    ]
    for p in plans:
        if p.path is None:
            lines.append(f"gen {p.rows}x{p.cols} {p.turns} {p.map_seed} placement={p.round_seed}")
        else:
            lines.append(f"file {shlex.quote(p.path)} {p.turns} placement={p.round_seed}")
    return "\n".join(lines) + "\n"
