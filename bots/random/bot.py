#!/usr/bin/env python3
"""Ocean Treasure reference bot: random walker (reproducible).

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only, Python >= 3.8.

* The random generator is a 64-bit SplitMix-style generator whose whole state
  (one integer) is kept in STATE.OUT, so the same sequence of MAP.INP files
  always gives the same moves.  At placement without STATE.OUT the seed is an
  FNV-1a hash of MAP.INP's tokens (whitespace, line endings and W-for-D do
  not matter).
* Placement: a random 0-cell; on a re-ask, one not named before if possible.
* Moves: a random edge-adjacent cell inside the map that is not a reef (reefs
  are fine once shielded).  It does not look at the opponent at all.  With no
  such cell the boat stays.
"""

from __future__ import annotations  # annotations stay strings: 3.8-safe, free

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"
STATE_TAG = "RANDOM1"
MASK = (1 << 64) - 1


def read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def fnv1a(text: str) -> int:
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


class Rng(object):
    """SplitMix64: tiny, fast enough, and identical on every Python."""

    def __init__(self, state: int) -> None:
        self.state = state & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def choice(self, seq: list[tuple[int, int]]) -> tuple[int, int]:
        return seq[self.next() % len(seq)]


def main() -> None:
    text = read_text(MAP_FILE)
    if text is None:
        return
    tok = text.split()
    try:
        m, n = int(tok[0]), int(tok[1])
        i1, j1 = int(tok[3]), int(tok[4])
        shield = int(tok[8]) != 0
    except (ValueError, IndexError):
        return  # unreadable MAP.INP: no MOVE.OUT, the boat stays
    cells = ["D" if t.upper() == "W" else t.upper() for t in tok[9:9 + m * n]]
    cells += ["D"] * (m * n - len(cells))

    def cell(i: int, j: int) -> str:  # 1-based row i, column j
        return cells[(i - 1) * n + (j - 1)]

    # STATE.OUT: "RANDOM1 <rng state> [i j ...cells named at placement]"
    state_text = read_text(STATE_FILE)
    st = state_text.split() if state_text else []
    tried: list[tuple[int, int]] = []
    if len(st) >= 2 and st[0] == STATE_TAG:
        rng = Rng(int(st[1]))
        nums = [int(x) for x in st[2:]]
        tried = [(nums[k], nums[k + 1]) for k in range(0, len(nums) - 1, 2)]
    else:
        # Seed from the content: the tokens, W read as D, so the layout of
        # the file (tabs, CRLF, W) does not change the game.
        rng = Rng(fnv1a(" ".join(tok[:9] + cells)))

    if not (1 <= i1 <= m and 1 <= j1 <= n):
        # Placement turn ("0 0 0 0").  STATE.OUT already there = re-ask.
        zeros = [(i, j) for i in range(1, m + 1) for j in range(1, n + 1)
                 if cell(i, j).isdigit() and int(cell(i, j)) == 0]
        fresh = [c for c in zeros if c not in tried]
        move = rng.choice(fresh or zeros) if zeros else (1, 1)
        tried.append(move)
    else:
        moves = []
        for di, dj in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            i, j = i1 + di, j1 + dj
            if 1 <= i <= m and 1 <= j <= n:
                if shield or cell(i, j) != "D":
                    moves.append((i, j))
        move = rng.choice(moves) if moves else (i1, j1)

    with open(MOVE_FILE, "w") as f:
        f.write("%d %d\n" % move)
    with open(STATE_FILE, "w") as f:
        f.write("%s %d %s\n" % (STATE_TAG, rng.state,
                                " ".join("%d %d" % c for c in tried)))


if __name__ == "__main__":
    main()
