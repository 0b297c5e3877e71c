"""Map styles (judge/mapstyles.py): every style always valid, each with its own character.

Validity is checked by the independent validator of test_mapgen.py (not judge.maps).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.cli import main
from judge.mapgen import GenerateError, generate_map
from judge.maps import REEF, format_map, validate_text
from judge.mapstyles import STYLES, generate_styled

from .test_mapgen import independent_problems

ODD_SIZES = list(range(5, 16, 2))
NEW_STYLES = [s for s in STYLES if s != "classic"]


def cells(style: str, rows: int, cols: int, seed: int) -> list[int]:
    return list(generate_styled(rows, cols, 40, seed=seed, style=style).cells)


@pytest.mark.parametrize("style", NEW_STYLES)
def test_every_style_gives_valid_maps_at_every_size(style: str) -> None:
    for rows in ODD_SIZES:
        for cols in ODD_SIZES:
            for seed in range(2):
                text = format_map(generate_styled(rows, cols, 40, seed=seed, style=style))
                assert independent_problems(text) == [], (style, rows, cols, seed, text)


@pytest.mark.parametrize("style", NEW_STYLES)
def test_styles_are_deterministic_and_vary_with_the_seed(style: str) -> None:
    a = generate_styled(11, 13, 60, seed=4, style=style)
    assert a == generate_styled(11, 13, 60, seed=4, style=style)
    assert (
        len({format_map(generate_styled(11, 13, 60, seed=s, style=style)) for s in range(6)}) >= 5
    )


def test_classic_style_is_the_classic_generator() -> None:
    assert generate_styled(9, 11, 30, seed=3, style="classic") == generate_map(9, 11, 30, seed=3)


def reef_share(style: str) -> float:
    grids = [cells(style, 15, 15, s) for s in range(6)]
    return sum(g.count(REEF) for g in grids) / (6 * 225)


def test_styles_differ_in_their_reefs() -> None:
    assert reef_share("open") == 0.0
    assert reef_share("reefs") > 0.2
    assert reef_share("corridors") > 0.3
    assert 0.1 < reef_share("islands") < 0.45


def test_corridors_are_mostly_one_cell_wide() -> None:
    for seed in range(4):
        g = cells("corridors", 15, 15, seed)
        water = [f for f, v in enumerate(g) if v != REEF]
        # A 2x2 block of water is a room, not a corridor: few of them.
        blocks = sum(
            1
            for f in water
            if f % 15 < 14 and f + 16 < 225 and all(g[x] != REEF for x in (f + 1, f + 15, f + 16))
        )
        assert blocks < len(water) // 3


def test_sparse_gold_is_in_few_full_piles_away_from_the_centre() -> None:
    for seed in range(4):
        g = cells("sparse", 15, 15, seed)
        piles = [(f, v) for f, v in enumerate(g) if v > 0]
        assert len(piles) <= 40
        mean_d = sum(abs(f // 15 - 7) + abs(f % 15 - 7) for f, _ in piles) / len(piles)
        assert mean_d > 6


def test_walled_gold_is_mostly_behind_reefs() -> None:
    """Most gold is in cells that a boat without a shield reaches only the long way round."""
    from collections import deque

    for seed in range(4):
        g = cells("walled", 15, 15, seed)

        def dist(src: int, shielded: bool, g: list[int] = g) -> list[int]:
            d = [-1] * 225
            d[src] = 0
            q = deque([src])
            while q:
                f = q.popleft()
                r, c = divmod(f, 15)
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    n = rr * 15 + cc
                    if 0 <= rr < 15 and 0 <= cc < 15 and d[n] < 0:
                        if shielded or g[n] != REEF:
                            d[n] = d[f] + 1
                            q.append(n)
            return d

        plain, short = dist(112, False), dist(112, True)
        detour = sum(v for f, v in enumerate(g) if v > 0 and plain[f] > short[f] + 2)
        assert detour >= 30, (seed, detour)


def test_unknown_style_is_refused_by_name() -> None:
    with pytest.raises(GenerateError, match="--style mazes"):
        generate_styled(9, 9, 40, style="mazes")
    with pytest.raises(GenerateError, match="--rows 4"):
        generate_styled(4, 9, 40, style="open")


def test_genmap_style_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["genmap", "--rows", "9", "--cols", "13", "--seed", "2", "--style", "islands"]) == 0
    out = capsys.readouterr().out
    assert out == format_map(generate_styled(9, 13, 40, seed=2, style="islands"))
    with pytest.raises(SystemExit):
        main(["genmap", "--rows", "9", "--cols", "9", "--style", "nope"])


MAPS = Path(__file__).resolve().parents[2] / "maps" / "styles"

#: The contest text's example sea (§3d), exactly as printed: W for reefs, row 4 one value
#: short, a 9 on one cell, 74 gold, no shield.
ORIGINAL_EXAMPLE = """\
1 4 W 0 0 1 0 0 0 W 0 0 0
3 W 0 0 0 0 0 0 W 4 0 W 0
0 0 0 3 0 0 0 0 W 5 5 W 0
0 0 0 3 0 0 0 0 5 5 W 9
0 0 0 3 0 0 0 0 W 5 5 W 0
3 W 0 0 0 0 0 0 W 4 0 W 0
1 4 W 0 0 1 0 0 0 W 0 0 0"""


def test_hand_made_maps_are_valid_and_varied() -> None:
    files = sorted(MAPS.glob("*.txt"))
    assert len(files) >= 8
    shapes = set()
    for f in files:
        text = f.read_text()
        assert validate_text(text) == [], f.name
        assert independent_problems(text.replace("W", "D")) == [], f.name
        m, n, _ = (int(t) for t in text.split()[:3])
        shapes.add("square" if m == n else "wide" if n > m else "tall")
    assert shapes == {"square", "wide", "tall"}


def test_the_contest_example_is_repaired_with_few_changes() -> None:
    """maps/styles/example.txt is the contest's example with row 4's missing last value
    restored as 0, the 9 cut to 5, shields and gold added to reach the limits: reefs,
    size, K and the walled gold pocket are the original's."""
    text = (MAPS / "example.txt").read_text()
    assert validate_text(text) == []
    lines = text.splitlines()
    assert lines[0] == "7 13 20"
    ours = [ln.split() for ln in lines[1:]]
    orig = [ln.split() for ln in ORIGINAL_EXAMPLE.splitlines()]
    orig[3].append("0")
    changed = [(r, c) for r in range(7) for c in range(13) if ours[r][c] != orig[r][c]]
    assert all((ours[r][c] == "W") == (orig[r][c] == "W") for r in range(7) for c in range(13))
    assert ours[3][11] == "5" and orig[3][11] == "9"
    assert sum(row.count("S") for row in ours) == 2
    assert len(changed) <= 16
