#!/usr/bin/env python3
"""Ocean Treasure sparring bot "stepper": every first step judged apart, by its smooth chance.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic
(its playouts draw from a generator seeded by MAP.INP).

The reference and planner plan routes from where the boat is and re-time them
from each first move; duel searches a tree of both boats' moves.  This bot
judges each legal first step (stay, or each cell it can enter) on its own, by
playing the rest of the round out many times from it (flat Monte Carlo):

* a playout is the whole rest of the round under the exact rules (gold,
  shields, reefs, wrecks, collisions and swaps, the half-time gap rule, the
  treasure): we make the step, then both boats sail greedily: each heads for
  one of the best few gold cells by gold per step (gold the other boat is
  nearer to looking LOST_RACE as much), drawn at random, the best likelier;
* a playout ends in a margin (the final gold, or the half-time gap when it
  ends the round), scored smoothly as phi(margin / SMOOTH): one gold ahead
  counts almost as a win, ten ahead hardly more;
* every step gets the same random draws (common random numbers), so the steps
  differ by what they do, not by their luck; the playouts stop after a fixed
  amount of work (WORK boat moves, PLAYOUTS at most), with a clock only as a
  safety net;
* the step with the best mean chance is played; a step into a cell the
  opponent can enter this turn is mixed with what a collision would mean (a
  win when ahead, a loss when behind, a draw level), as likely as a boat in
  the opponent's place would seek it (the playouts' boats never ram).

STATE.OUT: K of the round, the shields seen (one that vanishes while we are
elsewhere went to the opponent), the treasure's value, placement asks.
"""

import math
import os
import random
import sys
import time

T0 = time.perf_counter()

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
TAG = "STEPPER2"
REEF, SHIELD = -1, -2
INF = 1 << 20
TOTAL = 100
WORK = 150000       # boat moves played out a turn (about 100 ms here); then it stops
PLAYOUTS = 400      # ... or after this many playouts of each step
SMOOTH = 2.0        # a playout's margin m counts phi(m / SMOOTH)
NEAREST = 14        # a playout's boat picks among the best of the nearest 14 gold cells
LOST_RACE = 0.4     # ... gold the other boat is nearer to looking this much to it
BUDGET = 0.9        # seconds: a safety net for a machine far slower than ours


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


def phi(x):
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x * 0.7071067811865476))


class Sea(object):
    """Geometry and cached distances (per source and shield); a wreck is never entered."""

    def __init__(self, rows, cols, grid, wreck):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.grid = grid
        self.centre = (rows // 2) * cols + cols // 2
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
            nb.append([g for g in lst if g != wreck])
        self.nb = nb
        self.water = [[g for g in lst if grid[g] != REEF] for lst in nb]
        self.cache = {}
        self.golds = [f for f in range(self.n) if grid[f] > 0]
        self.near = {}

    def dist(self, src, sh):
        key = src + src + (1 if sh else 0)
        d = self.cache.get(key)
        if d is None:
            adj = self.nb if sh else self.water
            d = [INF] * self.n
            d[src] = 0
            q = [src]
            for u in q:
                nd = d[u] + 1
                for v in adj[u]:
                    if d[v] == INF:
                        d[v] = nd
                        q.append(v)
            self.cache[key] = d
        return d

    def nearest(self, src, sh):
        """The gold cells by distance from src: [(d, cell)], reachable ones only."""
        key = src + src + (1 if sh else 0)
        o = self.near.get(key)
        if o is None:
            d = self.dist(src, sh)
            o = sorted((d[c], c) for c in self.golds if 0 < d[c] < INF)
            self.near[key] = o
        return o


class Roll(object):
    """Playouts of the rest of the round under the exact rules, both boats greedy."""

    def __init__(self, sea, H, t_half):
        self.sea, self.H, self.t_half = sea, H, t_half
        self.work = 0
        self.vmax = max([sea.grid[c] for c in sea.golds] or [1])

    def target(self, p, sh, other, taken, t, tv, rng):
        """A gold cell for a boat at p to head for: of the best few by gold per step
        (less for gold the other boat is nearer to), one drawn, the best likelier."""
        sea = self.sea
        left = self.H - t
        od = sea.dist(other, False) if other >= 0 else None
        best = []
        for d, c in sea.nearest(p, sh):
            if d > left:
                break
            if c in taken:
                continue
            v = sea.grid[c]
            if od is not None and od[c] < d:
                v *= LOST_RACE
            best.append((v / d, c))
            if len(best) >= NEAREST:
                break
        self.work += len(best) + 1
        if tv > 0 and sea.centre not in taken:
            d = sea.dist(p, sh)[sea.centre]
            if 0 < d <= left:
                best.append((tv / d, sea.centre))
        if not best:
            return -1
        best.sort(reverse=True)
        best = best[:3]
        w = [x * x for x, _ in best]
        r = rng.random() * sum(w)
        for (x, c), wi in zip(best, w):
            r -= wi
            if r <= 0:
                return c
        return best[0][1]

    def toward(self, p, c, sh, wreck):
        """The next cell on a shortest path from p to c (p when none)."""
        sea = self.sea
        dc = sea.dist(c, sh)
        want = dc[p] - 1
        for v in (sea.nb[p] if sh else sea.water[p]):
            if dc[v] == want and v != wreck:
                return v
        return p

    def playout(self, first, rng):
        """One playout from the root with our first move ``first``: the final margin
        (ours - theirs), or the half-time gap when that ends the round."""
        sea, H, t_half = self.sea, self.H, self.t_half
        grid = sea.grid
        p = [self.me, self.opp]
        g = [self.gold[0], self.gold[1]]
        sh = [self.sh[0], self.sh[1]]
        sunk = [False, self.opp_sunk]
        taken = set()
        tv = self.tv
        tgt = [-1, -1]
        for t in range(1, H + 1):
            moves = [p[0], p[1]]
            for i in (0, 1):
                if sunk[i]:
                    continue
                if i == 0 and t == 1:
                    moves[0] = first
                    continue
                c = tgt[i]
                if c < 0 or c in taken or c == p[i]:
                    c = tgt[i] = self.target(p[i], sh[i], -1 if sunk[1 - i] else p[1 - i],
                                             taken, t - 1, tv, rng)
                if c >= 0:
                    moves[i] = self.toward(p[i], c, sh[i], p[1 - i] if sunk[1 - i] else -1)
            self.work += 2
            a, b = moves
            if not sunk[0] and not sunk[1] and (a == b or (a == p[1] and b == p[0])):
                return g[0] - g[1]  # both sink: the gold as it stands
            for i, d in ((0, a), (1, b)):
                if sunk[i] or d == p[i]:
                    continue
                p[i] = d
                if sunk[1 - i] and d == p[1 - i]:
                    sunk[i] = True
                    continue
                v = grid[d]
                if v == REEF and not sh[i]:
                    sunk[i] = True
                elif d in taken:
                    pass
                elif v == SHIELD:
                    sh[i] = True
                    taken.add(d)
                elif v > 0:
                    g[i] += v
                    taken.add(d)
                elif d == sea.centre and tv > 0:
                    g[i] += tv
                    taken.add(d)
            if sunk[0] and sunk[1]:
                break
            if t == t_half:
                x = g[0] - g[1]
                if x > 20 or x < -20:
                    return x
                tv = 3 * abs(x) // 4
        return g[0] - g[1]


# --------------------------------------------------------------------------
# Placement and one turn
# --------------------------------------------------------------------------

def place(sea, k, tried):
    """The empty cell with the most gold close by (within the turns there are); at a
    re-ask the same cell once more, then the next best."""
    grid = sea.grid
    zeros = [f for f in range(sea.n) if grid[f] == 0]
    golds = [(f, grid[f]) for f in sea.golds]
    horizon = max(1, k - 1)
    scored = []
    for z in zeros:
        d = sea.dist(z, False)
        scored.append((sum(v * 0.85 ** d[f] for f, v in golds if d[f] <= horizon), -z, z))
    scored.sort(reverse=True)
    order = [z for _, _, z in scored] or [0]
    if len(tried) == 1:
        return tried[0]
    fresh = [z for z in order if z not in tried]
    return (fresh or order)[0]


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


def decide(text, state_text, start=None):
    """(MOVE.OUT text, STATE.OUT dict) for one MAP.INP."""
    deadline = (time.perf_counter() if start is None else start) + BUDGET
    tok = text.split()
    R, C, k = int(tok[0]), int(tok[1]), int(tok[2])
    i1, j1, i2, j2 = (int(x) for x in tok[3:7])
    my_gold, my_sh = int(tok[7]), int(tok[8]) != 0
    cells = tok[9:9 + R * C]
    cells += ["D"] * (R * C - len(cells))
    grid = [cell_of(t) for t in cells]
    st = parse_state(state_text)
    shields = [f for f in range(R * C) if grid[f] == SHIELD]
    if i1 == 0:
        sea = Sea(R, C, grid, -1)
        tried = st.get("tries", []) if state_text else []
        z = place(sea, k, tried)
        out = {"k": [k], "tries": tried + [z], "sh": shields, "os": [0], "tv": [-1]}
        return "%d %d\n" % (z // C + 1, z % C + 1), out
    me = (i1 - 1) * C + (j1 - 1)
    opp = (i2 - 1) * C + (j2 - 1)
    k_total = st.get("k", [max(k, 100)])[0]
    if k_total < k:
        k_total = k + (k % 2)
    t_half = k - k_total // 2 if k > k_total // 2 else 0
    centre = (R // 2) * C + C // 2
    tv = st.get("tv", [-1])[0]
    if t_half == 0 and tv < 0:
        tv = max(0, grid[centre])
    opp_sh = st.get("os", [0])[0] != 0
    for f in st.get("sh", []):
        if 0 <= f < R * C and grid[f] != SHIELD and f != me:
            opp_sh = True
    on_map = sum(v for v in grid if v > 0)
    opp_gold = max(0, TOTAL + (tv if t_half == 0 and tv > 0 else 0) - my_gold - on_map)
    opp_sunk = grid[opp] == REEF and not opp_sh
    sea = Sea(R, C, grid, opp if opp_sunk else -1)
    out = {"k": [k_total], "sh": shields, "os": [1 if opp_sh else 0], "tv": [tv]}
    roll = Roll(sea, k, t_half)
    roll.me, roll.opp = me, opp
    roll.gold, roll.sh, roll.opp_sunk = (my_gold, opp_gold), (my_sh, opp_sh), opp_sunk
    roll.tv = -1 if t_half > 0 else 0  # on the map after half time: a gold cell
    steps = [me] + [f for f in (sea.nb[me] if my_sh else sea.water[me])]
    sums = [0.0] * len(steps)
    n = 0
    seed = sum(ord(ch) * (i + 1) for i, ch in enumerate(text[:400]))
    while roll.work < WORK and time.perf_counter() < deadline:
        for i, f in enumerate(steps):
            # The same draws for every step (common random numbers): the steps differ
            # by what they do, not by their luck.
            rng = random.Random(seed * 1000003 + n)
            sums[i] += phi(roll.playout(f, rng) / SMOOTH)
        n += 1
        if n >= PLAYOUTS:
            break
    opp_next = set()
    if not opp_sunk:
        opp_next = {opp} | set(sea.nb[opp] if opp_sh else sea.water[opp])
    lead = my_gold - opp_gold
    best, best_move = None, me
    for i, f in enumerate(steps):
        value = sums[i] / max(1, n)
        if f in opp_next:
            if lead > 0:
                crash, p = 1.0, 0.3
            elif lead == 0:
                crash, p = (0.5 if my_gold > 0 else 0.25), 0.4
            else:
                crash, p = 0.0, 0.9
            value = (1 - p) * value + p * crash
        value += 1e-6 * (grid[f] > 0) + 1e-7 * (f != me)
        if best is None or value > best:
            best, best_move = value, f
    return "%d %d\n" % (best_move // C + 1, best_move % C + 1), out


def main():
    global T0
    # The clock counts from the start of the program; a harness that calls main()
    # again in the same process starts it anew.
    start, T0 = (T0 if T0 is not None else time.perf_counter()), None
    text = read(MAP_FILE)
    if text is None:
        return
    try:
        move, st = decide(text, read(STATE_FILE), start)
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
