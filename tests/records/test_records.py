"""The typed records: their invariants and the errors that name a bad field."""

from __future__ import annotations

import dataclasses

import pytest

from judge.records import (
    Boat,
    MatchResult,
    RecordError,
    RoundResult,
    SeatStats,
    Treasure,
    TurnRecord,
)
from judge.rules import EndReason
from tests.records_support import a_result


def test_swapped_twice_is_the_same_round_and_names_follow() -> None:
    rr = a_result(
        ("B", "A"),
        (12, 30),
        sunk=(True, False),
        treasure=Treasure(7, 1),
        stats=(SeatStats(runs=3), SeatStats(runs=5)),
    )
    sw = rr.swapped()
    assert sw.gold == (30, 12) and sw.winner == 0 and sw.points == (20, 0)
    assert sw.sunk == (False, True) and sw.treasure == Treasure(7, 0)
    assert [s.runs for s in sw.stats] == [5, 3]
    assert sw.swapped() == rr
    assert rr.in_order(("B", "A")) is rr and rr.in_order(("A", "B")) == sw
    with pytest.raises(ValueError, match="not the teams"):
        rr.in_order(("A", "C"))


def test_an_entry_with_seats_is_read_in_seat_order_given_the_match_teams() -> None:
    rr = a_result(("B", "A"), (12, 30))
    listed = rr.to_json(("A", "B"))
    assert listed["gold"] == [30, 12] and listed["seats"] == ["B", "A"]
    assert RoundResult.from_json(listed, ("A", "B")) == rr
    with pytest.raises(RecordError, match="needs its match's teams"):
        RoundResult.from_json(listed)
    with pytest.raises(RecordError, match="not the match's teams"):
        RoundResult.from_json(listed, ("A", "C"))


def test_a_match_lists_every_round_in_its_team_order() -> None:
    rounds = [a_result(("A", "B"), (5, 1)), a_result(("B", "A"), (9, 0))]
    m = MatchResult(("A", "B"), 1, rounds, planned=3)
    d = m.to_json()
    assert [r["gold"] for r in d["rounds"]] == [[5, 1], [0, 9]]
    assert d["points"] == [20, 20] and d["winner"] == 1  # a win each: B has more gold (R18)
    assert m.gold == (5, 10) and d["complete"] is False
    assert MatchResult.from_json(d).to_json() == d


@pytest.mark.parametrize(
    "change, message",
    [
        ({"gold": [1]}, "'gold' must be a list of 2 integers"),
        ({"winner": 2}, "'winner' must be 0, 1 or null"),
        ({"end_reason": "kraken"}, "'end_reason' 'kraken' is not an end reason"),
        ({"replay": None}, "'replay' must be the replay's path"),
        ({"stats": [{}, {"verdicts": {"OK": "x"}}]}, "'stats.verdicts' must map"),
    ],
)
def test_a_bad_result_entry_names_its_field(change: dict[str, object], message: str) -> None:
    d = a_result(None, (1, 2)).to_json()
    d.update(change)
    with pytest.raises(RecordError, match=message):
        RoundResult.from_json(d)


def test_seat_stats_keep_samples_in_memory_but_a_summary_in_files() -> None:
    st = SeatStats.measured({"OK": 3, "TLE": 1}, [4.0, 1.0, 3.0, 2.0], [1, 1, 1, 1], 7.04, 2)
    assert st.runs == 4 and st.failed() == 1
    assert st.wall_ms_p50 == 2.0 and st.wall_ms_max == 4.0  # nearest rank: an observed time
    assert st.peak_mem_mb == 7.0
    back = SeatStats.from_json(st.to_json())
    assert back == st and back.wall_ms == ()  # samples are not compared, and not in files


def test_a_turn_record_without_runs_is_the_bare_map_frame() -> None:
    line = {
        "turn": 1,
        "positions": [[1, 1], None],
        "gold": [0, 0],
        "shield": [False, False],
        "sunk": [False, False],
        "grid": ["0 0 0", "0 D 0", "0 0 0"],
        "events": [{"kind": "kraken"}],
    }
    rec = TurnRecord.from_json(line, 3, 3)
    assert rec.runs is None and rec.boats[0] == Boat((1, 1)) and rec.cols == 3
    assert rec.events[0].describe() == "kind=kraken"
    assert "moves" not in rec.to_json()
    bad = dataclasses.replace(rec, end_reason=EndReason.TURNS).to_json()
    bad.update(verdicts=["OK", "OK"], move_status=["moved", "teleported"])
    with pytest.raises(RecordError, match="move_status\\[1\\] 'teleported'"):
        TurnRecord.from_json(bad, 3, 3)
