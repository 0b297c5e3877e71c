"""A "foreign" map generator, independent of judge/mapgen.py and judge/mapstyles.py.

The contest's maps are drawn by teams and organisers, not by our generator, so
the reference bot is checked on maps made another way: written separately, on
purpose with other choices everywhere:

* symmetry about the middle row, the middle column *or a diagonal* (square seas);
* reefs from noise smoothed by a cellular automaton (caves), from rings around
  the centre, from diagonal streaks, or from a checkerboard of pillars, at
  densities from 0 to as many as the size allows;
* gold as a gradient (towards the rim, the corners or the centre), as lines,
  as a flood of single coins, or as a few full piles;
* shields both on the axis, or as a mirrored pair anywhere (next to the centre
  included);
* sizes from 5 x 7 to 15 x 15, K from 20 to 100.

Used by the reference bot's harness (``--maps foreign``); never by the judge.
``python tests/reference_bot/foreign.py SEED [COUNT]`` prints maps.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge.maps import GameMap, format_map, validate_text  # noqa: E402

D, S = -1, -2
SIZES = [(r, c) for r in range(5, 16, 2) for c in range(5, 16, 2) if r * c >= 35]


def _reflect(kind: str, m: int, n: int, r: int, c: int) -> tuple[int, int]:
    if kind == "row":
        return m - 1 - r, c
    if kind == "col":
        return r, n - 1 - c
    if kind == "diag":
        return c, r
    return n - 1 - c, m - 1 - r


class Canvas:
    """A grid whose every write also writes the reflected cell."""

    def __init__(self, m: int, n: int, kind: str) -> None:
        self.m, self.n, self.kind = m, n, kind
        self.g = [[0] * n for _ in range(m)]

    def put(self, r: int, c: int, v: int) -> None:
        self.g[r][c] = v
        rr, cc = _reflect(self.kind, self.m, self.n, r, c)
        self.g[rr][cc] = v

    def twin(self, r: int, c: int) -> tuple[int, int]:
        return _reflect(self.kind, self.m, self.n, r, c)

    def cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.m) for c in range(self.n)]

    def water_groups(self) -> list[set[tuple[int, int]]]:
        left = {(r, c) for r, c in self.cells() if self.g[r][c] != D}
        groups = []
        while left:
            start = left.pop()
            grp = {start}
            stack = [start]
            while stack:
                r, c = stack.pop()
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nb in left:
                        left.discard(nb)
                        grp.add(nb)
                        stack.append(nb)
            groups.append(grp)
        return sorted(groups, key=len, reverse=True)


def _reefs(cv: Canvas, rng: random.Random, mode: str, density: float) -> None:
    m, n = cv.m, cv.n
    cr, cc = m // 2, n // 2
    if mode == "caves":
        for r, c in cv.cells():
            if rng.random() < density:
                cv.put(r, c, D)
        for _ in range(2):
            nxt = [row[:] for row in cv.g]
            for r, c in cv.cells():
                walls = sum(
                    1
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc)
                    and not (0 <= r + dr < m and 0 <= c + dc < n and cv.g[r + dr][c + dc] != D)
                )
                nxt[r][c] = D if walls >= 5 else (0 if walls <= 2 else cv.g[r][c])
            for r, c in cv.cells():
                if (r, c) <= cv.twin(r, c):
                    cv.put(r, c, nxt[r][c])
    elif mode == "rings":
        for rad in range(2, max(m, n), rng.choice((3, 4))):
            for r, c in cv.cells():
                if max(abs(r - cr), abs(c - cc)) == rad and rng.random() < 0.8:
                    cv.put(r, c, D)
    elif mode == "streaks":
        for _ in range(int(density * m * n / 3)):
            r, c = rng.randrange(m), rng.randrange(n)
            dr, dc = rng.choice(((1, 1), (1, -1)))
            for _ in range(rng.randint(2, 5)):
                if 0 <= r < m and 0 <= c < n:
                    cv.put(r, c, D)
                r, c = r + dr, c + dc
    elif mode == "pillars":
        step = rng.choice((2, 3))
        for r, c in cv.cells():
            if r % step == 1 and c % step == 1 and rng.random() < 0.9:
                cv.put(r, c, D)
    # The centre and a cross around it stay water (the treasure must be reachable).
    for r, c in ((cr, cc), (cr + 1, cc), (cr - 1, cc), (cr, cc + 1), (cr, cc - 1)):
        if 0 <= r < m and 0 <= c < n:
            cv.put(r, c, 0)
    # Join every pocket to the main water by digging straight towards the centre.
    for _ in range(200):
        groups = cv.water_groups()
        if len(groups) <= 1:
            break
        main = next(g for g in groups if (cr, cc) in g)
        r, c = min(next(g for g in groups if g is not main))
        while (r, c) not in main:
            if r != cr:
                r += 1 if cr > r else -1
            else:
                c += 1 if cc > c else -1
            cv.put(r, c, 0)
    # Too few water cells for 100 gold: clear reefs at random.
    reefs = [(r, c) for r, c in cv.cells() if cv.g[r][c] == D]
    rng.shuffle(reefs)
    while sum(1 for r, c in cv.cells() if cv.g[r][c] != D) < 30 + (m * n) // 8 and reefs:
        r, c = reefs.pop()
        cv.put(r, c, 0)


def _gold(cv: Canvas, rng: random.Random, mode: str) -> bool:
    m, n = cv.m, cv.n
    cr, cc = m // 2, n // 2
    free = [
        (r, c)
        for r, c in cv.cells()
        if cv.g[r][c] == 0 and (r, c) != (cr, cc) and (r, c) <= cv.twin(r, c)
    ]
    rng.shuffle(free)
    free = free[2:]  # two places (and their twins) to start on

    def w(r: int, c: int) -> float:
        dcen = abs(r - cr) + abs(c - cc)
        if mode == "rim":
            return 1.0 + dcen**2
        if mode == "corners":
            return 1.0 / (1 + min(r, m - 1 - r) + min(c, n - 1 - c)) ** 2
        if mode == "core":
            return 1.0 / (1 + dcen) ** 1.5
        if mode == "lines":
            return 5.0 if (r % 4 == 0 or c % 5 == 0) else 0.2
        return 1.0  # flat: coins everywhere

    unit = {"piles": 5, "coins": 1}.get(mode, rng.choice((1, 2, 3)))
    gold = dict.fromkeys(free, 0)
    cost = {p: 1 if cv.twin(*p) == p else 2 for p in free}
    if sum(5 * cost[p] for p in free) < 100:
        return False
    weights = [w(*p) for p in free]
    left = 100
    for _ in range(50000):
        if left == 0:
            break
        if left == 1:
            ones = [p for p in free if cost[p] == 1 and gold[p] < 5]
            if not ones:
                return False
            gold[rng.choice(ones)] += 1
            left = 0
            break
        p = rng.choices(free, weights)[0]
        add = min(unit, 5 - gold[p], left // cost[p])
        if add > 0:
            gold[p] += add
            left -= add * cost[p]
    if left:
        return False
    for (r, c), v in gold.items():
        if v:
            cv.put(r, c, v)
    return True


def _shields(cv: Canvas, rng: random.Random) -> bool:
    m, n = cv.m, cv.n
    empty = [(r, c) for r, c in cv.cells() if cv.g[r][c] == 0 and (r, c) != (m // 2, n // 2)]
    on_axis = [p for p in empty if cv.twin(*p) == p]
    off = [p for p in empty if cv.twin(*p) != p]
    if len(on_axis) >= 2 and rng.random() < 0.35:
        for p in rng.sample(on_axis, 2):
            cv.g[p[0]][p[1]] = S
        return True
    if not off:
        return False
    r, c = rng.choice(off)
    cv.put(r, c, S)
    return True


def foreign_map(seed: int, rows: int | None = None, cols: int | None = None) -> GameMap:
    """One valid foreign map for a seed (size and K drawn from it unless given)."""
    rng = random.Random(f"foreign:{seed}")
    for _ in range(500):
        m, n = (rows, cols) if rows and cols else rng.choice(SIZES)
        kinds = ["row", "col"] + (["diag", "antidiag"] if m == n else [])
        cv = Canvas(m, n, rng.choice(kinds))
        mode = rng.choice(("caves", "rings", "streaks", "pillars", "none"))
        _reefs(cv, rng, mode, rng.uniform(0.1, 0.5))
        if not _shields(cv, rng):
            continue
        if not _gold(
            cv, rng, rng.choice(("rim", "corners", "core", "lines", "flat", "piles", "coins"))
        ):
            continue
        k = 2 * rng.randint(10, 50)
        gm = GameMap(m, n, k, tuple(v for row in cv.g for v in row), f"foreign-{seed}")
        if not validate_text(format_map(gm)):
            return gm
    raise RuntimeError(f"no foreign map for seed {seed}")


if __name__ == "__main__":
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    for s in range(first, first + (int(sys.argv[2]) if len(sys.argv) > 2 else 1)):
        print(format_map(foreign_map(s)))
