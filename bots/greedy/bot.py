#!/usr/bin/env python3
"""Ocean Treasure reference bot: greedy gold collector.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT from the
previous turn, if any), writes MOVE.OUT (and STATE.OUT).  Deterministic,
standard library only, Python >= 3.8.

Strategy
--------
* Placement: score every 0-cell by sum(gold * 0.75**distance) over the gold
  cells (reef-avoiding distances) and name the best one.  A re-ask (STATE.OUT
  already exists at a placement turn) names the best cell not named before.
* Moves: the candidates are "stay" and the 4 neighbours that the boat can
  enter (no reef unless shielded, never the opponent's cell, which holds a boat
  or a wreck).  Cells the opponent could enter this turn are avoided whenever
  a candidate outside them exists.  Each candidate is scored by the gold on it
  plus a greedy plan from it: repeatedly go to the gold with the best
  value / distance ratio that can still be reached before the last turn,
  discounted by time and by the opponent being able to get there first.  A
  second plan first fetches a shield (reefs become passable, which can shorten
  the way to the gold).  The best candidate wins; ties keep the boat still.

STATE.OUT keeps the cells named at placement (to answer a re-ask with another
cell) and the shield cells seen last turn: one that vanishes while we are not
on it was taken by the opponent.  An unshielded opponent on a reef is a wreck
and stops being a threat (its cell stays deadly).

bots/greedy_c/greedy.c is a line-by-line C port: keep the two in step.
"""

from __future__ import annotations  # annotations stay strings: 3.8-safe, free

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
STATE_TAG = "GREEDY1"

REEF = -1      # grid value of a D (or W) cell
SHIELD = -2    # grid value of an S cell
GAMMA = 0.95   # discount per turn: earlier gold is worth more
PLACE_DECAY = 0.75
MAX_PICKS = 20  # length limit of a greedy plan (keeps a run fast)
LOST_RACE = 0.5   # gold the opponent reaches strictly earlier
TIED_RACE = 0.75  # gold the opponent reaches on the same turn


def decays(factor: float, count: int) -> list[float]:
    """[1, f, f*f, ...]: repeated products, as the C port computes them."""
    out = [1.0]
    for _ in range(count - 1):
        out.append(out[-1] * factor)
    return out


def read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def cell_value(tok: str) -> int:
    t = tok.upper()
    if t == "D" or t == "W":
        return REEF
    if t == "S":
        return SHIELD
    try:
        v = int(t)
    except ValueError:
        return REEF  # unknown symbol: keep away from it
    return v if v > 0 else 0


class Game(object):
    def __init__(self, text: str) -> None:
        tok = text.split()
        self.m, self.n, self.k = int(tok[0]), int(tok[1]), int(tok[2])
        pos = [int(x) for x in tok[3:7]]
        self.gold, self.shield = int(tok[7]), int(tok[8]) != 0
        cells = tok[9:9 + self.m * self.n]
        if len(cells) < self.m * self.n:
            cells += ["D"] * (self.m * self.n - len(cells))
        self.grid = [cell_value(t) for t in cells]
        self.size = self.m * self.n
        self.me = self.index(pos[0], pos[1])
        self.opp = self.index(pos[2], pos[3])
        m, n = self.m, self.n
        self.nbrs: list[list[int]] = []
        for r in range(m):
            for c in range(n):
                lst = []
                if r > 0:
                    lst.append((r - 1) * n + c)
                if c > 0:
                    lst.append(r * n + c - 1)
                if c < n - 1:
                    lst.append(r * n + c + 1)
                if r < m - 1:
                    lst.append((r + 1) * n + c)
                self.nbrs.append(lst)

    def index(self, i: int, j: int) -> int:
        """1-based (row, column) -> flat index, or -1 when outside the map."""
        if 1 <= i <= self.m and 1 <= j <= self.n:
            return (i - 1) * self.n + (j - 1)
        return -1

    def rc(self, idx: int) -> tuple[int, int]:
        return idx // self.n + 1, idx % self.n + 1

    def bfs(self, src: int, shield: bool, blocked: int = -1) -> list[int]:
        """Turns from src to every cell (-1 = unreachable)."""
        grid, nbrs = self.grid, self.nbrs
        dist = [-1] * self.size
        dist[src] = 0
        queue = [src]
        for u in queue:
            d = dist[u] + 1
            for v in nbrs[u]:
                if dist[v] < 0 and v != blocked and (shield or grid[v] != REEF):
                    dist[v] = d
                    queue.append(v)
        return dist


class State(object):
    """STATE.OUT: what this bot remembers between turns of a round."""

    def __init__(self, text: str | None) -> None:
        self.exists = text is not None  # at placement: this is a re-ask
        self.tried: list[tuple[int, int]] = []    # cells named at placement
        self.shields: list[tuple[int, int]] = []  # S cells seen last turn
        self.oppshield: bool | None = None        # None: no history
        lines = text.split("\n") if text is not None else []
        if not lines or lines[0].strip() != STATE_TAG:
            return
        for line in lines[1:]:
            parts = line.split()
            try:
                nums = [int(x) for x in parts[1:]]
            except ValueError:
                continue
            pairs = [(nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2)]
            if parts and parts[0] == "tried":
                self.tried = pairs
            elif parts and parts[0] == "shields":
                self.shields = pairs
            elif parts and parts[0] == "oppshield" and nums:
                self.oppshield = nums[0] != 0

    def write(self) -> None:
        lines = [
            STATE_TAG,
            "tried" + "".join(" %d %d" % p for p in self.tried),
            "shields" + "".join(" %d %d" % p for p in self.shields),
            "oppshield %d" % (1 if self.oppshield else 0),
        ]
        with open(STATE_FILE, "w") as f:
            f.write("\n".join(lines) + "\n")


def write_move(i: int, j: int) -> None:
    with open(MOVE_FILE, "w") as f:
        f.write("%d %d\n" % (i, j))


def place(g: Game, st: State) -> tuple[int, int]:
    """Best 0-cell near rich gold; on a re-ask, one not named before."""
    score = [0.0] * g.size
    powers = decays(PLACE_DECAY, g.size + 1)
    for u, v in enumerate(g.grid):
        if v > 0:
            dist = g.bfs(u, False)
            for c, d in enumerate(dist):
                if d > 0:
                    score[c] += v * powers[d]
    tried = set(g.index(i, j) for i, j in st.tried)
    best, fallback = -1, -1
    for c, v in enumerate(g.grid):
        if v != 0:
            continue
        if fallback < 0 or score[c] > score[fallback]:
            fallback = c
        if c not in tried and (best < 0 or score[c] > score[best]):
            best = c
    if best < 0:
        best = fallback
    if best < 0:  # no 0-cell at all (invalid map): any answer is as good
        return 1, 1
    return g.rc(best)


class Planner(object):
    def __init__(self, g: Game, opp_alive: bool, opp_shield: bool) -> None:
        self.g = g
        self.golds = [(u, v) for u, v in enumerate(g.grid) if v > 0]
        self.shields = [u for u, v in enumerate(g.grid) if v == SHIELD]
        self.cache: dict[tuple[int, bool], list[int]] = {}
        self.opp_dist: list[int] | None = None
        if opp_alive:
            self.opp_dist = g.bfs(g.opp, opp_shield, g.me)
        self.horizon = g.k  # moves left, this one included
        self.decay = decays(GAMMA, max(g.k, 1) + 2)

    def dist(self, src: int, shield: bool) -> list[int]:
        key = (src, shield)
        d = self.cache.get(key)
        if d is None:
            d = self.g.bfs(src, shield, self.g.opp)
            self.cache[key] = d
        return d

    def race(self, u: int, t: int) -> float:
        od = self.opp_dist
        if od is None or od[u] < 0:
            return 1.0
        if od[u] < t:
            return LOST_RACE
        if od[u] == t:
            return TIED_RACE
        return 1.0

    def chain(self, start: int, t: int, shield: bool, skip: int) -> float:
        """Discounted gold of a greedy plan leaving `start` after turn t."""
        total = 0.0
        cur = start
        taken = {skip}
        horizon = self.horizon
        for _ in range(MAX_PICKS):
            dist = self.dist(cur, shield)
            best, best_score, best_val, best_d = -1, 0.0, 0.0, 0
            for u, v in self.golds:
                d = dist[u]
                if d <= 0 or t + d > horizon or u in taken:
                    continue
                val = v * self.race(u, t + d)
                sc = val / d
                if sc > best_score:
                    best, best_score, best_val, best_d = u, sc, val, d
            if best < 0:
                break
            t += best_d
            total += best_val * self.decay[t]
            taken.add(best)
            cur = best
        return total

    def option_value(self, o: int) -> float:
        g = self.g
        v = g.grid[o]
        gain = v * self.decay[1] if (v > 0 and o != g.me) else 0.0
        shield = g.shield or v == SHIELD
        best = self.chain(o, 1, shield, o)
        if not shield and self.shields:
            dist = self.dist(o, False)
            for s in self.shields:
                d = dist[s]
                if d > 0 and 1 + d <= self.horizon:
                    best = max(best, self.chain(s, 1 + d, True, o))
        return gain + best


def choose_move(g: Game, st: State) -> tuple[int, int]:
    me, opp, grid = g.me, g.opp, g.grid
    # Which S cells vanished since last turn without us standing on them:
    # the opponent took a shield.  Without history, assume it might have one.
    now_shields = [u for u, v in enumerate(grid) if v == SHIELD]
    opp_shield = True if st.oppshield is None else st.oppshield
    for i, j in st.shields:
        u = g.index(i, j)
        if u >= 0 and grid[u] != SHIELD and u != me:
            opp_shield = True
    st.oppshield = opp_shield
    st.shields = [g.rc(u) for u in now_shields]

    # An opponent standing on a reef without a shield is a wreck: it will
    # never move again (its cell stays deadly all the same).
    opp_alive = opp >= 0 and not (grid[opp] == REEF and not opp_shield)
    danger = set()
    if opp_alive:
        for v in g.nbrs[opp]:
            if opp_shield or grid[v] != REEF:
                danger.add(v)

    options = [me] + g.nbrs[me]
    enterable = [o for o in options
                 if o == me or (o != opp and (g.shield or grid[o] != REEF))]
    safe = [o for o in enterable if o not in danger]
    pool = safe or enterable
    if len(pool) == 1:
        return g.rc(pool[0])
    planner = Planner(g, opp_alive, opp_shield)
    best, best_val = pool[0], None
    for o in pool:
        val = planner.option_value(o)
        if best_val is None or val > best_val + 1e-9:
            best, best_val = o, val
    return g.rc(best)


def main() -> None:
    text = read_text(MAP_FILE)
    if text is None:
        return
    try:
        g = Game(text)
    except (ValueError, IndexError):
        return  # unreadable MAP.INP: no MOVE.OUT, the boat stays
    try:
        run(g)
    except Exception:  # a bug must not cost the turn: stay where we are
        if g.me >= 0:
            write_move(*g.rc(g.me))
        elif 0 in g.grid:
            write_move(*g.rc(g.grid.index(0)))


def run(g: Game) -> None:
    st = State(read_text(STATE_FILE))
    if g.me < 0:  # placement turn ("0 0 0 0"); STATE.OUT present = re-ask
        if not st.exists:
            st.tried = []
        i, j = place(g, st)
        write_move(i, j)
        st.tried.append((i, j))
        st.shields = [g.rc(u) for u, v in enumerate(g.grid) if v == SHIELD]
        st.oppshield = False
    else:
        i, j = choose_move(g, st)
        write_move(i, j)
    st.write()


if __name__ == "__main__":
    main()
