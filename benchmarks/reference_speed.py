"""The reference bot's thinking time against an earlier version of itself, move for move.

Plays the reference (``bots/reference/brain.py`` as it is in the working tree)
and the same file at a git revision against hunter, in-process, on the same
games: the 15 x 15, K = 100 map of every style that ``benchmarks/sparring.py``
times, then one generated map a style and the hand-made maps of
``maps/styles/``.  Prints each version's CPU seconds over all its turns, their
ratio, and whether the two played exactly the same moves and left exactly the
same STATE.OUT on every turn.  A speed-up that keeps the bot's play says
"same play"; a change of play names the first game where the two part.

The bot's searches stop after a fixed amount of work, never on the clock
(below its safety net), so its play does not depend on the machine's load and
the comparison is exact.  Both versions run in this one process, one game
after the other, so the ratio is measured under the same conditions.

Run: ``python benchmarks/reference_speed.py [--against REV] [--games N]``
(REV defaults to HEAD).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "reference_bot"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import harness  # noqa: E402
from sparring import SEED, MapCase, map_cases, timing_cases  # noqa: E402

from judge.maps import GameMap  # noqa: E402
from judge.mapstyles import STYLES  # noqa: E402


def games() -> list[MapCase]:
    """The timing maps of sparring.py, then its style mix (one map a style, the hand maps)."""
    return timing_cases(len(STYLES), SEED) + map_cases(1, SEED, True)


def play(module: Any, gm: GameMap, seed: int) -> tuple[list[bytes], float]:
    """The reference's (move + STATE.OUT) of every turn against hunter, and its CPU seconds."""
    ref = harness.RefBot(module)
    turns: list[bytes] = []
    decide = ref.turn

    def turn(text: str) -> bytes:
        move = decide(text)
        turns.append(move + b"|" + (ref.state or "").encode())
        return move

    ref.turn = turn  # type: ignore[method-assign]
    other = harness.make_bot("hunter")
    try:
        harness.play(gm, [ref, other], seed)
    finally:
        other.close()
    return turns, sum(ref.times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="HEAD", help="git revision to compare with")
    ap.add_argument("--games", type=int, default=0, help="only the first N games (0: all)")
    args = ap.parse_args()
    try:
        shown = subprocess.run(
            ["git", "show", f"{args.against}:bots/reference/brain.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    except OSError as exc:
        print(f"reference_speed: cannot run git: {exc}")
        return 2
    if shown.returncode != 0:
        why = shown.stderr.strip().splitlines()
        print(
            f"reference_speed: no brain.py at {args.against!r}: {why[-1] if why else 'git failed'}"
        )
        return 2
    old_text = shown.stdout
    with tempfile.TemporaryDirectory(prefix="ref-speed-") as tmp:
        old_path = Path(tmp) / "brain_old.py"
        old_path.write_text(old_text)
        old = harness.load_module("reference_brain_old", old_path)
        new = harness.load_module("reference_brain_new", ROOT / "bots" / "reference" / "brain.py")
        cases = games()[: args.games or None]
        t_old = t_new = 0.0
        parted: str | None = None
        for case in cases:
            moves_old, s_old = play(old, case.game_map, case.seed)
            moves_new, s_new = play(new, case.game_map, case.seed)
            t_old += s_old
            t_new += s_new
            if parted is None and moves_old != moves_new:
                parted = case.label
    print(f"{len(cases)} games against hunter, the reference's CPU time over all its turns:")
    print(f"  {args.against}: {t_old:.1f} s")
    print(f"  working tree: {t_new:.1f} s ({t_new / t_old:.2f} x)")
    print("  same play" if parted is None else f"  play differs, first in {parted}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
