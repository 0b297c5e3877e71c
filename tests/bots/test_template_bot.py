"""The template bot is a fair start.

* In-process (its own functions, as its main() calls them), over 80 rounds
  on generated seas against a random mover and against one that chases it:
  the boat never walks back and forth between two cells (A, B, A, B) while
  gold it can still reach in the turns left is on the map.
* Through the real judge (sandbox, processes, the file protocol): it beats
  ``random`` in both seat orders.
"""

from __future__ import annotations

import json
import random
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference_bot"))
import harness  # noqa: E402

Cell = tuple[int, int]


TEMPLATE = harness.load_module("template_bot", ROOT / "bots" / "template" / "bot.py")


class Template:
    """The template's own functions run in memory, as its main() runs them, noting where
    the boat stood each turn and whether gold was in reach (no files: hundreds of rounds)."""

    name = "template"

    def new_round(self) -> None:
        self.tried: list[Cell] = []
        self.target: Cell | None = None
        self.prev: Cell | None = None
        self.seen: list[tuple[Cell, bool]] = []

    def turn(self, map_text: str) -> bytes:
        m, n, k, me, opp, _gold, shield, grid = TEMPLATE.parse_map(map_text)
        if me is None:
            cell = TEMPLATE.choose_start(m, n, grid, self.tried)
            self.tried.append(cell)
            self.target = None
        else:
            cells = map_text.split()[9 : 9 + m * n]
            self.seen.append((me, gold_in_reach(m, n, k, me, shield, cells)))
            cell, self.target = TEMPLATE.choose_move(
                m, n, k, me, opp, shield, grid, self.target, self.prev
            )
            self.prev = me
        return f"{cell[0]} {cell[1]}\n".encode()


class Wanderer:
    """A seeded random mover: any neighbour that is not a reef (a shield crosses them)."""

    name = "wanderer"

    def __init__(self, seed: int, chase: bool = False) -> None:
        self.rng = random.Random(seed)
        self.chase = chase  # go for the other boat instead: provokes sidesteps

    def new_round(self) -> None:
        pass

    def turn(self, map_text: str) -> bytes:
        tok = map_text.split()
        m, n = int(tok[0]), int(tok[1])
        me, other = (int(tok[3]), int(tok[4])), (int(tok[5]), int(tok[6]))
        cells = tok[9 : 9 + m * n]
        if me[0] == 0:
            zeros = [(i // n + 1, i % n + 1) for i, t in enumerate(cells) if t == "0"]
            cell = self.rng.choice(zeros)
        else:
            options = [
                (i, j)
                for i, j in (
                    (me[0] - 1, me[1]),
                    (me[0], me[1] - 1),
                    (me[0], me[1] + 1),
                    (me[0] + 1, me[1]),
                )
                if 1 <= i <= m
                and 1 <= j <= n
                and (cells[(i - 1) * n + j - 1] != "D" or tok[8] == "1")
            ]
            if self.chase and options and self.rng.random() < 0.7:
                options.sort(key=lambda c: abs(c[0] - other[0]) + abs(c[1] - other[1]))
                cell = options[0]
            else:
                cell = self.rng.choice(options) if options else me
        return f"{cell[0]} {cell[1]}\n".encode()


def gold_in_reach(m: int, n: int, k: int, me: Cell, shield: bool, cells: list[str]) -> bool:
    """Gold within k moves of ``me`` (reefs are walls without a shield; the boats ignored)."""
    dist = {me: 0}
    queue = deque([me])
    while queue:
        i, j = queue.popleft()
        if dist[(i, j)] >= k:
            continue
        for ni, nj in ((i - 1, j), (i, j - 1), (i, j + 1), (i + 1, j)):
            if not (1 <= ni <= m and 1 <= nj <= n) or (ni, nj) in dist:
                continue
            tok = cells[(ni - 1) * n + nj - 1]
            if tok in ("D", "W") and not shield:
                continue
            if tok.isdigit() and int(tok) > 0:
                return True
            dist[(ni, nj)] = dist[(i, j)] + 1
            queue.append((ni, nj))
    return False


def back_and_forth(seen: list[tuple[Cell, bool]]) -> list[int]:
    """Turns t where the boat went A, B, A, B (t..t+3) with gold in reach all along."""
    out = []
    for t in range(len(seen) - 3):
        (a, r0), (b, r1), (c, r2), (d, r3) = seen[t : t + 4]
        if a == c and b == d and a != b and r0 and r1 and r2 and r3:
            out.append(t)
    return out


@pytest.mark.parametrize("chase", [False, True], ids=["random", "chaser"])
def test_the_template_never_walks_back_and_forth_while_gold_is_in_reach(chase: bool) -> None:
    rounds = moved = 0
    for idx, spec in enumerate(harness.map_specs("mixed", 40, 12)):
        gm = harness.build_map(spec)
        for seat in (0, 1):
            template = Template()
            bots: list[Any] = [template, Wanderer(1000 * idx + seat, chase)]
            if seat:
                bots.reverse()
            harness.play(gm, bots, seed=1000 * idx + seat)
            assert back_and_forth(template.seen) == [], (spec, seat, template.seen)
            rounds += 1
            moved += len({cell for cell, _ in template.seen}) > 1
    assert rounds == 80 and moved >= rounds * 0.8  # it did sail, not just wait


@pytest.mark.slow
def test_the_template_beats_random_through_the_judge(tmp_path: Path) -> None:
    """Real rounds: processes in the sandbox, MAP.INP and MOVE.OUT, in both seat orders."""
    points = {"template": 0, "random": 0}
    won = 0
    for order in (("template", "random"), ("random", "template")):
        out = tmp_path / "-".join(order)
        argv = ["match", *order, "--map", "m1", "--map", "m2", "--seed", "12", "--quiet"]
        assert main([*argv, "--out", str(out)]) == 0
        result = json.loads((out / "result.json").read_text())
        for s, team in enumerate(order):
            points[team] += result["points"][s]
        won += sum(1 for r in result["rounds"] if r["winner"] == order.index("template"))
    assert won >= 3, points  # of 4 rounds
    assert points["template"] > points["random"]


def stalls(a: list[tuple[Cell, bool]], b: list[tuple[Cell, bool]]) -> list[int]:
    """Turns t where both boats stayed put for 3 turns (t..t+3) with gold in reach of both."""
    out = []
    for t in range(min(len(a), len(b)) - 3):
        both = (a[t : t + 4], b[t : t + 4])
        if all(len({cell for cell, _ in s}) == 1 and all(r for _, r in s) for s in both):
            out.append(t)
    return out


def test_two_templates_facing_each_other_do_not_wait_for_ever() -> None:
    """Students copy the kit and play each other: when each boat's way is blocked by the
    other, the second turn blocked it goes round for other gold (both waited the round out)."""
    rounds = 0
    for idx, spec in enumerate(harness.map_specs("mixed", 40, 12)):
        gm = harness.build_map(spec)
        a, b = Template(), Template()
        harness.play(gm, [a, b], seed=1000 * idx)
        assert stalls(a.seen, b.seen) == [], (spec, a.seen, b.seen)
        rounds += 1
    assert rounds == 40


def test_blocked_twice_the_template_goes_round_or_the_lower_boat_goes_on() -> None:
    """The situations the starter kits are checked on (all three write the same moves)."""
    sys.path.insert(0, str(ROOT / "tests" / "bots"))
    from test_starter_kits import FACING, facing

    for (label, text, state), (*_, want) in zip(facing(), FACING, strict=True):
        m, n, k, me, opp, _gold, shield, grid = TEMPLATE.parse_map(text)
        _tried, target, prev = TEMPLATE.parse_state(state)
        move, _ = TEMPLATE.choose_move(m, n, k, me, opp, shield, grid, target, prev)
        assert move == want, label
