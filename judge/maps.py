"""Map files: parse, validate and write the sea of one round.

A map file is line 1 ``M N K`` then M rows of N cells (a number, ``D`` or ``S``;
``W`` reads as ``D``, ruling R1).  A full MAP.INP-shaped file (with the
``i1 j1 i2 j2`` and ``S B`` lines) is accepted too, so a student can feed the
judge what their bot was given.

Parsing never raises on bad content: it collects every problem it sees, each
naming the row or cell, so that ``judge validate`` can print them all at once.
:func:`load_map` is the strict entry point: it raises :class:`MapError` (a
``ValueError``) listing every broken limit unless invalid maps are allowed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge import bundled
from judge.errors import JudgeError
from judge.grid import AXES, centre, components, mirror
from judge.inputfiles import MAP_BYTES, InputFileError, excerpt, read_input_text

#: Cell codes.  Gold is the number itself (0 = empty water).
REEF = -1
SHIELD = -2

MIN_SIZE, MAX_SIZE = 5, 15
MIN_TURNS, MAX_TURNS = 2, 100
MIN_GOLD_CELL, MAX_GOLD_CELL = 1, 5
TOTAL_GOLD = 100
SHIELD_COUNT = 2
#: Judge ruling: two boats need two distinct empty cells to start on.
MIN_START_CELLS = 2


class MapError(JudgeError, ValueError):
    """A map that cannot be used; ``problems`` names every broken limit."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{source}: not a valid map:\n{lines}")


class MapNotFound(MapError):
    """No map by that name or path; the message lists the maps there are."""

    def __init__(self, source: str, message: str):
        self.source = source
        self.problems = [message]
        ValueError.__init__(self, f"map {excerpt(source)}: {message}")


@dataclass(frozen=True)
class GameMap:
    """An immutable sea: ``cells`` is row-major, ``cells[(i-1)*cols + (j-1)]`` is cell (i, j)."""

    rows: int
    cols: int
    turns: int
    cells: tuple[int, ...]
    name: str = ""

    def __post_init__(self) -> None:
        if len(self.cells) != self.rows * self.cols:
            raise ValueError(
                f"map {self.name or '?'}: {len(self.cells)} cells for {self.rows}x{self.cols}"
            )

    def cell(self, i: int, j: int) -> int:
        """Value of cell (i, j), 1-based as in the contest text."""
        return self.cells[(i - 1) * self.cols + (j - 1)]

    @property
    def centre(self) -> tuple[int, int]:
        return centre(self.rows, self.cols)

    def with_turns(self, turns: int) -> GameMap:
        return GameMap(self.rows, self.cols, turns, self.cells, self.name)

    def row_tokens(self, reef_symbol: str = "D") -> Iterator[list[str]]:
        for r in range(self.rows):
            yield [
                cell_token(v, reef_symbol) for v in self.cells[r * self.cols : (r + 1) * self.cols]
            ]


def cell_token(value: int, reef_symbol: str = "D") -> str:
    if value == REEF:
        return reef_symbol
    if value == SHIELD:
        return "S"
    return str(value)


def format_map(game_map: GameMap, reef_symbol: str = "D") -> str:
    """The map file text (``W`` written as ``D`` unless told otherwise)."""
    lines = [f"{game_map.rows} {game_map.cols} {game_map.turns}"]
    lines += [" ".join(row) for row in game_map.row_tokens(reef_symbol)]
    return "\n".join(lines) + "\n"


@dataclass
class ParsedMap:
    """What could be read from a map text, with every problem found on the way."""

    rows: int | None = None
    cols: int | None = None
    turns: int | None = None
    grid: list[list[int | None]] = field(default_factory=list)  # None = unreadable token
    problems: list[str] = field(default_factory=list)


def _ascii_digits(s: str) -> bool:
    # str.isdigit() is true for '²' or '٣', which int() refuses: ASCII only.
    return bool(s) and all("0" <= ch <= "9" for ch in s)


def _int_token(tok: str) -> int | None:
    tok = tok.strip()
    if _ascii_digits(tok) or (tok.startswith("-") and _ascii_digits(tok[1:])):
        try:
            return int(tok)
        except ValueError:  # more digits than int() accepts (sys.get_int_max_str_digits)
            return None
    return None


def parse_map_text(text: str) -> ParsedMap:
    """Read a map (or MAP.INP-shaped) text, noting every problem; never raises."""
    out = ParsedMap()
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = [ln.split() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        out.problems.append("the file is empty; line 1 should be 'M N K'")
        return out
    header = lines[0]
    if len(header) != 3 or any(_int_token(t) is None for t in header):
        shown = " ".join(header)
        out.problems.append(f"line 1 is {excerpt(shown)}; it should be three whole numbers 'M N K'")
        return out
    m, n, k = (int(t) for t in header)
    out.rows, out.cols, out.turns = m, n, k
    body = lines[1:]
    # A MAP.INP-shaped file has the positions line and the gold/shield line first.
    if (
        len(body) == m + 2
        and len(body[0]) == 4
        and len(body[1]) == 2
        and all(_int_token(t) is not None for t in body[0] + body[1])
    ):
        body = body[2:]
    if len(body) != m:
        out.problems.append(f"the map has {len(body)} rows, expected {m} (M on line 1)")
    for r, toks in enumerate(body, start=1):
        if len(toks) != n:
            out.problems.append(f"row {r} has {len(toks)} cells, expected {n}")
        row: list[int | None] = []
        for c, tok in enumerate(toks, start=1):
            up = tok.upper()
            if up in ("D", "W"):
                row.append(REEF)
            elif up == "S":
                row.append(SHIELD)
            else:
                v: int | None = _int_token(tok)
                if v is None:
                    out.problems.append(
                        f"cell ({r},{c}) holds {excerpt(tok)}; a cell holds a number, D or S"
                    )
                elif v < 0:
                    # Never let a negative number pass for a cell code (-1 is REEF, -2 SHIELD).
                    out.problems.append(
                        f"cell ({r},{c}) holds {v} gold; a cell holds "
                        f"{MIN_GOLD_CELL}..{MAX_GOLD_CELL} (or 0)"
                    )
                    v = None
                row.append(v)
        out.grid.append(row)
    return out


def _limit_problems(p: ParsedMap) -> list[str]:
    """Every limit of §1 that the parsed map breaks, each in its own line."""
    assert p.rows is not None and p.cols is not None and p.turns is not None
    m, n, k = p.rows, p.cols, p.turns
    probs: list[str] = []
    for name, size in (("M (rows)", m), ("N (columns)", n)):
        if not (MIN_SIZE <= size <= MAX_SIZE) or size % 2 == 0:
            probs.append(f"{name} is {size}; it must be odd and in {MIN_SIZE}..{MAX_SIZE}")
    if not (MIN_TURNS <= k <= MAX_TURNS) or k % 2:
        probs.append(f"K (turns) is {k}; it must be even and in {MIN_TURNS}..{MAX_TURNS}")
    shields: list[tuple[int, int]] = []
    total = 0
    for r, row in enumerate(p.grid, start=1):
        for c, v in enumerate(row, start=1):
            if v is None or v == REEF:
                continue
            if v == SHIELD:
                shields.append((r, c))
            elif v < 0 or v > MAX_GOLD_CELL:
                probs.append(
                    f"cell ({r},{c}) holds {v} gold; a cell holds "
                    f"{MIN_GOLD_CELL}..{MAX_GOLD_CELL} (or 0)"
                )
                total += max(v, 0)
            else:
                total += v
    if total != TOTAL_GOLD:
        probs.append(f"the gold adds up to {total}; it must be exactly {TOTAL_GOLD}")
    if len(shields) != SHIELD_COUNT:
        where = ", ".join(f"({r},{c})" for r, c in shields) or "none"
        probs.append(f"the map has {len(shields)} S cells ({where}); it must have exactly 2")
    if m < 1 or n < 1:
        return probs  # no cells at all: nothing more to check (and nothing to index)
    rect = len(p.grid) == m and all(len(row) == n for row in p.grid)
    if not rect:
        probs.append("symmetry, centre and connectivity not checked: the map is not M x N")
        return probs
    grid = p.grid
    ci, cj = (m + 1) // 2, (n + 1) // 2
    if m % 2 and n % 2 and grid[ci - 1][cj - 1] != 0:
        probs.append(
            f"the centre cell ({ci},{cj}) holds {_show(grid[ci - 1][cj - 1])}; it must be 0"
        )
    zeros = sum(1 for row in grid for v in row if v == 0)
    if zeros < MIN_START_CELLS:
        probs.append(
            f"the map has {zeros} empty (0) cell(s); boats need at least "
            f"{MIN_START_CELLS} to start on"
        )
    if symmetry_axes(grid) == []:
        probs.append(
            "the map is not symmetric about the middle row, the middle column"
            + (" or a diagonal" if m == n else "")
            + _asymmetry_hint(grid)
        )
    unreachable = _unreachable(grid)
    if unreachable:
        shown = ", ".join(f"({r},{c})" for r, c in unreachable[:8])
        more = f" and {len(unreachable) - 8} more" if len(unreachable) > 8 else ""
        probs.append(
            f"non-D cells {shown}{more} cannot be reached from the others without crossing D"
        )
    return probs


def _show(v: int | None) -> str:
    return "?" if v is None else cell_token(v)


def symmetry_axes(grid: list[list[int | None]]) -> list[str]:
    """The axes (``row``, ``col``, ``diag``, ``antidiag``) a rectangular grid is symmetric about."""
    m, n = len(grid), len(grid[0]) if grid else 0
    cells = [v for row in grid for v in row]
    found = []
    for axis in AXES:
        if axis in ("diag", "antidiag") and m != n:
            continue
        if all(cells[f] == cells[mirror(axis, m, n, f)] for f in range(m * n)):
            found.append(axis)
    return found


def _asymmetry_hint(grid: list[list[int | None]]) -> str:
    m, n = len(grid), len(grid[0])
    cells = [v for row in grid for v in row]
    for f in range(m * n):
        g = mirror("col", m, n, f)
        if cells[f] != cells[g]:
            (r, c), (mr, mc) = divmod(f, n), divmod(g, n)
            return (
                f" (e.g. about the middle column, cell ({r + 1},{c + 1}) holds "
                f"{_show(cells[f])} but ({mr + 1},{mc + 1}) holds {_show(cells[g])})"
            )
    return ""


def _unreachable(grid: list[list[int | None]]) -> list[tuple[int, int]]:
    """Non-D cells outside the largest 4-connected group of non-D cells (1-based)."""
    m, n = len(grid), len(grid[0])
    cells = [v for row in grid for v in row]
    groups = components(cells, m, n, lambda v: v != REEF)
    if len(groups) <= 1:
        return []
    groups.sort(key=len, reverse=True)
    return sorted((f // n + 1, f % n + 1) for g in groups[1:] for f in g)


def validate_text(text: str) -> list[str]:
    """Every problem of a map text (empty list = a valid map)."""
    parsed = parse_map_text(text)
    if parsed.rows is None:
        return parsed.problems
    return parsed.problems + _limit_problems(parsed)


def read_text(path: Path) -> str:
    """Read a map file as text (a regular file of at most MAP_BYTES: never a FIFO, never
    24 MB), turning every reason it cannot be one into a MapError."""
    try:
        return read_input_text(path, "a map file", MAP_BYTES)
    except InputFileError as exc:
        reason = exc.reason
        raise MapError(
            str(path), [f"it {reason}" if reason.startswith("is ") else reason]
        ) from None


def map_from_text(text: str, name: str = "", allow_invalid: bool = False) -> GameMap:
    """Build a :class:`GameMap`; raise :class:`MapError` naming each broken limit.

    With ``allow_invalid`` (ruling R14's explicit switch) limit breaks are
    tolerated, but the map must still be a readable M x N grid of cells.
    """
    parsed = parse_map_text(text)
    problems = list(parsed.problems)
    if parsed.rows is not None and not problems:
        problems += _limit_problems(parsed)
    fatal = list(parsed.problems)
    if parsed.rows is not None and not fatal:
        if parsed.rows < 1 or parsed.cols is None or parsed.cols < 1:
            fatal.append("the map has no cells")
        if parsed.turns is None or parsed.turns < 1:
            fatal.append(f"K (turns) is {parsed.turns}; a round needs at least 1 turn")
    if fatal or (problems and not allow_invalid):
        raise MapError(name or "map", fatal if allow_invalid else problems)
    assert parsed.rows is not None and parsed.cols is not None and parsed.turns is not None
    cells = tuple(v if v is not None else 0 for row in parsed.grid for v in row)
    return GameMap(parsed.rows, parsed.cols, parsed.turns, cells, name)


def load_map(path: Path | str, allow_invalid: bool = False) -> GameMap:
    """Read and check a map file (see :func:`map_from_text`)."""
    p = Path(path)
    return map_from_text(read_text(p), name=str(p), allow_invalid=allow_invalid)


def map_names(folders: Sequence[Path]) -> list[str]:
    """The maps (``*.txt`` files) directly in the folders, by name, sorted, each once."""
    names: set[str] = set()
    for folder in folders:
        try:
            names.update(p.stem for p in folder.glob("*.txt") if p.is_file())
        except OSError:
            continue
    return sorted(names)


def resolve_map_path(spec: str, maps_dir: Path | Sequence[Path] | None = None) -> Path:
    """A map argument is a path, or a name looked up in ``--maps-dir`` folders, ``maps/``
    of the current folder, then the bundled maps (``m1`` -> ``maps/m1.txt``).

    Raises :class:`MapNotFound` listing the maps there are (and the closest names).
    """
    p = Path(spec)
    if p.exists():
        return p
    if "/" in spec or "\\" in spec or spec.startswith("."):
        raise MapNotFound(spec, f"no such file ({p.resolve()})")
    folders = bundled.search_path(bundled.MAPS, maps_dir)
    for folder in folders:
        for cand in (folder / spec, folder / f"{spec}.txt"):
            if cand.is_file():
                return cand
    names = map_names(folders)
    raise MapNotFound(
        spec,
        f"no such map; {bundled.did_you_mean(spec, names)}the maps are: "
        f"{', '.join(names) or '(none)'} (looked up in "
        f"{bundled.describe(folders, bundled.MAPS)}; add your own folder with --maps-dir); "
        "or give the path of a map file",
    )
