"""Map files: reading, writing and every limit of §1 (rulings R1, R14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.mapgen import generate_map
from judge.maps import (
    MIN_START_CELLS,
    REEF,
    SHIELD,
    GameMap,
    MapError,
    format_map,
    load_map,
    map_from_text,
    parse_map_text,
    read_text,
    resolve_map_path,
    symmetry_axes,
    validate_text,
)

#: A valid 7x7 map, symmetric about the middle column only.
VALID7 = """\
7 7 20
5 5 5 D 5 5 5
5 S 0 0 0 S 5
5 0 0 0 0 0 5
5 0 0 0 0 0 5
5 0 0 0 0 0 5
5 0 D D D 0 5
5 5 0 0 0 5 5
"""

#: A valid 7x7 map symmetric about the main diagonal only.
DIAG7 = """\
7 7 30
4 S 5 0 3 D 1
S 0 2 0 0 5 1
5 2 0 D 0 5 5
0 0 D 0 0 4 3
3 0 0 0 5 2 2
D 5 5 4 2 2 4
1 1 5 3 2 4 5
"""

#: The original text's example (MAP.INP of turn 1), copied as it stands: `W` for the reef,
#: a 12-value row 4 on a 13-column map, 9 gold on one cell, no S, 74 gold in all.
ORIGINAL_EXAMPLE = """\
7 13 20
0 0 0 0
0 0
1 4 W 0 0 1 0 0 0 W 0 0 0
3 W 0 0 0 0 0 0 W 4 0 W 0
0 0 0 3 0 0 0 0 W 5 5 W 0
0 0 0 3 0 0 0 0 5 5 W 9
0 0 0 3 0 0 0 0 W 5 5 W 0
3 W 0 0 0 0 0 0 W 4 0 W 0
1 4 W 0 0 1 0 0 0 W 0 0 0
"""


def rows_of(text: str) -> list[list[str]]:
    return [ln.split() for ln in text.splitlines()[1:]]


def build(header: str, rows: list[list[str]]) -> str:
    return header + "\n" + "\n".join(" ".join(r) for r in rows) + "\n"


def edit(text: str, changes: dict[tuple[int, int], str]) -> str:
    """``text`` with cells (i, j) (1-based) replaced."""
    lines = text.splitlines()
    rows = rows_of(text)
    for (i, j), tok in changes.items():
        rows[i - 1][j - 1] = tok
    return build(lines[0], rows)


def only_problem(text: str) -> str:
    probs = validate_text(text)
    assert len(probs) == 1, probs
    return probs[0]


# ---------------------------------------------------------------- reading, writing


def test_valid_maps_have_no_problems() -> None:
    assert validate_text(VALID7) == []
    assert validate_text(DIAG7) == []
    m = map_from_text(VALID7, name="v7")
    assert (m.rows, m.cols, m.turns, m.name) == (7, 7, 20, "v7")
    assert m.cell(1, 4) == REEF and m.cell(2, 2) == SHIELD and m.cell(1, 1) == 5
    assert m.centre == (4, 4) and m.cell(4, 4) == 0


def test_r1_w_reads_as_d_and_is_written_as_d() -> None:
    with_w = VALID7.replace("D", "W")
    assert "W" in with_w and "D" not in with_w
    assert validate_text(with_w) == []
    m = map_from_text(with_w)
    assert m == map_from_text(VALID7)
    out = format_map(m)
    assert "W" not in out and out.count("D") == VALID7.count("D")
    assert out == VALID7


def test_r1_writer_can_use_another_reef_symbol() -> None:
    out = format_map(map_from_text(VALID7), reef_symbol="W")
    assert "D" not in out and out == VALID7.replace("D", "W")


def test_round_trip_read_write_read_gives_the_same_map() -> None:
    maps = [map_from_text(VALID7), map_from_text(DIAG7)]
    maps += [generate_map(r, c, 2 * r, seed=s) for r, c, s in [(5, 5, 1), (7, 15, 2), (15, 9, 3)]]
    for m in maps:
        text = format_map(m)
        again = map_from_text(text, name=m.name)
        assert again == m
        assert format_map(again) == text


def test_map_inp_shaped_file_is_accepted() -> None:
    lines = VALID7.splitlines()
    map_inp = "\n".join([lines[0], "0 0 0 0", "0 0"] + lines[1:]) + "\n"
    assert validate_text(map_inp) == []
    assert map_from_text(map_inp) == map_from_text(VALID7)


def test_whitespace_crlf_tabs_bom_and_blank_lines_are_tolerated() -> None:
    messy = (
        "\ufeff"
        + "\r\n".join("  " + "\t".join(ln.split()) + "  " for ln in VALID7.splitlines())
        + "\r\n\r\n"
    )
    messy = messy.replace("\r\n5 0 0 0 0 0 5", "\r\n\r\n5 0 0 0 0 0 5", 1)
    assert validate_text(messy) == []
    assert map_from_text(messy) == map_from_text(VALID7)


# ----------------------------------------------------------------- broken limits


def test_ragged_row_is_named() -> None:
    rows = rows_of(VALID7)
    rows[3] = rows[3][:-1]
    probs = validate_text(build("7 7 20", rows))
    assert "row 4 has 6 cells, expected 7" in probs


def test_gold_9_on_a_cell_is_named() -> None:
    probs = validate_text(edit(VALID7, {(3, 2): "9", (3, 6): "9"}))
    assert "cell (3,2) holds 9 gold; a cell holds 1..5 (or 0)" in probs
    assert "cell (3,6) holds 9 gold; a cell holds 1..5 (or 0)" in probs
    assert any("adds up to 118" in p for p in probs)


@pytest.mark.parametrize("value", ["6", "-1", "100"])
def test_gold_per_cell_must_be_1_to_5(value: str) -> None:
    probs = validate_text(edit(VALID7, {(3, 3): value, (3, 5): value}))
    assert f"cell (3,3) holds {value} gold; a cell holds 1..5 (or 0)" in probs


def test_original_example_map_is_refused_with_each_broken_limit_named() -> None:
    probs = validate_text(ORIGINAL_EXAMPLE)
    assert "row 4 has 12 cells, expected 13" in probs
    # the 9 is the 12th value of the short row 4
    assert "cell (4,12) holds 9 gold; a cell holds 1..5 (or 0)" in probs
    assert "the gold adds up to 74; it must be exactly 100" in probs
    assert "the map has 0 S cells (none); it must have exactly 2" in probs
    assert any("not M x N" in p for p in probs)  # symmetry etc. cannot be judged
    assert len(probs) == 5
    with pytest.raises(MapError) as info:
        map_from_text(ORIGINAL_EXAMPLE, name="example")
    assert "row 4 has 12 cells, expected 13" in str(info.value)


def test_original_example_with_its_short_row_completed_is_still_refused() -> None:
    # Give row 4 its missing 13th value (a 0 in column 9): the 9 gold is then on (4,13),
    # the map is symmetric about its middle row, and still breaks three limits.
    text = ORIGINAL_EXAMPLE.replace("0 0 0 0 5 5 W 9\n", "0 0 0 0 0 5 5 W 9\n")
    assert validate_text(text) == [
        "cell (4,13) holds 9 gold; a cell holds 1..5 (or 0)",
        "the gold adds up to 74; it must be exactly 100",
        "the map has 0 S cells (none); it must have exactly 2",
    ]
    assert symmetry_axes(parse_map_text(text).grid) == ["row"]


def test_negative_numbers_are_never_read_as_reef_or_shield_codes() -> None:
    # Internally D is -1 and S is -2: a file saying -1 or -2 must not become a reef or a shield.
    text = edit(VALID7, {(3, 3): "-1", (3, 5): "-2"})
    probs = validate_text(text)
    assert "cell (3,3) holds -1 gold; a cell holds 1..5 (or 0)" in probs
    assert "cell (3,5) holds -2 gold; a cell holds 1..5 (or 0)" in probs
    with pytest.raises(MapError):
        map_from_text(text, allow_invalid=True)


@pytest.mark.parametrize(
    "m, n, message",
    [
        (6, 7, "M (rows) is 6; it must be odd and in 5..15"),
        (7, 8, "N (columns) is 8; it must be odd and in 5..15"),
        (4, 4, "M (rows) is 4; it must be odd and in 5..15"),
        (3, 5, "M (rows) is 3; it must be odd and in 5..15"),
        (5, 17, "N (columns) is 17; it must be odd and in 5..15"),
        (16, 5, "M (rows) is 16; it must be odd and in 5..15"),
    ],
)
def test_sizes_must_be_odd_and_in_5_to_15(m: int, n: int, message: str) -> None:
    text = build(f"{m} {n} 20", [["1"] * n for _ in range(m)])
    assert message in validate_text(text)


@pytest.mark.parametrize("k", [21, 1, 0, 102, -2, 101])
def test_k_must_be_even_and_in_2_to_100(k: int) -> None:
    text = VALID7.replace("7 7 20", f"7 7 {k}", 1)
    assert only_problem(text) == f"K (turns) is {k}; it must be even and in 2..100"


@pytest.mark.parametrize("k", [2, 100])
def test_k_limits_2_and_100_are_allowed(k: int) -> None:
    assert validate_text(VALID7.replace("7 7 20", f"7 7 {k}", 1)) == []


def test_total_gold_must_be_exactly_100() -> None:
    assert only_problem(edit(VALID7, {(1, 1): "4", (1, 7): "4"})) == (
        "the gold adds up to 98; it must be exactly 100"
    )
    assert only_problem(edit(VALID7, {(3, 3): "1", (3, 5): "1"})) == (
        "the gold adds up to 102; it must be exactly 100"
    )


def test_exactly_two_shields() -> None:
    assert only_problem(edit(VALID7, {(2, 2): "0", (2, 6): "0"})) == (
        "the map has 0 S cells (none); it must have exactly 2"
    )
    assert only_problem(edit(VALID7, {(3, 4): "S"})) == (
        "the map has 3 S cells ((2,2), (2,6), (3,4)); it must have exactly 2"
    )


def test_centre_must_be_zero() -> None:
    assert (
        only_problem(edit(VALID7, {(4, 4): "D"})) == "the centre cell (4,4) holds D; it must be 0"
    )
    probs = validate_text(edit(VALID7, {(4, 4): "S"}))
    assert "the centre cell (4,4) holds S; it must be 0" in probs


def test_asymmetric_map_is_refused_with_an_example_cell() -> None:
    p = only_problem(edit(VALID7, {(3, 2): "1", (1, 1): "4"}))  # still 100 gold
    assert p.startswith(
        "the map is not symmetric about the middle row, the middle column or a diagonal"
    )
    assert "cell (1,1) holds 4 but (1,7) holds 5" in p


def test_symmetry_compares_shields_exactly() -> None:
    # Moving one S to a gold-free cell breaks the mirror even though every value matches in kind.
    text = edit(VALID7, {(2, 6): "0", (3, 6): "S"})
    assert any("not symmetric" in p for p in validate_text(text))


def test_symmetry_axes_row_col_and_both_diagonals() -> None:
    grid = parse_map_text(VALID7).grid
    assert symmetry_axes(grid) == ["col"]
    transposed = [list(r) for r in zip(*grid, strict=False)]
    assert symmetry_axes(transposed) == ["row"]
    diag = parse_map_text(DIAG7).grid
    assert symmetry_axes(diag) == ["diag"]
    anti = [list(reversed(r)) for r in diag]
    assert symmetry_axes(anti) == ["antidiag"]
    anti_text = build(
        "7 7 30",
        [[("D" if v == REEF else "S" if v == SHIELD else str(v)) for v in r] for r in anti],
    )
    assert validate_text(anti_text) == []


def test_diagonal_symmetry_is_not_offered_on_non_square_maps() -> None:
    grid: list[list[int | None]] = [[0] * 7 for _ in range(5)]
    assert "diag" not in symmetry_axes(grid) and "antidiag" not in symmetry_axes(grid)
    assert set(symmetry_axes(grid)) == {"row", "col"}


def test_disconnected_water_is_refused_naming_the_cut_off_cells() -> None:
    assert only_problem(edit(VALID7, {(7, 3): "D", (7, 5): "D"})) == (
        "non-D cells (7,4) cannot be reached from the others without crossing D"
    )


def test_at_least_two_empty_cells_to_start_on() -> None:
    text = "5 5 10\n5 5 5 5 5\nS 5 5 5 S\n5 5 0 5 5\n5 5 5 5 5\n5 D 5 D 5\n"
    assert MIN_START_CELLS == 2
    assert only_problem(text) == (
        "the map has 1 empty (0) cell(s); boats need at least 2 to start on"
    )


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n", "\ufeff"])
def test_empty_file_is_refused(text: str) -> None:
    assert validate_text(text) == ["the file is empty; line 1 should be 'M N K'"]
    with pytest.raises(MapError):
        map_from_text(text)


@pytest.mark.parametrize("header", ["7 x 20", "7 7", "7 7 20 1", "seven 7 20", "7 7 2.0", "7 7 ²"])
def test_bad_header_is_named(header: str) -> None:
    probs = validate_text(VALID7.replace("7 7 20", header, 1))
    assert len(probs) == 1 and probs[0].startswith("line 1 is ")
    assert "three whole numbers 'M N K'" in probs[0]


@pytest.mark.parametrize("token", ["x", "2.5", "DD", "٣", "²", "+1", "5g"])
def test_non_numeric_cell_tokens_are_named(token: str) -> None:
    probs = validate_text(edit(VALID7, {(3, 3): token}))
    assert f"cell (3,3) holds {token!r}; a cell holds a number, D or S" in probs


def test_wrong_number_of_rows_is_named() -> None:
    short = "\n".join(VALID7.splitlines()[:-1]) + "\n"
    assert "the map has 6 rows, expected 7 (M on line 1)" in validate_text(short)
    longer = VALID7 + "5 5 5 5 5 5 5\n"
    assert "the map has 8 rows, expected 7 (M on line 1)" in validate_text(longer)


def test_zero_or_huge_sizes_never_crash() -> None:
    for text in ["0 0 2\n", "0 5 2\n", "5 0 2\n", "99999 99999 2\n", "9" * 5000 + " 5 2\n"]:
        assert validate_text(text)  # problems, not a traceback


# ----------------------------------------------------------------- R14, files


def test_r14_invalid_map_is_refused_naming_each_broken_limit() -> None:
    bad = edit(VALID7, {(4, 4): "D", (1, 1): "4", (1, 7): "4"})
    with pytest.raises(MapError) as info:
        map_from_text(bad, name="bad.txt")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.source == "bad.txt"
    assert err.problems == [
        "the gold adds up to 98; it must be exactly 100",
        "the centre cell (4,4) holds D; it must be 0",
    ]
    assert str(err).startswith("bad.txt: not a valid map:")
    assert "  - the centre cell (4,4) holds D; it must be 0" in str(err)


def test_r14_invalid_maps_load_only_when_explicitly_allowed() -> None:
    bad = edit(VALID7, {(4, 4): "D", (1, 1): "4", (1, 7): "4"})
    m = map_from_text(bad, allow_invalid=True)
    assert m.cell(4, 4) == REEF and m.cell(1, 1) == 4
    # An unreadable grid is refused even then: there would be no map to play on.
    rows = rows_of(VALID7)
    rows[3] = rows[3][:-1]
    with pytest.raises(MapError) as info:
        map_from_text(build("7 7 20", rows), allow_invalid=True)
    assert info.value.problems == ["row 4 has 6 cells, expected 7"]
    with pytest.raises(MapError):
        map_from_text("0 0 2\n", allow_invalid=True)
    with pytest.raises(MapError):
        map_from_text(VALID7.replace("7 7 20", "7 7 0", 1), allow_invalid=True)


def test_load_map_reads_files(tmp_path: Path) -> None:
    p = tmp_path / "m.txt"
    p.write_text(VALID7)
    assert load_map(p) == map_from_text(VALID7, name=str(p))
    p.write_bytes(b"\xef\xbb\xbf" + VALID7.encode())
    assert load_map(str(p)).cells == map_from_text(VALID7).cells


def test_unreadable_files_give_clear_map_errors(tmp_path: Path) -> None:
    cases = {
        tmp_path / "missing.txt": "no such file",
        tmp_path: "it is a folder, not a map file",
    }
    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"7 7 20\x00\x01\x02")
    cases[binary] = "it is a binary file, not a map file"
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"7 7 20\n\xe9\xff\n")
    cases[latin] = "it is not a text file (not UTF-8)"
    for path, message in cases.items():
        with pytest.raises(MapError) as info:
            read_text(path)
        assert info.value.problems == [message]
        with pytest.raises(MapError):
            load_map(path)


def test_resolve_map_path_finds_names_in_the_maps_folder(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "m1.txt").write_text(VALID7)
    assert resolve_map_path("m1", maps) == maps / "m1.txt"
    assert resolve_map_path(str(maps / "m1.txt"), maps) == maps / "m1.txt"
    with pytest.raises(MapError) as info:
        resolve_map_path("nope", maps)
    assert "no such map" in info.value.problems[0]


def test_game_map_checks_its_cell_count() -> None:
    with pytest.raises(ValueError):
        GameMap(5, 5, 10, (0,) * 24)
    m = GameMap(5, 5, 10, (0,) * 25)
    assert m.with_turns(4).turns == 4 and m.with_turns(4).cells == m.cells
