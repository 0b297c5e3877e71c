"""The map generator: always a valid map, the same one for the same seed.

The map is built on one half of the sea (the middle line included) and
mirrored, so symmetry holds by construction.  Reefs come as short walls that
fence some gold clusters (which makes a shield worth fetching); gold is added
one unit at a time, drawn towards a few cluster centres, until the total is
exactly 100.  A draw that breaks a limit (a cut-off pocket, no room for the
gold) is thrown away and drawn again from the same seeded stream, so the
result stays deterministic.
"""

from __future__ import annotations

import random

from judge.errors import JudgeError
from judge.grid import centre_flat, components, neighbours
from judge.grid import mirror as mirror_of
from judge.maps import (
    MAX_GOLD_CELL,
    MAX_SIZE,
    MAX_TURNS,
    MIN_SIZE,
    MIN_TURNS,
    REEF,
    SHIELD,
    TOTAL_GOLD,
    GameMap,
    format_map,
    validate_text,
)
from judge.settings import AXIS_CHOICES


class GenerateError(JudgeError, ValueError):
    """A request the generator refuses (names the bad parameter)."""


def check_request(rows: int, cols: int, turns: int, danger: float) -> None:
    for name, v in (("--rows", rows), ("--cols", cols)):
        if not (MIN_SIZE <= v <= MAX_SIZE) or v % 2 == 0:
            raise GenerateError(f"{name} {v}: map sizes must be odd, from {MIN_SIZE} to {MAX_SIZE}")
    if not (MIN_TURNS <= turns <= MAX_TURNS) or turns % 2:
        raise GenerateError(f"--turns {turns}: K must be even, from {MIN_TURNS} to {MAX_TURNS}")
    if not (0.0 <= danger <= 0.4):
        raise GenerateError(f"--danger {danger}: the reef share must be from 0 to 0.4")


def generate_map(
    rows: int,
    cols: int,
    turns: int = 40,
    seed: int = 0,
    danger: float = 0.12,
    axis: str | None = None,
    name: str = "",
) -> GameMap:
    """A valid map of ``rows`` x ``cols`` with ``turns`` turns, determined by ``seed``."""
    check_request(rows, cols, turns, danger)
    if axis is not None and axis not in AXIS_CHOICES:
        raise GenerateError(f"--axis {axis}: choose one of {', '.join(AXIS_CHOICES)}")
    rng = random.Random(f"ocean-map:{rows}x{cols}:{turns}:{seed}:{danger}:{axis}")
    ax = axis or rng.choice(AXIS_CHOICES)
    share = danger
    for attempt in range(400):
        cells = _attempt(rows, cols, ax, share, rng)
        if cells is not None:
            gm = GameMap(rows, cols, turns, tuple(cells), name)
            # Belt and braces: the validator has the last word.
            if not validate_text(format_map(gm)):
                return gm
        if attempt % 20 == 19:
            share *= 0.7  # small maps cannot hold many reefs beside 100 gold
    raise GenerateError(f"could not build a {rows}x{cols} map (seed {seed})")  # pragma: no cover


def _attempt(rows: int, cols: int, ax: str, share: float, rng: random.Random) -> list[int] | None:
    size = rows * cols
    centre = centre_flat(rows, cols)
    grid = [0] * size
    mirror = [mirror_of(ax, rows, cols, f) for f in range(size)]
    # One representative per mirror orbit.
    reps = [f for f in range(size) if f <= mirror[f]]

    def setv(f: int, v: int) -> None:
        grid[f] = v
        grid[mirror[f]] = v

    nbrs = neighbours(rows, cols).__getitem__

    # Reefs: first a fence around one or two pockets (rich gold behind reefs, with a gap or
    # two, so a shield is a shortcut), then short random walls.  Never on or next to the centre.
    near_centre = set(nbrs(centre)) | {centre}
    target_reefs = int(share * size)
    placed = 0
    pockets: list[int] = []
    if share > 0 and rows * cols >= 81:
        for _ in range(rng.randint(1, 2)):
            pr, pc = rng.randrange(1, rows - 1), rng.randrange(1, cols - 1)
            p = pr * cols + pc
            if p in near_centre or mirror[p] in near_centre:
                continue
            ring = [
                rr * cols + cc
                for rr in range(pr - 2, pr + 3)
                for cc in range(pc - 2, pc + 3)
                if 0 <= rr < rows and 0 <= cc < cols and max(abs(rr - pr), abs(cc - pc)) == 2
            ]
            gaps = set(rng.sample(ring, min(len(ring), rng.randint(1, 2))))
            for f in ring:
                if f in gaps or f in near_centre or mirror[f] in near_centre:
                    continue
                if grid[f] != REEF and placed < target_reefs * 1.5:
                    setv(f, REEF)
                    placed += 1 if f == mirror[f] else 2
            pockets.append(p)
    guard = 0
    while placed < target_reefs and guard < 200:
        guard += 1
        f = rng.choice(reps)
        length = rng.randint(1, 4)
        for _ in range(length):
            if f in near_centre or mirror[f] in near_centre or grid[f] == REEF:
                break
            setv(f, REEF)
            placed += 1 if f == mirror[f] else 2
            f = rng.choice(nbrs(f))
    if len(components(grid, rows, cols, lambda v: v != REEF)) != 1:
        return None
    # Shields: one mirrored pair, off the axis, on open water.
    open_pairs = [f for f in reps if f != mirror[f] and grid[f] == 0 and f not in near_centre]
    if not open_pairs:
        return None
    s = rng.choice(open_pairs)
    setv(s, SHIELD)
    # Gold: 100 units, cell by cell, drawn towards cluster centres.
    free = [f for f in reps if grid[f] == 0 and f != centre]
    # Keep some empty water to start on: at least 2 cells besides the centre when possible.
    rng.shuffle(free)
    keep_empty = max(1, len(free) // 6)
    reserved: set[int] = set()
    for f in free:
        if len(reserved) >= keep_empty:
            break
        reserved.add(f)
    candidates = [f for f in free if f not in reserved]
    capacity = sum(MAX_GOLD_CELL * (1 if f == mirror[f] else 2) for f in candidates)
    axis_cells = [f for f in candidates if f == mirror[f]]
    if capacity < TOTAL_GOLD or not axis_cells and TOTAL_GOLD % 2:
        # Give back reserved cells until it fits (tight 5x5 maps).
        for f in list(reserved):
            if capacity >= TOTAL_GOLD + 5 or len(reserved) <= 1:
                break
            reserved.discard(f)
            candidates.append(f)
            capacity += MAX_GOLD_CELL * (1 if f == mirror[f] else 2)
        if capacity < TOTAL_GOLD:
            return None
    n_clusters = rng.randint(2, 4)
    centres = [rng.choice(candidates) for _ in range(n_clusters)]
    centres += [min(p, mirror[p]) for p in pockets if grid[p] == 0]
    spread = rng.uniform(0.15, 0.5)  # some maps are clustered, others more even
    weights = []
    for f in candidates:
        r, c = divmod(f, cols)
        w = spread
        for k in centres:
            kr, kc = divmod(k, cols)
            d = abs(r - kr) + abs(c - kc)
            w += 4.0 / (1 + d * d)
        weights.append(w)
    remaining = TOTAL_GOLD
    gold = {f: 0 for f in candidates}
    # Pockets hold rich gold: the prize that makes their fence (and a shield) matter.
    cand_set = set(candidates)
    for p in pockets:
        pr, pc = divmod(p, cols)
        budget = rng.randint(10, 20)
        inside = [  # as orbit representatives, like the candidates
            min(rr * cols + cc, mirror[rr * cols + cc])
            for rr in range(pr - 1, pr + 2)
            for cc in range(pc - 1, pc + 2)
            if 0 <= rr < rows and 0 <= cc < cols
        ]
        for f in inside:
            if f not in cand_set or gold[f] or budget <= 0:
                continue
            g = min(rng.randint(2, MAX_GOLD_CELL), budget)
            cost = g if f == mirror[f] else 2 * g
            if cost > remaining - 2 or cost > budget * 2:
                continue
            gold[f] = g
            remaining -= cost
            budget -= cost
    guard = 0
    while remaining > 0:
        guard += 1
        if guard > 20000:
            return None
        if remaining == 1:
            pool = [f for f in candidates if f == mirror[f] and gold[f] < MAX_GOLD_CELL]
            if not pool:
                return None
            f = rng.choice(pool)
        else:
            f = rng.choices(candidates, weights)[0]
            if gold[f] >= MAX_GOLD_CELL:
                continue
        gold[f] += 1
        remaining -= 1 if f == mirror[f] else 2
    for f, g in gold.items():
        if g:
            setv(f, g)
    return grid
