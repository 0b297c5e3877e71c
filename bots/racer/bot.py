#!/usr/bin/env python3
"""Ocean Treasure sparring bot "racer": built for the treasure race, and to ram when ahead.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic
(its random draws are seeded from MAP.INP).

The reference and planner weigh the treasure as one more cell of their routes
and ram only when a collision happens to be on their way.  This bot is built
around both:

* The treasure race.  Before half time, when the race looks worth it (the
  opponent no nearer to the centre than we are, the gap at most RACE_GAP), a
  racing route collects only the gold from which it can still be on the centre
  on the turn after the check, when the treasure appears, then the treasure
  (3/4 of the gap as it stands, TREASURE_MIN at least), then it collects on
  from the centre.  It stands against a plain collector's route, and the better
  one counts: the race must pay for the gold it leaves on the way.  Either
  route goes on to the cell of most gold per step, or per step squared (the
  near cells first), the better of the two.
* The turn itself is a game of simultaneous moves: every pair of moves (ours,
  the opponent's) is resolved with the exact rules (a collision or a swap sinks
  both and freezes the gold) and scored by what each boat can still collect
  from there (a quick route over the cells it reaches first, with the treasure
  race above), as a chance of ending ahead; within CLOSE steps of each other the
  next turn is searched too, the opponent answering at its worst.  The game is
  solved by regret matching (ITERATIONS rounds of both boats adapting to each
  other).  Out of each other's reach the best move is played; in reach, the
  move is drawn from our mixed strategy: a rammer that always made the same
  choice would be dodged every time, and an evader caught.
* Ramming.  When ahead, a collision is a win, so the game's payoffs make every
  cell the opponent may enter a target, and in the last RAM_LATE turns a pull
  towards the opponent (RAM_PULL) keeps the pressure on and blocks its way to
  the gold.  When behind, the same game keeps it clear.

STATE.OUT: K of the round, the shields seen (one that vanishes while we are
elsewhere went to the opponent), the treasure's value, placement asks.
"""

import math
import os
import random
import sys

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
TAG = "RACER1"
REEF, SHIELD = -1, -2
INF = 1 << 20
TOTAL = 100
ITERATIONS = 400    # regret-matching rounds of the one-turn game
FLOOR = 0.08        # moves our mixed strategy plays less often than this are dropped
DECAY = 0.93        # a route's gold t moves ahead counts DECAY ** t
STOPS = 10          # a route's stops at most (the cells left after them count half)
CONTESTED = 0.5     # a cell both boats reach at once counts half to each
TREASURE_MIN = 3    # the race for the treasure is on when it is worth at least this
RACE_GAP = 16       # ... and the gap is at most this (3: no race on 17 of 21 maps lost
                    # more: 3 won, 4 drawn, 14 lost against hunter, 6/2/13 with it)
RAM_PULL = 0.04     # when ahead: the pull towards the opponent (in chance)
RAM_LATE = 20       # ... in the last this many turns
INSIST = 2          # placement: re-asks at which we name our first cell again
ALPHAS = (1.0, 2.0) # a route goes on to the most gold / steps ** ALPHA, the best of these
                    # routes counts (1 alone: 23 won, 8 drawn, 21 lost of 52 against
                    # hunter; 1 and 2: 30/6/16; 0.5 or 3 as well: worse)
CLOSE = 4           # boats this close: two turns searched (the second max-min; 3 won 8
                    # of 21 games against hunter, 4 won 10)


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
    """Geometry, cached distances and gold orders (per source and shield)."""

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
        self.orders = {}
        self.golds = [f for f in range(self.n) if grid[f] > 0]
        self.pw = [DECAY ** d for d in range(2 * self.n + 4)]
        self.dk = [[float(d) ** a for d in range(2 * self.n + 4)] for a in ALPHAS]

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

    def order(self, src, sh):
        """The gold cells by distance from src, nearest first: [(d, cell)] (reachable)."""
        key = src + src + (1 if sh else 0)
        o = self.orders.get(key)
        if o is None:
            d = self.dist(src, sh)
            o = sorted((d[c], c) for c in self.golds if 0 < d[c] < INF)
            self.orders[key] = o
        return o


class Pos(object):
    """A position: boats (seat 0 is us), gold, shields, the cells taken, moves made,
    the treasure (-1: not yet; else its value), whether the round is over."""

    __slots__ = ("p", "gold", "sh", "sunk", "taken", "t", "tv", "done")

    def __init__(self, p, gold, sh, sunk, taken, t, tv, done):
        self.p, self.gold, self.sh, self.sunk = p, gold, sh, sunk
        self.taken, self.t, self.tv, self.done = taken, t, tv, done


class Game(object):
    """The rules on positions, and a position's chance of ending ahead."""

    def __init__(self, sea, H, t_half):
        self.sea, self.H = sea, H
        self.t_half = t_half      # the move after which the half-time check comes (0: passed)

    def moves(self, s, i):
        """Seat i's moves that do not sink it by itself (stay first)."""
        p = s.p[i]
        if s.sunk[i]:
            return [p]
        sea = self.sea
        wreck = s.p[1 - i] if s.sunk[1 - i] else -1
        return [p] + [v for v in (sea.nb[p] if s.sh[i] else sea.water[p]) if v != wreck]

    def step(self, s, a, b):
        """The position after our move to a and its move to b."""
        sea = self.sea
        p0, p1 = s.p
        t = s.t + 1
        if not s.sunk[0] and not s.sunk[1] and (a == b or (a == p1 and b == p0)):
            return Pos((a, b), s.gold, s.sh, (True, True), s.taken, t, s.tv, True)
        gold, sh, sunk = list(s.gold), list(s.sh), list(s.sunk)
        taken = s.taken
        for i, d, p in ((0, a, p0), (1, b, p1)):
            if sunk[i] or d == p:
                continue
            if sunk[1 - i] and d == (p0, p1)[1 - i]:
                sunk[i] = True
                continue
            v = sea.grid[d]
            if v == REEF and not sh[i]:
                sunk[i] = True
            elif v == SHIELD and d not in taken:
                sh[i] = True
                taken = taken | {d}
            elif v > 0 and d not in taken:
                gold[i] += v
                taken = taken | {d}
            elif d == sea.centre and s.tv > 0 and d not in taken:
                gold[i] += s.tv
                taken = taken | {d}
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
        return Pos((a, b), (gold[0], gold[1]), (sh[0], sh[1]), (sunk[0], sunk[1]), taken, t,
                   tv, done)

    def route(self, start, sh, todo, left, race, rel_half, dk=None):
        """Discounted gold of a quick route from ``start`` over ``todo`` ({cell: value},
        taken from as it goes), always on to the most gold per step (per step ** ALPHA,
        ``dk`` its table: 2 favours the near cells).  ``race``: the
        treasure's value when we race for it (before half time, ``rel_half`` moves
        away: only gold from which the centre is still reached on the turn after
        the check), else 0."""
        sea = self.sea
        pw = sea.pw
        centre = sea.centre
        dcen = sea.dist(centre, sh) if race else None
        t, tot, cur = 0, 0.0, start
        vmax = max(todo.values()) if todo else 0
        if dk is None:
            dk = sea.dk[0]
        for _ in range(STOPS):
            slack = rel_half + 1 - t if race and t <= rel_half else INF
            best, nxt, nd = 0.0, -1, 0
            room = left - t
            for d, c in sea.order(cur, sh):
                w = dk[d]
                if d > room or vmax <= best * w:
                    break
                v = todo.get(c)
                if v is None or v <= best * w:
                    continue
                if slack < INF and d + max(1, dcen[c]) > slack:
                    continue
                best, nxt, nd = v / w, c, d
            if nxt < 0:
                if race and t <= rel_half:
                    # Nothing on the way: to the centre, for the treasure.
                    dc = sea.dist(cur, sh)[centre]
                    ta = max(t + max(1, dc), rel_half + 1)
                    if ta <= left:
                        tot += race * pw[ta]
                        t, cur, race = ta, centre, 0
                        continue
                break
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
                    tot += 0.5 * v * pw[t + d[c]]
        return tot

    def plan(self, start, sh, todo, left, race, rel_half):
        """The best of the routes: by gold per step and per step squared, each with the
        treasure race (when it is on) and without it, as a plain collector's: the race
        must pay for the gold it leaves on the way."""
        if not (todo or race):
            return 0.0
        best = 0.0
        for dk in self.sea.dk:
            best = max(best, self.route(start, sh, dict(todo), left, race, rel_half, dk))
            if race and todo:
                best = max(best, self.route(start, sh, dict(todo), left, 0, rel_half, dk))
        return best

    def value(self, s):
        """Our chance of ending ahead at position s."""
        g0, g1 = s.gold
        if s.done:
            # Over (both sunk, the half-time gap, the last turn): the gold decides.
            return 1.0 if g0 > g1 else (0.0 if g1 > g0 else (0.5 if g0 > 0 else 0.25))
        sea = self.sea
        grid = sea.grid
        left = self.H - s.t
        rel_half = self.t_half - s.t  # moves until the check (<= 0: passed)
        a, b = s.p
        da = None if s.sunk[0] else sea.dist(a, s.sh[0])
        db = None if s.sunk[1] else sea.dist(b, s.sh[1])
        cells = sea.golds
        if s.tv > 0 and sea.centre not in s.taken:
            cells = cells + [sea.centre]  # the treasure, once there, is gold like any other
        mine, theirs = {}, {}
        for c in cells:
            if c in s.taken:
                continue
            v = grid[c] if c != sea.centre or grid[c] > 0 else s.tv
            x = da[c] if da is not None else INF
            y = db[c] if db is not None else INF
            if x < y:
                if x <= left:
                    mine[c] = v
            elif y < x:
                if y <= left:
                    theirs[c] = v
            elif x <= left:
                mine[c] = v * CONTESTED
                theirs[c] = v * CONTESTED
        race0 = race1 = 0
        if rel_half >= 1 and abs(g0 - g1) <= RACE_GAP and da is not None and db is not None:
            # The treasure: 3/4 of the gap as it stands now, to the nearer boat.  (With
            # a gap far over 20 the round is likely to end at half time: no race then.)
            tv = max(TREASURE_MIN, 3 * abs(g0 - g1) // 4)
            ca, cb = da[sea.centre], db[sea.centre]
            if ca <= cb:
                race0 = tv
            if cb <= ca:
                race1 = tv
        ra = self.plan(a, s.sh[0], mine, left, race0, rel_half)
        rb = self.plan(b, s.sh[1], theirs, left, race1, rel_half)
        est = g0 - g1 + ra - rb
        if rel_half >= 1:
            if est > 20:
                est += 8
            elif est < -20:
                est -= 8
        if race0:
            # On time for the treasure either way: sooner near the centre is safer.
            est -= 0.01 * da[sea.centre]
        z = est / (2.5 + 0.5 * math.sqrt(left))
        u = 1.0 / (1.0 + math.exp(-z)) if -30 < z < 30 else (1.0 if z > 0 else 0.0)
        # The margin as well, a little: far behind (or ahead) every move has about the
        # same chance, and the gold still decides which one is better.
        u = 0.97 * u + 0.03 * (0.5 + est / 200.0)
        if da is not None and db is not None and g0 != g1:
            near = da[b]
            if near < INF:
                if g0 > g1:
                    # Ahead near the end: keep close, ready to ram (a chase earlier costs
                    # the gold on the way: 0.04 all round won 8 of 21 games against
                    # hunter, none 9).
                    if left <= RAM_LATE:
                        u += RAM_PULL / (1.0 + near)
                else:
                    # Behind: keep away from a boat that would ram.
                    u -= RAM_PULL / (1.0 + near)
        return u

    def payoff(self, root, a, b, depth):
        """Our chance after the pair (a, b); with depth 2, the next turn searched too,
        the opponent answering at its worst for us (it sees our move)."""
        s = self.step(root, a, b)
        if depth <= 1 or s.done:
            return self.value(s)
        best = -2.0
        theirs = self.moves(s, 1)
        for a2 in self.moves(s, 0):
            worst = 3.0
            for b2 in theirs:
                v = self.value(self.step(s, a2, b2))
                if v < worst:
                    worst = v
                    if worst <= best:
                        break  # cannot beat the best move already found
            if worst > best:
                best = worst
        return best


def regret_matching(payoff, rows, cols, iterations):
    """Both average mixed strategies (ours, theirs) in the zero-sum game ``payoff[i][j]``
    (our chance)."""
    r_mine = [0.0] * rows
    r_theirs = [0.0] * cols
    s_mine = [0.0] * rows
    s_theirs = [0.0] * cols
    for _ in range(iterations):
        pm = strategy(r_mine)
        pt = strategy(r_theirs)
        for i in range(rows):
            s_mine[i] += pm[i]
        for j in range(cols):
            s_theirs[j] += pt[j]
        # Expected payoff of each pure move against the other's current mix.
        um = [sum(payoff[i][j] * pt[j] for j in range(cols)) for i in range(rows)]
        ut = [-sum(payoff[i][j] * pm[i] for i in range(rows)) for j in range(cols)]
        vm = sum(um[i] * pm[i] for i in range(rows))
        vt = sum(ut[j] * pt[j] for j in range(cols))
        for i in range(rows):
            r_mine[i] = max(0.0, r_mine[i] + um[i] - vm)
        for j in range(cols):
            r_theirs[j] = max(0.0, r_theirs[j] + ut[j] - vt)
    return [x / iterations for x in s_mine], [x / iterations for x in s_theirs]


def strategy(regrets):
    pos = sum(r for r in regrets if r > 0)
    n = len(regrets)
    if pos <= 0:
        return [1.0 / n] * n
    return [r / pos if r > 0 else 0.0 for r in regrets]


# --------------------------------------------------------------------------
# Placement and one turn
# --------------------------------------------------------------------------

def place(sea, k, tried):
    """The empty cell with the most gold close by, the centre's neighbourhood
    favoured (the treasure race starts there); at a re-ask the next best cell."""
    grid = sea.grid
    zeros = [f for f in range(sea.n) if grid[f] == 0]
    golds = [(f, grid[f]) for f in sea.golds]
    horizon = max(1, k - 1)
    dcen = sea.dist(sea.centre, False)
    scored = []
    for z in zeros:
        d = sea.dist(z, False)
        s = sum(v * 0.8 ** d[f] for f, v in golds if d[f] <= horizon)
        scored.append((s - 0.3 * min(dcen[z], 10), -z, z))
    scored.sort(reverse=True)
    order = [z for _, _, z in scored] or [0]
    if tried and len(tried) <= INSIST:
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


def decide(text, state_text):
    """(MOVE.OUT text, STATE.OUT dict) for one MAP.INP."""
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
    game = Game(sea, k, t_half)
    root = Pos((me, opp), (my_gold, opp_gold), (my_sh, opp_sh), (False, opp_sunk),
               frozenset(), 0, -1 if t_half > 0 else 0, False)
    mine = game.moves(root, 0)
    theirs = game.moves(root, 1)
    # Close, the next turn is searched too (as far as the work allows).
    close = not opp_sunk and sea.dist(me, True)[opp] <= CLOSE
    depth = 2 if close else 1
    payoff = [[game.payoff(root, a, b, depth) for b in theirs] for a in mine]
    mix, their_mix = regret_matching(payoff, len(mine), len(theirs), ITERATIONS)
    expect = [sum(p * q for p, q in zip(row, their_mix)) for row in payoff]
    contact = bool(set(mine) & set(theirs)) and not opp_sunk
    if not contact:
        # Out of each other's reach this turn: nothing to guess, the best move.
        move = mine[max(range(len(mine)), key=lambda i: (expect[i], -i))]
    else:
        # In reach: a ram or a dodge is a guess, so the move is drawn from the mix
        # (the moves it plays rarely dropped), seeded by MAP.INP: the same position,
        # the same draw.
        mix = [p if p >= FLOOR else 0.0 for p in mix]
        if sum(mix) <= 0:
            mix = [1.0 if e == max(expect) else 0.0 for e in expect]
        pick = random.Random(text).random() * sum(mix)
        move = mine[-1]
        for a, p in zip(mine, mix):
            pick -= p
            if pick < 0:
                move = a
                break
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
