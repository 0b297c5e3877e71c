#!/usr/bin/env python3
"""Ocean Treasure sparring bot "rammer": an aggressive collector that rams when ahead.

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8, deterministic.

Style: it fights.  A collision sinks both boats and freezes the gold, so a
boat that leads wins by ramming the other one.

* Ahead (more gold), with the opponent close enough to catch before the
  round ends: it hunts it.  It guesses the opponent's next cell (one step
  towards the gold nearest to it) and moves onto it when it can, or closes in
  on it, cutting off its way to that gold.
* Otherwise it races for gold, contested gold included (it counts gold the
  opponent reaches first at half its value, not nothing), heads for the
  treasure as soon as it appears, and takes a shield on the way when reefs
  stand between it and the gold.  Behind, it keeps out of the opponent's
  reach (a ram would lock in the loss); level or ahead it does not care.
* Placement: the empty cell nearest to the richest gold; on a re-ask it
  names the same cell again once (whoever gives way gives it the spot), then
  others.

STATE.OUT: K of the round, the cells named at placement, the shields seen.
"""

OUT, STATE, INP = "MOVE.OUT", "STATE.OUT", "MAP.INP"
TAG = "RAMMER1"
REEF, SHIELD = -1, -2
NONE = 999999


def slurp(name):
    try:
        with open(name, "rb") as fh:
            return fh.read().decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return None


def value_of(tok):
    t = tok.upper()
    if t in ("D", "W"):
        return REEF
    if t == "S":
        return SHIELD
    return max(0, int(t)) if t.isdigit() else REEF


class Sea(object):
    def __init__(self, text):
        t = text.split()
        self.R, self.C, self.K = int(t[0]), int(t[1]), int(t[2])
        self.pos = [self.idx(int(t[3]), int(t[4])), self.idx(int(t[5]), int(t[6]))]
        self.mine, self.shielded = int(t[7]), t[8] != "0"
        cells = t[9:9 + self.R * self.C]
        cells += ["D"] * (self.R * self.C - len(cells))
        self.v = [value_of(x) for x in cells]
        self.N = self.R * self.C
        self.centre = (self.R // 2) * self.C + self.C // 2
        self.bfs = {}

    def idx(self, i, j):
        return (i - 1) * self.C + j - 1 if 1 <= i <= self.R and 1 <= j <= self.C else -1

    def nbrs(self, f):
        r, c = divmod(f, self.C)
        if r > 0:
            yield f - self.C
        if r < self.R - 1:
            yield f + self.C
        if c > 0:
            yield f - 1
        if c < self.C - 1:
            yield f + 1

    def far(self, f, sh, wreck=-1):
        """BFS steps from f."""
        key = (f, sh, wreck)
        if key not in self.bfs:
            d = [NONE] * self.N
            d[f] = 0
            q = [f]
            for u in q:
                for w in self.nbrs(u):
                    if d[w] == NONE and w != wreck and (sh or self.v[w] != REEF):
                        d[w] = d[u] + 1
                        q.append(w)
            self.bfs[key] = d
        return self.bfs[key]

    def step_to(self, f, goal, sh, wreck=-1, avoid=()):
        """A neighbour of f one step nearer to goal (gold first), or -1."""
        d = self.far(goal, sh, wreck)
        best = -1
        for w in self.nbrs(f):
            if d[w] == d[f] - 1 and w not in avoid and w != wreck:
                if best < 0 or self.v[w] > self.v[best]:
                    best = w
        return best


def nearest_gold(sea, f, sh, left, rival=None):
    """The gold cell with the best value per step from f (contested gold at half value)."""
    d = sea.far(f, sh)
    best, goal = 0.0, -1
    for c, v in enumerate(sea.v):
        if v <= 0 or d[c] == 0 or d[c] > left:
            continue
        if rival is not None and rival[c] < d[c]:
            v *= 0.5
        sc = v / d[c]
        if sc > best:
            best, goal = sc, c
    return goal


def start(sea, tried):
    best = None
    for z in range(sea.N):
        if sea.v[z] != 0:
            continue
        d = sea.far(z, False)
        s = sum(v / (1.0 + d[c]) for c, v in enumerate(sea.v) if v > 0 and d[c] < NONE)
        if best is None or (s, -z) > best[:2]:
            if z not in tried or (len(tried) == 1 and tried[0] == z):
                best = (s, -z, z)
    return best[2] if best else 0


def move(sea, st):
    me, opp = sea.pos
    opp_sh = st.get("os", [0])[0] == 1
    for f in st.get("sh", []):
        if 0 <= f < sea.N and sea.v[f] != SHIELD and f != me:
            opp_sh = True
    sunk = sea.v[opp] == REEF and not opp_sh
    wreck = opp if sunk else -1
    total = sum(v for v in sea.v if v > 0)
    k_total = st.get("k", [sea.K])[0]
    tv = st.get("tv", [0])[0] if sea.K <= k_total // 2 else 0
    theirs = max(0, 100 + tv - sea.mine - total)
    my_d = sea.far(me, sea.shielded, wreck)
    left = sea.K
    options = [me] + [w for w in sea.nbrs(me) if w != wreck and (sea.shielded or sea.v[w] != REEF)]
    if not sunk:
        opp_d = sea.far(opp, opp_sh)
        reach = {opp} | {w for w in sea.nbrs(opp) if opp_sh or sea.v[w] != REEF}
        if sea.mine > theirs and my_d[opp] <= min(left, 8):
            # Hunt: where will it be?  One step towards its best gold.
            g = nearest_gold(sea, opp, opp_sh, left, my_d)
            nxt = sea.step_to(opp, g, opp_sh) if g >= 0 else opp
            if nxt < 0:
                nxt = opp
            if nxt in options and nxt != me:
                return nxt
            if opp in options and opp != me and my_d[opp] == 1:
                return opp  # swap or meet: both sink, we lead
            step = sea.step_to(me, nxt, sea.shielded, wreck)
            if step >= 0:
                return step
        avoid = reach if sea.mine < theirs else ()
    else:
        opp_d = None
        avoid = ()
    goal = -1
    if sea.K <= k_total // 2 and sea.v[sea.centre] > 0:
        goal = sea.centre  # the treasure
    if goal < 0:
        goal = nearest_gold(sea, me, sea.shielded, left, opp_d)
    if goal >= 0 and not sea.shielded:
        # A shield on the way, if reefs make the way long.
        for s in range(sea.N):
            if sea.v[s] == SHIELD and my_d[s] + sea.far(s, True, wreck)[goal] + 2 <= my_d[goal]:
                goal = s
                break
    if goal < 0:
        return me if me not in avoid else next((w for w in options if w not in avoid), me)
    step = sea.step_to(me, goal, sea.shielded, wreck, avoid)
    if step < 0:
        step = me if me not in avoid else next((w for w in options if w not in avoid), me)
    return step


def read_state(text):
    st = {}
    if text and text.startswith(TAG):
        for ln in text.splitlines()[1:]:
            p = ln.split()
            try:
                st[p[0]] = [int(x) for x in p[1:]]
            except (ValueError, IndexError):
                pass
    return st


def main():
    text = slurp(INP)
    if text is None:
        return
    raw_state = slurp(STATE)
    st = read_state(raw_state)
    try:
        sea = Sea(text)
        shields = [f for f in range(sea.N) if sea.v[f] == SHIELD]
        if sea.pos[0] < 0:
            tried = st.get("tries", []) if raw_state is not None else []
            cell = start(sea, tried)
            new = {"k": [sea.K], "tries": tried + [cell], "sh": shields, "os": [0], "tv": [0]}
        else:
            cell = move(sea, st)
            k_total = st.get("k", [sea.K])[0]
            os_ = st.get("os", [0])[0] == 1 or any(
                0 <= f < sea.N and sea.v[f] != SHIELD and f != sea.pos[0] for f in st.get("sh", []))
            tv = st.get("tv", [0])[0]
            if sea.K == k_total // 2:
                tv = max(0, sea.v[sea.centre])
            new = {"k": [k_total], "sh": shields, "os": [1 if os_ else 0], "tv": [tv]}
        answer = "%d %d\n" % (cell // sea.C + 1, cell % sea.C + 1)
    except Exception:
        tok = text.split()
        answer = "%s %s\n" % (tok[3], tok[4]) if len(tok) > 4 and tok[3] != "0" else "1 1\n"
        new = st
    with open(OUT, "w") as fh:
        fh.write(answer)
    with open(STATE, "w") as fh:
        fh.write(TAG + "\n" + "".join("%s %s\n" % (k, " ".join(map(str, v))) for k, v in new.items()))


if __name__ == "__main__":
    main()
