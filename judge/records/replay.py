"""A replay's lines: the header, then one turn record per turn with its per-seat parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judge.inputfiles import excerpt
from judge.records.fields import (
    AnyEvent,
    Json,
    RecordError,
    int_or,
    is_int,
    is_pair,
    pair_of,
    pos_json,
    read_events,
    read_grid,
    read_number,
    read_pos,
    read_text,
)
from judge.rules import EndReason, MoveStatus, Pos

#: The replay schema written and read (``"schema"`` in the header line).
REPLAY_SCHEMA = 1


# ------------------------------------------------------------------ header
@dataclass(frozen=True)
class MapInfo:
    """The sea a round was played on, as the header records it."""

    path: str
    rows: int
    cols: int
    turns: int  # the map's own K (the round's K is the header's ``turns``)
    grid: tuple[str, ...]

    def to_json(self) -> Json:
        return {
            "path": self.path,
            "rows": self.rows,
            "cols": self.cols,
            "turns": self.turns,
            "grid": list(self.grid),
        }

    @classmethod
    def from_json(cls, m: Any) -> MapInfo:
        if not isinstance(m, dict):
            raise RecordError("the header has no 'map' object")
        rows: Any = m.get("rows")
        cols: Any = m.get("cols")
        if not (is_int(rows) and is_int(cols) and 1 <= rows <= 99 and 1 <= cols <= 99):
            raise RecordError(f"the map size {rows}x{cols} is not a size")
        grid = read_grid(m.get("grid"), rows, cols, part="header map")
        return cls(str(m.get("path") or ""), rows, cols, int_or(m.get("turns"), 0), grid)


@dataclass(frozen=True)
class RunLimits:
    """The limits every run of the round had (``time_s`` None: lifted, for debugging)."""

    time_s: float | None
    memory_mb: float
    file_mb: float

    @property
    def time_limit_lifted(self) -> bool:
        return self.time_s is None

    def to_json(self) -> Json:
        return {
            "time_s": self.time_s,
            "memory_mb": self.memory_mb,
            "file_mb": self.file_mb,
            "time_limit_lifted": self.time_limit_lifted,
        }

    @classmethod
    def from_json(cls, d: Any) -> RunLimits | None:
        if not isinstance(d, dict):
            return None
        return cls(
            read_number("limits.time_s", d.get("time_s")),
            read_number("limits.memory_mb", d.get("memory_mb")) or 0.0,
            read_number("limits.file_mb", d.get("file_mb")) or 0.0,
        )


@dataclass(frozen=True)
class ReplayHeader:
    """The first line of a replay: what decides the round besides the moves."""

    map: MapInfo
    turns: int  # K of this round (the map's unless overridden)
    seed: int | None
    teams: tuple[str, str]  # seat 0, seat 1
    bots: tuple[str, ...] = ()
    limits: RunLimits | None = None
    #: the sandbox's protections in force, as it states them (``{name: {"on", "detail"}}``)
    isolation: Mapping[str, Any] = field(default_factory=dict)
    schema: int = REPLAY_SCHEMA
    #: the cluster worker that played the round (judge --cluster); None = the judge's machine
    worker: str | None = None
    #: the seats a person played (judge play): their moves are no program's
    people: tuple[int, ...] = ()

    def to_json(self) -> Json:
        return {
            "type": "header",
            "schema": self.schema,
            "map": self.map.to_json(),
            "turns": self.turns,
            "seed": self.seed,
            "teams": list(self.teams),
            "bots": list(self.bots),
            "limits": self.limits.to_json() if self.limits is not None else None,
            "isolation": dict(self.isolation),
            **({"worker": self.worker} if self.worker is not None else {}),
            **({"people": list(self.people)} if self.people else {}),
        }

    @classmethod
    def from_json(cls, h: Any) -> ReplayHeader:
        if not isinstance(h, dict) or h.get("type") != "header":
            raise RecordError(
                'the first line is not a replay header (expected an object with "type": "header")'
            )
        schema: Any = h.get("schema")
        if not is_int(schema):
            raise RecordError("the header has no schema number")
        if schema > REPLAY_SCHEMA:
            raise RecordError(
                f"replay schema {schema} was written by a newer judge; "
                f"this one reads schema {REPLAY_SCHEMA}"
            )
        if schema < 1:
            raise RecordError(f"unknown replay schema {schema}")
        game_map = MapInfo.from_json(h.get("map"))
        teams: Any = h.get("teams")
        if not (is_pair(teams) and all(isinstance(t, str) for t in teams)):
            raise RecordError("'teams' must be a list of 2 names")
        turns: Any = h.get("turns")
        if not (is_int(turns) and turns >= 1):
            raise RecordError("'turns' must be a positive integer")
        seed = h.get("seed")
        bots = h.get("bots")
        isolation = h.get("isolation")
        worker = h.get("worker")
        people = h.get("people")
        return cls(
            map=game_map,
            turns=turns,
            seed=seed if is_int(seed) else None,
            teams=(teams[0], teams[1]),
            bots=tuple(str(b) for b in bots) if isinstance(bots, list) else (),
            limits=RunLimits.from_json(h.get("limits")),
            isolation=dict(isolation) if isinstance(isolation, dict) else {},
            schema=schema,
            worker=worker if isinstance(worker, str) else None,
            people=tuple(sorted({x for x in people if is_int(x) and x in (0, 1)}))
            if isinstance(people, list)
            else (),
        )


# ------------------------------------------------------------------- turns
@dataclass(frozen=True)
class SeatRun:
    """One seat's program in one turn: what it asked for and what became of it (R10)."""

    move: Pos | None = None  # the cell asked for; None when MOVE.OUT gave no usable target
    raw: str | None = None  # MOVE.OUT's first line, capped; None when there was no file
    verdict: str | None = None  # the sandbox's verdict; None when not run (sunk, R11)
    status: MoveStatus | None = None
    wall_ms: float | None = None
    cpu_ms: float | None = None
    mem_mb: float | None = None
    discarded: tuple[str, ...] = ()  # what folder hygiene removed, in words
    message: str | None = None  # why the verdict, when not OK
    #: why the move was void (a :class:`judge.voidwhy.Why` value, kept as recorded: a
    #: newer judge's reason stays readable); None when it was not, or not recorded
    why: str | None = None
    #: how long the run was kept waiting for a CPU by something else, given back to it; None when
    #: not measured (or an older replay)
    wait_ms: float | None = None
    #: the STATE.OUT the run started with, kept for a void move so that ``judge check-bot
    #: --from`` can run that turn again: a file of the round's folder (its path, relative
    #: to the folder), "" when it started without one; None when not kept
    state_in: str | None = None

    @property
    def ran(self) -> bool:
        return self.verdict is not None


#: SeatRun's fields as a turn record's parallel arrays, in file order.
_RUN_KEYS = (
    ("moves", "move"),
    ("raw", "raw"),
    ("verdicts", "verdict"),
    ("move_status", "status"),
    ("wall_ms", "wall_ms"),
    ("cpu_ms", "cpu_ms"),
    ("wait_ms", "wait_ms"),
    ("mem_mb", "mem_mb"),
    ("discarded", "discarded"),
    ("messages", "message"),
    ("why", "why"),
    ("state_in", "state_in"),
)
#: Keys written only when a seat has a value (most turns have none to keep).
_SPARSE_KEYS = frozenset({"state_in"})


def _runs_json(runs: tuple[SeatRun, SeatRun]) -> Json:
    out: Json = {}
    for key, attr in _RUN_KEYS:
        values = [getattr(r, attr) for r in runs]
        if attr == "move":
            values = [pos_json(v) for v in values]
        elif attr == "status":
            values = [v.value if v is not None else None for v in values]
        elif attr == "discarded":
            values = [list(v) for v in values]
        elif key in _SPARSE_KEYS and values == [None, None]:
            continue
        out[key] = values
    return out


def _runs(d: Mapping[str, Any]) -> tuple[SeatRun, SeatRun]:
    pairs = {key: pair_of(d, key) for key, _ in _RUN_KEYS}
    if "discarded" not in d:
        pairs["discarded"] = [[], []]
    out = []
    for s in (0, 1):
        status = pairs["move_status"][s]
        if status is not None:
            try:
                status = MoveStatus(status)
            except ValueError:
                raise RecordError(
                    f"move_status[{s}] {excerpt(status)} is not a move status"
                ) from None
        discarded = pairs["discarded"][s]
        if not isinstance(discarded, list):
            raise RecordError(f"discarded[{s}] must be a list of lines")
        verdict = pairs["verdicts"][s]
        out.append(
            SeatRun(
                move=read_pos(f"moves[{s}]", pairs["moves"][s]),
                raw=read_text(f"raw[{s}]", pairs["raw"][s]),
                verdict=str(verdict) if verdict is not None else None,
                status=status,
                wall_ms=read_number(f"wall_ms[{s}]", pairs["wall_ms"][s]),
                cpu_ms=read_number(f"cpu_ms[{s}]", pairs["cpu_ms"][s]),
                wait_ms=read_number(f"wait_ms[{s}]", pairs["wait_ms"][s]),
                mem_mb=read_number(f"mem_mb[{s}]", pairs["mem_mb"][s]),
                discarded=tuple(str(x) for x in discarded),
                message=read_text(f"messages[{s}]", pairs["messages"][s]),
                why=read_text(f"why[{s}]", pairs["why"][s]),
                state_in=read_text(f"state_in[{s}]", pairs["state_in"][s]),
            )
        )
    return out[0], out[1]


def _moves_checked(d: Mapping[str, Any]) -> None:
    """0.1.0's message for a bad move, before the per-field checks."""
    for s, mv in enumerate(d.get("moves") or [None, None]):
        if mv is not None and not (is_pair(mv) and all(is_int(x) for x in mv)):
            raise RecordError(f"moves[{s}] must be null or [row, col]")


@dataclass(frozen=True)
class Boat:
    """One boat after a turn."""

    position: Pos | None  # None before placement
    gold: int = 0
    shield: bool = False
    sunk: bool = False


@dataclass(frozen=True)
class Attempt:
    """One placement attempt of turn 1 (both boats asked for the same cell: re-asked, R12)."""

    turn: int
    turns_left: int | None
    runs: tuple[SeatRun, SeatRun]
    events: tuple[AnyEvent, ...]
    reask: bool

    def to_json(self) -> Json:
        d: Json = {"turn": self.turn, "turns_left": self.turns_left}
        d.update(_runs_json(self.runs))
        d["events"] = [e.as_dict() for e in self.events]
        d["reask"] = self.reask
        return d

    @classmethod
    def from_json(cls, d: Any) -> Attempt:
        if not isinstance(d, dict):
            raise RecordError("an entry of 'attempts' must be a JSON object")
        left = d.get("turns_left")
        return cls(
            turn=int_or(d.get("turn"), 1),
            turns_left=left if is_int(left) else None,
            runs=_runs(d),
            events=read_events(d.get("events", [])),
            reask=bool(d.get("reask")),
        )


@dataclass(frozen=True)
class TurnRecord:
    """One turn of a replay: the runs, the events, and the state after the turn.

    ``runs`` is None for a frame that ran no program (the bare map before
    placement).  The placement turn also keeps its ``attempts`` (re-asks
    included) and which boats were placed at random.
    """

    turn: int
    turns_left: int | None
    runs: tuple[SeatRun, SeatRun] | None
    events: tuple[AnyEvent, ...]
    boats: tuple[Boat, Boat]
    grid: tuple[str, ...]
    treasure: int | None = None  # its value once it has appeared
    ended: bool = False
    end_reason: EndReason | None = None
    attempts: tuple[Attempt, ...] = ()
    random_placed: tuple[bool, bool] | None = None

    @property
    def positions(self) -> tuple[Pos | None, Pos | None]:
        return (self.boats[0].position, self.boats[1].position)

    @property
    def gold(self) -> tuple[int, int]:
        return (self.boats[0].gold, self.boats[1].gold)

    @property
    def rows(self) -> int:
        return len(self.grid)

    @property
    def cols(self) -> int:
        return len(self.grid[0].split()) if self.grid else 0

    def cells(self) -> list[list[str]]:
        """The grid as rows of tokens (a number, ``D`` or ``S``)."""
        return [row.split() for row in self.grid]

    def to_json(self) -> Json:
        d: Json = {"turn": self.turn, "turns_left": self.turns_left}
        if self.runs is not None:
            d.update(_runs_json(self.runs))
        d["events"] = [e.as_dict() for e in self.events]
        if self.attempts:
            d["reask"] = False
            d["attempts"] = [a.to_json() for a in self.attempts]
        if self.random_placed is not None:
            d["random_placed"] = list(self.random_placed)
        d.update(
            {
                "positions": [pos_json(b.position) for b in self.boats],
                "gold": [b.gold for b in self.boats],
                "shield": [b.shield for b in self.boats],
                "sunk": [b.sunk for b in self.boats],
                "grid": list(self.grid),
                "treasure": self.treasure,
                "ended": self.ended,
                "end_reason": self.end_reason.value if self.end_reason else None,
            }
        )
        return d

    @classmethod
    def from_json(cls, rec: Any, rows: int, cols: int) -> TurnRecord:
        """A turn record of a ``rows`` x ``cols`` round; only what views draw is required."""
        if not isinstance(rec, dict):
            raise RecordError("a turn record must be a JSON object")
        if rec.get("type") == "header":
            raise RecordError("a second header (two replays glued together?)")
        for key in ("turn", "positions", "gold", "shield", "sunk", "grid", "events"):
            if key not in rec:
                raise RecordError(f"the turn record has no {key!r}")
        if not (is_int(rec["turn"]) and rec["turn"] >= 1):
            raise RecordError(f"'turn' must be a positive integer, not {excerpt(rec['turn'])}")
        if not is_pair(rec["positions"]):
            raise RecordError("'positions' must be a list of 2")
        positions = [read_pos(f"positions[{s}]", rec["positions"][s], (rows, cols)) for s in (0, 1)]
        g = rec["gold"]
        if not (is_pair(g) and all(is_int(x) and x >= 0 for x in g)):
            raise RecordError("'gold' must be a list of 2 non-negative integers")
        for key in ("shield", "sunk"):
            v = rec[key]
            if not (is_pair(v) and all(isinstance(x, bool) for x in v)):
                raise RecordError(f"{key!r} must be a list of 2 true/false values")
        grid = read_grid(rec["grid"], rows, cols)
        t = rec.get("treasure")
        if t is not None and not (is_int(t) and t >= 0):
            raise RecordError("'treasure' must be null or a non-negative integer")
        events = read_events(rec["events"])
        for key in ("moves", "raw", "verdicts", "move_status", "wall_ms", "messages", "why"):
            if key in rec and not is_pair(rec[key]):
                raise RecordError(f"{key!r} must be a list of 2")
        _moves_checked(rec)
        reason = rec.get("end_reason")
        try:
            end_reason = EndReason(reason) if reason is not None else None
        except ValueError:
            raise RecordError(f"'end_reason' {excerpt(reason)} is not an end reason") from None
        attempts = rec.get("attempts") or []
        if not isinstance(attempts, list):
            raise RecordError("'attempts' must be a list")
        randoms: Any = rec.get("random_placed")
        left = rec.get("turns_left")
        return cls(
            turn=rec["turn"],
            turns_left=left if is_int(left) else None,
            runs=_runs(rec) if "verdicts" in rec else None,
            events=events,
            boats=(
                Boat(positions[0], g[0], rec["shield"][0], rec["sunk"][0]),
                Boat(positions[1], g[1], rec["shield"][1], rec["sunk"][1]),
            ),
            grid=grid,
            treasure=t,
            ended=bool(rec.get("ended")),
            end_reason=end_reason,
            attempts=tuple(Attempt.from_json(a) for a in attempts),
            random_placed=(bool(randoms[0]), bool(randoms[1])) if is_pair(randoms) else None,
        )

    @classmethod
    def before_placement(cls, header: ReplayHeader) -> TurnRecord:
        """A turn-0 frame from the header alone: the bare map, for a round with no turn yet."""
        return cls(
            turn=0,
            turns_left=header.turns,
            runs=None,
            events=(),
            boats=(Boat(None), Boat(None)),
            grid=header.map.grid,
        )
