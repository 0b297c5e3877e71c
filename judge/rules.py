"""The rules engine: game state and turn resolution, with no I/O.

Everything here is deterministic and self-contained: no files, no processes,
no clock, no global random state (random placement takes the caller's
``random.Random``).  The referee feeds it moves; replays, views and tests read
its events.  Ruling numbers (R2...) refer to ``RULES.md``.

Positions in the public API are 1-based ``(i, j)`` as in the contest text.
Internally a cell is a flat index ``(i-1)*cols + (j-1)``; :meth:`Game.step_flat`
takes flat indexes for callers that need speed (benchmarks, the reference bot's
search) and is the same code path that :meth:`Game.step` uses.
"""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from judge.errors import JudgeError
from judge.grid import centre_flat, neighbours
from judge.maps import REEF, SHIELD, GameMap

Pos = tuple[int, int]
#: A move as the referee hands it over: the asked target cell, or None for "no valid move".
Move = Pos | None

NO_POS = -1


class NoRoomToStart(JudgeError, ValueError):
    """A map (played with ``--allow-invalid-map``) without two empty cells to place the boats on."""


class EndReason(str, enum.Enum):
    """Why a round ended (values are what result.json stores)."""

    TURNS = "turns"
    BOTH_SUNK = "both_sunk"
    GOLD_GAP = "gold_gap"


class SinkCause(str, enum.Enum):
    REEF = "reef"
    COLLISION = "collision"
    SWAP = "swap"
    WRECK = "wreck"


class EventKind(str, enum.Enum):
    PLACED = "placed"
    RANDOM_PLACED = "random_placed"
    REASK = "reask"
    MOVED = "moved"
    STAYED = "stayed"
    COLLECT = "collect"
    SHIELD = "shield"
    SINK = "sink"
    TREASURE = "treasure"
    GAP_END = "gap_end"


class MoveStatus(str, enum.Enum):
    """What became of one seat's move in one turn.  One enum from engine to replay."""

    MOVED = "moved"
    PLACED = "placed"
    STAYED = "stayed"  # asked for its own cell
    NO_MOVE_OUT = "no_move_out"
    UNREADABLE = "unreadable"
    NOT_TWO_INTEGERS = "not_two_integers"
    OUTSIDE = "outside"
    NOT_ADJACENT = "not_adjacent"
    INVALID_START = "invalid_start"
    REASKS_EXHAUSTED = "reasks_exhausted"  # still the same cell after the 3rd re-ask: random
    RUN_FAILED = "run_failed"
    SUNK = "sunk"  # not run: the boat had sunk before this turn (R11)

    @property
    def void(self) -> bool:
        """True when the boat did not go where its program asked."""
        return self not in (MoveStatus.MOVED, MoveStatus.PLACED, MoveStatus.STAYED)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a turn, for logs, replays and views."""

    kind: EventKind
    seat: int | None = None
    pos: Pos | None = None
    value: int = 0
    cause: SinkCause | None = None
    other: Pos | None = None  # MOVED: the cell left

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"kind": self.kind.value}
        if self.seat is not None:
            d["seat"] = self.seat
        if self.pos is not None:
            d["pos"] = list(self.pos)
        if self.value:
            d["value"] = self.value
        if self.cause is not None:
            d["cause"] = self.cause.value
        if self.other is not None:
            d["from"] = list(self.other)
        return d

    def describe(self, names: Sequence[str] = ("A", "B")) -> str:
        """The event in words, e.g. 'B sank on a reef at (4,7)'."""
        who = names[self.seat] if self.seat is not None else ""
        at = f"({self.pos[0]},{self.pos[1]})" if self.pos else ""
        k = self.kind
        if k is EventKind.PLACED:
            return f"{who} starts at {at}"
        if k is EventKind.RANDOM_PLACED:
            return f"{who} placed at random at {at}"
        if k is EventKind.REASK:
            return f"both asked for {at}: asked again (re-ask {self.value} of 3)"
        if k is EventKind.MOVED:
            return f"{who} moved to {at}"
        if k is EventKind.STAYED:
            return f"{who} stayed at {at}"
        if k is EventKind.COLLECT:
            return f"{who} collected {self.value} gold at {at}"
        if k is EventKind.SHIELD:
            return f"{who} picked up a shield at {at}"
        if k is EventKind.SINK:
            cause = {
                SinkCause.REEF: "on a reef",
                SinkCause.COLLISION: "in a collision",
                SinkCause.SWAP: "swapping cells with the other boat",
                SinkCause.WRECK: "on a wreck",
            }[self.cause or SinkCause.REEF]
            return f"{who} sank {cause} at {at}"
        if k is EventKind.TREASURE:
            return f"a treasure worth {self.value} appeared at {at}"
        return f"gold gap {self.value} > 20 at half time: the round ends"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished round (win 20, draw 10 each if both have >= 1 gold, loss 0)."""

    winner: int | None
    points: tuple[int, int]
    reason: EndReason


def score(gold: Sequence[int], reason: EndReason) -> Outcome:
    """Points for final gold amounts."""
    g0, g1 = gold[0], gold[1]
    if g0 > g1:
        return Outcome(0, (20, 0), reason)
    if g1 > g0:
        return Outcome(1, (0, 20), reason)
    pts = 10 if g0 >= 1 and g1 >= 1 else 0
    return Outcome(None, (pts, pts), reason)


def r18_key(points: int, rounds_won: int, gold: int) -> tuple[int, int, int]:
    """Ruling R18's order between teams: more points, then more rounds won, then more gold.

    Larger is better.  A match's winner and the tournament's standings both
    sort by it (standings add the name last, so that their order is total).
    """
    return (points, rounds_won, gold)


class Board:
    """Pre-computed geometry of a map: neighbours of every flat cell."""

    __slots__ = ("rows", "cols", "size", "centre", "neighbours", "adjacent")

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols, self.size = rows, cols, rows * cols
        self.centre = centre_flat(rows, cols)
        self.neighbours: tuple[tuple[int, ...], ...] = neighbours(rows, cols)
        self.adjacent: tuple[frozenset[int], ...] = tuple(frozenset(n) for n in self.neighbours)

    def flat(self, pos: Pos) -> int:
        return (pos[0] - 1) * self.cols + (pos[1] - 1)

    def pos(self, flat: int) -> Pos:
        return (flat // self.cols + 1, flat % self.cols + 1)

    def inside(self, pos: Pos) -> bool:
        return 1 <= pos[0] <= self.rows and 1 <= pos[1] <= self.cols


@functools.lru_cache(maxsize=64)
def board_for(rows: int, cols: int) -> Board:
    """Boards are immutable geometry: share one per size instead of rebuilding it each round."""
    return Board(rows, cols)


@dataclass(frozen=True)
class Placement:
    """The decision of one placement attempt (§2, R12, R13)."""

    reask: bool
    positions: tuple[Pos, Pos] | None
    statuses: tuple[MoveStatus, MoveStatus]
    random_placed: tuple[bool, bool]
    events: tuple[Event, ...]


MAX_REASKS = 3


class Game:
    """The state of one round.  Holds only values: no handles, files or views.

    ``step``/``place`` advance the state in place and return the turn's events;
    :meth:`copy` gives an independent state (for search, or a persistent history).
    """

    __slots__ = (
        "map",
        "board",
        "grid",
        "pos",
        "gold",
        "shield",
        "sunk",
        "turn",
        "turns",
        "treasure",
        "treasure_by",
        "ended",
        "reason",
    )

    def __init__(self, game_map: GameMap, turns: int | None = None):
        self.map = game_map
        self.board = board_for(game_map.rows, game_map.cols)
        self.grid: list[int] = list(game_map.cells)
        self.pos: list[int] = [NO_POS, NO_POS]
        self.gold: list[int] = [0, 0]
        self.shield: list[bool] = [False, False]
        self.sunk: list[bool] = [False, False]
        #: turns played so far (0 before placement; placement is turn 1)
        self.turn = 0
        self.turns = game_map.turns if turns is None else turns
        self.treasure: int | None = None  # value, once it has appeared
        self.treasure_by: int | None = None
        self.ended = False
        self.reason: EndReason | None = None

    # ----------------------------------------------------------------- views
    def copy(self) -> Game:
        g = Game.__new__(Game)
        g.map, g.board = self.map, self.board
        g.grid = self.grid[:]
        g.pos, g.gold = self.pos[:], self.gold[:]
        g.shield, g.sunk = self.shield[:], self.sunk[:]
        g.turn, g.turns = self.turn, self.turns
        g.treasure, g.treasure_by = self.treasure, self.treasure_by
        g.ended, g.reason = self.ended, self.reason
        return g

    @property
    def turns_left(self) -> int:
        """K as written to MAP.INP: turns left including the coming one."""
        return self.turns - self.turn

    @property
    def placed(self) -> bool:
        return self.pos[0] != NO_POS

    def position(self, seat: int) -> Pos | None:
        p = self.pos[seat]
        return None if p == NO_POS else self.board.pos(p)

    def cell(self, pos: Pos) -> int:
        return self.grid[self.board.flat(pos)]

    def gold_on_map(self) -> int:
        return sum(v for v in self.grid if v > 0)

    def outcome(self) -> Outcome | None:
        if not self.ended or self.reason is None:
            return None
        return score(self.gold, self.reason)

    # ------------------------------------------------------------- placement
    def valid_start(self, pos: Pos) -> bool:
        """A valid start is inside the map on a cell holding the number 0 (§2)."""
        return self.board.inside(pos) and self.grid[self.board.flat(pos)] == 0

    def start_cells(self) -> list[Pos]:
        return [self.board.pos(f) for f, v in enumerate(self.grid) if v == 0]

    def decide_placement(
        self, asked: tuple[Move, Move], reasks_done: int, rng: random.Random
    ) -> Placement:
        """Judge one placement attempt without changing the state.

        Both valid and equal -> re-ask (up to :data:`MAX_REASKS` times), then
        both at random.  One invalid -> it goes at random on a valid cell that
        is not the other boat's.  Both invalid -> both at random, distinct.
        """
        valid = [a is not None and self.valid_start(a) for a in asked]
        statuses = tuple(MoveStatus.PLACED if v else MoveStatus.INVALID_START for v in valid)
        a0, a1 = asked
        if valid[0] and valid[1] and a0 == a1:
            assert a0 is not None
            if reasks_done < MAX_REASKS:
                ev = Event(EventKind.REASK, None, a0, reasks_done + 1)
                return Placement(
                    True, None, (MoveStatus.PLACED, MoveStatus.PLACED), (False, False), (ev,)
                )
            valid = [False, False]
            statuses = (MoveStatus.REASKS_EXHAUSTED, MoveStatus.REASKS_EXHAUSTED)
        cells = self.start_cells()
        chosen: list[Pos | None] = [a0 if valid[0] else None, a1 if valid[1] else None]
        randomised = (not valid[0], not valid[1])
        if not valid[0] and not valid[1]:
            if len(cells) < 2:
                raise NoRoomToStart("the map has fewer than 2 empty cells to start on")
            picks = rng.sample(cells, 2)
            chosen = [picks[0], picks[1]]
        else:
            for s in (0, 1):
                if chosen[s] is None:
                    others = [c for c in cells if c != chosen[1 - s]]
                    if not others:
                        raise NoRoomToStart("the map has no second empty cell to start on")
                    chosen[s] = rng.choice(others)
        events = tuple(
            Event(EventKind.RANDOM_PLACED if randomised[s] else EventKind.PLACED, s, chosen[s])
            for s in (0, 1)
        )
        p0, p1 = chosen
        assert p0 is not None and p1 is not None
        return Placement(False, (p0, p1), statuses, randomised, events)  # type: ignore[arg-type]

    def place(self, positions: tuple[Pos, Pos]) -> list[Event]:
        """Put both boats on their start cells: this completes turn 1."""
        if self.placed or self.ended:
            raise ValueError("the boats are already placed")
        self.pos = [self.board.flat(positions[0]), self.board.flat(positions[1])]
        self.turn = 1
        return self._after_turn([])

    # ---------------------------------------------------------------- moving
    def classify(self, seat: int, target: Move) -> MoveStatus:
        """Why a seat's asked target is or is not a move (R2)."""
        if self.sunk[seat]:
            return MoveStatus.SUNK
        if target is None:
            return MoveStatus.NOT_TWO_INTEGERS
        if not self.board.inside(target):
            return MoveStatus.OUTSIDE
        f = self.board.flat(target)
        if f == self.pos[seat]:
            return MoveStatus.STAYED
        if f not in self.board.adjacent[self.pos[seat]]:
            return MoveStatus.NOT_ADJACENT
        return MoveStatus.MOVED

    def step(self, moves: tuple[Move, Move]) -> list[Event]:
        """Resolve one moving turn from the two asked targets (None = no valid move)."""
        b = self.board
        t = [NO_POS, NO_POS]
        for s in (0, 1):
            m = moves[s]
            if m is not None and b.inside(m):
                t[s] = b.flat(m)
        return self.step_flat(t[0], t[1])

    def step_flat(self, t0: int, t1: int) -> list[Event]:
        """:meth:`step` on flat targets (``NO_POS`` or any cell; non-adjacent means stay)."""
        if self.ended or not self.placed:
            raise ValueError("no moving turn: the round has ended or not started")
        self.turn += 1
        pos, sunk, adj = self.pos, self.sunk, self.board.adjacent
        p0, p1 = pos
        # R2: destination = target if edge-adjacent, else own cell.  Sunk boats stay.
        d0 = t0 if (not sunk[0] and t0 in adj[p0]) else p0
        d1 = t1 if (not sunk[1] and t1 in adj[p1]) else p1
        events: list[Event] = []
        if not sunk[0] and not sunk[1]:
            if d0 == d1:  # R3: same destination, shield or not
                pos[0] = pos[1] = d0
                sunk[0] = sunk[1] = True
                at = self.board.pos(d0)
                events.append(Event(EventKind.SINK, 0, at, 0, SinkCause.COLLISION))
                events.append(Event(EventKind.SINK, 1, at, 0, SinkCause.COLLISION))
                return self._after_turn(events)
            if d0 == p1 and d1 == p0:  # R4: swap sinks both on their own cells
                sunk[0] = sunk[1] = True
                events.append(Event(EventKind.SINK, 0, self.board.pos(p0), 0, SinkCause.SWAP))
                events.append(Event(EventKind.SINK, 1, self.board.pos(p1), 0, SinkCause.SWAP))
                return self._after_turn(events)
        if d0 != p0:
            self._arrive(0, d0, events)
        if d1 != p1:
            self._arrive(1, d1, events)
        return self._after_turn(events)

    def _arrive(self, s: int, d: int, events: list[Event]) -> None:
        """Seat ``s`` (afloat) enters cell ``d`` alone: wreck, reef, shield or gold."""
        self.pos[s] = d
        o = 1 - s
        if self.sunk[o] and self.pos[o] == d:  # R5
            self.sunk[s] = True
            events.append(Event(EventKind.SINK, s, self.board.pos(d), 0, SinkCause.WRECK))
            return
        v = self.grid[d]
        if v == 0:
            return
        if v == REEF:
            if not self.shield[s]:  # R6
                self.sunk[s] = True
                events.append(Event(EventKind.SINK, s, self.board.pos(d), 0, SinkCause.REEF))
            return
        if v == SHIELD:  # R7: always taken
            self.shield[s] = True
            self.grid[d] = 0
            events.append(Event(EventKind.SHIELD, s, self.board.pos(d)))
            return
        self.gold[s] += v
        self.grid[d] = 0
        if d == self.board.centre and self.treasure is not None and self.treasure_by is None:
            self.treasure_by = s
        events.append(Event(EventKind.COLLECT, s, self.board.pos(d), v))

    def _after_turn(self, events: list[Event]) -> list[Event]:
        """End checks after a counted turn: both sunk, half time (R9), last turn."""
        if self.sunk[0] and self.sunk[1]:
            return self._end(EndReason.BOTH_SUNK, events)
        if self.turn * 2 == self.turns:
            x = abs(self.gold[0] - self.gold[1])
            if x > 20:
                events.append(Event(EventKind.GAP_END, None, None, x))
                return self._end(EndReason.GOLD_GAP, events)
            value = 3 * x // 4
            c = self.board.centre
            self.treasure = value
            self.grid[c] = value
            events.append(Event(EventKind.TREASURE, None, self.board.pos(c), value))
        if self.turn >= self.turns:
            return self._end(EndReason.TURNS, events)
        return events

    def _end(self, reason: EndReason, events: list[Event]) -> list[Event]:
        self.ended = True
        self.reason = reason
        return events


def resolve(state: Game, moves: tuple[Move, Move]) -> tuple[Game, list[Event]]:
    """The pure form of :meth:`Game.step`: a new state and the events; ``state`` is untouched."""
    nxt = state.copy()
    return nxt, nxt.step(moves)
