#!/usr/bin/env python3
"""Ocean Treasure sparring bot "hunter": a simultaneous-move game-tree search.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic.

It searches the game as what it is, a two-player game of simultaneous moves,
the way grid-game bots (Tron, snakes) do:

* a tree over both boats' moves, one turn deep (two when the boats are within
  three steps), every joint move resolved with the exact rules: gold,
  shields, reefs, collisions, swaps, wrecks, the half-time gap rule and the
  treasure;
* at each node the boat assumes the worst of the opponent's moves (it sees
  ours): rams when a collision wins, dodges when it loses, races for gold it
  can reach first;
* leaves are scored by territory: the gold each boat reaches before the other
  (a shield's short cut counted), collected along a quick route (always on to
  the most gold per step) within the turns left, added to the gold already
  held and turned into a chance of winning; the coming treasure is credited
  in part to the boat nearer to the centre, and a projected half-time gap
  over 20 counts as the round's end.

STATE.OUT: K of the round, the shields seen (a shield that vanishes while we
are elsewhere went to the opponent) and the treasure's value.
"""

import os
import sys

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
TAG = "HUNTER2"
REEF, SHIELD = -1, -2
INF = 1 << 20
TOTAL = 100
DECAY = 0.9       # territory: gold d steps away counts DECAY ** d
CONTESTED = 0.5   # share of a cell both boats reach at the same time
TREASURE_GUESS = 0.5  # share of the coming treasure the nearer boat is credited with


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return None


def cell_of(tok):
    t = tok.upper()
    if t in ("D", "W"):
        return REEF
    if t == "S":
        return SHIELD
    try:
        return max(0, int(t))
    except ValueError:
        return REEF


class Sea(object):
    """Geometry and shortest paths (cached per source cell and shield mode)."""

    def __init__(self, rows, cols, grid):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.centre = (rows // 2) * cols + cols // 2
        reef = [v == REEF for v in grid]
        nb = []
        for f in range(self.n):
            r, c = divmod(f, cols)
            lst = []
            if r > 0:
                lst.append(f - cols)
            if c > 0:
                lst.append(f - 1)
            if c < cols - 1:
                lst.append(f + 1)
            if r < rows - 1:
                lst.append(f + cols)
            nb.append(lst)
        self.nb = nb
        self.water_nb = [[g for g in lst if not reef[g]] for lst in nb]
        self.cache = {}
        self.wreck = -1  # never entered
        self.pw = [DECAY ** d for d in range(self.n + 2)]

    def dist(self, src, sh):
        key = src + src + (1 if sh else 0)
        d = self.cache.get(key)
        if d is None:
            adj = self.nb if sh else self.water_nb
            d = [INF] * self.n
            d[src] = 0
            q = [src]
            wreck = self.wreck
            for u in q:
                nd = d[u] + 1
                for v in adj[u]:
                    if d[v] == INF and v != wreck:
                        d[v] = nd
                        q.append(v)
            self.cache[key] = d
        return d

    def reach(self, src, sh, shields):
        """Distances from src, through a shield when that is shorter (unshielded boats)."""
        key = (src, sh, tuple(shields))
        d = self.cache.get(key)
        if d is None:
            d = self.dist(src, sh)
            if not sh and shields:
                d = d[:]
                for s in shields:
                    ds = d[s]
                    if ds >= INF:
                        continue
                    via = self.dist(s, True)
                    for f in range(self.n):
                        x = ds + via[f]
                        if x < d[f]:
                            d[f] = x
            self.cache[key] = d
        return d


class State(object):
    """A position of the round; seat 0 is us.  ``t`` = moves made since the root."""

    __slots__ = ("grid", "pos", "sh", "gold", "sunk", "t", "shields", "done", "half_end")

    def copy(self):
        s = State()
        s.grid = self.grid[:]
        s.pos = self.pos[:]
        s.sh = self.sh[:]
        s.gold = self.gold[:]
        s.sunk = self.sunk[:]
        s.t = self.t
        s.shields = self.shields[:]
        s.done = self.done
        s.half_end = self.half_end
        return s


class Search(object):
    def __init__(self, sea, H, t_half):
        self.sea = sea
        self.H = H            # moves left at the root, this one included
        self.t_half = t_half  # the move after which the half-time check comes (0: passed)

    def step(self, s, m0, m1):
        """A copy of s after one turn (moves are legal target cells)."""
        s = s.copy()
        s.t += 1
        p0, p1 = s.pos
        d0 = p0 if s.sunk[0] else m0
        d1 = p1 if s.sunk[1] else m1
        if not s.sunk[0] and not s.sunk[1] and (d0 == d1 or (d0 == p1 and d1 == p0)):
            s.sunk[0] = s.sunk[1] = True
            s.done = True
            return s
        for i, d, p in ((0, d0, p0), (1, d1, p1)):
            if d == p:
                continue
            s.pos[i] = d
            o = 1 - i
            if s.sunk[o] and s.pos[o] == d:
                s.sunk[i] = True
                continue
            v = s.grid[d]
            if v == REEF:
                if not s.sh[i]:
                    s.sunk[i] = True
            elif v == SHIELD:
                s.sh[i] = True
                s.grid[d] = 0
                s.shields = [x for x in s.shields if x != d]
            elif v > 0:
                s.gold[i] += v
                s.grid[d] = 0
        if s.sunk[0] and s.sunk[1]:
            s.done = True
        elif s.t == self.t_half:
            x = s.gold[0] - s.gold[1]
            if x > 20 or x < -20:
                s.done = s.half_end = True
            else:
                s.grid[self.sea.centre] = 3 * abs(x) // 4
        if s.t >= self.H:
            s.done = True
        return s

    def moves(self, s, i):
        """Seat i's moves that do not sink it by themselves (stay first)."""
        p = s.pos[i]
        if s.sunk[i]:
            return [p]
        out = [p]
        o = 1 - i
        for v in self.sea.nb[p]:
            if s.grid[v] == REEF and not s.sh[i]:
                continue
            if s.sunk[o] and s.pos[o] == v:
                continue
            out.append(v)
        return out

    def evaluate(self, s):
        """Our chance of winning at s (exact when the round has ended)."""
        x = s.gold[0] - s.gold[1]
        if s.done:
            # The result, and the margin as a tie-break (a lost cause still collects).
            if x > 0:
                return 1.0 + 0.0001 * x
            if x < 0:
                return 0.0001 * x
            return 0.5 if s.gold[0] > 0 else 0.2
        sea = self.sea
        left = self.H - s.t
        grid = s.grid
        pw = sea.pw
        dist = [None, None]
        for i in (0, 1):
            if not s.sunk[i]:
                dist[i] = sea.reach(s.pos[i], s.sh[i], s.shields)
        da, db = dist
        # Territory: what each boat reaches first, within the turns left.  A boat
        # collects about one cell in two turns: the budget caps what counts.
        mine = []
        theirs = []
        for c, v in enumerate(grid):
            if v <= 0:
                continue
            a = da[c] if da is not None else INF
            b = db[c] if db is not None else INF
            if a < b:
                if a <= left:
                    mine.append((a, v, c))
            elif b < a:
                if b <= left:
                    theirs.append((b, v, c))
            elif a <= left:
                mine.append((a, v * CONTESTED, c))
                theirs.append((b, v * CONTESTED, c))
        if da is not None:
            ta = self.chain(s.pos[0], s.sh[0], s.shields, mine, left)
        else:
            ta = 0.0
        if db is not None:
            tb = self.chain(s.pos[1], s.sh[1], s.shields, theirs, left)
        else:
            tb = 0.0
        # The coming treasure: 3/4 of the half-time gap, a share to the nearer boat.
        if self.t_half > s.t:
            gap = x + ta - tb
            c = sea.centre
            a = da[c] if da is not None else INF
            b = db[c] if db is not None else INF
            if abs(gap) <= 20 and a != b:
                tv = TREASURE_GUESS * 0.75 * abs(gap)
                if a < b:
                    ta += tv
                else:
                    tb += tv
        est = x + ta - tb
        if self.t_half > s.t:
            # The half-time rule: a projected gap over 20 ends the round.
            if est > 20:
                est += 10
            elif est < -20:
                est -= 10
        scale = 3.0 + 0.5 * left ** 0.5
        z = est / scale
        u = 1.0 / (1.0 + 2.718281828 ** (-z)) if -30 < z < 30 else (1.0 if z > 0 else 0.0)
        return 0.97 * u + 0.03 * (0.5 + est / 200.0)

    def chain(self, start, sh, shields, cells, left):
        """Discounted gold of a quick route over ``cells`` ((distance, value, cell)):
        from ``start``, always on to the cell with the most gold per step, while
        the turns last."""
        sea = self.sea
        pw = sea.pw
        todo = {c: v for _, v, c in cells}
        t, tot, cur = 0, 0.0, start
        while todo:
            d = sea.reach(cur, sh, shields)
            best, nxt, nd = 0.0, -1, 0
            for c, v in todo.items():
                dc = d[c]
                if dc == 0 or t + dc > left:
                    continue
                r = v / dc
                if r > best:
                    best, nxt, nd = r, c, dc
            if nxt < 0:
                break
            t += nd
            tot += todo.pop(nxt) * pw[t]
            cur = nxt
        return tot

    def value(self, s, depth):
        """Max over our moves of the min over its moves (it sees our move)."""
        if s.done or depth == 0:
            return self.evaluate(s)
        best = -2.0
        B = self.moves(s, 1)
        for a in self.moves(s, 0):
            worst = 3.0
            for b in B:
                v = self.value(self.step(s, a, b), depth - 1)
                if v < worst:
                    worst = v
                    if worst <= best:
                        break  # this move cannot beat the best one
            if worst > best:
                best = worst
        return best

    def choose(self, root, depth):
        A = self.moves(root, 0)
        B = self.moves(root, 1)
        scores = []
        for a in A:
            vals = [self.value(self.step(root, a, b), depth - 1) for b in B]
            worst = min(vals)
            mean = sum(vals) / len(vals)
            scores.append((round(worst + 0.25 * mean, 6), mean))
        k = max(range(len(A)), key=lambda i: (scores[i], -i))
        return A[k]


# --------------------------------------------------------------------------
# Placement
# --------------------------------------------------------------------------

def place(sea, grid, k, tried):
    """The empty cell with the most gold nearby (within the turns there are)."""
    zeros = [f for f, v in enumerate(grid) if v == 0]
    golds = [(f, v) for f, v in enumerate(grid) if v > 0]
    horizon = k - 1
    scored = []
    for z in zeros:
        d = sea.dist(z, False)
        scored.append((sum(v * 0.85 ** d[f] for f, v in golds if d[f] <= horizon), -z, z))
    scored.sort(reverse=True)
    order = [z for _, _, z in scored]
    if tried and len(tried) == 1:
        # Asked again: the cell facing our first choice across the axis is as good.
        first = tried[0]
        r, c = divmod(first, sea.cols)
        for twin in ((sea.rows - 1 - r) * sea.cols + c, r * sea.cols + sea.cols - 1 - c):
            if twin != first and twin in zeros and mirrored(grid, sea, twin, first):
                return twin
    fresh = [z for z in order if z not in tried]
    return (fresh or order or [0])[0]


def mirrored(grid, sea, a, b):
    """True when the map is symmetric about the axis that maps a to b."""
    R, C = sea.rows, sea.cols
    if a % C == b % C:
        return all(grid[f] == grid[(R - 1 - f // C) * C + f % C] for f in range(sea.n))
    return all(grid[f] == grid[(f // C) * C + C - 1 - f % C] for f in range(sea.n))


# --------------------------------------------------------------------------
# One turn
# --------------------------------------------------------------------------

def parse_state(text):
    st = {}
    if not text:
        return st
    lines = text.split("\n")
    if lines[0].strip() != TAG:
        return st
    for ln in lines[1:]:
        p = ln.split()
        if p:
            try:
                st[p[0]] = [int(x) for x in p[1:]]
            except ValueError:
                pass
    return st


def decide(text, state_text):
    """(MOVE.OUT text, STATE.OUT dict) for one MAP.INP."""
    tok = text.split()
    R, C, k = int(tok[0]), int(tok[1]), int(tok[2])
    i1, j1, i2, j2 = (int(x) for x in tok[3:7])
    my_gold, my_sh = int(tok[7]), int(tok[8]) != 0
    cells = tok[9:9 + R * C]
    cells += ["D"] * (R * C - len(cells))
    grid = [cell_of(t) for t in cells]
    sea = Sea(R, C, grid)
    st = parse_state(state_text)
    shields = [f for f, v in enumerate(grid) if v == SHIELD]
    if i1 == 0:
        tried = st.get("tries", []) if state_text else []
        z = place(sea, grid, k, tried)
        out = {"k": [k], "tries": tried + [z], "sh": shields, "os": [0], "tv": [-1]}
        return "%d %d\n" % (z // C + 1, z % C + 1), out
    me = (i1 - 1) * C + (j1 - 1)
    opp = (i2 - 1) * C + (j2 - 1)
    # K of the round; without STATE.OUT (a lost file) assume the longest round.
    k_total = st.get("k", [max(k, 100)])[0]
    if k_total < k:
        k_total = k + (k % 2)
    t_half = k - k_total // 2 if k > k_total // 2 else 0
    tv = st.get("tv", [-1])[0]
    if t_half == 0 and tv < 0:
        tv = max(0, grid[sea.centre])
    opp_sh = st.get("os", [0])[0] != 0
    for f in st.get("sh", []):
        if 0 <= f < sea.n and grid[f] != SHIELD and f != me:
            opp_sh = True
    on_map = sum(v for v in grid if v > 0)
    opp_gold = max(0, TOTAL + (tv if t_half == 0 and tv > 0 else 0) - my_gold - on_map)
    opp_sunk = grid[opp] == REEF and not opp_sh
    if opp_sunk:
        sea.wreck = opp
    s = State()
    s.grid = grid
    s.pos = [me, opp]
    s.sh = [my_sh, opp_sh]
    s.gold = [my_gold, opp_gold]
    s.sunk = [False, opp_sunk]
    s.t = 0
    s.shields = shields
    s.done = False
    s.half_end = False
    search = Search(sea, k, t_half)
    close = not opp_sunk and sea.dist(me, True)[opp] <= 3
    depth = 2 if close else 1
    move = search.choose(s, depth)
    out = {"k": [k_total], "sh": shields, "os": [1 if opp_sh else 0], "tv": [tv]}
    return "%d %d\n" % (move // C + 1, move % C + 1), out


def main():
    text = read(MAP_FILE)
    if text is None:
        return
    try:
        move, st = decide(text, read(STATE_FILE))
    except Exception:
        tok = text.split()
        move = "%s %s\n" % (tok[3], tok[4]) if len(tok) > 4 and tok[3] != "0" else "1 1\n"
        st = None
    with open(MOVE_FILE, "w") as f:
        f.write(move)
    if st is not None:
        with open(STATE_FILE, "w") as f:
            f.write(TAG + "\n" + "".join(
                "%s %s\n" % (key, " ".join(str(v) for v in vals)) for key, vals in st.items()))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
