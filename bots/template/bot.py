#!/usr/bin/env python3
"""Ocean Treasure - starter bot.  Copy this folder, rename it, and improve
`choose_start` and `choose_move`.  Everything else is the file protocol.

HOW YOUR PROGRAM IS RUN
  * It is started ONCE PER TURN as a brand-new process: nothing stays in
    memory between turns.  Use STATE.OUT to remember things (see below).
  * The current directory is your team's folder.  It holds MAP.INP (and
    STATE.OUT if you wrote one last turn).  Your program's own files are NOT
    there, so open the protocol files by their bare names as done below, and
    never expect your source folder to be the current directory.
  * Your own files (weights, an opening book) are beside your program, NOT in
    the current directory.  Open them through __file__, the path of the script:
        open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'weights.txt'))
  * 2 seconds and 512 MB per run.  Python start-up counts, so keep imports
    lean.  Do not run system commands; touch only the protocol files.
  * Every file except STATE.OUT is deleted after each turn.

MAP.INP (tokens separated by spaces or tabs; lines may end in CRLF):
    M N K            rows, columns, turns left INCLUDING this one
                     (K counts down: it is 1 on the very last turn)
    i1 j1 i2 j2      your boat, then the opponent's boat; "0 0 0 0" on the
                     placement turn.  A sunk boat keeps its position.
    S B              your gold so far; B = 1 if you carry a shield
    M lines of N cells, each one of:
        a number     gold on that cell (0 = empty water)
        D            danger: a reef (sinks you unless you carry a shield)
        S            a shield (take it by entering the cell)

COORDINATES: 1-based, ROW FIRST.  "i j" = row i (1 = top), column j (1 = left).

MOVE.OUT: one line "i j" (NOT printed to stdout - written to the file).
  * Placement turn: the start cell; it must hold 0 (not gold, D or S).
  * Other turns: one of the 4 cells sharing an edge with your boat.  Anything
    else (outside the map, diagonal, your own cell) just leaves you in place.

RULES TO REMEMBER
  * Both boats move at the same time.  Ending on the same cell (also when one
    of them stays put) or swapping cells sinks BOTH.  A shield does not help.
  * Entering a wreck's cell sinks you.  Entering D without a shield sinks you.
  * Entering S gives you a shield for the rest of the round.
  * After turn K/2 (half time), if the gold difference is > 20 the round
    ends; otherwise a treasure worth floor(3/4 * difference) appears on the
    centre cell.
  * RE-ASK: if both boats name the same start cell, both programs are run
    again with exactly the same MAP.INP.  STATE.OUT is kept, so if it already
    exists on a placement turn you are being asked again: pick another cell.
"""

from __future__ import annotations  # lets Python 3.8 read the type hints

Cell = tuple  # a (row, column) pair, 1-based: (i, j) = row i, column j

DIRECTIONS = [(-1, 0), (0, -1), (0, 1), (1, 0)]  # up, left, right, down


def read_map(path: str = "MAP.INP") -> tuple:
    """Return (m, n, k, me, opp, gold, shield, grid) read from MAP.INP."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        return parse_map(f.read())


def parse_map(text: str) -> tuple:
    """MAP.INP's text as (m, n, k, me, opp, gold, shield, grid).

    grid[r][c] is an int (gold), "D" or "S", with r, c 0-based inside Python;
    me and opp are 1-based (row, column) pairs exactly as in the file, or None
    on the placement turn.
    """
    tokens = text.split()                   # split() handles spaces/tabs/CRLF
    m, n, k = int(tokens[0]), int(tokens[1]), int(tokens[2])
    i1, j1, i2, j2 = (int(t) for t in tokens[3:7])
    gold, shield = int(tokens[7]), tokens[8] == "1"
    cells = tokens[9:9 + m * n]
    grid: list = []
    for r in range(m):
        row: list = []
        for c in range(n):
            t = cells[r * n + c].upper()
            if t == "W":                    # some map files write W for D
                t = "D"
            row.append(t if t in ("D", "S") else int(t))
        grid.append(row)
    me = (i1, j1) if i1 > 0 else None       # None: this is the placement turn
    opp = (i2, j2) if i2 > 0 else None
    return m, n, k, me, opp, gold, shield, grid


def read_state(path: str = "STATE.OUT") -> str | None:
    """Whatever you wrote last turn, or None (first run of the round)."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def write_state(text: str, path: str = "STATE.OUT") -> None:
    with open(path, "w") as f:
        f.write(text)


def write_move(i: int, j: int, path: str = "MOVE.OUT") -> None:
    with open(path, "w") as f:
        f.write("%d %d\n" % (i, j))         # row first, 1-based


def neighbours(m: int, n: int, cell: Cell) -> list:
    """The cells sharing an edge with `cell`, inside the map (1-based)."""
    out = []
    for di, dj in DIRECTIONS:
        i, j = cell[0] + di, cell[1] + dj
        if 1 <= i <= m and 1 <= j <= n:
            out.append((i, j))
    return out


def distances(m: int, n: int, grid: list, shield: bool, start: Cell,
              walls: set = frozenset()) -> dict:
    """Breadth-first search: {cell: number of moves from `start`}.

    Reefs (D) are walls unless we carry a shield, and so are the cells in
    `walls`.  The other boat is not a wall unless it is in `walls` (it moves);
    cells missing from the result cannot be reached.
    """
    dist = {start: 0}
    queue = [start]
    for cell in queue:                      # the list grows while we walk it
        for nxt in neighbours(m, n, cell):
            if nxt in dist or nxt in walls:
                continue
            if grid[nxt[0] - 1][nxt[1] - 1] == "D" and not shield:
                continue
            dist[nxt] = dist[cell] + 1
            queue.append(nxt)
    return dist


def gold_at(grid: list, cell: Cell) -> int:
    v = grid[cell[0] - 1][cell[1] - 1]
    return v if isinstance(v, int) else 0   # "D" and "S" hold no gold


def choose_start(m: int, n: int, grid: list, tried: list) -> Cell:
    """Placement: the 0-cell with the most gold close by, not named before.

    A gold cell d steps away (counted along rows and columns) adds its value
    times 4 - d (so only cells up to 3 steps away count, the nearest most);
    whole numbers only, so the C++ and Pascal kits compute exactly the same.
    """
    best, best_score = None, -1
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if grid[i - 1][j - 1] != 0 or (i, j) in tried:
                continue                    # a start must hold exactly 0
            score = 0
            for gi in range(max(1, i - 3), min(m, i + 3) + 1):
                for gj in range(max(1, j - 3), min(n, j + 3) + 1):
                    d = abs(i - gi) + abs(j - gj)
                    if d <= 3:
                        score += gold_at(grid, (gi, gj)) * (4 - d)
            if score > best_score:
                best, best_score = (i, j), score
    if best is not None:
        return best
    zeros = [(i, j) for i in range(1, m + 1) for j in range(1, n + 1)
             if grid[i - 1][j - 1] == 0]
    return zeros[0] if zeros else (1, 1)


def choose_target(m: int, n: int, k: int, grid: list, dist: dict,
                  kept: Cell | None) -> Cell | None:
    """The gold cell to go for, or None when no gold can be reached in time.

    We keep the target chosen before (`kept`, from STATE.OUT) while it still
    holds gold and can be reached: switching targets every turn is how a boat
    ends up walking back and forth between two cells.
    """
    def usable(cell: Cell) -> bool:
        return cell in dist and 0 < dist[cell] <= k and gold_at(grid, cell) > 0

    if kept is not None and usable(kept):
        return kept
    best = None
    for i in range(1, m + 1):              # row by row: ties go to the top-left
        for j in range(1, n + 1):
            cell = (i, j)
            if not usable(cell):
                continue
            if best is None:
                best = cell
                continue
            # Most gold per move (v / d compared as v * d' against v' * d,
            # whole numbers only), then the nearer one.
            mine = gold_at(grid, cell) * dist[best]
            theirs = gold_at(grid, best) * dist[cell]
            if mine > theirs or (mine == theirs and dist[cell] < dist[best]):
                best = cell
    return best


def step_toward(m: int, n: int, grid: list, me: Cell, way: dict,
                ok) -> Cell | None:
    """The neighbour one move nearer along `way` (distances to a goal) for
    which ok(cell) holds: the one with the most gold; ties: the first (up,
    left, right, down).  None if there is none."""
    best = None
    for c in neighbours(m, n, me):
        if way.get(c) == way[me] - 1 and ok(c):
            if best is None or gold_at(grid, c) > gold_at(grid, best):
                best = c
    return best


def choose_move(m: int, n: int, k: int, me: Cell, opp: Cell | None,
                shield: bool, grid: list, kept: Cell | None,
                prev: Cell | None) -> tuple:
    """One step along a shortest path to the target gold; returns (cell, target).

    "Safe" cells are inside the map, not a reef (unless we carry a shield),
    not the other boat's cell and not a cell it can move to now (two boats on
    one cell both sink).  Each step brings us one move closer to the same
    target; when the only such steps are unsafe we wait a turn (a second
    turn blocked, we go round the other boat for other gold), and we step
    aside only when the other boat could hit us where we are.  We never step
    back to `prev` (where we were last turn) unless it is the only safe cell:
    so the boat does not walk back and forth between two cells.
    """
    danger = set()
    if opp is not None:
        danger = {opp, *neighbours(m, n, opp)}

    def safe(c: Cell) -> bool:
        return c not in danger and (shield or grid[c[0] - 1][c[1] - 1] != "D")

    dist = distances(m, n, grid, shield, me)
    target = choose_target(m, n, k, grid, dist, kept)
    back = distances(m, n, grid, shield, target) if target is not None else {}
    if target is not None:
        best = step_toward(m, n, grid, me, back, lambda c: safe(c) and c != prev)
        if best is not None:
            return best, target
    if target is not None and prev == me:
        # We waited last turn and the way is still unsafe: the other boat is
        # in it (two starter bots facing each other would wait for ever).  Go
        # for the best gold we can reach without passing next to it.
        walls = danger - {me}
        detour = choose_target(m, n, k, grid,
                               distances(m, n, grid, shield, me, walls), None)
        if detour is not None:
            way = distances(m, n, grid, shield, detour, walls)
            best = step_toward(m, n, grid, me, way, lambda c: True)
            if best is not None:
                return best, detour
        # No way round: the gold left is past the other boat.  Of two boats
        # that wait for each other, the one lower down (then further right)
        # goes on; the other keeps waiting, so two starter bots never meet.
        if opp is not None and me > opp:
            best = step_toward(m, n, grid, me, back, lambda c: c != opp)
            if best is not None:
                return best, target
    if me not in danger:
        return me, target                   # blocked for now, or no gold left: wait
    # The other boat can reach our cell: step aside, not back where we came
    # from if we can help it, and as near the target as we can.
    far = m * n
    best = None
    for c in neighbours(m, n, me):
        if not safe(c):
            continue
        key = (c == prev, back.get(c, far))
        if best is None or key < best_key:
            best, best_key = c, key
    return (best if best is not None else me), target


def parse_state(state: str | None) -> tuple:
    """STATE.OUT as this bot writes it: (cells "tried" at placement, the
    "target" kept, the cell we moved "from" last turn), None when absent."""
    tried: list = []
    target = prev = None
    for line in (state or "").splitlines():
        words = line.split()
        nums = [int(x) for x in words[1:] if x.isdigit()]
        if words[:1] == ["tried"]:
            tried = [(nums[p], nums[p + 1]) for p in range(0, len(nums) - 1, 2)]
        elif words[:1] == ["target"] and len(nums) == 2:
            target = (nums[0], nums[1])
        elif words[:1] == ["from"] and len(nums) == 2:
            prev = (nums[0], nums[1])
    return tried, target, prev


def format_state(tried: list, target: Cell | None, here: Cell | None) -> str:
    text = "tried" + "".join(" %d %d" % c for c in tried) + "\n"
    if target is not None:
        text += "target %d %d\n" % target
    if here is not None:
        text += "from %d %d\n" % here
    return text


def main() -> None:
    m, n, k, me, opp, gold, shield, grid = read_map()
    tried, target, prev = parse_state(read_state())

    if me is None:
        # Placement turn.  STATE.OUT lists the cells named so far this round;
        # if it exists, this is a re-ask and we must pick another cell.
        i, j = choose_start(m, n, grid, tried)
        tried.append((i, j))
        target = None
    else:
        # STATE.OUT carries our target from turn to turn: a good place for
        # more (history, plans, what you learnt about the opponent...).
        (i, j), target = choose_move(m, n, k, me, opp, shield, grid, target,
                                     prev)

    write_state(format_state(tried, target, me))
    write_move(i, j)


if __name__ == "__main__":
    main()
