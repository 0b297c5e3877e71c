#!/usr/bin/env python3
"""Ocean Treasure reference bot: a planning bot (see brain.py for the strategy).

Run once per turn in the team folder: reads MAP.INP (and STATE.OUT), writes
MOVE.OUT and STATE.OUT.  Standard library only; the decision itself is the
pure function brain.decide, which tests and harnesses call in-process.
"""

import os
import sys
import time

T0 = time.perf_counter()  # the planning budget counts from here

MAP_FILE = "MAP.INP"
MOVE_FILE = "MOVE.OUT"
STATE_FILE = "STATE.OUT"


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def fallback(text):
    """A bug must not cost the turn: stay put, or name the first 0-cell."""
    tok = text.split()
    try:
        m, n = int(tok[0]), int(tok[1])
        i1, j1 = int(tok[3]), int(tok[4])
    except (ValueError, IndexError):
        return None
    if 1 <= i1 <= m and 1 <= j1 <= n:
        return "%d %d\n" % (i1, j1)
    cells = tok[9:9 + m * n]
    for idx, t in enumerate(cells):
        if t == "0":
            return "%d %d\n" % (idx // n + 1, idx % n + 1)
    return "1 1\n"


def main():
    text = read_text(MAP_FILE)
    if text is None:
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    state = None
    try:
        import brain
        state_text = read_text(STATE_FILE)
        move, state = brain.decide(text, state_text, T0)
    except Exception:
        move = fallback(text)
    if move is None:
        return
    with open(MOVE_FILE, "w") as f:
        f.write(move)
    if state is not None and len(state) < 1000000:
        with open(STATE_FILE, "w") as f:
            f.write(state)


if __name__ == "__main__":
    main()
