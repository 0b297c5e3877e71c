"""Typed records of what a round produces: one shape for each thing.

A round leaves a replay (a :class:`ReplayHeader` line, then one
:class:`TurnRecord` per turn, each with its per-seat parts :class:`SeatRun`
and :class:`Boat`), and a :class:`RoundResult`; a match is a
:class:`MatchResult`; ``judge eval``'s summary is an :class:`EvalSummary`
(:mod:`judge.records.evaluation`); a tournament's standings are
:class:`StandingRow` s with a :class:`StandingsAudit` made of the ledger's
:class:`LedgerRun` s (:mod:`judge.records.standings`).  The referee makes them, the views, ``judge eval``,
``judge check-bot`` and the tournament's ledger read them.  Nobody else
reads or writes the JSON of these files: ``to_json`` gives the file's object
(the format of judge 0.1.0, unchanged: schema :data:`REPLAY_SCHEMA`) and
``from_json`` checks an object and raises :class:`RecordError` naming the
bad field.

Why these shapes:

* Per-seat values are pairs in seat order (seat 0, seat 1) everywhere in
  memory.  The files list them as parallel arrays (``"gold": [12, 30]``), as
  0.1.0 did; a tournament's ``result.json`` lists a round's pairs in the
  match's team order and names the seats (``"seats"``): :meth:`RoundResult.to_json`
  and :meth:`RoundResult.from_json` turn that order around at the edge.
* Reading is lenient where 0.1.0's reader was: a turn record needs only what
  the views draw; the rest is typed when present.  An event kind from a newer
  judge is kept as a :class:`ForeignEvent` (shown as its raw fields) rather
  than refusing the whole replay.
* This module knows the rules' vocabulary (end reasons, events, move
  statuses) but not the sandbox: a replay can be read on a machine that
  cannot run bots.  Verdicts are kept as their names (``"OK"``, ``"TLE"``).
"""

from judge.records.evaluation import EvalSummary
from judge.records.fields import (
    AnyEvent,
    ForeignEvent,
    Json,
    RecordError,
    event_from_json,
    pos_json,
)
from judge.records.replay import (
    REPLAY_SCHEMA,
    Attempt,
    Boat,
    MapInfo,
    ReplayHeader,
    RunLimits,
    SeatRun,
    TurnRecord,
)
from judge.records.results import MatchResult, RoundResult, SeatStats, Treasure
from judge.records.standings import LedgerRun, StandingRow, Standings, StandingsAudit

__all__ = [
    "REPLAY_SCHEMA",
    "AnyEvent",
    "Attempt",
    "Boat",
    "EvalSummary",
    "ForeignEvent",
    "Json",
    "LedgerRun",
    "MapInfo",
    "MatchResult",
    "RecordError",
    "ReplayHeader",
    "RoundResult",
    "RunLimits",
    "SeatRun",
    "SeatStats",
    "StandingRow",
    "Standings",
    "StandingsAudit",
    "Treasure",
    "TurnRecord",
    "event_from_json",
    "pos_json",
]
