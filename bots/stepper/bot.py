#!/usr/bin/env python3
"""Ocean Treasure sparring bot "stepper": a route plan for every first step, judged by its chance.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic.

The reference and planner both plan routes from where the boat is and then
re-time them from each first move.  This bot plans afresh from every legal
first step (stay, or each cell it can enter), against each of a few models of
the opponent, and plays the step with the best smooth chance of ending ahead:

* opponent models (MODELS), simulated over the turns left from where both
  boats are: a quick collector that heads for the most gold per step, gold we
  reach first looking less to it (LOST_RACE); the same blind to us; one that
  goes to the nearest gold.  Each gives when it takes each cell, its gold at
  half time and at the end, and where it is at half time;
* for each first step and each model, a beam search over our routes (gold
  cells, shields, the treasure) from the cell the step leads to: a cell is ours
  when we arrive before the model does (half when together; LATE_SHARE of it
  when the model never goes there but the opponent could be there first), and
  a cell taken from the model's route costs it STEAL of its gold (it finds some
  elsewhere);
* a route ends in projected gaps: at half time (the chance that it is over 20
  either way ends the round there) and at the end, the treasure (3/4 of the
  half-time gap) to whoever reaches the centre first; each becomes a chance
  through a normal curve whose width grows with the gold in play and the turns
  left, so one gold ahead is almost as good as ten and a near-certain win beats
  a larger but riskier haul;
* a step's chance is the mean over the models of its best route's chance; a
  step into a cell the opponent can enter this turn is mixed with what a
  collision would mean (a win when ahead, a loss when behind, a draw level),
  as likely as a boat in the opponent's place would seek it.

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
TAG = "STEPPER1"
REEF, SHIELD = -1, -2
INF = 1 << 20
TOTAL = 100
BEAM = 10           # route states kept per arrival turn (5 won 7 of 24 games against
BRANCH = 6          # hunter, with 5 here: noise between the steps' searches)
NEAREST = 14        # next gold cells tried from a state: the best BRANCH of the nearest 14
MODELS = 3          # opponent models (see the docstring)
WIDTH0 = 1.5        # the chance's width: WIDTH0 + WIDTH1 * sqrt(gold in play * turns left)
WIDTH1 = 0.12
LOST_RACE = 0.4     # opponent model 0: gold we reach first looks this much to it
LATE_SHARE = 0.55   # a cell the opponent reaches first but its model does not take
STEAL = 0.5         # share of a cell taken from a model's route that it does not make up
TREASURE_OPP = 0.8  # share of a treasure we do not take credited to the opponent
TREASURE = 1        # 0: no route goes for the treasure (an experiment's switch)
GAMMA = 0.98        # tie-break: gold t turns ahead counts GAMMA ** t
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


class Model(object):
    """One prediction of the opponent: when it takes each cell, its gold by half time
    and at the end, and where it is at half time."""

    def __init__(self):
        self.take = {}
        self.half_gain = 0
        self.total = 0
        self.half_pos = -1


def predict(sea, kind, pos, sh, shields, rival, H, t_half):
    """Simulate the opponent as a greedy collector of ``kind`` for H moves."""
    m = Model()
    m.half_pos = pos
    if pos < 0:
        return m
    grid = sea.grid
    todo = dict((c, grid[c]) for c in sea.golds)
    rival_d = sea.dist(rival, False) if rival >= 0 else None
    t = 0
    cur = pos
    while todo and t < H:
        d = sea.dist(cur, sh)
        best, nxt = 0.0, -1
        for c, v in todo.items():
            dc = d[c]
            if dc == 0 or t + dc > H:
                continue
            sc = v / (dc * dc) if kind == 2 else v / dc
            if kind == 0 and rival_d is not None and rival_d[c] < t + dc:
                sc *= LOST_RACE  # we get there first: it prefers other gold
            if sc > best:
                best, nxt = sc, c
        if nxt < 0:
            break
        if t_half >= 1 and t < t_half <= t + d[nxt]:
            # Where it is at half time: on its way to nxt (the cell it left, near enough).
            m.half_pos = cur
        t += d[nxt]
        v = todo.pop(nxt)
        m.take[nxt] = t
        m.total += v
        if t <= t_half:
            m.half_gain += v
        cur = nxt
    if t_half >= 1 and t < t_half:
        m.half_pos = cur
    return m


class Planner(object):
    """Our routes from one first step against one opponent model."""

    def __init__(self, sea, H, t_half, me_gold, opp_gold, model, opp_d, opp_sh, shields, tv,
                 sigma):
        self.sea, self.H, self.t_half = sea, H, t_half
        self.opp_d = opp_d      # the opponent's distances from where it is
        self.me_gold, self.opp_gold = me_gold, opp_gold
        self.m = model
        self.shields = shields
        self.tv = tv            # the treasure's value once it is on the map (-1 before)
        self.sigma = sigma
        if t_half >= 1 and model.half_pos >= 0:
            self.opp_treasure_t = t_half + max(1, sea.dist(model.half_pos, opp_sh)[sea.centre])
        else:
            self.opp_treasure_t = INF

    def share(self, c, t):
        """(our gold, gold the model loses) for arriving at c at move t."""
        v = self.sea.grid[c]
        ot = self.m.take.get(c, INF)
        if ot == INF:
            # The model never goes there; an opponent that could be there first may.
            return (v if t < self.opp_d[c] else LATE_SHARE * v), 0.0
        if t < ot:
            # Taken from its route: it loses the cell, but finds some gold elsewhere.
            return v, STEAL * v
        if t == ot:
            return 0.5 * v, 0.5 * v
        return 0.0, 0.0

    def chance(self, st):
        """The chance of ending ahead at the end of a route (state st)."""
        _, _, _, _, gain, lost, gain_h, lost_h, tre, tempo = st
        m = self.m
        win_h = loss_h = 0.0
        if self.t_half >= 1:
            # The half-time check: the projected gap, as uncertain as the turns to it
            # make it, ends the round when over 20 either way.
            gap = self.me_gold + gain_h - (self.opp_gold + m.half_gain - lost_h)
            sig_h = 1.0 + 0.5 * self.sigma * math.sqrt(min(1.0, self.t_half / max(1, self.H)))
            win_h = phi((gap - 20.5) / sig_h)
            loss_h = phi((-20.5 - gap) / sig_h)
            tv = 3 * min(20, abs(gap)) // 4
        else:
            tv = self.tv if self.tv > 0 else 0
        margin = self.me_gold + gain - (self.opp_gold + m.total - lost)
        if tre:
            margin += tv if self.t_half >= 1 else 0
        elif tv > 0 and self.opp_treasure_t <= self.H and self.t_half >= 1:
            margin -= TREASURE_OPP * tv
        go_on = 1.0 - win_h - loss_h
        return win_h + (go_on if go_on > 0.0 else 0.0) * phi(margin / self.sigma) + 1e-4 * tempo

    def search(self, cell, sh, gain0, lost0):
        """The best chance over routes that start on ``cell`` at move 1."""
        H, t_half, sea = self.H, self.t_half, self.sea
        h = gain0 if t_half >= 1 else 0.0
        hl = lost0 if t_half >= 1 else 0.0
        root = (1, cell, sh, frozenset([cell]), gain0, lost0, h, hl, False, gain0)
        buckets = {1: [root]}
        best = self.chance(root)
        treasure_live = t_half >= 1 and TREASURE  # once on the map it is a gold cell like any other
        while buckets:
            t = min(buckets)
            layer = buckets.pop(t)
            layer.sort(key=lambda s: -(s[4] + 0.5 * s[5] + (3 if s[8] else 0)))
            seen = set()
            kept = 0
            for st in layer:
                key = (st[1], st[3], st[2])
                if key in seen:
                    continue
                seen.add(key)
                kept += 1
                if kept > BEAM:
                    break
                c = self.chance(st)
                if c > best:
                    best = c
                self.expand(st, buckets, treasure_live)
        return best

    def expand(self, st, buckets, treasure_live):
        t, cell, sh, taken, gain, lost, gain_h, lost_h, tre, tempo = st
        sea, H, t_half = self.sea, self.H, self.t_half
        cands = []
        for d, c in sea.nearest(cell, sh):
            t2 = t + d
            if t2 > H:
                break
            if c in taken:
                continue
            g, lo = self.share(c, t2)
            if g <= 0.0:
                continue
            cands.append(((g + 0.5 * lo) / d, c, t2, g, lo))
            if len(cands) >= NEAREST:
                break  # the nearest NEAREST cells still worth something
        cands.sort(reverse=True)
        cands = cands[:BRANCH]
        dl = sea.dist(cell, sh)
        if not sh:
            for s in self.shields:
                if s not in taken and 0 < dl[s] < INF and t + dl[s] < H:
                    cands.append((0.0, s, t + dl[s], 0.0, 0.0))
        if treasure_live and not tre:
            dc = dl[sea.centre]
            if dc < INF:
                t2 = t + (dc if dc > 0 else 2)
                if t_half >= 1 and t2 <= t_half:
                    t2 = t_half + 1
                if t2 <= H and t2 < self.opp_treasure_t:
                    cands.append((0.0, -1, t2, 0.0, 0.0))
        for _, c, t2, g, lo in cands:
            if c == -1:
                nst = (t2, sea.centre, sh, taken, gain, lost, gain_h, lost_h, True,
                       tempo + 3 * GAMMA ** t2)
            elif sea.grid[c] == SHIELD:
                nst = (t2, c, True, taken | {c}, gain, lost, gain_h, lost_h, tre, tempo)
            else:
                in_half = t_half >= 1 and t2 <= t_half
                nst = (t2, c, sh, taken | {c}, gain + g, lost + lo,
                       gain_h + (g if in_half else 0), lost_h + (lo if in_half else 0),
                       tre, tempo + g * GAMMA ** t2)
            buckets.setdefault(t2, []).append(nst)


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
    H = k
    # The projection's uncertainty: the more gold in play and turns to play, the less
    # a projected margin means.
    sigma = WIDTH0 + WIDTH1 * math.sqrt((on_map + (15 if t_half >= 1 else 0)) * H)
    opp_d = [INF] * (R * C) if opp_sunk else sea.dist(opp, opp_sh)
    steps = [me] + [f for f in (sea.nb[me] if my_sh else sea.water[me])]
    opp_next = set()
    if not opp_sunk:
        opp_next = {opp} | set(sea.nb[opp] if opp_sh else sea.water[opp])
    lead = my_gold - opp_gold
    best, best_move = None, me
    # The opponent models, from where both boats are now: every step is judged
    # against the same predictions.
    if opp_sunk:
        models = [Model()]
    else:
        models = [predict(sea, kind, opp, opp_sh, shields, me, H, t_half) for kind in range(MODELS)]
    for f in steps:
        total = 0.0
        for mdl in models:
            pl = Planner(sea, H, t_half, my_gold, opp_gold, mdl, opp_d, opp_sh, shields,
                         tv if t_half == 0 else -1, sigma)
            gain0 = lost0 = 0.0
            sh = my_sh
            if f != me:
                if grid[f] > 0:
                    gain0, lost0 = pl.share(f, 1)
                elif grid[f] == SHIELD:
                    sh = True
            total += pl.search(f, sh, gain0, lost0)
            if time.perf_counter() > deadline:
                break
        value = total / len(models)
        if f in opp_next:
            # It may enter the same cell (or swap): both sink, the gold as it stands.
            # A boat behind keeps clear of one that would ram it; level, both sinking
            # is a draw (nothing at 0-0), so either may risk it.
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
