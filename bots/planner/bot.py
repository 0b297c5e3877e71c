#!/usr/bin/env python3
"""Ocean Treasure sparring bot "planner": whole-route planning for both boats.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic.

It is a different kind of bot from the reference (which plays short
simultaneous-move trees on top of its routes) and from hunter (a one- or
two-turn tree): it plans the whole rest of the round, as a strong contestant's
planner would, and it plays for the chance of ending ahead, not for gold.

* The opponent's route is predicted first, as a quick collector's: always on
  to the gold cell with the most gold per step among those it reaches no later
  than we do (GREEDY_OPP; False: the best route of a beam search like ours,
  which credited it with long tours and had us following it into cells it
  emptied first).
* Our route is then planned against it by a time-bucketed beam search: states
  are (cell, cells taken, shield) at an arrival time, the best few kept per
  time step (so short, quick plans are not crowded out by long ones), each
  expanded to the few best next targets (gold, a shield, the treasure).  A
  cell is worth its gold when we arrive before the opponent's plan does (a
  cell it would take later is taken from it), a share of it when the opponent
  could be there first but does not plan to.
* The half-time rule is part of every plan: when a plan passes turn K/2 the
  projected gap is computed; over 20 the round ends there (a plan that wins
  that way is a sure win), otherwise the treasure, worth 3/4 of the gap,
  becomes a target raced against the opponent's projected position.
* Each plan ends in a projected margin, turned into a chance of winning with a
  logistic whose width shrinks with the turns left: one gold ahead at the end
  counts almost as much as ten, and a plan that wins surely beats one that
  collects more.  Each first move is scored by its best plan; a move into a
  cell the opponent can enter this turn is weighed with the collision's
  outcome (both boats sink, the gold frozen: good when ahead, bad behind).

* Placement: the empty cell with the most gold close by, the centre included;
  at the first re-ask the same cell again, then the next best.

STATE.OUT: K of the round, the shields last seen (one that vanishes while we
are elsewhere went to the opponent), the treasure's value, and placement asks.
"""

from __future__ import annotations

import math
import os
import sys

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
TAG = "PLANNER1"
REEF, SHIELD = -1, -2
INF = 1 << 20
BEAM = 5  # states kept per arrival time in our search
BEAM_OPP = 3  # ... in the opponent's
BRANCH = 5  # next targets tried from a state
ROUTES = 24  # best routes re-timed from each first move
GREEDY_OPP = True  # model the opponent as a quick greedy collector
USE_PLAN = True  # race our route against the opponent's planned one (False: distances only)
LATE_SHARE = 0.55  # share of a cell the opponent reaches first but does not plan to take
TREASURE_TO_OPP = 0.8  # share of an untaken treasure credited to the opponent
TRAP = 0.2  # a first step into a pocket the opponent can close, behind or level, keeps this share
ESCAPE = 2  # ... a pocket: at most this many cells we reach before the opponent
GAMMA = 0.97  # tempo: gold t turns ahead counts GAMMA ** t (orders routes of equal worth)
STEAL = 0.5  # share of a cell taken from the opponent's plan that it does not make up elsewhere


def read(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return None


def cell_of(tok: str) -> int:
    t = tok.upper()
    if t in ("D", "W"):
        return REEF
    if t == "S":
        return SHIELD
    try:
        return max(0, int(t))
    except ValueError:
        return REEF


class Sea:
    """The grid's geometry and cached breadth-first distances (per source and shield)."""

    def __init__(self, rows: int, cols: int, grid: list[int], wreck: int) -> None:
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.grid = grid
        self.centre = (rows // 2) * cols + cols // 2
        self.wreck = wreck  # a sunk boat's cell: nobody may enter it
        nb: list[list[int]] = []
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
        self.water_nb = [[g for g in lst if grid[g] != REEF] for lst in nb]
        self.cache: dict[tuple[int, bool], list[int]] = {}

    def dist(self, src: int, shield: bool) -> list[int]:
        """Steps from src to every cell (INF: unreachable), through reefs with a shield."""
        key = (src, shield)
        d = self.cache.get(key)
        if d is None:
            adj = self.nb if shield else self.water_nb
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


class Plan:
    """A route: its waypoints (cell, arrival time), and the gold cells it takes when."""

    def __init__(self) -> None:
        self.points: list[tuple[int, int]] = []
        self.takes: dict[int, int] = {}  # cell -> arrival time
        self.treasure_t = INF

    def position_at(self, sea: Sea, t: int, shield: bool) -> tuple[int, int]:
        """(cell, lower bound on its distance to the centre) at time t along the route."""
        pts = self.points
        prev = pts[0]
        for p in pts[1:]:
            if p[1] > t:
                dc_prev = sea.dist(prev[0], shield)[sea.centre] - (t - prev[1])
                dc_next = sea.dist(p[0], shield)[sea.centre] - (p[1] - t)
                return prev[0], max(dc_prev, dc_next, 0)
            prev = p
        return prev[0], sea.dist(prev[0], shield)[sea.centre]


class Side:
    """One boat's situation at the root of a search."""

    def __init__(self, pos: int, shield: bool, gold: float, sunk: bool) -> None:
        self.pos, self.shield, self.gold, self.sunk = pos, shield, gold, sunk


def win_chance(margin: float, width: float) -> float:
    """Chance of ending ahead for a projected margin (a draw counts half)."""
    x = margin / width
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class Search:
    """The time-bucketed beam search of one boat's route against the other's.

    ``rival_plan`` is the other boat's planned route (None: the other is
    modelled by its distances alone, as when we plan the opponent's route).
    """

    def __init__(
        self,
        sea: Sea,
        horizon: int,
        half: int,
        treasure_known: int,
        golds: list[int],
        shields: list[int],
        me: Side,
        rival: Side,
        rival_plan: Plan | None,
        beam: int,
    ) -> None:
        self.sea, self.horizon, self.half, self.beam = sea, horizon, half, beam
        self.me, self.rival, self.rival_plan = me, rival, rival_plan
        self.golds = golds
        self.gi = {c: i for i, c in enumerate(golds)}
        self.shields = shields
        self.treasure_known = treasure_known
        grid = sea.grid
        if rival.sunk:
            self.rival_t = [INF] * sea.n
        else:
            self.rival_t = sea.dist(rival.pos, rival.shield)
        self.plan_t: dict[int, int] = {}
        self.plan_total = 0.0
        self.plan_by_half = 0.0
        if rival_plan is not None:
            self.plan_t = rival_plan.takes
            for c, t in rival_plan.takes.items():
                self.plan_total += grid[c]
                if t <= half:
                    self.plan_by_half += grid[c]
        # Where the rival is at half time, for the treasure race.
        if rival.sunk or half < 1:
            self.rival_centre_at_half = INF
        elif rival_plan is not None:
            self.rival_centre_at_half = rival_plan.position_at(sea, half, rival.shield)[1]
        else:
            self.rival_centre_at_half = max(0, sea.dist(rival.pos, rival.shield)[sea.centre] - half)
        # How far a projected margin may be off: the more gold left and turns to
        # play, the less a plan's margin means (a narrow width early would call
        # every plan a sure win or a sure loss and leave nothing to choose by).
        on_map = sum(v for v in grid if v > 0) + (treasure_known if half >= 1 else 0)
        self.width = 1.0 + 0.15 * math.sqrt(on_map * horizon)
        # A gap projected at half time is as uncertain as the turns until then make it.
        self.width_half = 1.0 + 0.15 * math.sqrt(on_map * max(half, 0))

    # ------------------------------------------------------------------ values

    def share(self, cell: int, t: int) -> tuple[float, float, float]:
        """(our share of the cell, gold the rival loses, gold the rival gains) at our arrival t."""
        v = self.sea.grid[cell]
        pt = self.plan_t.get(cell)
        if pt is not None:
            if t < pt:
                # It loses the cell but finds other gold on its way: half counted.
                return v, STEAL * v, 0.0
            return 0.0, 0.0, 0.0
        rt = self.rival_t[cell]
        if t < rt:
            return v, 0.0, 0.0
        if t == rt:
            return 0.5 * v, 0.0, 0.5 * v
        return LATE_SHARE * v, 0.0, (1 - LATE_SHARE) * v

    def rival_treasure_time(self) -> int:
        d = self.rival_centre_at_half
        if d >= INF:
            return INF
        t = self.half + (d if d > 0 else 2)
        if self.rival_plan is not None:
            t = min(t, max(self.rival_plan.treasure_t, self.half + 1))
        return t

    # ------------------------------------------------------------------ search

    def root_state(self, cell: int, t: int, bit: int) -> list:
        """The state of a route that starts at cell at time t (0: now; 1: after a first move)."""
        grid, half = self.sea.grid, self.half
        mask = 0
        mine = rd = rdh = 0.0
        shield = self.me.shield
        if t > 0 and cell in self.gi:
            mine, lost, gained = self.share(cell, t)
            rd = gained - lost
            rdh = rd if t <= half else 0.0
            mask = 1 << self.gi[cell]
        elif t > 0 and grid[cell] == SHIELD:
            shield = True
        # A state: [t, pos, mask, shield, mine, rival_delta, rival_delta_half,
        #           half_state, treasure_value, treasure_mine, firsts, plan, tempo]
        # tempo: our gold discounted by GAMMA per turn, which only orders routes of the
        # same worth (without it a route one step later looked as good, and the boat
        # went back and forth while the gold waited).
        # half_state: 0 before half, 1 treasure pending, 2 resolved, 3 round ended.
        st = [
            t,
            cell,
            mask,
            shield,
            mine,
            rd,
            rdh,
            0 if half >= 1 else 2,
            0.0,
            0.0,
            bit,
            [(cell, t)],
            mine * GAMMA**t,
        ]
        if half < 1:
            st[8] = float(self.treasure_known)
        return st

    def search(self, start: list) -> list[tuple[float, list]]:
        """The beam search from a state: every state it kept, with its score."""
        buckets: dict[int, dict[tuple, list]] = {}
        self._push(buckets, start)
        found: list[tuple[float, list]] = []
        while buckets:
            t = min(buckets)
            for st in self.select(buckets.pop(t), 1):
                found.append((self.final(st), st))
                if st[7] != 3:
                    self.expand(st, buckets)
        return found

    def run(self, roots: list[tuple[int, int]], keep: int = -1) -> list[float]:
        """The best chance of ending ahead for each first move (the cell it leads to).

        The beam search finds routes from where the boat is; the best few are then
        re-timed from each first move's cell, so that every move is judged by the
        same routes (a beam run from each move apart judged them by the luck of
        each beam, and staying put often looked as good as going).  ``keep`` is
        the target the last turn's route headed for: a route that still heads
        there gets a small bonus, so that two routes of about the same worth do
        not make the boat go back and forth between them.
        """
        found = self.search(self.root_state(self.me.pos, 0, 1))
        found.sort(key=lambda x: -x[0])
        routes: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        for _, st in found:
            key = tuple(c for c, _ in st[11][1:])
            if key and key not in seen:
                seen.add(key)
                routes.append(list(key))
                if len(routes) >= ROUTES:
                    break
        best = [-1.0] * len(roots)
        self.best_states: list[list | None] = [None] * len(roots)
        for k, (cell, _) in enumerate(roots):
            start = self.root_state(cell, 1, 1 << k)
            for r in routes or [[]]:
                st = self.follow(start, r)
                score = self.final(st)
                path = st[11]
                if keep >= 0 and (cell == keep or (len(path) > 1 and path[1][0] == keep)):
                    score += 0.02
                if score > best[k]:
                    best[k], self.best_states[k] = score, st
        return best

    def select(self, layer: dict[tuple, list], n_roots: int) -> list[list]:
        """The best ``beam`` states of a time step, and the best of every first move
        not among them: each first move keeps a route, so that a move is never judged
        by a route the beam cut short (it would look like a move into nothing)."""
        ranked = sorted(layer.values(), key=lambda s: -(s[4] - s[5] + s[9]))
        kept = ranked[: self.beam]
        covered = 0
        for s in kept:
            covered |= s[10]
        full = (1 << n_roots) - 1
        for s in ranked[self.beam :]:
            if covered == full:
                break
            if s[10] & ~covered:
                kept.append(s)
                covered |= s[10]
        return kept

    def _push(self, buckets: dict[int, dict[tuple, list]], st: list) -> None:
        key = (st[1], st[2], st[3], st[9] > 0)
        layer = buckets.setdefault(st[0], {})
        old = layer.get(key)
        if old is None:
            layer[key] = st
        else:
            a = st[4] - st[5] + st[9]
            b = old[4] - old[5] + old[9]
            if a > b + 1e-9:
                layer[key] = st
            elif abs(a - b) <= 1e-9:
                old[10] |= st[10]

    def resolve_half(self, st: list) -> None:
        """The half-time check on a plan that passes turn K/2 (its gold all taken by then)."""
        mine_h = self.me.gold + st[4]
        theirs_h = self.rival.gold + self.plan_by_half + st[6]
        gap = mine_h - theirs_h
        if abs(gap) > 20:
            st[7] = 3
            st[8] = gap
        else:
            st[7] = 1
            st[8] = float(int(0.75 * abs(gap)))

    def expand(self, st: list, buckets: dict[int, dict[tuple, list]]) -> None:
        sea, horizon, half = self.sea, self.horizon, self.half
        t, pos, mask, shield = st[0], st[1], st[2], st[3]
        d = sea.dist(pos, shield)
        cands: list[tuple[float, int, int]] = []
        for i, c in enumerate(self.golds):
            if mask >> i & 1:
                continue
            dc = d[c]
            t2 = t + dc
            if dc == 0 or t2 > horizon:
                continue
            cands.append((self.share(c, t2)[0] / (dc + 1.5), c, t2))
        cands.sort(reverse=True)
        cands = cands[:BRANCH]
        if not shield:
            for s in self.shields:
                if d[s] < INF and 0 < d[s] and t + d[s] < horizon:
                    cands.append((0.0, s, t + d[s]))
        # The treasure: from a state before half time, or with the treasure pending.
        if half >= 1 and st[7] in (0, 1) and st[9] == 0:
            dc = d[sea.centre]
            if dc < INF:
                ta = max(t + dc, half + 1) if dc > 0 else max(t + 2, half + 1)
                if ta <= horizon:
                    cands.append((0.0, -1, ta))
        for _, c, t2 in cands:
            nst = self.successor(st, c, t2)
            if nst is not None:
                self._push(buckets, nst)

    def successor(self, st: list, c: int, t2: int) -> list | None:
        """The state after going on from st to target c (-1: the treasure), arriving at t2."""
        sea, grid, half = self.sea, self.sea.grid, self.half
        nst = st[:]
        nst[0] = t2
        nst[11] = st[11] + [(c, t2)]
        if st[7] == 0 and t2 > half:
            self.resolve_half(nst)
            if nst[7] == 3:
                return nst
        if c == -1:
            nst[1] = sea.centre
            if nst[7] == 1 and t2 < self.rival_treasure_time():
                nst[9] = nst[8]
                nst[7] = 2
                nst[12] = st[12] + nst[8] * GAMMA**t2
                return nst
            return None
        nst[1] = c
        if grid[c] == SHIELD:
            nst[3] = True
            return nst
        bit = 1 << self.gi[c]
        if st[2] & bit:
            return None
        nst[2] = st[2] | bit
        got, lost, gained = self.share(c, t2)
        nst[4] = st[4] + got
        nst[12] = st[12] + got * GAMMA**t2
        nst[5] = st[5] + gained - lost
        if t2 <= half:
            nst[6] = st[6] + gained - lost
        return nst

    def follow(self, st: list, targets: list[int]) -> list:
        """A route's targets in order from state st, re-timed: the plan a first move
        leads into (a target already taken, or out of reach in time, is skipped)."""
        sea, half, horizon = self.sea, self.half, self.horizon
        for c in targets:
            if st[7] == 3:
                break
            d = sea.dist(st[1], st[3])
            if c == -1:
                dc = d[sea.centre]
                if dc >= INF or half < 1:
                    continue
                t2 = max(st[0] + dc, half + 1) if dc > 0 else max(st[0] + 2, half + 1)
            else:
                dc = d[c]
                if dc == 0 or dc >= INF:
                    continue
                t2 = st[0] + dc
            if t2 > horizon:
                continue
            nst = self.successor(st, c, t2)
            if nst is not None:
                st = nst
        return st

    def final(self, st: list) -> float:
        """The chance of ending ahead if the plan stops here."""
        if st[7] == 0 and self.half >= 1 and self.half <= self.horizon:
            st = st[:]
            self.resolve_half(st)
        if st[7] == 3:
            return win_chance(st[8], self.width_half) + 0.01 * math.tanh(st[8] / 20.0)
        mine = self.me.gold + st[4] + st[9]
        theirs = self.rival.gold + self.plan_total + st[5]
        if st[7] == 1 and self.rival_treasure_time() <= self.horizon:
            theirs += TREASURE_TO_OPP * st[8]
        margin = mine - theirs
        # The chance of ending ahead first; the margin only orders plans whose
        # chances are (nearly) the same.
        return win_chance(margin, self.width) + 0.01 * math.tanh(margin / 20.0) + 3e-5 * st[12]

    def best_plan(self, root: int) -> Plan:
        """The rival model's use: the single best route from root (gold it takes, when)."""
        sea, grid = self.sea, self.sea.grid
        found = self.search(self.root_state(root, 0, 1))
        best_st = max(found, key=lambda x: x[0])[1]
        plan = Plan()
        plan.points = [(c if c >= 0 else sea.centre, t) for c, t in best_st[11]]
        for c, t in best_st[11][1:]:
            if c == -1:
                plan.treasure_t = t
            elif c >= 0 and grid[c] > 0:
                plan.takes[c] = t
        return plan


# ---------------------------------------------------------------------- turn


def greedy_plan(sea: Sea, horizon: int, half: int, me: Side, rival: Side) -> Plan:
    """A quick rival's route: always on to the gold cell with the most gold per step
    among those it reaches no later than the other boat (a shield's short cut
    aside), while the turns last; then the treasure when it can be first there."""
    grid = sea.grid
    other = sea.dist(rival.pos, rival.shield) if not rival.sunk else [INF] * sea.n
    mine0 = sea.dist(me.pos, me.shield)
    todo = {c: grid[c] for c in range(sea.n) if grid[c] > 0 and mine0[c] <= other[c]}
    plan = Plan()
    plan.points = [(me.pos, 0)]
    t, cur = 0, me.pos
    while todo:
        d = sea.dist(cur, me.shield)
        best, nxt = 0.0, -1
        for c, v in todo.items():
            dc = d[c]
            if dc == 0 or t + dc > horizon:
                continue
            r = v / dc
            if r > best:
                best, nxt = r, c
        if nxt < 0:
            break
        t += d[nxt]
        del todo[nxt]
        plan.points.append((nxt, t))
        plan.takes[nxt] = t
        cur = nxt
    return plan


def parse_state(text: str | None) -> dict[str, list[int]]:
    st: dict[str, list[int]] = {}
    if not text or not text.startswith(TAG):
        return st
    for line in text.splitlines()[1:]:
        parts = line.split()
        if parts:
            try:
                st[parts[0]] = [int(x) for x in parts[1:]]
            except ValueError:
                pass
    return st


def placement(sea: Sea, asks: int) -> int:
    """The empty cell with the most gold close by, the centre included (on a
    symmetric map it is the one cell without a twin, and often the richest
    start).  At the first re-ask the same cell once more (an opponent that
    moves on to its next best leaves it to us), then the next best cells."""
    grid = sea.grid
    score = [0.0] * sea.n
    for c in range(sea.n):
        v = grid[c]
        if v > 0:
            d = sea.dist(c, False)
            for f in range(sea.n):
                if d[f] < INF:
                    score[f] += v * 0.8 ** d[f]
    free = [f for f in range(sea.n) if grid[f] == 0]
    free.sort(key=lambda f: (-score[f], f))
    pick = asks - 1 if asks >= 2 else 0
    return free[min(pick, len(free) - 1)]


def trapped(sea: Sea, cell: int, opp: int, shield: bool, opp_shield: bool) -> bool:
    """Whether cell is a pocket the opponent, near, can shut us in: at most ESCAPE
    cells (within a few steps) that we reach from it before the opponent could."""
    do = sea.dist(opp, opp_shield)
    if do[cell] > 3:
        return False
    dm = sea.dist(cell, shield)
    free = 0
    for c in range(sea.n):
        if dm[c] <= 4 and dm[c] < do[c] - 1:
            free += 1
            if free > ESCAPE:
                return False
    return True


def decide(text: str, state_text: str | None) -> tuple[str, dict[str, list[int]]]:
    tok = text.split()
    rows, cols, k_left = int(tok[0]), int(tok[1]), int(tok[2])
    i1, j1, i2, j2 = (int(x) for x in tok[3:7])
    my_gold, my_shield = int(tok[7]), tok[8] == "1"
    grid = [cell_of(t) for t in tok[9 : 9 + rows * cols]]
    st = parse_state(state_text)
    n = rows * cols
    if i1 == 0:
        sea = Sea(rows, cols, grid, -1)
        asks = st["asks"][0] + 1 if st.get("asks") else 0
        out = {"k": [k_left], "asks": [asks]}
        cell = placement(sea, asks)
        out["shields"] = [f for f in range(n) if grid[f] == SHIELD]
        return f"{cell // cols + 1} {cell % cols + 1}\n", out
    me = (i1 - 1) * cols + j1 - 1
    opp = (i2 - 1) * cols + j2 - 1
    k_total = st.get("k", [0])[0] or 100
    shields_now = [f for f in range(n) if grid[f] == SHIELD]
    opp_shield = bool(st.get("oppshield", [0])[0])
    for s in st.get("shields", []):
        if s not in shields_now and s != me:
            opp_shield = True
    half = k_left - k_total // 2  # moves from now after which the half-time check comes
    centre = (rows // 2) * cols + cols // 2
    treasure = st.get("treasure", [-1])[0]
    if half <= 0 and treasure < 0:
        treasure = max(grid[centre], 0)
    appeared = half <= 0
    on_map = sum(v for v in grid if v > 0)
    opp_gold = 100 + (treasure if appeared and treasure > 0 else 0) - my_gold - on_map
    opp_sunk = grid[opp] == REEF and not opp_shield
    sea = Sea(rows, cols, grid, opp if opp_sunk else -1)
    golds = [f for f in range(n) if grid[f] > 0]
    shields = shields_now
    horizon = k_left
    mine_side = Side(me, my_shield, my_gold, False)
    opp_side = Side(opp, opp_shield, opp_gold, opp_sunk)
    out = {
        "k": [k_total],
        "shields": shields_now,
        "oppshield": [1 if opp_shield else 0],
        "treasure": [treasure],
    }
    # The opponent's route, raced against our distances.
    opp_plan: Plan | None = None
    if not opp_sunk:
        s_opp = Search(
            sea,
            horizon,
            half,
            max(treasure, 0),
            golds,
            shields,
            opp_side,
            mine_side,
            None,
            BEAM_OPP,
        )
        opp_plan = s_opp.best_plan(opp) if not GREEDY_OPP else greedy_plan(
            sea, horizon, half, opp_side, mine_side
        )
    else:
        opp_plan = Plan()
        opp_plan.points = [(opp, 0)]
    # Our moves: each first step, then the best route after it.
    moves = [me]
    for f in sea.nb[me]:
        v = grid[f]
        if v == REEF and not my_shield:
            continue
        moves.append(f)
    roots = [(f, k) for k, f in enumerate(moves)]
    search = Search(
        sea,
        horizon,
        half,
        max(treasure, 0),
        golds,
        shields,
        mine_side,
        opp_side,
        opp_plan if USE_PLAN else None,
        BEAM,
    )
    values = search.run(roots, st.get("target", [-1])[0])
    # The collision risk of each first step.
    lead = my_gold - opp_gold
    crash = 1.0 if lead > 0 else (0.5 if lead == 0 and my_gold > 0 else 0.0)
    opp_next: set[int] = set()
    if not opp_sunk:
        opp_next = {opp} | {f for f in sea.nb[opp] if grid[f] != REEF or opp_shield}
    plan_step = -1
    if opp_plan is not None and len(opp_plan.points) > 1:
        tgt = opp_plan.points[1][0]
        dt = sea.dist(tgt, opp_shield)
        for f in sea.nb[opp]:
            if dt[f] == dt[opp] - 1:
                plan_step = f
                break
    best_move, best_val = me, -1e9
    for idx, f in enumerate(moves):
        val = values[idx]
        if f in opp_next or (f == opp):
            if lead > 0:
                p = 0.5 if f == plan_step else 0.2
            else:
                # Behind or level, a collision loses (or draws) for good: an opponent
                # that searches rams whenever it can, so the cell is as good as lost.
                p = 0.9
            val = (1 - p) * val + p * crash
        if lead <= 0 and not opp_sunk and trapped(sea, f, opp, my_shield, opp_shield):
            # Behind or level, a pocket the opponent can close is a ram waiting to happen.
            val *= TRAP
        # Equal values: a step onto gold, then any step, before staying put.
        val += 1e-6 * (grid[f] > 0) + 1e-7 * (f != me)
        if val > best_val:
            best_move, best_val = f, val
    chosen = search.best_states[moves.index(best_move)]
    if chosen is not None and len(chosen[11]) > 1:
        out["target"] = [chosen[11][1][0]]
    return f"{best_move // cols + 1} {best_move % cols + 1}\n", out


def main() -> None:
    text = read(MAP_FILE)
    if text is None:
        return
    try:
        move, st = decide(text, read(STATE_FILE))
    except Exception:
        tok = text.split()
        move = f"{tok[3]} {tok[4]}\n" if len(tok) > 4 and tok[3] != "0" else "1 1\n"
        st = None
    with open(MOVE_FILE, "w") as f:
        f.write(move)
    if st is not None:
        with open(STATE_FILE, "w") as f:
            f.write(
                TAG
                + "\n"
                + "".join(f"{key} {' '.join(str(v) for v in vals)}\n" for key, vals in st.items())
            )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
