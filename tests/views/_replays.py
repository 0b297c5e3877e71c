"""Replays for the view tests, made in-process without the sandbox.

:func:`play` drives :class:`judge.rules.Game` with Python strategies and
writes records in the shape ``judge.referee`` writes them (header line, then
``record_common`` + ``snapshot`` per turn), so the views are tested on the
real format without running a bot process.  ``test_replayfile`` checks the
shape against a real ``play_round`` once ``judge.sandbox`` exists.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from judge.maps import REEF, GameMap, cell_token, map_from_text
from judge.records import TurnRecord
from judge.rules import Game, MoveStatus, Pos

Strategy = Callable[[Game, int], Pos | None]


def grid_rows(g: Game) -> list[str]:
    cols = g.board.cols
    return [
        " ".join(cell_token(v) for v in g.grid[r * cols : (r + 1) * cols])
        for r in range(g.board.rows)
    ]


def snapshot(g: Game) -> dict[str, Any]:
    pos = [g.position(0), g.position(1)]
    return {
        "positions": [list(p) if p else None for p in pos],
        "gold": list(g.gold),
        "shield": list(g.shield),
        "sunk": list(g.sunk),
        "grid": grid_rows(g),
        "treasure": g.treasure,
        "ended": g.ended,
        "end_reason": g.reason.value if g.reason else None,
    }


def header(gm: GameMap, label: str, names: Sequence[str], turns: int, seed: int) -> dict[str, Any]:
    g = Game(gm, turns)
    return {
        "type": "header",
        "schema": 1,
        "map": {
            "path": label,
            "rows": gm.rows,
            "cols": gm.cols,
            "turns": gm.turns,
            "grid": grid_rows(g),
        },
        "turns": turns,
        "seed": seed,
        "teams": list(names),
        "bots": ["fake", "fake"],
        "limits": {"time_s": 2.0, "memory_mb": 512.0, "file_mb": 1.0, "time_limit_lifted": False},
        "isolation": {"fake": "in-process"},
    }


def common(
    turn: int,
    k_left: int,
    targets: Sequence[Pos | None],
    statuses: Sequence[MoveStatus | None],
    events: list[Any],
    active: Sequence[bool],
) -> dict[str, Any]:
    return {
        "turn": turn,
        "turns_left": k_left,
        "moves": [list(t) if t else None for t in targets],
        "raw": [f"{t[0]} {t[1]}" if t else None for t in targets],
        "verdicts": ["OK" if a else None for a in active],
        "move_status": [s.value if s else None for s in statuses],
        "wall_ms": [12.5 if a else None for a in active],
        "cpu_ms": [10.0 if a else None for a in active],
        "mem_mb": [8.0 if a else None for a in active],
        "discarded": [[], []],
        "messages": [None, None],
        "events": [e.as_dict() for e in events],
    }


def play(
    gm: GameMap,
    strategies: Sequence[Strategy],
    starts: Sequence[Pos | None],
    names: Sequence[str] = ("alpha", "beta"),
    label: str = "maps/test.txt",
    turns: int | None = None,
    seed: int = 1,
) -> list[dict[str, Any]]:
    """A whole round as replay lines (header first)."""
    k = turns or gm.turns
    g = Game(gm, k)
    lines: list[dict[str, Any]] = [header(gm, label, names, k, seed)]
    k_left = g.turns_left
    dec = g.decide_placement((starts[0], starts[1]), 0, random.Random(seed))
    assert dec.positions is not None
    events = list(dec.events) + g.place(dec.positions)
    rec = common(1, k_left, list(starts), list(dec.statuses), events, (True, True))
    rec["reask"] = False
    rec["attempts"] = [dict(rec)]
    rec["random_placed"] = list(dec.random_placed)
    rec.update(snapshot(g))
    lines.append(rec)
    while not g.ended:
        turn, k_left = g.turn + 1, g.turns_left
        active = (not g.sunk[0], not g.sunk[1])
        targets = [strategies[s](g, s) if active[s] else None for s in (0, 1)]
        statuses = [g.classify(s, targets[s]) for s in (0, 1)]
        events = g.step((targets[0], targets[1]))
        rec = common(turn, k_left, targets, statuses, events, active)
        rec.update(snapshot(g))
        lines.append(rec)
    return lines


def typed(rec: dict[str, Any]) -> TurnRecord:
    """A record line (as written to the file) read back as the views take it."""
    return TurnRecord.from_json(rec, len(rec["grid"]), len(rec["grid"][0].split()))


def write_replay(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    return path


def round_result(lines: list[dict[str, Any]], rel: str, seed: int) -> dict[str, Any]:
    last = lines[-1]
    gold = last["gold"]
    if gold[0] != gold[1]:
        winner: int | None = 0 if gold[0] > gold[1] else 1
        points = [20, 0] if winner == 0 else [0, 20]
    else:
        winner = None
        points = [10, 10] if min(gold) >= 1 else [0, 0]
    t = last["treasure"]
    return {
        "map": lines[0]["map"]["path"],
        "turns": lines[0]["turns"],
        "turns_played": last["turn"],
        "end_reason": last["end_reason"],
        "gold": gold,
        "sunk": last["sunk"],
        "shield": last["shield"],
        "positions": last["positions"],
        "treasure": None if t is None else {"value": t, "collected_by": None},
        "winner": winner,
        "points": points,
        "replay": rel,
        "seed": seed,
        "stats": [{}, {}],
    }


def write_match(folder: Path, rounds: Sequence[list[dict[str, Any]]]) -> Path:
    """A match folder as ``judge match`` leaves it: result.json and round-N/replay.jsonl."""
    results = []
    for idx, lines in enumerate(rounds, start=1):
        rel = f"round-{idx}/replay.jsonl"
        write_replay(folder / rel, lines)
        results.append(round_result(lines, rel, idx))
    teams = rounds[0][0]["teams"]
    pts = [sum(r["points"][s] for r in results) for s in (0, 1)]
    result = {
        "teams": teams,
        "seed": 7,
        "rounds": results,
        "points": pts,
        "winner": None if pts[0] == pts[1] else (0 if pts[0] > pts[1] else 1),
    }
    (folder / "result.json").write_text(json.dumps(result, indent=2))
    return folder


# -------------------------------------------------------------- strategies
def scripted(moves: Sequence[Pos | None], then: Strategy | None = None) -> Strategy:
    """Ask for the given cells in order, then follow ``then`` (or stay)."""
    it = iter(moves)

    def strat(g: Game, s: int) -> Pos | None:
        try:
            return next(it)
        except StopIteration:
            return then(g, s) if then else g.position(s)

    return strat


def greedy(g: Game, s: int) -> Pos | None:
    """One step towards the nearest gold (BFS), avoiding reefs without a shield and both boats."""
    b = g.board
    start = g.pos[s]
    blocked = {g.pos[1 - s]}
    seen = {start: start}
    q = deque([start])
    while q:
        f = q.popleft()
        if f != start and g.grid[f] > 0:
            while seen[f] != start:
                f = seen[f]
            return b.pos(f)
        for n in b.neighbours[f]:
            if n in seen or n in blocked:
                continue
            if g.grid[n] == REEF and not g.shield[s]:
                continue
            seen[n] = f
            q.append(n)
    return g.position(s)


# ------------------------------------------------------------------- rounds
#: 7x7, centre (4,4).  Reef at (2,4) and (6,4); shields at (4,2) and (4,6).
SMALL = """7 7 20
1 2 0 0 0 2 1
0 3 0 D 0 3 0
0 0 5 0 5 0 0
0 S 0 0 0 S 0
0 0 4 0 4 0 0
0 2 0 D 0 2 0
1 0 0 0 0 0 1
"""


def small_map() -> GameMap:
    return map_from_text(SMALL, name="small", allow_invalid=True)


def eventful_round() -> list[dict[str, Any]]:
    """A 7x7 round: A collects, takes a shield; B sinks on the reef at (6,4) (a wreck);
    the treasure appears at turn 10 (K=20) and A collects it later."""
    gm = small_map()
    a = scripted(
        [(4, 1), (4, 2), (3, 2), (3, 3), (2, 3), (1, 3), (1, 2), (1, 1), (2, 1)], then=greedy
    )
    b = scripted([(7, 4), (6, 4)])
    return play(gm, [a, b], [(4, 1), (7, 3)], label="maps/small.txt")


def big_round(turns: int = 40, seed: int = 3) -> list[dict[str, Any]]:
    """A 15x15 generated map, two greedy boats."""
    from judge.mapgen import generate_map

    gm = generate_map(15, 15, turns=turns, seed=seed)
    g = Game(gm, turns)
    cells = g.start_cells()
    return play(
        gm,
        [greedy, greedy],
        [cells[0], cells[-1]],
        names=("alpha", "beta"),
        label="maps/big15.txt",
        seed=seed,
    )
