"""The sea's geometry in one place (judge.grid) and seeds derived one way (judge.seeds)."""

from __future__ import annotations

import hashlib

import pytest

from judge import grid, seeds
from judge.rules import board_for


def test_centre_neighbours_and_the_rules_board_agree() -> None:
    for rows, cols in ((5, 5), (7, 13), (15, 15)):
        i, j = grid.centre(rows, cols)
        assert (i, j) == ((rows + 1) // 2, (cols + 1) // 2)
        assert (
            grid.centre_flat(rows, cols) == (i - 1) * cols + j - 1 == board_for(rows, cols).centre
        )
        nbrs = grid.neighbours(rows, cols)
        assert nbrs is board_for(rows, cols).neighbours  # computed once per size
        for f, ns in enumerate(nbrs):
            assert all(f in nbrs[n] for n in ns)  # adjacency is symmetric
            assert all(
                abs(divmod(n, cols)[0] - f // cols) + abs(n % cols - f % cols) == 1 for n in ns
            )
        assert nbrs[0] == (cols, 1)  # up, down, left, right: part of which map a seed gives


@pytest.mark.parametrize("axis", grid.AXES)
def test_a_mirror_is_its_own_inverse(axis: str) -> None:
    rows = cols = 7
    for f in range(rows * cols):
        assert grid.mirror(axis, rows, cols, grid.mirror(axis, rows, cols, f)) == f
    assert grid.mirror("col", 5, 7, 0) == 6 and grid.mirror("row", 5, 7, 0) == 28
    with pytest.raises(ValueError, match="no diag axis"):
        grid.mirror("diag", 5, 7, 0)


def test_components_are_the_connected_groups_in_row_major_order() -> None:
    sea = [0, 1, 0, 1, 1, 1, 0, 1, 0]  # 3x3, a wall cross leaves four corners apart
    groups = grid.components(sea, 3, 3, lambda v: v == 0)
    assert groups == [[0], [2], [6], [8]]
    assert grid.components(sea, 3, 3, lambda v: v == 1) == [[1, 4, 7, 3, 5]]  # breadth first


def test_seeds_are_derived_as_they_always_were() -> None:
    from judge.evaluate import derive_seed
    from judge.match import round_seed
    from judge.tournament.pairings import match_seed

    def sha48(text: str) -> int:
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")

    assert round_seed(7, 2) == sha48("ocean-round:7:2") == seeds.derive("ocean-round", 7, 2)
    assert match_seed(5, "Beta", "Gamma") == sha48("ocean-match:5:Beta:Gamma")
    assert derive_seed("map", 3, 1) == sha48("ocean-eval-map:3:1")
