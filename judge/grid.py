"""The geometry of an M x N sea, in one place: its centre, neighbours, mirrors, connected groups.

Cells are flat indexes ``r * cols + c`` (0-based row ``r`` and column ``c``),
the form the rules engine, the generators and the validator all work in;
:func:`centre` also gives the 1-based ``(i, j)`` of the contest text.  Every
function is pure and cheap; :func:`neighbours` is computed once per size.

Neighbour order is fixed (up, down, left, right): the generators draw from
these lists with a seeded random stream, so the order is part of which map a
seed gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: The axes a sea may be symmetric about (``diag`` and ``antidiag`` only when square).
AXES = ("row", "col", "diag", "antidiag")


def centre(rows: int, cols: int) -> tuple[int, int]:
    """The centre cell, 1-based ``(i, j)``: where the treasure appears (sizes are odd)."""
    return ((rows + 1) // 2, (cols + 1) // 2)


def centre_flat(rows: int, cols: int) -> int:
    """:func:`centre` as a flat index."""
    i, j = centre(rows, cols)
    return (i - 1) * cols + (j - 1)


@functools.lru_cache(maxsize=64)
def neighbours(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """The edge-adjacent cells of every cell (up, down, left, right; those inside the sea)."""
    out = []
    for f in range(rows * cols):
        r, c = divmod(f, cols)
        cand = []
        if r > 0:
            cand.append(f - cols)
        if r < rows - 1:
            cand.append(f + cols)
        if c > 0:
            cand.append(f - 1)
        if c < cols - 1:
            cand.append(f + 1)
        out.append(tuple(cand))
    return tuple(out)


def mirror(axis: str, rows: int, cols: int, f: int) -> int:
    """The cell's mirror image about ``axis`` (row: top-bottom, col: left-right, diagonals)."""
    r, c = divmod(f, cols)
    if axis == "row":
        return (rows - 1 - r) * cols + c
    if axis == "col":
        return r * cols + (cols - 1 - c)
    if rows != cols:
        raise ValueError(f"a {rows}x{cols} sea has no {axis} axis (only a square one has)")
    if axis == "diag":
        return c * cols + r
    if axis == "antidiag":
        return (cols - 1 - c) * cols + (rows - 1 - r)
    raise ValueError(f"unknown axis {axis!r}; the axes are {', '.join(AXES)}")


def components(
    cells: Sequence[T], rows: int, cols: int, inside: Callable[[T], bool]
) -> list[list[int]]:
    """The 4-connected groups of cells for which ``inside`` holds, each in breadth-first order.

    Groups come in the row-major order of their first cell (a generator that
    draws from a group relies on both orders).
    """
    nbrs = neighbours(rows, cols)
    seen = [False] * (rows * cols)
    groups: list[list[int]] = []
    for start in range(rows * cols):
        if seen[start] or not inside(cells[start]):
            continue
        seen[start] = True
        group = [start]
        for f in group:  # the list grows while it is read: breadth first
            for n in nbrs[f]:
                if not seen[n] and inside(cells[n]):
                    seen[n] = True
                    group.append(n)
        groups.append(group)
    return groups
