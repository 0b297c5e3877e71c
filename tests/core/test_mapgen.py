"""The map generator, checked by an independent validator written here (not judge.maps)."""

from __future__ import annotations

import time

import pytest

from judge.mapgen import AXIS_CHOICES, GenerateError, generate_map
from judge.maps import format_map

from .test_maps import DIAG7, VALID7

ODD_SIZES = list(range(5, 16, 2))


def independent_problems(text: str) -> list[str]:
    """Check a map text against §1 from scratch: tokens, sizes, K, gold, S, centre, water, mirror."""
    lines = [ln.split() for ln in text.strip().split("\n")]
    m, n, k = (int(t) for t in lines[0])
    rows = lines[1:]
    out = []
    if not (m % 2 == 1 and 5 <= m <= 15 and n % 2 == 1 and 5 <= n <= 15):
        out.append("size")
    if not (k % 2 == 0 and 2 <= k <= 100):
        out.append("K")
    if len(rows) != m or any(len(r) != n for r in rows):
        return out + ["shape"]
    total = shields = zeros = 0
    for r in rows:
        for t in r:
            if t == "S":
                shields += 1
            elif t == "D":
                pass
            elif t.isascii() and t.isdigit():
                v = int(t)
                if v == 0:
                    zeros += 1
                elif not 1 <= v <= 5:
                    out.append("cell gold")
                total += v
            else:
                out.append("token " + t)
    if total != 100:
        out.append(f"total {total}")
    if shields != 2:
        out.append("shields")
    if zeros < 2:
        out.append("start cells")
    if rows[m // 2][n // 2] != "0":
        out.append("centre")
    # water connected (flood fill from the first non-D cell)
    water = {(i, j) for i in range(m) for j in range(n) if rows[i][j] != "D"}
    if water:
        first = min(water)
        seen = {first}
        todo = [first]
        while todo:
            i, j = todo.pop()
            for nb in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if nb in water and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        if seen != water:
            out.append("water")
    mirrors = {
        "row": [rows[m - 1 - i] for i in range(m)],
        "col": [list(reversed(r)) for r in rows],
    }
    if m == n:
        mirrors["diag"] = [[rows[j][i] for j in range(n)] for i in range(m)]
        mirrors["antidiag"] = [[rows[n - 1 - j][m - 1 - i] for j in range(n)] for i in range(m)]
    if not any(mir == rows for mir in mirrors.values()):
        out.append("symmetry")
    return out


def axes_of(text: str) -> set[str]:
    rows = [ln.split() for ln in text.strip().split("\n")][1:]
    found = set()
    if rows == rows[::-1]:
        found.add("row")
    if all(r == r[::-1] for r in rows):
        found.add("col")
    return found


def test_independent_validator_refuses_what_it_should() -> None:
    assert independent_problems(VALID7) == [] and independent_problems(DIAG7) == []
    assert independent_problems(VALID7.replace("7 7 20", "7 7 21")) == ["K"]
    assert independent_problems(VALID7.replace("5 5 5 D 5 5 5", "4 5 5 D 5 5 5")) == [
        "total 99",
        "symmetry",
    ]
    assert independent_problems(VALID7.replace("5 5 0 0 0 5 5", "5 5 D 0 D 5 5")) == ["water"]
    assert independent_problems(VALID7.replace("5 0 0 0 0 0 5\n5 0 D", "5 0 0 S 0 0 5\n5 0 D")) == [
        "shields"
    ]
    assert "centre" in independent_problems(
        "5 5 2\n0 0 0 0 0\n0 0 0 0 0\n0 0 D 0 0\n0 0 0 0 0\n0 0 0 0 0\n"
    )
    assert "size" in independent_problems("4 5 2\n" + "0 0 0 0 0\n" * 4)


@pytest.mark.parametrize("rows", ODD_SIZES)
def test_every_odd_size_pair_and_several_seeds_give_valid_maps(rows: int) -> None:
    for cols in ODD_SIZES:
        for seed in range(4):
            for axis in (None, "row", "col"):
                text = format_map(generate_map(rows, cols, 40, seed=seed, axis=axis))
                assert independent_problems(text) == [], (rows, cols, seed, axis, text)


@pytest.mark.parametrize("turns", [2, 4, 50, 100])
@pytest.mark.parametrize("danger", [0.0, 0.12, 0.4])
def test_turns_and_danger_extremes_give_valid_maps(turns: int, danger: float) -> None:
    for rows, cols in [(5, 5), (5, 15), (15, 5), (15, 15), (9, 11)]:
        gm = generate_map(rows, cols, turns, seed=7, danger=danger)
        assert gm.turns == turns
        assert independent_problems(format_map(gm)) == []


def test_5x5_works() -> None:
    for seed in range(30):
        gm = generate_map(5, 5, 20, seed=seed)
        assert (gm.rows, gm.cols) == (5, 5)
        assert independent_problems(format_map(gm)) == []


def test_same_seed_gives_the_same_map() -> None:
    for rows, cols in [(5, 5), (9, 13), (15, 15)]:
        a = generate_map(rows, cols, 40, seed=123)
        b = generate_map(rows, cols, 40, seed=123)
        assert a == b and format_map(a) == format_map(b)


def test_different_seeds_give_different_maps() -> None:
    for rows, cols in [(5, 5), (9, 13), (15, 15)]:
        texts = {format_map(generate_map(rows, cols, 40, seed=s)) for s in range(10)}
        assert len(texts) >= 9


@pytest.mark.parametrize("axis", AXIS_CHOICES)
def test_axis_is_honoured(axis: str) -> None:
    for rows, cols in [(5, 5), (7, 13), (15, 9), (11, 11)]:
        for seed in range(5):
            text = format_map(generate_map(rows, cols, 40, seed=seed, axis=axis))
            assert axis in axes_of(text)


def test_without_axis_both_axes_occur() -> None:
    seen = set()
    for seed in range(20):
        seen |= axes_of(format_map(generate_map(9, 9, 40, seed=seed)))
    assert seen == {"row", "col"}


def test_shields_are_a_mirrored_pair() -> None:
    for seed in range(10):
        gm = generate_map(9, 11, 40, seed=seed, axis="col")
        text = format_map(gm)
        rows = [ln.split() for ln in text.splitlines()[1:]]
        s_cells = [(i, j) for i, r in enumerate(rows) for j, t in enumerate(r) if t == "S"]
        assert len(s_cells) == 2
        (i1, j1), (i2, j2) = s_cells
        assert i1 == i2 and j1 + j2 == 10


def test_maps_have_reefs_and_varied_gold() -> None:
    texts = [format_map(generate_map(15, 15, 40, seed=s)) for s in range(5)]
    for text in texts:
        tokens = text.split()[3:]
        assert "D" in tokens
        golds = {t for t in tokens if t.isdigit() and t != "0"}
        assert len(golds) >= 3  # not a flat spread


@pytest.mark.parametrize(
    "kwargs, names",
    [
        ({"rows": 4, "cols": 4}, "--rows 4"),
        ({"rows": 6, "cols": 7}, "--rows 6"),
        ({"rows": 7, "cols": 8}, "--cols 8"),
        ({"rows": 3, "cols": 5}, "--rows 3"),
        ({"rows": 17, "cols": 5}, "--rows 17"),
        ({"rows": 5, "cols": 1}, "--cols 1"),
        ({"rows": 5, "cols": 5, "turns": 21}, "--turns 21"),
        ({"rows": 5, "cols": 5, "turns": 0}, "--turns 0"),
        ({"rows": 5, "cols": 5, "turns": 102}, "--turns 102"),
        ({"rows": 5, "cols": 5, "danger": 0.9}, "--danger 0.9"),
        ({"rows": 5, "cols": 5, "danger": -0.1}, "--danger -0.1"),
        ({"rows": 5, "cols": 5, "axis": "diag"}, "--axis diag"),
    ],
)
def test_refused_requests_raise_generate_error_naming_the_parameter(
    kwargs: dict[str, object], names: str
) -> None:
    with pytest.raises(GenerateError) as info:
        generate_map(**kwargs)  # type: ignore[arg-type]
    msg = str(info.value)
    assert msg.startswith(names + ":")
    assert "\n" not in msg
    assert isinstance(info.value, ValueError)


def test_size_refusal_says_what_is_allowed() -> None:
    with pytest.raises(GenerateError, match="odd, from 5 to 15"):
        generate_map(4, 4)
    with pytest.raises(GenerateError, match="even, from 2 to 100"):
        generate_map(5, 5, 3)


def test_generation_is_fast() -> None:
    start = time.perf_counter()
    count = 0
    for rows in ODD_SIZES:
        for cols in ODD_SIZES:
            generate_map(rows, cols, 40, seed=1000 + count)
            count += 1
    mean = (time.perf_counter() - start) / count
    assert mean < 0.05
