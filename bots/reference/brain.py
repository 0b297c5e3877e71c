"""Ocean Treasure reference bot: the decision, as a pure function.

``decide(map_text, state_text) -> (move_text, new_state_text)`` reads one
MAP.INP (and the STATE.OUT of the previous turn, or None) and returns what to
write to MOVE.OUT and STATE.OUT.  No files, no randomness: the same inputs
give the same move, on any machine and under any load: the route searches
stop after a fixed amount of work (WORK route nodes a move, PLACE_WORK at
placement) with the best route found so far; on a large map (more than
BUDGET_AREA cells) with many moves left the search from the boat stops at
FIRST_WORK nodes and those from each first move share OPT_WORK (their beams
narrowed), so that the turn's time stays
well inside what students' machines allow.  The clock is read only as a
safety net for a machine far slower than ours (BUDGET seconds from the start
of the run); a planning deadline of its own made the same round play out
differently from one run to the next whenever the machine was busy.
Only ``heapq``, ``operator`` and ``time`` are imported, so the bot starts
fast; it runs under any Python >= 3.8.

Outline
-------
* Inference (STATE.OUT keeps the total K, the shield cells, the treasure and
  a few counts about the opponent): the opponent's gold is 100 (+ the
  treasure once it appeared) minus our gold minus the gold still on the map;
  it took a shield when an S cell vanished without us standing on it; it has
  sunk when it stands on a reef without a shield (the only way it can sink
  while we still float).
* Opponent model: plausible collectors (greedy by value per step, less for
  gold we reach first; nearest first; richest first; blind to us; one that
  keeps next to the centre for the treasure before half time), each
  simulated turn by turn over the turns left (when it would take each gold
  cell, how much it would have at half time), weighted by how many of the
  opponent's moves each has predicted so far this round (STATE.OUT keeps the
  counts).
* Planner: for each possible first move, a beam search over routes
  (sequences of gold / shield / treasure cells, PLAN_H moves ahead at most),
  bucketed by arrival turn.  A cell is worth its gold if we arrive before the
  opponent's predicted arrival (less if the opponent could be there first; a
  take predicted x moves ahead is only PRED_CONF ** (x - 1) sure, so far gold
  it may never reach still draws us), plus a share of it when that denies the
  opponent (as much whenever we take it: taking gold early is never worth
  less).  The half-time rule is exact inside the search: a route more than 20
  ahead at turn K/2 wins at once, one more than 20 behind loses; otherwise the
  route knows the treasure (3/4 of the gap, at the centre, from turn K/2 + 1)
  and is charged its denial up front, earned back only by taking it: a wider
  lead at half time is a bigger treasure for a boat that waits by the centre.
  In the plan, reaching the treasure on the opponent's turn wins it when we
  lead (entering together sinks both, and the boat behind keeps off), loses
  it when we trail; once it is there, the tactics play such a tie exactly.
* Tactics: the next turn (two when the boats are close, when the half-time
  check is two moves away, or at the very end) as a game of simultaneous
  moves, every pair of moves resolved with the rules.  A collision or a swap
  freezes the gold: a win when we lead (so we ram), a loss when we trail (so
  we keep clear), a draw when level; gold the opponent takes leaves our
  routes; the half-time gap is exact.  After the searched moves a position is
  worth the best candidate route re-timed from there, as a sharp chance of
  winning: a move matters to the tactics when it swings who ends ahead;
  otherwise the best route decides (a gentle curve hedged in every position
  and lost rounds to hunter and to older versions of this bot).  The
  opponent's moves are weighed by a mix of the worst case and the model's
  prediction, moves into our reach only as often as it has come into our
  reach so far.  On small maps (TERR_AREA cells at most) a leaf's chance is
  half that of the routes, half that of the territory: each gold cell to the
  boat that reaches it first (a tie to the leader; TERR_DECAY per step), as
  in a race over every cell, where the routes alone were too hopeful and
  wasted moves.
* Endgame: after half time, with at most EG_GOLD gold cells left and the
  result still open, the last gold as a race between orders of targets:
  from each of our moves, every order of ours against every order of theirs,
  played out (the first boat there collects, equal arrivals on one cell sink
  both).  A move guarantees the best worst case (win, draw or loss) of its
  orders; a move that cannot reach the best guarantee even knowing their
  order in advance is vetoed: weighing gold, the planner raced for the
  bigger pile and lost rounds that the smaller one would have drawn.
* Placement: the 0-cell where our best route within K - 1 moves beats the
  opponent's from its start by most (on average over its OPP_STARTS likeliest
  starts; each route discounts the cells the other reaches first).  Our route alone
  chose a quiet corner while the opponent took a richer field it entered
  first; the margin is what wins the round.  Of the chosen cell's mirror
  images the one farthest from that start (bots that think alike name the
  same cell); on a re-ask, the same cell twice more (a rival that insists once
  gives way at the third ask), then the best other cells.
"""

from heapq import heappush, heapreplace
from operator import itemgetter
from time import perf_counter

REEF = -1
SHIELD = -2
INF = 1 << 20
TAG = "REF2"
TOTAL_GOLD = 100

# Search and model parameters (module constants so experiments can tune them).
WIDTH = 36           # beam: nodes kept per arrival turn, per first move
WIDTH1 = 48          # beam of the first pass (one search from the boat)
BRANCH = 10          # children per node (plus shields / treasure).  These and POOL at 12, 16,
                     # 6, 6 won 3 points fewer decided rounds against a planner on two fresh
                     # books (most of it on small maps; level on the odd-style books); at 24,
                     # 32, 8, 10 another 1-4 points fewer on two fresh books
GAMMA = 0.975        # discount per turn: earlier gold is safer gold
RHO = 0.25           # share of a denied cell counted as the opponent's loss when gold
RHO_MAX = 0.6        # is plentiful ... and when every cell will be taken by someone (1.0
                     # chased the opponent's cells and left our own to a search-based planner)
RATE = 1.0           # gold a boat collects per turn, roughly (for the above)
LAM = 0.97           # a cell the opponent could reach first survives a turn with this
MU = 0.9             # denial weight per turn the opponent would arrive after us
VARIANTS = 6         # opponent predictions averaged (1: the greedy model alone; 5 lacked the
                     # one that waits by the centre, and lost leads at half time to a planner)
VAR_POW = 2.0        # their weights: (moves predicted right + 1) ** VAR_POW
HALF_W = 40.0        # value (in gold) of ending the round at half time (30, 50 measured worse)
HALF_S0 = 2.0        # uncertainty of the half-time gap: S0 + S1 * sqrt(turns to go)
HALF_S1 = 1.0
TERR_W = 0.5         # tactics on small maps: this share of a leaf's chance by territory
TERR_AREA = 63       # ... on maps of at most this many cells (up to 143 measured worse)
TERR_DECAY = 0.8     # ... where gold d steps away counts TERR_DECAY ** d
RACE_LOST = 0.5      # opponent model: gold we reach first looks this much
SCALE0 = 1.5         # tactics: a leaf's chance of winning is sigmoid(diff / (SCALE0 + SCALE1 *
SCALE1 = 0.5         # sqrt(turns))); kept sharp, so that the tactics weigh winning against losing
                     # and otherwise follow the best route (wider, it hedged in every position)
ANCHOR_MIX = 0.3     # the outcome estimate: this share from the greedy rollout, the rest from the
                     # plan (0.5: 4 games fewer won and 4 more lost of 130 against duel and stepper)
ROLL_STOPS = 3       # the calibration rollout follows the plan this far, then goes greedy
RAM_PRIOR = 0.15     # prior chance a ram finds the opponent (before any evidence)
ENTER_PRIOR = 1.0    # prior counts of the opponent entering our reach (in, out)
STALL = 0.02         # penalty per repeated stay while nothing changes
POOL = 14            # routes from the boat tried on every first move
PLACE_CANDIDATES = 10
INSIST = 2           # placement: re-asks on which we name our first cell again
OPP_STARTS = 3       # placement: the opponent's likely start cells considered (values averaged)
PLACE_HORIZON = 20   # placement: moves ahead a start's route is planned (30: 2-3 points fewer
                     # against planner on four books, mostly on small maps; 60: 3-7 fewer)
PLACE_WIDTH = 6      # beam width of the placement's route searches
PLACE_DIFF = 1.0     # placement: a start is worth our route less this share of the opponent's
TREASURE_LAM = 0.6    # ... and it survives only this per turn the opponent could be there first
TREASURE_RHO = 0.5    # denial weight of the treasure at least this (0: as any gold)
TIE_LEAD = 1          # the treasure reached on the opponent's turn counts as reached this many
TIE_TRAIL = 1         # turns earlier when we lead (it keeps off: both sinking is its loss), this
                     # many later when we trail (we must keep off); 2 when leading measured worse
TREASURE_LEFT = 1.0   # a route that crosses half time is charged this share of the treasure's
                     # denial up front (a wider half-time lead makes a bigger treasure for
                     # whoever gets there first); taking the treasure earns the denial back
PLAN_H = 40           # moves ahead the routes from each first move are planned (the
                     # search from the boat plans to the end; re-timing scores all to the end)
WORK = 20000          # route nodes the beam searches may expand in a move (then they stop with
PLACE_WORK = 9000     # the best route so far), and at placement: the same inputs give the same
                     # move on any machine, under any load.  WORK is above what the largest
                     # move measured needs (about 11400): it does not change play; placement's
                     # search reaches PLACE_WORK on the largest maps, and stops there
FIRST_WORK = 2400      # nodes the first search (from the boat, to the end) may expand a turn,
OPT_WORK = 2800        # ... and those from each first move together (their beams narrowed to fit,
WIDTH_MIN = 12        # ... not below this): so the largest maps keep the turn's time
BUDGET_AREA = 63      # ... on maps of more cells than this only: on the small maps (as TERR_AREA)
                     # a long K binds them too, where the turn is quick without them
BUDGET = 0.80         # seconds of planning per turn: a safety net on a machine far slower than
                     # this one; below it the work caps decide
LAM_LEAD = 0.5       # tactics: weight of the worst case when the opponent leads (it may ram),
LAM_TIE = 0.5        # ... when level (0.3: a game fewer won and two more lost of those 130),
LAM_TRAIL = 0.15     # ... when it trails (it keeps clear; the worst case is its blocking)
NEAR = 3             # tactics: search two turns when the boats are this close
PRED_CONF = 0.93      # a prediction x moves ahead holds with PRED_CONF ** (x - 1): far ones are
                     # guesses (the opponent cannot be everywhere it might go first)
EG_GOLD = 10          # exact endgame: after half time, with at most this many gold cells left,
EG_ORDERS = 5000      # ... at most this many target orders a boat,
EG_PLAYS = 100000     # ... and at most this many pairs of orders played (else the planner alone);
                     # counted, not timed: about 0.25 s at most on this machine
DEBUG = 0


# --------------------------------------------------------------------------
# Reading MAP.INP and STATE.OUT
# --------------------------------------------------------------------------

def cell_value(tok):
    t = tok.upper()
    if t == "D" or t == "W":
        return REEF
    if t == "S":
        return SHIELD
    try:
        v = int(t)
    except ValueError:
        return REEF
    return v if v > 0 else 0


class Sea(object):
    """One MAP.INP: geometry, the grid and the boats (flat indexes, -1 = none)."""

    def __init__(self, text):
        tok = text.split()
        self.rows, self.cols, self.k = int(tok[0]), int(tok[1]), int(tok[2])
        i1, j1, i2, j2 = (int(x) for x in tok[3:7])
        self.gold = int(tok[7])
        self.shield = int(tok[8]) != 0
        R, C = self.rows, self.cols
        n = R * C
        cells = tok[9:9 + n]
        cells += ["D"] * (n - len(cells))
        self.grid = [cell_value(t) for t in cells]
        self.n = n
        self.me = self.flat(i1, j1)
        self.opp = self.flat(i2, j2)
        self.centre = (R // 2) * C + C // 2
        nbr = []
        for r in range(R):
            base = r * C
            for c in range(C):
                lst = []
                if r > 0:
                    lst.append(base - C + c)
                if c > 0:
                    lst.append(base + c - 1)
                if c < C - 1:
                    lst.append(base + c + 1)
                if r < R - 1:
                    lst.append(base + C + c)
                nbr.append(lst)
        self.nbr = nbr

    def flat(self, i, j):
        if 1 <= i <= self.rows and 1 <= j <= self.cols:
            return (i - 1) * self.cols + (j - 1)
        return -1

    def rc(self, f):
        return f // self.cols + 1, f % self.cols + 1


def parse_state(text):
    st = {}
    if not text:
        return st
    lines = text.split("\n")
    if not lines or lines[0].strip() != TAG:
        return st
    for line in lines[1:]:
        parts = line.split()
        if not parts:
            continue
        try:
            st[parts[0]] = [int(x) for x in parts[1:]]
        except ValueError:
            continue
    return st


def format_state(st):
    lines = [TAG]
    for key in sorted(st):
        lines.append(key + "".join(" %d" % v for v in st[key]))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Distances
# --------------------------------------------------------------------------

class Paths(object):
    """BFS distances, cached per (source, shielded).  Wrecks block both modes."""

    def __init__(self, sea, blocked):
        grid, nbr = sea.grid, sea.nbr
        self.adj = (
            [[v for v in nbr[u] if grid[v] != REEF and v not in blocked] for u in range(sea.n)],
            [[v for v in nbr[u] if v not in blocked] for u in range(sea.n)],
        )
        self.n = sea.n
        self.cache = {}

    def dist(self, src, shielded):
        key = src * 2 + (1 if shielded else 0)
        d = self.cache.get(key)
        if d is None:
            adj = self.adj[1 if shielded else 0]
            d = [INF] * self.n
            d[src] = 0
            queue = [src]
            for u in queue:
                nd = d[u] + 1
                for v in adj[u]:
                    if d[v] > nd:
                        d[v] = nd
                        queue.append(v)
            self.cache[key] = d
        return d


# --------------------------------------------------------------------------
# The situation of one turn
# --------------------------------------------------------------------------

def first(st, key, default):
    v = st.get(key)
    return v[0] if v else default


class Situation(object):
    """What MAP.INP and STATE.OUT tell about the round, and what we infer."""

    def __init__(self, sea, st, deadline=None, work_cap=None):
        self.sea = sea
        self.st = st
        self.deadline = deadline
        self.work = 0  # route nodes expanded this turn ...
        self.work_cap = WORK if work_cap is None else work_cap  # ... and how many they may
        grid = sea.grid
        k_total = first(st, "k", 0)
        if k_total < sea.k:
            k_total = sea.k if sea.k % 2 == 0 else sea.k + 1
        self.k_total = k_total
        half = k_total // 2
        # Move index (1 = this turn) after which the half-time check happens.
        self.t_half = sea.k - half if sea.k > half else 0
        # Treasure: its value is on the centre on the first turn after half time.
        tv = first(st, "tv", -1)
        if self.t_half == 0 and tv < 0:
            c = grid[sea.centre]
            tv = c if c > 0 else 0
        self.tv = tv
        on_map = 0
        for v in grid:
            if v > 0:
                on_map += v
        extra = tv if self.t_half == 0 and tv > 0 else 0
        self.opp_gold = max(0, TOTAL_GOLD + extra - sea.gold - on_map)
        # Shields: one that vanished while we were not on it went to the opponent.
        now_shields = [u for u, v in enumerate(grid) if v == SHIELD]
        if "os" in st:
            opp_shield = st["os"][0] != 0
            for u in st.get("sh", []):
                if 0 <= u < sea.n and grid[u] != SHIELD and u != sea.me:
                    opp_shield = True
        else:
            # No history: assume it has one unless both are still on the map.
            opp_shield = len(now_shields) < 2
        self.opp_shield = opp_shield
        self.shields = now_shields
        self.opp_alive = sea.opp >= 0 and not (grid[sea.opp] == REEF and not opp_shield)
        blocked = set()
        if sea.opp >= 0 and not self.opp_alive:
            blocked.add(sea.opp)  # a wreck: deadly, shield or not
        self.paths = Paths(sea, blocked)
        self.observe()

    def observe(self):
        """Update the counts of how the opponent moves relative to our reach.

        ``ob`` = [turns it could enter our reach while not leading, turns it
        did, turns seen, turns it moved as our model predicted, the same two
        counts while it was leading].
        """
        sea, st = self.sea, self.st
        ob = list(st.get("ob", []))
        ob += [0] * (6 - len(ob))
        last = st.get("last", [])
        self.stall = first(st, "stall", 0)
        if len(last) >= 4 and sea.me >= 0 and sea.opp >= 0 and self.opp_alive:
            me0, opp0, pred0, lead0 = last[0], last[1], last[2], last[3]
            if 0 <= me0 < sea.n and 0 <= opp0 < sea.n:
                reach = set(sea.nbr[me0])
                reach.add(me0)
                opts = set(sea.nbr[opp0])
                opts.add(opp0)
                i = 4 if lead0 > 0 else 0
                if reach & opts:
                    ob[i] += 1
                    if sea.opp in reach:
                        ob[i + 1] += 1
                ob[2] += 1
                if sea.opp == pred0:
                    ob[3] += 1
            if me0 == sea.me and opp0 == sea.opp:
                self.stall += 1
            else:
                self.stall = 0
        self.ob = ob
        # Which opponent model predicted its last move?
        vh = list(st.get("vh", []))
        vh += [0] * (VARIANTS - len(vh))
        vp = st.get("vp", [])
        if sea.opp >= 0 and self.opp_alive and len(vp) == VARIANTS and len(last) >= 2 \
                and last[1] != sea.opp:
            for i in range(VARIANTS):
                if vp[i] == sea.opp:
                    vh[i] += 1
        self.vhits = vh[:VARIANTS]
        self.vnext = []

    def new_state(self, move, predicted):
        st = {"k": [self.k_total], "sh": self.shields, "os": [1 if self.opp_shield else 0],
              "tv": [self.tv], "ob": self.ob,
              "last": [self.sea.me, self.sea.opp, predicted,
                       1 if self.opp_gold > self.sea.gold else 0],
              "stall": [self.stall if move == self.sea.me else 0],
              "vh": self.vhits}
        if self.vnext:
            st["vp"] = self.vnext
        return st


# --------------------------------------------------------------------------
# Opponent model
# --------------------------------------------------------------------------

def predict_opponent(sit, H, t_half, t_pred, our_take, variant=0):
    """Simulate a greedy opponent for H moves.

    Returns (take, gain_by, pos_at): the move index at which it collects each
    cell, its cumulative gain after each move, and its position after each move.
    ``our_take`` maps cells to the move at which our plan collects them.
    ``variant`` 1 to 5 are other plausible collectors (ties the other way and value first;
    nearest first; richest first; blind to us; one that waits next to the centre
    for the treasure), so that the planner does not trust one guess too much.
    """
    sea = sit.sea
    pos = sea.opp
    gain_by = [0] * (H + 1)
    pos_at = [pos] * (H + 1)
    take = {}
    if not sit.opp_alive or pos < 0:
        return take, gain_by, pos_at
    grid = sea.grid
    paths = sit.paths
    sh = sit.opp_shield
    vals = {}
    for u, v in enumerate(grid):
        if v > 0:
            vals[u] = v
    shields = set(sit.shields) if not sh else set()
    our_d = paths.dist(sea.me, sea.shield) if sea.me >= 0 else None
    pending = sorted((t, c) for c, t in our_take.items())
    pi = 0
    centre = sea.centre
    gain = 0
    target = -1
    # Variant 5 waits for the treasure: before half time it only takes gold from
    # which it can still be next to the centre when the treasure appears, and
    # otherwise heads there (as a planner that races for the treasure does).
    dcen = paths.dist(centre, sh) if variant == 5 and t_half >= 1 else None
    for t in range(1, H + 1):
        if t_half >= 1 and t == t_half + 1 and t_pred > 0:
            vals[centre] = t_pred
        seek = dcen is not None and t <= t_half
        # moves from here in which to reach a cell and then be next to the centre by the
        # turn after half time (a cell d moves away, then max(1, its distance) more)
        slack = t_half + 2 - t
        if seek and target >= 0 and target != centre \
                and paths.dist(target, sh)[pos] + max(1, dcen[target]) > slack:
            target = -1
        while pi < len(pending) and pending[pi][0] < t:
            vals.pop(pending[pi][1], None)
            pi += 1
        if target < 0 or target not in vals:
            target = -1
            best = 0.0
            left = H - t + 1
            for c, v in vals.items():
                d = paths.dist(c, sh)[pos]
                if d <= 0 or d > left:
                    continue
                if seek and d + max(1, dcen[c]) > slack:
                    continue
                if variant == 2:
                    sc = v / (d * d)
                elif variant == 3:
                    sc = v * v / d
                elif variant == 4:
                    sc = v / d  # blind to us
                else:
                    if our_d is not None:
                        od = our_d[c]
                        if od < t - 1 + d:
                            v = v * RACE_LOST
                        elif od == t - 1 + d:
                            v = v * 0.75
                    sc = v / d if variant in (0, 5) else v / (d + 0.5)
                if sc > best or (variant == 1 and sc == best):
                    best, target = sc, c
            if target < 0 and seek and dcen[pos] > 1:
                target = centre
        if target < 0:
            gain_by[t] = gain
            pos_at[t] = pos
            continue
        dt = paths.dist(target, sh)
        want = dt[pos] - 1
        nxt = -1
        adj = paths.adj[1 if sh else 0][pos]
        if nxt < 0:
            for v in adj:
                if dt[v] == want:
                    if nxt < 0 or (v in vals and nxt not in vals):
                        nxt = v
        if nxt < 0:
            gain_by[t] = gain
            pos_at[t] = pos
            target = -1
            continue
        pos = nxt
        if pos in vals:
            if our_take.get(pos, INF) > t:
                gain += vals[pos]
                take[pos] = t
            del vals[pos]
        elif pos in shields:
            shields.discard(pos)
            sh = True
            target = -1
        gain_by[t] = gain
        pos_at[t] = pos
    return take, gain_by, pos_at


# --------------------------------------------------------------------------
# Route planner
# --------------------------------------------------------------------------

class Plan(object):
    __slots__ = ("score", "diff", "node", "half_end")

    def __init__(self, score, diff, node, half_end):
        self.score, self.diff, self.node, self.half_end = score, diff, node, half_end


class Planner(object):
    """Route search against one opponent prediction.

    A node is a tuple: 0 score, 1 t (moves made), 2 cell, 3 shielded,
    4 mask of keys taken, 5 gain, 6 stolen, 7 stolen before half time,
    8 treasure value (-1 = not known yet), 9 parent, 10 key of the first stop.
    """

    def __init__(self, sit, H, t_half, my_gold, opp_gold, opp, sh0):
        self.sit = sit
        sea = sit.sea
        grid = sea.grid
        self.paths = sit.paths
        self.H, self.t_half = H, t_half
        self.my_gold = my_gold
        take, gain_by = opp[0], opp[1]
        takes = opp[3] if len(opp) > 3 else [take]
        self.wvar = tuple(opp[4]) if len(opp) > 4 else tuple(1.0 / len(takes) for _ in takes)
        opp_total = gain_by[H] if H < len(gain_by) else gain_by[-1]
        opp_half = gain_by[t_half] if 1 <= t_half < len(gain_by) else 0
        # The opponent's gold at half time and at the end, as the model says;
        # final() caps its gain by what we leave on the map.
        self.opp_gold = opp_gold
        self.opp_half = opp_half
        self.opp_gain_by = gain_by
        self.opp_total = opp_total
        self.left = sum(v for v in grid if v > 0)
        # Denial: worth a full cell to us when the two boats will clear the map
        # anyway (the opponent cannot make up for it), less when gold is plenty.
        scarce = 2.0 * RATE * H / max(1.0, self.left + (15 if t_half > 0 else 0))
        self.rho = RHO + (RHO_MAX - RHO) * (scarce if scarce < 1.0 else 1.0)
        # The treasure is fought over whatever the gold left: its denial may count more.
        self.trho = max(self.rho, TREASURE_RHO)
        self.half_scale = HALF_S0 + HALF_S1 * (t_half if t_half > 0 else 0) ** 0.5
        self.future_treasure = t_half >= 1
        kcell, kval, kopp = [], [], []
        specials = []  # shields and the future treasure: always considered
        self.kshield = set()
        self.centre_key = -1
        for u, v in enumerate(grid):
            if v > 0:
                kcell.append(u)
                kval.append(v)
                kopp.append(tuple(tk.get(u, INF) for tk in takes))
        for u, v in enumerate(grid):
            if v == SHIELD and not sh0:
                self.kshield.add(len(kcell))
                specials.append(len(kcell))
                kcell.append(u)
                kval.append(0)
                kopp.append(tuple(tk.get(u, INF) for tk in takes))
        if self.future_treasure and grid[sea.centre] == 0:
            self.centre_key = len(kcell)
            specials.append(len(kcell))
            kcell.append(sea.centre)
            kval.append(0)
            kopp.append(tuple(tk.get(sea.centre, INF) for tk in takes))
        self.kcell, self.kval, self.kopp, self.specials = kcell, kval, kopp, specials
        self.kidx = dict((c, k) for k, c in enumerate(kcell))
        # Per key: the earliest predicted take, and the weight of
        # the predictions that take it at all (fast paths of the search).
        wv = self.wvar
        self.kmin = [min(t) for t in kopp]
        self.klat = [sum(w for x, w in zip(t, wv) if x < INF) for t in kopp]
        # Per key and prediction: the weight of the cell surviving a predicted
        # take anyway (the prediction being wrong), larger the farther ahead.
        self.ksurv = [tuple(w * (1.0 - PRED_CONF ** max(0, x - 1)) if x < INF else w
                            for x, w in zip(t, wv)) for t in kopp]
        odist = None
        if sit.opp_alive and sea.opp >= 0:
            odist = self.paths.dist(sea.opp, sit.opp_shield)
        # ka: the opponent's earliest arrival at each key (the treasure: once it is there).
        ka = []
        for k, c in enumerate(kcell):
            a = odist[c] if odist is not None else INF
            if k == self.centre_key and a < t_half + 1:
                a = t_half + 1
            ka.append(a)
        self.ka = ka
        self.lam = [LAM ** i for i in range(H + 3)]
        # Everyone goes for the treasure: it survives an earlier opponent far less.
        self.tlam = [TREASURE_LAM ** i for i in range(H + 3)]
        self.centre = sea.centre
        mu = [MU ** i for i in range(H + 3)]
        # Per key: how likely the opponent would take the cell if we did not,
        # MU per move it needs to get there; the same whenever we take it
        # (taking gold early is never worth less).
        self.kdeny = [mu[a - 1] if 0 < a <= len(mu) else (1.0 if a <= 0 else 0.0) for a in ka]
        self.ngold = len(kcell) - len(specials)
        self.vmax = max(kval) if kval else 0
        gpow = [1.0]
        for _ in range(H + 2):
            gpow.append(gpow[-1] * GAMMA)
        self.gpow = gpow
        self.orders = {}
        # (ev, den) by gold key and arrival move, filled in by the searches.
        self.evcache = [[None] * (H + 2) for _ in range(self.ngold)]
        self.deadline = sit.deadline
        self.filled = []
        # retime()'s value of each key but the treasure by arrival move (None: not yet).
        self.rcache = [[None] * (H + 2) for _ in range(len(kcell))]

    def order(self, cell, sh):
        """Gold keys by distance from cell: [(d, k)], nearest first."""
        key = cell * 2 + (1 if sh else 0)
        o = self.orders.get(key)
        if o is None:
            dl = self.paths.dist(cell, sh)
            kcell = self.kcell
            o = [(dl[kcell[k]], k) for k in range(self.ngold)]
            o.sort()
            self.orders[key] = o
        return o

    def value(self, k, t2, v, lead=None):
        """(expected gold, expected denial) of taking key k at move t2.

        Each opponent prediction either has taken the cell by then (it is
        gone), takes it later (taking it denies it), or never does; a cell it
        could reach before us also survives only LAM per turn of its lead.
        """
        alive, later = self.alive(k, t2)
        if alive <= 0.0:
            return 0.0, 0.0
        return self.worth(k, t2, v, alive, later, lead)

    def alive(self, k, t2):
        """(weight of the predictions under which key k is still there at move t2,
        weight of those among them that take it later)."""
        alive = later = 0.0
        for x, wv, ws in zip(self.kopp[k], self.wvar, self.ksurv[k]):
            if x > t2:
                alive += wv
                if x < INF:
                    later += wv
            else:
                alive += ws
        return alive, later

    def worth(self, k, t2, v, alive, later, lead=None):
        """value()'s (expected gold, expected denial), given alive() > 0."""
        a = self.ka[k]
        w = self.kdeny[k]
        if t2 < a:
            return v * alive, v * (later + (alive - later) * w)
        i = t2 - a + 1
        if self.kcell[k] == self.centre:
            if lead is not None:
                i = i - TIE_LEAD if lead else i + TIE_TRAIL
                if i < 0:
                    i = 0
            ev = v * self.tlam[i] * alive if i < len(self.tlam) else 0.0
            return ev, ev
        ev = v * self.lam[i] * alive if i < len(self.lam) else 0.0
        if ev > 0.0:
            # Denied as likely as when taken before it could arrive (no jump).
            return ev, ev * (later + (alive - later) * w) / alive
        return ev, ev

    def gold_value(self, k, t2):
        """value() of gold key k at move t2 as the search takes it (a cell no
        prediction takes by then is whole, without summing the weights), or
        False when every prediction has the opponent take it by then, surely."""
        if t2 < self.kmin[k]:
            alive, later = 1.0, self.klat[k]
        else:
            alive, later = self.alive(k, t2)
            if alive <= 0.0:
                return False
        return self.worth(k, t2, self.kval[k], alive, later)

    def gone(self, k, t2):
        """True when every prediction has the opponent take key k by move t2, surely."""
        for x, ws in zip(self.kopp[k], self.ksurv[k]):
            if x > t2 or ws > 0.0:
                return False
        return True

    def root(self, cell, t, sh, gain=0):
        """A start node: ``cell`` reached at move t (gold on it not yet counted)."""
        tv = self.sit.tv if self.t_half == 0 else -1
        mask, stolen, stolen_h, score, g = 0, 0.0, 0.0, 0.0, 0.0
        k = self.key_of(cell) if gain else -1
        if k >= 0:
            mask = 1 << k
            g, den = self.value(k, t, gain)
            score = (g + self.rho * den) * self.gpow[t]
            stolen = den
            if self.ka[k] <= self.t_half:
                stolen_h = den
        return (score, t, cell, sh, mask, g, stolen, stolen_h, tv, None, -1)

    def path_root(self, steps, sh0, gone=0, tv=None):
        """A start node after our first moves ``steps`` (the cell after each
        move), with the gold on them taken; ``gone``: a mask of keys the
        opponent took meanwhile (skipped, worth nothing); ``tv``: the treasure's
        value when the search has seen it appear."""
        sea = self.sit.sea
        if tv is None:
            tv = self.sit.tv if self.t_half == 0 else -1
        score = g = stolen = stolen_h = 0.0
        mask, sh, cell, t = gone, sh0, sea.me, 0
        kidx, kval, gpow, rho = self.kidx, self.kval, self.gpow, self.rho
        for c in steps:
            t += 1
            if c == cell:
                continue
            cell = c
            k = kidx.get(c, -1)
            if k < 0 or (mask >> k) & 1:
                continue
            v = kval[k] if k != self.centre_key else (tv if t > self.t_half > 0 else 0)
            if v > 0:
                ev, den = self.value(k, t, v, self.leads(g, stolen_h, False, t)
                                     if k == self.centre_key else None)
                score += (ev + (self.trho if k == self.centre_key else rho) * den) * gpow[t]
                g += ev
                stolen += den
                if self.ka[k] <= self.t_half:
                    stolen_h += den
                mask |= 1 << k
            elif k in self.kshield:
                mask |= 1 << k
                sh = True
        ck = self.centre_key
        if tv > 0 and ck >= 0 and not (mask >> ck) & 1:
            score -= TREASURE_LEFT * self.trho * tv  # as half() charges a route that crosses
        return (score, t, cell, sh, mask, g, stolen, stolen_h, tv, None, -1)

    def leads(self, gain, stolen_h, crossing, t2):
        """Whether we are ahead when we would take the treasure at move t2 (route gain
        ``gain``; ``crossing``: the route is still before half time, so the gap is the
        one half() sees, else the opponent's predicted gold a move before t2).

        Why it matters: two boats that enter the centre together both sink, which ends
        the round as it stands.  The boat behind cannot afford that, so a tie at the
        treasure is the leader's (TIE_LEAD), and the trailer must arrive first (TIE_TRAIL).
        Used for the treasure still to come (the centre key, before half time); once it
        is on the map it is a gold cell, and the tactics play a tie next to it.
        A planning rival took the treasure 143 times to 119 on a book of 203 maps (both
        seats), half of those in rounds the reference led at half time while it kept far
        from the centre; with this, 113 times to 145."""
        if crossing:
            return self.half_gap(gain, stolen_h) > 0
        gb = self.opp_gain_by
        o = gb[t2 - 1] if t2 - 1 < len(gb) else gb[-1]  # both sinking keeps the gold before t2
        return self.my_gold + gain - self.opp_gold - o > 0

    def key_of(self, cell):
        return self.kidx.get(cell, -1)

    def half_gap(self, gain, stolen_h):
        """Our lead at half time on a route with this gain (the opponent's gain as the
        model says, less what we deny it, and never more than we leave on the map)."""
        o = self.opp_half - self.rho * stolen_h
        if o > self.left - gain:
            o = self.left - gain
        return self.my_gold + gain - self.opp_gold - o

    def half(self, gain, stolen_h):
        """(bonus, treasure value) when the route is at half time with this gain.

        The bonus values the half-time rule: HALF_W times (chance the gap is
        over 20 our way - chance it is over 20 theirs), gaps being uncertain.
        """
        dh = self.half_gap(gain, stolen_h)
        s = self.half_scale
        bonus = HALF_W * (sigmoid_win(dh - 20.5, s) - sigmoid_win(-20.5 - dh, s))
        tval = int(3 * (dh if dh > 0 else -dh)) // 4
        # The treasure goes to whoever gets there first: charged now, earned back
        # by the route that takes it.  (Charged even where the round is likely to
        # end at half time: sparing those measured no better.)
        return bonus - TREASURE_LEFT * self.trho * tval, tval

    def diff(self, gain, stolen):
        """final()'s diff: our lead at the end on a route with this gain."""
        o = self.opp_total - self.rho * stolen
        if o > self.left - gain:
            o = self.left - gain
        return self.my_gold + gain - self.opp_gold - o

    def final(self, score, t, gain, stolen, stolen_h):
        """(score, diff, False, treasure value) of a route stopping at move t."""
        if self.future_treasure and t <= self.t_half:
            bonus, t_cross = self.half(gain, stolen_h)
            score += bonus
        else:
            t_cross = 0
        return score, self.diff(gain, stolen), False, t_cross

    def retime(self, root, seq):
        """The best Plan (node None) of following the key sequence ``seq`` from ``root``.

        Stops that are taken, gone or out of time are skipped; the route may
        stop after any stop.
        """
        H, t_half = self.H, self.t_half
        kcell, kval, ka = self.kcell, self.kval, self.ka
        centre_key, kshield, gpow = self.centre_key, self.kshield, self.gpow
        future_treasure = self.future_treasure
        score, t, cell, sh, mask, gain, stolen, stolen_h, tv = root[:9]
        pcache = self.paths.cache  # Paths.dist's, read here directly: retime runs hot
        rcache = self.rcache
        # Where the route may stop: what final() says of it.  Worked out only when
        # the route has moved on (a skipped stop leaves it as it was, and no better).
        crossing = future_treasure and t <= t_half
        bonus, t_cross = self.half(gain, stolen_h) if crossing else (0.0, 0)
        fs = score + bonus if crossing else score
        best_score = fs
        best_state = (gain, stolen)
        for k in seq:
            if (mask >> k) & 1:
                continue
            c = kcell[k]
            dl = pcache.get(cell * 2 + (1 if sh else 0))
            if dl is None:
                dl = self.paths.dist(cell, sh)
            d = dl[c]
            if d >= INF:
                continue
            if k == centre_key:
                if d == 0:
                    d = 2
                t2 = t + d
                if t2 <= t_half:
                    t2 = t_half + 1
                v = t_cross if crossing else tv
            else:
                if d == 0:
                    continue
                t2 = t + d
                v = kval[k]
            if t2 > H:
                continue
            if k == centre_key:
                if self.gone(k, t2):
                    continue
                e = self.value(k, t2, v, self.leads(gain, stolen_h, crossing, t2)) \
                    if v > 0 else True
            else:
                # A gold cell or a shield at move t2: gone (False), its value, or
                # True (a shield) depends on nothing else; worked out once a turn.
                row = rcache[k]
                e = row[t2]
                if e is None:
                    if self.gone(k, t2):
                        e = False
                    else:
                        e = self.value(k, t2, v) if v > 0 else True
                    row[t2] = e
                if e is False:
                    continue
            if crossing and t2 > t_half:
                score += bonus
                tv = t_cross
            if v > 0:
                ev, den = e
                g = gpow[t2]
                score += (ev + (self.trho if k == centre_key else self.rho) * den) * g
                gain += ev
                stolen += den
                if ka[k] <= t_half:
                    stolen_h += den
            mask |= 1 << k
            if k in kshield:
                sh = True
            cell, t = c, t2
            crossing = future_treasure and t <= t_half
            if crossing:
                bonus, t_cross = self.half(gain, stolen_h)
                fs = score + bonus
            else:
                t_cross = 0
                fs = score
            if fs > best_score:
                best_score = fs
                best_state = (gain, stolen)
        return Plan(best_score, self.diff(*best_state), None, False)

    def search(self, root, width, branch=BRANCH, ahead=None, cap=None):
        """Beam search from ``root``: (best Plan, {first stop key: best Plan}).

        ``cap``: the nodes this search may expand (then it stops with the best
        route so far, planned less far ahead).  ``self.filled`` is left with the
        arrival moves of the buckets it expanded."""
        H, t_half = self.H, self.t_half
        kcell, ka = self.kcell, self.ka
        specials, centre_key, kshield = self.specials, self.centre_key, self.kshield
        gpow, vmax, rho = self.gpow, self.vmax, self.rho
        trho = self.trho
        future_treasure = self.future_treasure
        paths = self.paths
        sit = self.sit
        evcache = self.evcache
        pcache = paths.cache  # Paths.dist's, read here directly: the search runs hot
        t0 = root[1]
        # Routes are planned ``ahead`` moves at most (default: to the end): the
        # beam's cost grows with its length.
        H = min(H, t0 + (ahead if ahead is not None else H))
        buckets = [[] for _ in range(H + 2)]
        buckets[t0].append(root)
        best = None
        firsts = {}
        deadline = self.deadline
        stop = sit.work_cap if cap is None else min(sit.work_cap, sit.work + cap)
        filled = self.filled = []
        for t in range(t0, H + 1):
            bucket = buckets[t]
            if not bucket:
                continue
            if best is not None and (sit.work >= stop or (
                    deadline is not None and perf_counter() > deadline)):
                break  # out of work (or time): the best route found so far
            filled.append(t)
            buckets[t] = None
            if len(bucket) > 1:
                bucket.sort(key=itemgetter(0), reverse=True)  # stable, as -score was
            if t == t0:
                kept = bucket  # the root alone: children arrive later
            else:
                # A child waits in its bucket as (score, parent, key, ev, den, treasure
                # value); only the best `width` distinct ones become nodes (most never do).
                kept = []
                seen = set()
                for nscore, par, k, ev, den, ntv in bucket:
                    c = kcell[k]
                    nmask = par[4] | (1 << k)
                    nsh = par[3] or k in kshield
                    key = (c, nmask, nsh)
                    if key in seen:
                        continue
                    seen.add(key)
                    fk = par[10]
                    kept.append((nscore, t, c, nsh, nmask, par[5] + ev, par[6] + den,
                                 par[7] + den if ka[k] <= t_half else par[7], ntv, par,
                                 k if fk < 0 else fk))
                    if len(kept) >= width:
                        break
            sit.work += len(kept)
            for node in kept:
                score, _, cell, sh, mask, gain, stolen, stolen_h, tv, _, fk = node
                # The route may stop here: how does the round end?
                # (final() written out: its diff only for a route kept as a best.)
                crossing = future_treasure and t <= t_half
                if crossing:
                    bonus, t_cross = self.half(gain, stolen_h)
                    fs = score + bonus
                else:
                    fs, t_cross = score, 0
                if best is None or fs > best.score:
                    best = Plan(fs, self.diff(gain, stolen), node, False)
                if fk >= 0:
                    b = firsts.get(fk)
                    if b is None or fs > b.score:
                        firsts[fk] = Plan(fs, self.diff(gain, stolen), node, False)
                # Children: the best `branch` gold cells by expected value per turn.
                heap = []
                full = False
                for d, k in self.order(cell, sh):
                    if d >= INF:
                        break
                    t2 = t + d
                    if t2 > H:
                        break
                    if full and vmax <= heap[0][0] * d:
                        break
                    if d == 0 or (mask >> k) & 1:
                        continue
                    # (ev, den) of key k at move t2 depends on nothing else: each
                    # is worked out once a turn (None: not yet; False: surely gone).
                    row = evcache[k]
                    e = row[t2]
                    if e is None:
                        e = row[t2] = self.gold_value(k, t2)
                    if e is False:
                        continue
                    ev, den = e
                    r = ev / d
                    if not full:
                        heappush(heap, (r, k, t2, ev, den))
                        full = len(heap) >= branch
                    elif r > heap[0][0]:
                        heapreplace(heap, (r, k, t2, ev, den))
                cands = heap
                if specials:
                    dl = pcache.get(cell * 2 + (1 if sh else 0))
                    if dl is None:
                        dl = paths.dist(cell, sh)
                    for k in specials:
                        if (mask >> k) & 1:
                            continue
                        c = kcell[k]
                        d = dl[c]
                        if d >= INF:
                            continue
                        if k == centre_key:
                            if d == 0:
                                d = 2
                            t2 = t + d
                            if t2 <= t_half:
                                t2 = t_half + 1
                            v = t_cross if crossing else tv
                            if v <= 0 or t2 > H or self.gone(k, t2):
                                continue
                            ev, den = self.value(k, t2, v, self.leads(
                                gain, stolen_h, crossing, t2))
                            cands.append((0.0, k, t2, ev, den))
                        elif d > 0 and t + d <= H and not sh:
                            cands.append((0.0, k, t + d, 0.0, 0.0))
                hb = fs - score if crossing else 0.0  # the half-time bonus, if crossing
                for _, k, t2, ev, den in cands:
                    nscore = score + (ev + (trho if k == centre_key else rho) * den) * gpow[t2]
                    if crossing and t2 > t_half:
                        buckets[t2].append((nscore + hb, node, k, ev, den, t_cross))
                    else:
                        buckets[t2].append((nscore, node, k, ev, den, tv))
        return best, firsts

    def keys(self, node):
        """The key sequence of a plan's stops (the root excluded)."""
        out = []
        kidx = self.kidx
        while node is not None and node[9] is not None:
            out.append(kidx[node[2]])
            node = node[9]
        out.reverse()
        return out


# --------------------------------------------------------------------------
# Moving
# --------------------------------------------------------------------------

def sigmoid_win(diff, scale):
    x = diff / scale
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + 2.718281828459045 ** (-x))


def greedy_target(paths, vals, pos, sh, t, H, rival_d):
    """The greedy model's target from pos before move t (-1 = none)."""
    target, best = -1, 0.0
    left = H - t + 1
    for c, v in vals.items():
        d = paths.dist(c, sh)[pos]
        if d <= 0 or d > left:
            continue
        if rival_d is not None:
            od = rival_d[c]
            if od < d:
                v = v * RACE_LOST
            elif od == d:
                v = v * 0.75
        sc = v / d
        if sc > best:
            best, target = sc, c
    return target


def step_towards(paths, pos, target, sh, vals):
    """Next cell on a shortest path to target (preferring gold), or -1."""
    dt = paths.dist(target, sh)
    want = dt[pos] - 1
    nxt = -1
    for v in paths.adj[1 if sh else 0][pos]:
        if dt[v] == want:
            if nxt < 0 or (v in vals and nxt not in vals):
                nxt = v
    return nxt


def rollout(sit, start, t0, sh0, gain0, seq):
    """Play the rest of the round under models: we follow ``seq`` (cells) from
    ``start`` (reached at move t0), then go greedy; the opponent is greedy.
    Returns the final gold difference (ours - theirs), or the half-time gap
    when that ends the round.
    """
    sea = sit.sea
    grid = sea.grid
    paths = sit.paths
    H, t_half = sea.k, sit.t_half
    vals = {}
    for u, v in enumerate(grid):
        if v > 0:
            vals[u] = v
    shields = set(sit.shields)
    mine = sea.gold + gain0
    theirs = sit.opp_gold
    vals.pop(start, None)
    if start in shields:
        shields.discard(start)
    me, msh = start, sh0
    opp, osh = sea.opp, sit.opp_shield
    alive = sit.opp_alive and opp >= 0
    i = 0
    target = -1
    for t in range(t0, H + 1):
        if t > t0 or t0 == 0:
            # our move t
            while i < len(seq) and seq[i] not in vals and seq[i] not in shields:
                i += 1
            if i < len(seq):
                goal = seq[i]
            else:
                goal = greedy_target(paths, vals, me, msh, t, H,
                                     paths.dist(opp, osh) if alive else None)
            if goal >= 0 and goal != me:
                nxt = step_towards(paths, me, goal, msh, vals)
                if nxt >= 0:
                    me = nxt
                    if me in vals:
                        mine += vals.pop(me)
                    elif me in shields:
                        shields.discard(me)
                        msh = True
        if alive:
            if target < 0 or target not in vals:
                target = greedy_target(paths, vals, opp, osh, t, H, paths.dist(me, msh))
            if target >= 0:
                nxt = step_towards(paths, opp, target, osh, vals)
                if nxt >= 0:
                    opp = nxt
                    if opp in vals:
                        theirs += vals.pop(opp)
                    elif opp in shields:
                        shields.discard(opp)
                        osh = True
                        target = -1
        if t == t_half and t_half >= 1:
            gap = mine - theirs
            if gap > 20 or gap < -20:
                return gap
            tv = 3 * abs(gap) // 4
            if tv > 0:
                vals[sea.centre] = tv
    return mine - theirs


def choose_move(sit):
    """(move cell, the opponent's predicted next cell)."""
    sea = sit.sea
    grid = sea.grid
    me, oppc = sea.me, sea.opp
    H = sea.k
    t_half = sit.t_half
    my_gold, opp_gold = sea.gold, sit.opp_gold
    sh = sea.shield

    t_pred = 3 * abs(my_gold - opp_gold) // 4
    opp = predict_opponent(sit, H, t_half, t_pred, {})
    if VARIANTS > 1 and sit.opp_alive:
        # Several plausible opponents, weighted by how well each has predicted
        # its moves so far.
        preds = [opp] + [predict_opponent(sit, H, t_half, t_pred, {}, v)
                         for v in range(1, VARIANTS)]
        hits = sit.vhits
        w = [(hits[i] + 1.0) ** VAR_POW for i in range(VARIANTS)]
        tw = sum(w)
        w = [x / tw for x in w]
        gain_by = [sum(w[i] * preds[i][1][t] for i in range(VARIANTS)) for t in range(H + 1)]
        best_i = max(range(VARIANTS), key=lambda i: (w[i], -i))
        sit.vnext = [p[2][1] if len(p[2]) > 1 else oppc for p in preds]
        opp = (preds[best_i][0], gain_by, preds[best_i][2], [p[0] for p in preds], w)
    planner = Planner(sit, H, t_half, my_gold, opp_gold, opp, sh)
    large = sea.rows * sea.cols > BUDGET_AREA
    first_cap = FIRST_WORK if large else None
    top, firsts = planner.search(planner.root(me, 0, sh), WIDTH1, BRANCH, None, first_cap)
    # Buckets the routes from each first move will fill, as the first search filled them.
    filled = sum(1 for t in planner.filled if t <= PLAN_H + 1)
    predicted = opp[2][1] if len(opp[2]) > 1 else oppc

    # Candidate first moves: stay, or an enterable neighbour (never a wreck,
    # never a reef without a shield).
    options = [me]
    for v in sea.nbr[me]:
        if v == oppc and not sit.opp_alive:
            continue
        if grid[v] == REEF and not sh:
            continue
        options.append(v)

    scale = SCALE0 + SCALE1 * H ** 0.5

    # Routes: the best ones from the boat (one per first stop) and from each
    # first move; every first move is then scored with every route (re-timed),
    # so that two moves are compared on the same routes.
    # Against a boat that keeps out of our reach, each first move gets its own
    # prediction of it (where we stand decides where it cannot go).
    roots, planners = [], []
    for c in options:
        nsh = sh or grid[c] == SHIELD
        gain = grid[c] if (grid[c] > 0 and c != me) else 0
        pl = planner
        planners.append(pl)
        roots.append(pl.root(c, 1, nsh, gain))
    pool = []
    for plan in sorted(firsts.values(), key=lambda p: -p.score)[:POOL]:
        pool.append(planner.keys(plan.node))
    # Their beams narrowed to fit OPT_WORK nodes in all: on a large map with many turns
    # left they would take most of the turn's time.
    width = WIDTH
    if large and len(roots) * WIDTH * filled > OPT_WORK:
        width = max(WIDTH_MIN, OPT_WORK // (len(roots) * filled))
    for pl, root in zip(planners, roots):
        plan = pl.search(root, width, BRANCH, PLAN_H)[0]
        pool.append(pl.keys(plan.node))
    values = []
    for pl, root in zip(planners, roots):
        best, best_seq = None, None
        for seq in pool:
            plan = pl.retime(root, seq)
            if best is None or plan.score > best.score:
                best, best_seq = plan, seq
        values.append((best, best_seq))
    # Calibrate: play out the best move's route against the greedy model.
    ai = max(range(len(values)), key=lambda i: values[i][0].score)
    anchor, aseq = values[ai]
    c = options[ai]
    gain = grid[c] if (grid[c] > 0 and c != me) else 0
    d_anchor = rollout(sit, c, 1, sh or grid[c] == SHIELD, gain,
                       [planner.kcell[k] for k in aseq[:ROLL_STOPS]])
    d_anchor = ANCHOR_MIX * d_anchor + (1.0 - ANCHOR_MIX) * anchor.diff
    if DEBUG:
        import sys
        sys.stderr.write("  plan %s score %.1f diff %.1f d_anchor %.1f half_end %s\n" % (
            [sea.rc(planner.kcell[k]) for k in aseq[:6]], anchor.score, anchor.diff,
            d_anchor, anchor.half_end))

    # Tactics: the next turn (two when the boats are close, when the half-time
    # check is two moves away, or at the very end) as a simultaneous game.
    ob = sit.ob
    if opp_gold > my_gold:
        lam = max(LAM_LEAD, (ob[5] + 1.0) / (ob[4] + 2.0))
    elif opp_gold == my_gold:
        lam = LAM_TIE
    else:
        lam = LAM_TRAIL
    depth = 1
    if sit.opp_alive and oppc >= 0:
        near = sit.paths.dist(me, True)[oppc] <= NEAR
        if near or t_half == 2 or H == 2:
            depth = 2
    tac = Tactics(sit, planner, pool, anchor, d_anchor, scale, opp, lam)
    scores = tac.choose(depth)
    allowed = endgame_moves(sit)
    if allowed:
        kept = [(c, u) for c, u in scores if c in allowed]
        if kept:
            scores = kept
    best_move, best_u = me, None
    for c, u in scores:
        if c == me and sit.stall:
            u -= STALL * sit.stall
        if DEBUG:
            import sys
            sys.stderr.write("  opt %s u=%.3f\n" % (sea.rc(c), u))
        if best_u is None or u > best_u + 1e-12:
            best_move, best_u = c, u
    return best_move, predicted


def opp_moves(sit):
    """The opponent's possible destinations this turn (stay first)."""
    sea = sit.sea
    o = sea.opp
    if not sit.opp_alive or o < 0:
        return [o]
    out = [o]
    for v in sea.nbr[o]:
        if sea.grid[v] == REEF and not sit.opp_shield:
            continue
        out.append(v)
    return out


class Tactics(object):
    """The next turn(s) as a game of simultaneous moves, resolved exactly.

    Every pair (our move, its move) is played with the rules: a collision or
    a swap freezes the gold (a win when we lead, a loss when we trail), gold
    it takes is gone from our routes, and the half-time gap is exact when the
    check falls inside the search.  After the searched moves, a position is
    worth the best of our candidate routes re-timed from there, as a chance
    of winning.  Its moves are weighed by a mix of the worst case (it sees our
    move) and the model's prediction, the mix set by what a collision would
    mean to it and by how it has behaved so far.
    """

    def __init__(self, sit, planner, pool, anchor, d_anchor, scale, opp, lam):
        self.sit, self.pl, self.pool = sit, planner, pool
        self.anchor_score, self.d_anchor, self.scale = anchor.score, d_anchor, scale
        self.gain_by, self.pos_at = opp[1], opp[2]
        self.lam = lam
        self.cache = {}
        sea = sit.sea
        self.terr_w = TERR_W if sea.rows * sea.cols <= TERR_AREA else 0.0
        if self.terr_w > 0.0:
            self.tpw = [TERR_DECAY ** d for d in range(sea.n + 2)]
        ob = sit.ob
        self.hit = (ob[3] + 1.0) / (ob[2] + 2.0)
        # How often it comes into our reach when it could (learnt this round).
        if sit.sea.gold > sit.opp_gold:
            # It trails: a ram attempt pays only as often as it has come near.
            self.p_in = (ob[1] + ob[5] + RAM_PRIOR) / (ob[0] + ob[4] + 1.0)
        else:
            i = 4 if sit.opp_gold > sit.sea.gold else 0
            self.p_in = (ob[i + 1] + ENTER_PRIOR) / (ob[i] + 2.0 * ENTER_PRIOR)

    def exact(self, mine, theirs):
        if mine > theirs:
            return 1.0 + 0.0005 * (mine - theirs)
        if mine < theirs:
            return 0.0005 * (mine - theirs)
        return 0.5 if mine > 0 else 0.0

    def territory(self, v, a, b, sh, osh, mine, theirs, taken, left):
        """Mix v with the chance by territory: each gold cell goes to the boat
        that reaches it first, as on small maps where the two boats race for
        every cell and a route estimate is too hopeful.  A tie goes to the
        leader (the other must keep clear of a collision that would freeze its
        loss), half each when level."""
        pl = self.pl
        paths = self.sit.paths
        da, db = paths.dist(a, sh), paths.dist(b, osh)
        pw = self.tpw
        tie = 1.0 if mine > theirs else (0.0 if theirs > mine else 0.5)
        my = th = 0.0
        kcell, kval = pl.kcell, pl.kval
        for k in range(pl.ngold):
            if (taken >> k) & 1:
                continue
            c = kcell[k]
            x, y = da[c], db[c]
            if x < y:
                if x <= left:
                    my += kval[k] * pw[x]
            elif y < x:
                if y <= left:
                    th += kval[k] * pw[y]
            elif x <= left:
                my += tie * kval[k] * pw[x]
                th += (1.0 - tie) * kval[k] * pw[x]
        u = sigmoid_win(mine + my - theirs - th, self.scale)
        return (1.0 - self.terr_w) * v + self.terr_w * u

    def leaf(self, steps, sh, gone, tv, opp_gain, t):
        """Our chance after our moves ``steps`` (it took ``opp_gain`` meanwhile)."""
        key = (tuple(steps), gone, tv)
        hit = self.cache.get(key)
        if hit is None:
            pl = self.pl
            root = pl.path_root(steps, self.sit.sea.shield, gone, tv)
            best = None
            for seq in self.pool:
                plan = pl.retime(root, seq)
                if best is None or plan.score > best.score:
                    best = plan
            hit = self.cache[key] = best.score
        gb = self.gain_by
        predicted = gb[t] if t < len(gb) else gb[-1]
        d = self.d_anchor + (hit - self.anchor_score) - (opp_gain - predicted)
        return sigmoid_win(d, self.scale) + 0.0005 * (hit - self.anchor_score)

    def value(self, steps, me, opp, sh, osh, mine, theirs, gone, tv, opp_gain, depth):
        """Our chance at (me, opp) after ``steps``: max over our move of the
        weighed mix over its moves (``depth`` more turns searched)."""
        sit = self.sit
        sea, grid = sit.sea, sit.sea.grid
        pl = self.pl
        t = len(steps)
        H, t_half = sea.k, sit.t_half
        mine_opts = [me] + [v for v in sea.nbr[me]
                            if (sh or grid[v] != REEF) and not (v == opp and not sit.opp_alive)]
        theirs_opts = [opp]
        if sit.opp_alive:
            theirs_opts += [v for v in sea.nbr[opp] if osh or grid[v] != REEF]
        pred = self.pos_at[t + 1] if t + 1 < len(self.pos_at) else opp
        best = None
        taken_mask = pl.path_root(steps, sea.shield, gone, tv)[4]
        for a in mine_opts:
            vals = []
            for b in theirs_opts:
                if sit.opp_alive and (a == b or (a == opp and b == me)):
                    vals.append(self.exact(mine, theirs))
                    continue
                na = mine + self.cell_gain(a, me, taken_mask, t + 1, tv)
                ng = gone
                og = opp_gain
                if b != opp and sit.opp_alive:
                    k = pl.kidx.get(b, -1)
                    if k >= 0 and not ((taken_mask | gone) >> k) & 1 and k != pl.centre_key:
                        if k not in pl.kshield:
                            og += pl.kval[k]
                        ng = gone | (1 << k)
                    elif k == pl.centre_key and t + 1 > t_half > 0 and tv > 0 \
                            and not ((taken_mask | gone) >> k) & 1:
                        og += tv
                        ng = gone | (1 << k)
                nt = theirs + (og - opp_gain)
                ntv = tv
                if t + 1 == t_half:
                    gap = na - nt
                    if gap > 20 or gap < -20:
                        vals.append(self.exact(na, nt))
                        continue
                    ntv = 3 * abs(gap) // 4
                if t + 1 >= H:
                    vals.append(self.exact(na, nt))
                    continue
                nsteps = steps + [a]
                nsh = sh or grid[a] == SHIELD
                nosh = osh or grid[b] == SHIELD
                if depth > 1:
                    v = self.value(nsteps, a, b, nsh, nosh, na, nt, ng, ntv, og, depth - 1)
                else:
                    v = self.leaf(nsteps, sh, ng, ntv, og, t + 1)
                    if self.terr_w > 0.0:
                        v = self.territory(v, a, b, nsh, nosh, na, nt, taken_mask | ng, H - t - 1)
                vals.append(v)
            if len(vals) == 1:
                u = vals[0]
            else:
                ev = sum(v * w for v, w in zip(vals, self.weights(me, pred, theirs_opts)))
                u = self.lam * min(vals) + (1.0 - self.lam) * ev
            if t == 0:
                self.scores.append((a, u))
            if best is None or u > best:
                best = u
        return best

    def weights(self, me, pred, opts):
        """How likely each of its moves is: the model's prediction first (as
        often as it has been right), and a move into our reach only as often
        as it has come into our reach when it could."""
        w_pred = self.hit if pred in opts else 0.0
        rest = (1.0 - w_pred) / len(opts)
        w = [rest + (w_pred if b == pred else 0.0) for b in opts]
        reach = self.sit.sea.nbr[me]
        inside = [b == me or b in reach for b in opts]
        m_in = sum(x for x, i in zip(w, inside) if i)
        m_out = sum(x for x, i in zip(w, inside) if not i)
        if m_in <= 0.0 or m_out <= 0.0:
            return w
        p_in = self.p_in
        return [x * (p_in / m_in if i else (1.0 - p_in) / m_out) for x, i in zip(w, inside)]

    def cell_gain(self, a, prev, taken_mask, t, tv):
        """Gold we collect by moving from prev to a at move t."""
        if a == prev:
            return 0
        pl = self.pl
        k = pl.kidx.get(a, -1)
        if k < 0 or (taken_mask >> k) & 1 or k in pl.kshield:
            return 0
        if k == pl.centre_key:
            return tv if (t > self.sit.t_half > 0 and tv > 0) else 0
        return pl.kval[k]

    def choose(self, depth):
        sit = self.sit
        sea = sit.sea
        self.scores = []
        tv = sit.tv if sit.t_half == 0 else -1
        self.value([], sea.me, sea.opp, sea.shield, sit.opp_shield, sea.gold, sit.opp_gold,
                   0, tv, 0, depth)
        return self.scores


# --------------------------------------------------------------------------
# Endgame
# --------------------------------------------------------------------------

class Endgame(object):
    """The last gold cells as a race between orders of targets, played out.

    The planner and the tactics value a move by gold, discounted and
    weighed by chances.  At the end of a round only win, draw or loss counts,
    and a gold-rich move can turn a draw that could be forced into a loss (it
    races for the bigger pile, the opponent is there first and the small one
    is then out of reach).  So after half time, with few gold cells left, each
    boat's plan is an order of targets (gold cells and shields), sailed along
    shortest paths; a target already taken when the boat sets out for it is
    skipped.  For each of our moves this turn, every order of ours from
    there is played against every order of theirs: the first boat to arrive
    collects, two boats arriving on one cell at once sink (the gold freezes),
    and the final gold gives win, draw or loss.  An order is worth its worst
    case over their orders, a move the best of its orders: what it
    guarantees.  That undervalues a move (our orders are fixed, real play
    adapts), so a move is vetoed only if, even knowing their order in
    advance, none of its orders reaches the best guarantee of another move.
    Otherwise the choice stays with the tactics (which model rams on the
    way, as this does not).  Work is counted, not timed, so the same
    position gives the same answer on any machine.
    """

    def __init__(self, sit):
        self.sit = sit
        sea = sit.sea
        grid = sea.grid
        self.items = [u for u, v in enumerate(grid) if v > 0] + list(sit.shields)
        self.val = [max(0, grid[u]) for u in self.items]
        self.is_shield = [grid[u] == SHIELD for u in self.items]
        n = len(self.items)
        # dist[s][row][item]: rows 0..n-1 the items, n our boat, n + 1 theirs,
        # then the cells next to our boat that are not items.
        cells = self.items + [sea.me, sea.opp]
        for v in sea.nbr[sea.me]:
            if v not in cells:
                cells.append(v)
        self.row_of = {}
        for i, u in enumerate(cells):
            self.row_of.setdefault(u, i)
        paths = sit.paths
        self.dist = []
        for s in (False, True):
            tables = [paths.dist(u, s) for u in self.items]
            self.dist.append([[tables[j][u] for j in range(n)] for u in cells])
        self.sh0 = (1 if sea.shield else 0, 1 if sit.opp_shield else 0)

    def orders(self, row, shield, t0=0, first=-1):
        """Every maximal order of targets a boat at ``row`` at move ``t0``
        can finish within the turns left (starting with the item ``first``
        if one is given; without, also the empty order: it stays), or None
        past EG_ORDERS."""
        n, H = len(self.items), self.sit.sea.k
        dist, is_shield = self.dist, self.is_shield
        if first < 0:
            out = [()]
            stack = [(row, shield, t0, ())]
        else:
            out = []
            stack = [(first, shield or is_shield[first], t0 + dist[shield][row][first], (first,))]
        while stack:
            r, s, t, seq = stack.pop()
            grown = False
            for j in range(n):
                if j in seq or (is_shield[j] and s):
                    continue
                nt = t + dist[s][r][j]
                if nt <= H:
                    grown = True
                    stack.append((j, s or is_shield[j], nt, seq + (j,)))
            if not grown and seq:
                out.append(seq)
                if len(out) > EG_ORDERS:
                    return None
        return out

    def play(self, mine, theirs, row0=-1, t0=0):
        """(our gold, theirs) collected when the two orders meet, ours from
        ``row0`` (default: our boat) at move ``t0``, theirs from its boat."""
        dist, val, is_shield = self.dist, self.val, self.is_shield
        H = self.sit.sea.k
        n = len(self.items)
        la, lb = len(mine), len(theirs)
        # Each boat: its shield, index into its order, the turn of its next
        # arrival (INF: done), the gold it has.  The two boats' steps below
        # are written out once each, not through a helper: this loop runs up
        # to EG_PLAYS times a turn.
        sa, sb = self.sh0
        ia = ib = 0
        ta = t0 + dist[sa][n if row0 < 0 else row0][mine[0]] if la else INF
        tb = dist[sb][n + 1][theirs[0]] if lb else INF
        if ta > H:
            ta = INF
        if tb > H:
            tb = INF
        ga = gb = 0
        taken = 0
        while ta < INF or tb < INF:
            if ta <= tb:
                j = mine[ia]
                if ta == tb and j == theirs[ib]:
                    break  # both arrive on one cell: both sink
                if not (taken >> j) & 1:
                    taken |= 1 << j
                    ga += val[j]
                    if is_shield[j]:
                        sa = 1
                t = ta
                ia += 1
                while ia < la and (taken >> mine[ia]) & 1:
                    ia += 1
                ta = INF
                if ia < la:
                    x = t + dist[sa][j][mine[ia]]
                    if x <= H:
                        ta = x
                if t < tb:
                    continue
            j = theirs[ib]
            if not (taken >> j) & 1:
                taken |= 1 << j
                gb += val[j]
                if is_shield[j]:
                    sb = 1
            t = tb
            ib += 1
            while ib < lb and (taken >> theirs[ib]) & 1:
                ib += 1
            tb = INF
            if ib < lb:
                x = t + dist[sb][j][theirs[ib]]
                if x <= H:
                    tb = x
        return ga, gb

    def allowed(self):
        """Our moves this turn that can still reach the best result a move
        guarantees, or None when every move can or the search would be too
        big."""
        sit = self.sit
        sea = sit.sea
        grid = sea.grid
        n = len(self.items)
        sh = self.sh0[0]
        theirs = self.orders(n + 1, self.sh0[1])
        if theirs is None:
            return None
        val = self.val

        def solo(seq):
            return sum(val[j] for j in seq)
        # Strong orders first: a good order of ours sets the bar early and a
        # strong answer of theirs refutes a weak order of ours at once; an
        # answer that refuted one order of ours is tried first on the next
        # (the killer heuristic of game-tree search).
        theirs.sort(key=solo, reverse=True)
        mine0, theirs0 = sea.gold, sit.opp_gold
        values, plays = {}, 0
        for c in [sea.me] + sea.nbr[sea.me]:
            if grid[c] == REEF and not sh:
                continue
            # Each move: where our orders start, at move 1 (on an item: with
            # that item, reached at move 1; a shield we do not need is a
            # plain cell).
            row0, t0, j0 = self.row_of[c], 1, -1
            if row0 < n and not (self.is_shield[row0] and sh):
                row0, t0, j0 = n, 0, row0
            ours = self.orders(row0, sh, t0, j0)
            if ours is None:
                return None
            ours.sort(key=solo, reverse=True)
            best = -1
            for a in ours:
                worst = 3
                for i, b in enumerate(theirs):
                    g, h = self.play(a, b, row0, t0)
                    plays += 1
                    x, y = mine0 + g, theirs0 + h
                    r = 2 if x > y else (1 if x == y else 0)
                    if r < worst:
                        worst = r
                        if worst <= best:
                            if i:
                                theirs.insert(0, theirs.pop(i))
                            break
                if plays > EG_PLAYS:
                    return None
                if worst > best:
                    best = worst
                    if best == 2:
                        break
            values[c] = (best, ours, row0, t0)
        # top: the best result a move guarantees.  A move that guarantees
        # less is vetoed only if it cannot reach top even knowing their order
        # in advance: our orders are fixed where real play adapts, so a
        # worst case alone undervalues some moves, and the best response to
        # a known order overvalues them; a move that falls short of top under
        # both is worse, whatever the truth between the two.
        self.lo = dict((c, v[0]) for c, v in values.items())
        top = max(self.lo.values())
        allowed = set()
        for c, (lo, ours, row0, t0) in values.items():
            if lo == top:
                allowed.add(c)
                continue
            reach = True
            for b in theirs:
                for i, a in enumerate(ours):
                    g, h = self.play(a, b, row0, t0)
                    plays += 1
                    x, y = mine0 + g, theirs0 + h
                    if (2 if x > y else (1 if x == y else 0)) >= top:
                        if i:
                            ours.insert(0, ours.pop(i))
                        break
                else:
                    reach = False
                    break
                if plays > EG_PLAYS:
                    return None
            if reach:
                allowed.add(c)
        if DEBUG:
            import sys
            sys.stderr.write("  endgame plays %d values %s allowed %s\n" % (
                plays, sorted((sea.rc(c), v[0]) for c, v in values.items()),
                sorted(sea.rc(c) for c in allowed)))
        if len(allowed) == len(values):
            return None
        return allowed


def endgame_moves(sit):
    """Endgame(sit).allowed() when it applies: after half time (the treasure
    is then plain gold on the centre), both boats afloat, few gold cells,
    and the result still open."""
    sea = sit.sea
    if sit.t_half != 0 or not sit.opp_alive or sea.opp < 0 or sea.me < 0:
        return None
    golds = [v for v in sea.grid if v > 0]
    if not golds or len(golds) > EG_GOLD:
        return None
    left = sum(golds)
    if sea.gold > sit.opp_gold + left or sit.opp_gold > sea.gold + left:
        return None  # decided whoever takes the rest
    return Endgame(sit).allowed()


# --------------------------------------------------------------------------
# Placement
# --------------------------------------------------------------------------

def choose_start(sit, tried):
    """The 0-cell whose route within K - 1 moves beats the opponent's by most,
    given where it probably starts (the cells richest in nearby gold)."""
    sea = sit.sea
    grid = sea.grid
    paths = sit.paths
    zeros = [u for u, v in enumerate(grid) if v == 0]
    if not zeros:
        return 0
    golds = [(u, v) for u, v in enumerate(grid) if v > 0]
    H = max(1, sea.k - 1)
    dists = [paths.dist(u, False) for u, _ in golds]
    # Quick scores: ours (gold near the cell, as soon as it can be reached)
    # and the common "sum of gold * 0.75^distance" other bots start from.
    decay = 0.8 if H >= 10 else 0.6
    pw = [decay ** d for d in range(sea.n + 1)]
    pw2 = [0.75 ** d for d in range(sea.n + 1)]
    quick, theirs = [], []
    for z in zeros:
        s = s2 = 0.0
        for (u, v), dl in zip(golds, dists):
            d = dl[z]
            if d < INF:
                s2 += v * pw2[d]
                if d <= H:
                    s += v * pw[d]
        quick.append((s, -z, z))
        theirs.append((s2, -z, z))
    quick.sort(reverse=True)
    theirs.sort(reverse=True)
    if tried and len(tried) <= INSIST and tried[0] in zeros \
            and all(t == tried[0] for t in tried):
        # The other side may have moved on: insist.  Twice, not once: a rival that
        # insists once moves on at the third ask and leaves us the cell (insisting
        # once, both moved off the best cell there and each took its next best).
        return tried[0]
    if tried:
        # It wants the cell we collided on; it will name another one now.
        likely = [tried[0]]
    else:
        likely = [z for _, _, z in theirs[:OPP_STARTS]]
    cands = [z for _, _, z in quick if z not in tried][:PLACE_CANDIDATES]
    for z in likely:
        if z not in cands and z not in tried:
            cands.append(z)
    if not cands:
        return zeros[0]
    hor = min(H, PLACE_HORIZON)
    # (ours, theirs) -> value: a likely start is also a candidate, so most
    # pairs come up again the other way round (ours as theirs).
    values = {}

    def value(z, o):
        v = values.get((z, o))
        if v is None:
            v = values[(z, o)] = start_value(sit, z, o, hor)
        return v

    scored = []
    for z in cands:
        total, n = 0.0, 0
        for o in likely:
            if o == z:
                # Both name it: after the re-ask we insist and it names another
                # cell, its next best: valued against it there (values with an
                # opponent count the gold we deny it, so they are not comparable
                # with a value alone).
                o = next((x for _, _, x in theirs if x != z and x not in tried), -1)
            total += value(z, o)
            if PLACE_DIFF > 0.0 and o >= 0:
                total -= PLACE_DIFF * value(o, z)
            n += 1
        scored.append((total / max(1, n), -z, z))
    scored.sort(reverse=True)
    idx = 1 if len(tried) >= 3 and len(scored) > 1 else 0
    z = scored[idx][2]
    if not tried:
        # The map is symmetric: z's mirror images are as good.  Bots that keep
        # the first of equal cells, or that think alike, name the same one:
        # name the image farthest from the opponent's likely start (the last
        # one when that does not decide), and skip a re-ask.
        twins = [t for t in mirror_images(sea, z) if grid[t] == 0]
        if len(twins) > 1:
            od = paths.dist(likely[0], False) if likely else None
            z = max(twins, key=lambda t: ((od[t] if od is not None else 0), t))
    return z


def mirror_images(sea, z):
    """z and its images under every axis the map is symmetric about."""
    grid, R, C = sea.grid, sea.rows, sea.cols
    maps = [
        lambda r, c: (R - 1 - r, c),
        lambda r, c: (r, C - 1 - c),
    ]
    if R == C:
        maps += [lambda r, c: (c, r), lambda r, c: (C - 1 - c, R - 1 - r)]
    axes = []
    for m in maps:
        if all(grid[f] == grid[m(f // C, f % C)[0] * C + m(f // C, f % C)[1]]
               for f in range(sea.n)):
            axes.append(m)
    out = [z]
    for f in out:
        for m in axes:
            r, c = m(f // C, f % C)
            g = r * C + c
            if g not in out:
                out.append(g)
    return out


def start_value(sit, z, opp_at, H):
    """Route value from z when the opponent starts at opp_at (-1: nowhere) and
    takes every cell it reaches first."""
    take = {}
    if opp_at >= 0:
        od = sit.paths.dist(opp_at, False)
        for u, v in enumerate(sit.sea.grid):
            if v > 0:
                take[u] = od[u]
    opp = (take, [0] * (H + 2), [opp_at] * (H + 2))
    planner = Planner(sit, H, 0, 0, 0, opp, False)
    return planner.search(planner.root(z, 0, False), PLACE_WIDTH, 5)[0].score


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------

def decide(map_text, state_text, start=None):
    """One turn: (MOVE.OUT text, STATE.OUT text).  ``start``: when the run
    began (perf_counter), for the planning budget's safety net; None = now."""
    deadline = (perf_counter() if start is None else start) + BUDGET
    sea = Sea(map_text)
    st = parse_state(state_text)
    if sea.me < 0:
        # Placement.  STATE.OUT present at a placement turn = re-ask (R12).
        sit = Situation(sea, {"k": [sea.k], "os": [0], "sh": []}, deadline, PLACE_WORK)
        tried = [z for z in st.get("tries", []) if 0 <= z < sea.n] if state_text else []
        z = choose_start(sit, tried)
        new = {"k": [sea.k], "tries": tried + [z], "os": [0], "tv": [-1],
               "sh": [u for u, v in enumerate(sea.grid) if v == SHIELD]}
        i, j = sea.rc(z)
        return "%d %d\n" % (i, j), format_state(new)
    sit = Situation(sea, st, deadline)
    move, predicted = choose_move(sit)
    i, j = sea.rc(move)
    return "%d %d\n" % (i, j), format_state(sit.new_state(move, predicted))
