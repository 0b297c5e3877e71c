#!/usr/bin/env python3
"""Ocean Treasure sparring bot "duel": decoupled UCT over both boats' simultaneous moves.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic.

Neither the reference (routes, then a short tree of the next turn or two) nor
planner (whole routes) searches the game itself deeply.  This bot does: a
Monte Carlo tree search of the simultaneous-move game, as game programs for
simultaneous games do (decoupled UCT):

* every node is a position after some turns, resolved with the exact rules
  (gold, shields, reefs, collisions, swaps, wrecks, the half-time gap rule and
  the treasure);
* at a node each boat picks its own move by UCB1 over its own statistics,
  blind to the other's pick this turn, which is what a turn is: the pair is
  resolved and the search goes down to that child;
* a new node is scored by a quick look at the rest of the round: the gold
  each boat holds, plus what it collects of the cells it reaches first (half
  of those both reach at once) along a quick route, always on to the most gold
  per step (CHAIN stops, a stop t moves ahead counting DECAY ** t), the
  half-time rule and the coming treasure (a share of it to the nearer boat),
  turned into a chance of ending ahead; the score goes up the path, each boat
  counting it from its own side;
* the search stops after a fixed amount of work (WORK: cells looked at by the
  leaves' routes, LEVEL_WORK a level of a descent), so the same position gives
  the same move on any machine, with a clock only as a safety net (BUDGET
  seconds), then plays the move it tried most.  About 100 ms a turn here.

STATE.OUT: K of the round, the shields seen (one that vanishes while we are
elsewhere went to the opponent), the treasure's value, placement asks.
"""

import math
import os
import sys
import time

T0 = time.perf_counter()

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
TAG = "DUEL1"
REEF, SHIELD = -1, -2
INF = 1 << 20
TOTAL = 100
WORK = 160000       # work a turn (see the docstring); then the search stops.  60000
                    # (a third of the time) won 2 and drew 4 of 12 games against hunter
LEVEL_WORK = 12     # work counted for a level of a descent (the two picks, the rules)
BUDGET = 0.9        # seconds: a safety net for a machine far slower than ours
EXPLORE = 0.6       # UCB1's exploration constant (values are chances in 0..1)
DECAY = 0.88        # leaf: gold t moves ahead counts DECAY ** t
CONTESTED = 0.5     # ... a cell both reach at once counts half to each
CHAIN = 8           # ... along a quick route of at most this many stops (the cells left
                    # after them count half, as territory)
TREASURE_GUESS = 0.5  # the coming treasure: this share of it to the nearer boat


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
    """Geometry, the gold cells as numbered items, and cached distances."""

    def __init__(self, rows, cols, grid):
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
            nb.append(lst)
        self.nb = nb
        self.water = [[g for g in lst if grid[g] != REEF] for lst in nb]
        self.cache = {}
        self.orders = {}
        # Items: the gold cells, then the shields; the treasure is the centre cell.
        self.gold_cells = [f for f in range(self.n) if grid[f] > 0]
        self.gold_vals = [grid[f] for f in self.gold_cells]
        self.item = {}
        for i, f in enumerate(self.gold_cells):
            self.item[f] = i
        self.shields = [f for f in range(self.n) if grid[f] == SHIELD]
        self.shield_bit = {}
        for j, f in enumerate(self.shields):
            self.shield_bit[f] = 1 << (len(self.gold_cells) + j)
        self.centre_bit = 1 << (len(self.gold_cells) + len(self.shields))
        self.pw = [DECAY ** d for d in range(self.n + 2)]

    def order(self, src, sh):
        """The gold cells by distance from src, nearest first: [(d, cell)] (reachable)."""
        key = src + src + (1 if sh else 0)
        o = self.orders.get(key)
        if o is None:
            d = self.dist(src, sh)
            o = sorted((d[c], c) for c in self.gold_cells if 0 < d[c] < INF)
            self.orders[key] = o
        return o

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


class Node(object):
    """A position: boats (seat 0 is us), gold, shields, sunk, items taken, moves made."""

    __slots__ = ("pos", "gold", "sh", "sunk", "taken", "t", "tv", "done",
                 "moves", "n", "w", "kids", "visits", "value")

    def __init__(self, pos, gold, sh, sunk, taken, t, tv, done):
        self.pos, self.gold, self.sh, self.sunk = pos, gold, sh, sunk
        self.taken, self.t, self.tv, self.done = taken, t, tv, done
        self.moves = None
        self.kids = None
        self.visits = 0
        self.value = 0.0


class Search(object):
    def __init__(self, sea, H, t_half):
        self.sea = sea
        self.H = H              # moves left, this one included
        self.t_half = t_half    # the move after which the half-time check comes (0: passed)
        self.work = 0

    # ------------------------------------------------------------ the rules

    def step(self, s, a, b):
        """The position after our move a and its move b (both cells; stay = own cell)."""
        sea = self.sea
        p0, p1 = s.pos
        sunk0, sunk1 = s.sunk
        d0 = p0 if sunk0 else a
        d1 = p1 if sunk1 else b
        t = s.t + 1
        if not sunk0 and not sunk1 and (d0 == d1 or (d0 == p1 and d1 == p0)):
            # Collision or swap: both sink, the gold frozen.
            pos = (d0, d0) if d0 == d1 else (p0, p1)
            return Node(pos, s.gold, s.sh, (True, True), s.taken, t, s.tv, True)
        gold = list(s.gold)
        sh = list(s.sh)
        sunk = [sunk0, sunk1]
        taken = s.taken
        pos = (d0, d1)
        for i, d, p in ((0, d0, p0), (1, d1, p1)):
            if d == p or sunk[i]:
                continue
            if sunk[1 - i] and pos[1 - i] == d:
                sunk[i] = True
                continue
            v = sea.grid[d]
            if v == REEF:
                if not sh[i]:
                    sunk[i] = True
            elif v == SHIELD:
                bit = sea.shield_bit[d]
                if not taken & bit:
                    taken |= bit
                    sh[i] = True
            elif v > 0:
                bit = 1 << sea.item[d]
                if not taken & bit:
                    taken |= bit
                    gold[i] += v
            if d == sea.centre and s.tv > 0 and not taken & sea.centre_bit:
                taken |= sea.centre_bit
                gold[i] += s.tv
        tv = s.tv
        done = sunk[0] and sunk[1]
        if not done and t == self.t_half:
            x = gold[0] - gold[1]
            if x > 20 or x < -20:
                done = True
            else:
                tv = 3 * abs(x) // 4
        if t >= self.H:
            done = True
        return Node(pos, (gold[0], gold[1]), (sh[0], sh[1]), (sunk[0], sunk[1]),
                    taken, t, tv, done)

    def options(self, s, i):
        """Seat i's moves that do not sink it by themselves (stay first)."""
        p = s.pos[i]
        if s.sunk[i]:
            return [p]
        sea = self.sea
        o = 1 - i
        wreck = s.pos[o] if s.sunk[o] else -1
        out = [p]
        adj = sea.nb[p] if s.sh[i] else sea.water[p]
        for v in adj:
            if v != wreck:
                out.append(v)
        return out

    # ------------------------------------------------------------ evaluation

    def result(self, s):
        x = s.gold[0] - s.gold[1]
        if x > 0:
            return 1.0
        if x < 0:
            return 0.0
        return 0.5 if s.gold[0] > 0 else 0.25

    def evaluate(self, s):
        """Our chance of ending ahead at s (the result when the round has ended)."""
        if s.done:
            return self.result(s)
        sea = self.sea
        left = self.H - s.t
        da = None if s.sunk[0] else sea.dist(s.pos[0], s.sh[0])
        db = None if s.sunk[1] else sea.dist(s.pos[1], s.sh[1])
        taken = s.taken
        mine, theirs = [], []
        cells, vals = sea.gold_cells, sea.gold_vals
        for i in range(len(cells)):
            if taken >> i & 1:
                continue
            c = cells[i]
            a = da[c] if da is not None else INF
            b = db[c] if db is not None else INF
            if a < b:
                if a <= left:
                    mine.append((c, vals[i]))
            elif b < a:
                if b <= left:
                    theirs.append((c, vals[i]))
            elif a <= left:
                mine.append((c, vals[i] * CONTESTED))
                theirs.append((c, vals[i] * CONTESTED))
        self.work += len(cells)
        ta = self.chain(s.pos[0], s.sh[0], mine, left) if mine else 0.0
        tb = self.chain(s.pos[1], s.sh[1], theirs, left) if theirs else 0.0
        x = s.gold[0] - s.gold[1]
        tv = s.tv
        c = sea.centre
        if self.t_half > s.t:
            gap = x + (ta - tb) * 0.5
            if -20 <= gap <= 20:
                tv = 0.75 * abs(gap)
        if tv > 0 and not taken & sea.centre_bit:
            a = da[c] if da is not None else INF
            b = db[c] if db is not None else INF
            share = TREASURE_GUESS if self.t_half > s.t else 0.8
            if a < b:
                ta += share * tv
            elif b < a:
                tb += share * tv
        est = x + ta - tb
        if self.t_half > s.t:
            if est > 20:
                est += 8
            elif est < -20:
                est -= 8
        z = est / (3.0 + 0.5 * math.sqrt(left))
        if z > 30:
            return 1.0
        if z < -30:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    def chain(self, start, sh, cells, left):
        """Discounted gold of a quick route over ``cells`` ((cell, value)) from
        ``start``: always on to the most gold per step, while the turns last
        (CHAIN stops at most; the cells left after them count half, as territory)."""
        sea = self.sea
        pw = sea.pw
        todo = dict(cells)
        vmax = max(todo.values())
        t, tot, cur = 0, 0.0, start
        work = 0
        for _ in range(CHAIN):
            best, nxt, nd = 0.0, -1, 0
            room = left - t
            # Nearest first: a cell d steps away is worth at most vmax / d a step.
            for d, c in sea.order(cur, sh):
                if d > room or vmax <= best * d:
                    break
                work += 1
                v = todo.get(c)
                if v is not None and v > best * d:
                    best, nxt, nd = v / d, c, d
            if nxt < 0:
                self.work += work
                return tot
            t += nd
            tot += todo.pop(nxt) * pw[t]
            cur = nxt
            if not todo:
                break
        if todo:
            d = sea.dist(cur, sh)
            room = left - t
            for c, v in todo.items():
                if d[c] <= room:
                    tot += v * pw[t + d[c]] * 0.5
            work += len(todo)
        self.work += work
        return tot

    # ------------------------------------------------------------ the search

    def descend(self, s):
        """One UCT descent from s: the value it found (our chance), backed up."""
        self.work += LEVEL_WORK
        if s.done:
            v = self.result(s)
        elif s.moves is None:
            s.moves = (self.options(s, 0), self.options(s, 1))
            s.n = ([0] * len(s.moves[0]), [0] * len(s.moves[1]))
            s.w = ([0.0] * len(s.moves[0]), [0.0] * len(s.moves[1]))
            s.kids = {}
            v = self.evaluate(s)
        else:
            ia = self.pick(s, 0)
            ib = self.pick(s, 1)
            key = ia * 8 + ib
            kid = s.kids.get(key)
            if kid is None:
                kid = s.kids[key] = self.step(s, s.moves[0][ia], s.moves[1][ib])
            v = self.descend(kid)
            s.n[0][ia] += 1
            s.w[0][ia] += v
            s.n[1][ib] += 1
            s.w[1][ib] += 1.0 - v
        s.visits += 1
        s.value += v
        return v

    def pick(self, s, i):
        n, w = s.n[i], s.w[i]
        total = s.visits
        best, bi = -1.0, 0
        lt = math.log(total + 1)
        for k in range(len(n)):
            nk = n[k]
            if nk == 0:
                return k
            u = w[k] / nk + EXPLORE * math.sqrt(lt / nk)
            if u > best:
                best, bi = u, k
        return bi

    def choose(self, root, deadline):
        while self.work < WORK and time.perf_counter() < deadline:
            self.descend(root)
            if root.done:
                break
        if root.moves is None:
            return root.pos[0]
        n, w = root.n[0], root.w[0]
        k = max(range(len(n)), key=lambda i: (n[i], w[i] / max(1, n[i]), -i))
        return root.moves[0][k]


# --------------------------------------------------------------------------
# Placement and one turn
# --------------------------------------------------------------------------

def place(sea, k, tried):
    """The empty cell with the most gold close by; at a re-ask the same cell once
    more, then the next best."""
    grid = sea.grid
    zeros = [f for f in range(sea.n) if grid[f] == 0]
    golds = [(f, v) for f, v in enumerate(grid) if v > 0]
    horizon = max(1, k - 1)
    scored = []
    for z in zeros:
        d = sea.dist(z, False)
        scored.append((sum(v * 0.8 ** d[f] for f, v in golds if d[f] <= horizon), -z, z))
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
    sea = Sea(R, C, grid)
    st = parse_state(state_text)
    if i1 == 0:
        tried = st.get("tries", []) if state_text else []
        z = place(sea, k, tried)
        out = {"k": [k], "tries": tried + [z], "sh": sea.shields, "os": [0], "tv": [-1]}
        return "%d %d\n" % (z // C + 1, z % C + 1), out
    me = (i1 - 1) * C + (j1 - 1)
    opp = (i2 - 1) * C + (j2 - 1)
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
    # The treasure on the map is a gold cell like any other; one still to come is tv.
    root = Node((me, opp), (my_gold, opp_gold), (my_sh, opp_sh), (False, opp_sunk),
                0, 0, -1 if t_half > 0 else 0, False)
    search = Search(sea, k, t_half)
    move = search.choose(root, deadline)
    out = {"k": [k_total], "sh": sea.shields, "os": [1 if opp_sh else 0], "tv": [tv]}
    return "%d %d\n" % (move // C + 1, move % C + 1), out


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
