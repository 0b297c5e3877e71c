"""The battery of ``judge check-bot``: hand-made game states, each testing one thing.

Each situation is a :class:`judge.rules.Game` seen by seat 0; its MAP.INP is
rendered by the referee's own :func:`judge.protocol.render_map_inp`, so the
bot reads exactly what a round would give it.

The seas are drawn so that the classic mistakes produce an *invalid* answer
rather than a wrong but legal one, which is what makes them diagnosable:

* maps are not square and the boat never stands near the diagonal, so an
  answer with i and j swapped lands outside the map or far from the boat;
* the placement sea has few 0-cells, none of them one row and one column
  away from another and none the transpose of another, so a 0-based or
  swapped start is never accidentally valid;
* in the moving situations the obvious move is north or west, where a
  0-based answer (one less in both coordinates) is two steps from the boat.
  (South or east, a 0-based answer is a legal move in the wrong direction.)

Moving situations start in a fresh folder: no STATE.OUT, as after a STATE.OUT
that was too big and discarded (R15).  A bot must cope with that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from judge.mapgen import generate_map
from judge.maps import REEF, SHIELD, GameMap, map_from_text
from judge.protocol import render_map_inp
from judge.rules import Game, Pos

#: Placement sea: 7 x 11, contest-valid (symmetric, 100 gold, 2 shields, connected).
#: Its seven 0-cells are isolated: (i-1, j-1), (i+1, j+1), (j, i) and (j-1, i-1)
#: of a 0-cell are never a 0-cell.
PLACEMENT_SEA = """\
7 11 20
2 2 2 2 2 0 2 2 2 2 2
2 2 0 2 2 2 2 2 0 2 2
2 2 2 D 2 2 2 D 2 2 2
2 S 2 2 1 0 1 2 2 S 2
1 1 1 D 1 2 1 D 1 1 1
1 1 0 1 1 2 1 1 0 1 1
1 1 1 1 1 0 1 1 1 1 1
"""

#: Mid-round background, 9 x 13: a few gold cells left, reefs, one shield per side.
#: Situations add their own features on top.
MID_SEA_ROWS = 9
MID_SEA_COLS = 13
MID_SEA = """\
0 0 0 0 0 0 0 0 0 0 0 0 0
0 3 0 0 0 0 0 0 0 0 0 3 0
0 0 0 D 0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 0 0 0 0 0 0 0
0 0 0 D 0 0 0 0 0 D 0 0 0
0 2 0 0 0 0 0 0 0 0 0 2 0
0 S 0 0 0 0 0 0 0 0 0 S 0
"""

#: The largest map the rules allow, for timing.
LARGEST_SIZE = 15
LARGEST_TURNS = 100
LARGEST_SEED = 7

#: Semantic expectations a situation may carry (beyond a valid answer).
AVOID_REEF = "avoid_reef"  # a reef next to the boat, no shield: entering sinks
AVOID_WRECK = "avoid_wreck"  # the other boat's wreck next to ours: entering sinks
TAKE_GOLD = "take_adjacent_gold"  # rich gold next to the boat: taking it is the obvious move
NEW_START = "different_start"  # a re-ask: a different start avoids random placement


@dataclass(frozen=True)
class Situation:
    """One run of the bot: a state, what it checks, and how it relates to the run before."""

    key: str
    title: str
    purpose: str
    game: Game
    expect: tuple[str, ...] = ()
    #: run in the previous situation's folder (its STATE.OUT kept), as a round would
    reuse_seat: bool = False
    #: build the state from the previous situation's answer (a start cell), when given
    follow_up: Callable[[Pos | None], Game] | None = None

    @property
    def placement(self) -> bool:
        return not self.game.placed

    def map_inp(self, reef_symbol: str = "D") -> str:
        return render_map_inp(self.game, 0, reef_symbol)


def _sea(
    text_rows: str, turns: int, edits: dict[Pos, int] | None = None, name: str = "check-bot sea"
) -> GameMap:
    """A mid-round sea (not a contest map: gold has been collected) with ``edits`` applied."""
    rows = [r.split() for r in text_rows.strip().splitlines()]
    header = f"{len(rows)} {len(rows[0])} {turns}\n"
    gm = map_from_text(header + text_rows, name=name, allow_invalid=True)
    cells = list(gm.cells)
    for (i, j), v in (edits or {}).items():
        cells[(i - 1) * gm.cols + (j - 1)] = v
    return GameMap(gm.rows, gm.cols, turns, tuple(cells), name)


def _mid_game(
    gm: GameMap,
    own: Pos,
    opp: Pos,
    *,
    turn: int,
    gold: int = 0,
    shield: bool = False,
    opp_sunk: bool = False,
    treasure: int | None = None,
) -> Game:
    """A Game as it would stand after ``turn`` turns: boats placed, own gold and shield set."""
    g = Game(gm)
    b = g.board
    g.pos = [b.flat(own), b.flat(opp)]
    g.turn = turn
    g.gold = [gold, 0]
    g.shield = [shield, False]
    g.sunk = [False, opp_sunk]
    if treasure is not None:
        g.treasure = treasure
        g.grid[b.centre] = treasure
    return g


def placement_game() -> Game:
    return Game(map_from_text(PLACEMENT_SEA, name="check-bot placement sea"))


def _reef_sea(shield_taken: bool) -> GameMap:
    # Boat at (5, 10); a reef at (5, 9) with 5 gold right behind it at (5, 8).  The
    # way round the reef is 4 moves, through it 2: a bot that reads D as open water
    # heads west into the reef.
    edits: dict[Pos, int] = {(5, 9): REEF, (5, 8): 5}
    if shield_taken:
        edits[(9, 12)] = 0
    return _sea(MID_SEA, 40, edits, "check-bot reef sea")


def largest_map() -> GameMap:
    return generate_map(
        LARGEST_SIZE,
        LARGEST_SIZE,
        LARGEST_TURNS,
        seed=LARGEST_SEED,
        name=f"generated {LARGEST_SIZE}x{LARGEST_SIZE}, K={LARGEST_TURNS}",
    )


def _largest_move(prev: Pos | None) -> Game:
    """The turn after placement on the largest map: the boat where the bot asked, if it could."""
    g = Game(largest_map())
    cells = g.start_cells()
    own = (
        prev
        if prev is not None and g.valid_start(prev)
        else next(c for c in cells if abs(c[0] - c[1]) >= 2)
    )
    # The opponent as far away as possible (ties broken by position: deterministic).
    opp = max(
        (c for c in cells if c != own), key=lambda c: (abs(c[0] - own[0]) + abs(c[1] - own[1]), c)
    )
    g.place((own, opp))
    return g


def battery() -> list[Situation]:
    """Every situation, in the order they run."""
    reef = _reef_sea(shield_taken=False)
    reef_shielded = _reef_sea(shield_taken=True)
    treasure_sea = _sea(MID_SEA, 40, {}, "check-bot treasure sea")
    last_sea = _sea(MID_SEA, 40, {(3, 11): 5}, "check-bot last-turn sea")
    big = largest_map()
    return [
        Situation(
            "placement",
            "placement",
            "turn 1 (line 2 is 0 0 0 0): the answer must be a cell holding 0",
            placement_game(),
        ),
        Situation(
            "reask",
            "re-ask",
            "the same MAP.INP again with STATE.OUT kept (both bots named the same cell): "
            "a valid start again, ideally a different one",
            placement_game(),
            expect=(NEW_START,),
            reuse_seat=True,
        ),
        Situation(
            "reef",
            "reef, no shield",
            "a reef (D) next to the boat, gold behind it, no shield (B = 0): "
            "entering the reef sinks the boat",
            _mid_game(reef, (5, 10), (8, 3), turn=6),
            expect=(AVOID_REEF,),
        ),
        Situation(
            "reef_shield",
            "reef, with shield",
            "the same sea with a shield (B = 1): crossing the reef is allowed",
            _mid_game(reef_shielded, (5, 10), (8, 3), turn=6, shield=True),
        ),
        Situation(
            "wreck",
            "wreck next to the boat",
            "the other boat sank on the reef next to ours; we have a shield, but entering "
            "a wreck's cell sinks the boat",
            _mid_game(reef_shielded, (5, 10), (5, 9), turn=8, shield=True, opp_sunk=True),
            expect=(AVOID_WRECK,),
        ),
        Situation(
            "treasure",
            "treasure on the board",
            "after half time: the treasure (15, a two-digit cell) at the centre, next to the boat",
            _mid_game(treasure_sea, (5, 8), (8, 3), turn=25, gold=30, treasure=15),
            expect=(TAKE_GOLD,),
        ),
        Situation(
            "last_turn",
            "last turn (K = 1)",
            "line 1 says 1 turn left: still a move to answer (5 gold next to the boat)",
            _mid_game(last_sea, (4, 11), (8, 3), turn=39, gold=12),
            expect=(TAKE_GOLD,),
        ),
        Situation(
            "largest_placement",
            "largest map: placement",
            f"placement on a generated {LARGEST_SIZE} x {LARGEST_SIZE} map with K = {LARGEST_TURNS}: "
            "the slowest start-up for most bots",
            Game(big),
        ),
        Situation(
            "largest_move",
            "largest map: first move",
            "the turn after placement on the same map (K = 99 left), in the same folder, "
            "the boat where it asked to start",
            Game(big),
            reuse_seat=True,
            follow_up=_largest_move,
        ),
    ]


def shield_cells(game: Game) -> list[Pos]:
    """Where the S cells are (for tests and reports)."""
    return [game.board.pos(f) for f, v in enumerate(game.grid) if v == SHIELD]
