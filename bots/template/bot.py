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
    """Return (m, n, k, me, opp, gold, shield, grid).

    grid[r][c] is an int (gold), "D" or "S", with r, c 0-based inside Python;
    me and opp are 1-based (row, column) pairs exactly as in the file, or None
    on the placement turn.
    """
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        tokens = f.read().split()          # split() handles spaces/tabs/CRLF
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


def choose_start(m: int, n: int, grid: list, tried: list) -> Cell:
    """Placement: the first 0-cell (row by row) we have not named before."""
    first = None
    for r in range(m):
        for c in range(n):
            if grid[r][c] == 0:             # int 0: no gold, not D, not S
                cell = (r + 1, c + 1)       # to 1-based
                if first is None:
                    first = cell
                if cell not in tried:
                    return cell
    return first or (1, 1)


def choose_move(m: int, n: int, me: Cell, opp: Cell | None, shield: bool,
                grid: list) -> Cell:
    """A simple legal move: grab neighbouring gold, else the first safe
    neighbour, else stay.  "Safe": inside the map, not D (unless shielded),
    not the opponent's cell and not a cell the opponent could reach now."""
    def inside(i: int, j: int) -> bool:
        return 1 <= i <= m and 1 <= j <= n

    def value(i: int, j: int) -> int | str:
        return grid[i - 1][j - 1]           # 1-based in, grid is 0-based

    danger = set()
    if opp is not None:
        danger.add(opp)
        for di, dj in DIRECTIONS:
            danger.add((opp[0] + di, opp[1] + dj))

    safe = []
    for di, dj in DIRECTIONS:
        i, j = me[0] + di, me[1] + dj
        if not inside(i, j) or (i, j) in danger:
            continue
        if value(i, j) == "D" and not shield:
            continue
        safe.append((i, j))

    for i, j in safe:                       # gold next to us: take it
        v = value(i, j)
        if isinstance(v, int) and v > 0:    # a number, not "D" or "S"
            return i, j
    if safe:
        return safe[0]
    return me                               # own cell = "not adjacent" = stay


def main() -> None:
    m, n, k, me, opp, gold, shield, grid = read_map()
    state = read_state()

    if me is None:
        # Placement turn.  Our STATE.OUT lists the cells named so far this
        # round; if it exists, this is a re-ask and we must pick another.
        tried: list = []
        if state is not None:
            nums = [int(x) for x in state.split() if x.isdigit()]
            tried = [(nums[p], nums[p + 1]) for p in range(0, len(nums) - 1, 2)]
        i, j = choose_start(m, n, grid, tried)
        tried.append((i, j))
        write_state("tried " + " ".join("%d %d" % c for c in tried) + "\n")
    else:
        i, j = choose_move(m, n, me, opp, shield, grid)
        # STATE.OUT stays as it is unless you rewrite it: a good place for
        # history, plans, what you learnt about the opponent...

    write_move(i, j)


if __name__ == "__main__":
    main()
