"""A round's result and a match's result, as ``result.json`` (and the ledger) keep them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.inputfiles import excerpt
from judge.records.fields import (
    Json,
    RecordError,
    int_or,
    is_int,
    is_pair,
    pair_of,
    pos_json,
    read_number,
    read_pos,
)
from judge.rules import EndReason, Outcome, Pos, r18_key
from judge.stats import median


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class SeatStats:
    """One seat's measurements over a round, for tables and warnings.

    ``result.json`` keeps the summary (p50 and max of the wall times); the
    samples themselves are kept in memory only (for ``judge eval``'s
    percentiles over many rounds) and are empty for a result read back.
    """

    runs: int = 0
    verdicts: Mapping[str, int] = field(default_factory=dict)
    wall_ms_p50: float | None = None
    wall_ms_max: float | None = None
    peak_mem_mb: float = 0.0
    void_moves: int = 0
    #: moves asked for (placement included, re-asks not); 0 in results of judge 0.1.0
    moves: int = 0
    #: why the void moves were void (:class:`judge.voidwhy.Why` values), placement included
    why_void: Mapping[str, int] = field(default_factory=dict)
    wall_ms: tuple[float, ...] = field(default=(), compare=False)
    cpu_ms: tuple[float, ...] = field(default=(), compare=False)

    @classmethod
    def measured(
        cls,
        verdicts: Mapping[str, int],
        wall_ms: Sequence[float],
        cpu_ms: Sequence[float],
        peak_mem_mb: float,
        void_moves: int,
        moves: int = 0,
        why_void: Mapping[str, int] | None = None,
    ) -> SeatStats:
        walls = sorted(wall_ms)
        return cls(
            runs=sum(verdicts.values()),
            verdicts=dict(sorted(verdicts.items())),
            wall_ms_p50=median(walls),
            wall_ms_max=walls[-1] if walls else None,
            peak_mem_mb=round(peak_mem_mb, 1),
            void_moves=void_moves,
            moves=moves,
            why_void=dict(sorted((why_void or {}).items())),
            wall_ms=tuple(wall_ms),
            cpu_ms=tuple(cpu_ms),
        )

    def failed(self) -> int:
        """Runs that did not end OK."""
        return self.runs - self.verdicts.get("OK", 0)

    def to_json(self) -> Json:
        return {
            "runs": self.runs,
            "verdicts": dict(sorted(self.verdicts.items())),
            "wall_ms_p50": self.wall_ms_p50,
            "wall_ms_max": self.wall_ms_max,
            "peak_mem_mb": self.peak_mem_mb,
            "void_moves": self.void_moves,
            "moves": self.moves,
            "why_void": dict(sorted(self.why_void.items())),
        }

    @classmethod
    def from_json(cls, d: Any) -> SeatStats:
        if not isinstance(d, dict):
            raise RecordError(f"a seat's 'stats' must be an object, not {excerpt(d)}")
        verdicts = d.get("verdicts") or {}
        if not isinstance(verdicts, dict) or not all(is_int(n) for n in verdicts.values()):
            raise RecordError("'stats.verdicts' must map verdicts to counts")
        why_void = d.get("why_void") or {}
        if not isinstance(why_void, dict) or not all(is_int(n) for n in why_void.values()):
            raise RecordError("'stats.why_void' must map reasons to counts")
        return cls(
            runs=int_or(d.get("runs"), 0),
            verdicts={str(k): int(v) for k, v in verdicts.items()},
            wall_ms_p50=read_number("stats.wall_ms_p50", d.get("wall_ms_p50")),
            wall_ms_max=read_number("stats.wall_ms_max", d.get("wall_ms_max")),
            peak_mem_mb=read_number("stats.peak_mem_mb", d.get("peak_mem_mb")) or 0.0,
            void_moves=int_or(d.get("void_moves"), 0),
            moves=int_or(d.get("moves"), 0),
            why_void={str(k): int(v) for k, v in why_void.items()},
        )


@dataclass(frozen=True)
class Treasure:
    """The treasure of a round, once it appeared: its value and who took it (a seat)."""

    value: int
    collected_by: int | None = None

    def to_json(self) -> Json:
        return {"value": self.value, "collected_by": self.collected_by}


def _swap(pair: tuple[Any, Any]) -> tuple[Any, Any]:
    return (pair[1], pair[0])


def _other(seat: int | None) -> int | None:
    return None if seat is None else 1 - seat


@dataclass(frozen=True)
class RoundResult:
    """A finished round, every pair in seat order; the rules' :class:`~judge.rules.Outcome` inside.

    ``seats`` names the teams in seat 0 and 1 when the round belongs to a
    tournament, whose ``result.json`` lists pairs in the match's team order.
    """

    map_label: str
    turns: int
    turns_played: int
    outcome: Outcome
    gold: tuple[int, int]
    sunk: tuple[bool, bool]
    shield: tuple[bool, bool]
    positions: tuple[Pos | None, Pos | None]
    treasure: Treasure | None
    replay: str
    seed: int
    stats: tuple[SeatStats, SeatStats] = (SeatStats(), SeatStats())
    seats: tuple[str, str] | None = None

    @property
    def winner(self) -> int | None:
        return self.outcome.winner

    @property
    def points(self) -> tuple[int, int]:
        return self.outcome.points

    @property
    def end_reason(self) -> EndReason:
        return self.outcome.reason

    def result_for(self, seat: int) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for ``seat``."""
        if self.winner is None:
            return "draw"
        return "win" if self.winner == seat else "loss"

    def swapped(self) -> RoundResult:
        """The same round with the seats' pairs the other way round (``seats`` kept)."""
        o = self.outcome
        treasure = self.treasure
        if treasure is not None:
            treasure = Treasure(treasure.value, _other(treasure.collected_by))
        return dataclasses.replace(
            self,
            outcome=Outcome(_other(o.winner), _swap(o.points), o.reason),
            gold=_swap(self.gold),
            sunk=_swap(self.sunk),
            shield=_swap(self.shield),
            positions=_swap(self.positions),
            treasure=treasure,
            stats=_swap(self.stats),
        )

    def in_order(self, teams: Sequence[str]) -> RoundResult:
        """The pairs in ``teams`` order (a match's team order); seat order without ``seats``."""
        if self.seats is None or tuple(teams) == self.seats:
            return self
        if tuple(teams) == _swap(self.seats):
            return self.swapped()
        raise ValueError(
            f"{excerpt(list(teams))} are not the teams of this round ({excerpt(list(self.seats))})"
        )

    def to_json(self, teams: Sequence[str] | None = None) -> Json:
        """result.json's entry; a tournament's (``seats`` set) lists pairs in ``teams`` order."""
        r = self.in_order(teams) if teams is not None else self
        d: Json = {
            "map": r.map_label,
            "turns": r.turns,
            "turns_played": r.turns_played,
            "end_reason": r.end_reason.value,
            "gold": list(r.gold),
            "sunk": list(r.sunk),
            "shield": list(r.shield),
            "positions": [pos_json(p) for p in r.positions],
            "treasure": r.treasure.to_json() if r.treasure is not None else None,
            "winner": r.winner,
            "points": list(r.points),
            "replay": r.replay,
            "seed": r.seed,
            "stats": [s.to_json() for s in r.stats],
        }
        if r.seats is not None:
            d["seats"] = list(r.seats)
        return d

    @classmethod
    def from_json(cls, d: Any, teams: Sequence[str] | None = None) -> RoundResult:
        """Read an entry; one that names its ``seats`` lists its pairs in ``teams`` order."""
        if not isinstance(d, dict):
            raise RecordError(f"a round's result must be an object, not {excerpt(d)}")
        for key in ("map", "gold", "points", "winner", "end_reason", "replay"):
            if key not in d:
                raise RecordError(f"a round's result has no {key!r}")
        ints = {}
        for key in ("gold", "points"):
            v = d[key]
            if not (is_pair(v) and all(is_int(x) for x in v)):
                raise RecordError(f"{key!r} must be a list of 2 integers")
            ints[key] = (v[0], v[1])
        winner = d["winner"]
        if winner not in (0, 1, None) or isinstance(winner, bool):
            raise RecordError(f"'winner' must be 0, 1 or null, not {excerpt(winner)}")
        try:
            reason = EndReason(d["end_reason"])
        except ValueError:
            raise RecordError(
                f"'end_reason' {excerpt(d['end_reason'])} is not an end reason"
            ) from None
        if not isinstance(d["replay"], str):
            raise RecordError("'replay' must be the replay's path")
        flags = {}
        for key in ("sunk", "shield"):
            v = d.get(key, [False, False])
            if not (is_pair(v) and all(isinstance(x, bool) for x in v)):
                raise RecordError(f"{key!r} must be a list of 2 true/false values")
            flags[key] = (v[0], v[1])
        positions = pair_of(d, "positions")
        t = d.get("treasure")
        treasure = None
        if t is not None:
            if not (isinstance(t, dict) and is_int(t.get("value"))):
                raise RecordError("'treasure' must be null or {value, collected_by}")
            treasure = Treasure(t["value"], t.get("collected_by"))
        stats = d.get("stats") or [{}, {}]
        if not is_pair(stats):
            raise RecordError("'stats' must be a list of 2")
        seats: Any = d.get("seats")
        if seats is not None and not (is_pair(seats) and all(isinstance(x, str) for x in seats)):
            raise RecordError("'seats' must be a list of 2 team names")
        listed = cls(
            map_label=str(d["map"]),
            turns=int_or(d.get("turns"), 0),
            turns_played=int_or(d.get("turns_played"), 0),
            outcome=Outcome(winner, ints["points"], reason),
            gold=ints["gold"],
            sunk=flags["sunk"],
            shield=flags["shield"],
            positions=(
                read_pos("positions[0]", positions[0]),
                read_pos("positions[1]", positions[1]),
            ),
            treasure=treasure,
            replay=d["replay"],
            seed=int_or(d.get("seed"), 0),
            stats=(SeatStats.from_json(stats[0]), SeatStats.from_json(stats[1])),
            seats=(seats[0], seats[1]) if seats is not None else None,
        )
        if listed.seats is None:
            return listed
        if teams is None:
            raise RecordError("a round that names its seats needs its match's teams to be read")
        if tuple(teams) == listed.seats:
            return listed
        if tuple(teams) == _swap(listed.seats):
            return listed.swapped()
        raise RecordError(
            f"'seats' {excerpt(list(listed.seats))} are not the match's teams {excerpt(list(teams))}"
        )


@dataclass
class MatchResult:
    """A match: its rounds so far (in order) and its score; ``result.json``."""

    teams: tuple[str, str]
    seed: int
    rounds: list[RoundResult] = field(default_factory=list)
    #: rounds the match was to have; result.json says ``complete: false`` until all are in
    planned: int | None = None
    bots: tuple[str, ...] | None = None  # as given on the command line or in the configuration
    time_limit_lifted: bool | None = None

    @property
    def complete(self) -> bool:
        return self.planned is None or len(self.rounds) >= self.planned

    def listed(self) -> list[RoundResult]:
        """The rounds with their pairs in the match's team order."""
        return [r.in_order(self.teams) for r in self.rounds]

    @property
    def points(self) -> tuple[int, int]:
        rounds = self.listed()
        return (sum(r.points[0] for r in rounds), sum(r.points[1] for r in rounds))

    @property
    def gold(self) -> tuple[int, int]:
        rounds = self.listed()
        return (sum(r.gold[0] for r in rounds), sum(r.gold[1] for r in rounds))

    @property
    def winner(self) -> int | None:
        """R18 order between the two teams; None when they are level on all of it."""
        rounds = self.listed()
        points, gold = self.points, self.gold
        keys = [
            r18_key(points[s], sum(1 for r in rounds if r.winner == s), gold[s]) for s in (0, 1)
        ]
        if keys[0] == keys[1]:
            return None
        return 0 if keys[0] > keys[1] else 1

    def to_json(self) -> Json:
        d: Json = {
            "teams": list(self.teams),
            "seed": self.seed,
            "rounds": [r.to_json(self.teams) for r in self.rounds],
            "points": list(self.points),
            "winner": self.winner,
            "rounds_planned": self.planned if self.planned is not None else len(self.rounds),
            "complete": self.complete,
        }
        if self.bots is not None:
            d["bots"] = list(self.bots)
        if self.time_limit_lifted is not None:
            d["time_limit_lifted"] = self.time_limit_lifted
        return d

    @classmethod
    def from_json(cls, d: Any) -> MatchResult:
        if not isinstance(d, dict) or not isinstance(d.get("rounds"), list):
            raise RecordError("not a match result (no 'rounds' list)")
        teams: Any = d.get("teams")
        if not (is_pair(teams) and all(isinstance(t, str) for t in teams)):
            raise RecordError("'teams' must be a list of 2 names")
        rounds = []
        for i, entry in enumerate(d["rounds"], start=1):
            try:
                rounds.append(RoundResult.from_json(entry, teams))
            except RecordError as exc:
                raise RecordError(f"round {i}: {exc}") from None
        planned = d.get("rounds_planned")
        bots = d.get("bots")
        lifted = d.get("time_limit_lifted")
        return cls(
            teams=(teams[0], teams[1]),
            seed=int_or(d.get("seed"), 0),
            rounds=rounds,
            planned=planned if is_int(planned) else None,
            bots=tuple(str(b) for b in bots) if isinstance(bots, list) else None,
            time_limit_lifted=lifted if isinstance(lifted, bool) else None,
        )
