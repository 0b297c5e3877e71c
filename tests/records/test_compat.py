"""Files written by judge 0.1.0 still load, and the referee still writes the same bytes.

The fixtures in ``tests/fixtures/v0.1.0`` were written by the code before the
typed records; nothing here regenerates them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.maps import map_from_text
from judge.records import MatchResult, ReplayHeader, RoundResult, Standings, TurnRecord
from judge.referee import RoundConfig, play_round
from judge.tournament.ledger import Ledger
from judge.tournament.pairings import match_teams
from judge.tournament.standings import standings
from judge.views.replayfile import load
from tests.referee.fakes import FakeSandbox, scripted, spec
from tests.referee.test_match_e2e import SEA as SCENARIO_SEA

V010 = Path(__file__).resolve().parents[1] / "fixtures" / "v0.1.0"

SEA = SCENARIO_SEA.format(k=12)  # the sea the fixture's round was played on


def _replay_fake_round(out: Path) -> RoundResult:
    """The round of ``referee-fake/``, played again with the same fake bots."""
    gm = map_from_text(SEA, "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="maps/sea.txt", seed=11)
    a = scripted(
        ["1 1", "1 1", "1 2", "1 3", "oops", "9 9", "1 3", "2 3", "3 3", "3 4", "2 4", "2 3", "2 2"]
    )
    moves = iter(
        ["1 1", "1 1", "7 7", "7 6", "7 5", None, "6 6", "6 5", "5 5", "4 5", "3 5", "3 4"]
    )

    def b(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        mv = next(moves, None)
        return (None if mv is None else mv.encode()), state, "TLE" if mv == "7 5" else "OK"

    sb = FakeSandbox({"a": a, "b": b})
    return play_round(
        cfg, [spec("a"), spec("b")], ["a", "b"], sb, out / "round-1", "round-1/replay.jsonl"
    )


#: Fields added to the files since 0.1.0: why each move was void (turn records),
#: moves asked for and why they were void (a seat's stats: the objects with "runs");
#: how long each run was kept waiting for a CPU (turn records); the STATE.OUT a void
#: move's run started with (turn records).
ADDED_TO_TURNS = {"why", "wait_ms", "state_in"}
ADDED_TO_STATS = {"moves", "why_void"}


def _without_added(obj: Any) -> Any:
    """``obj`` without the fields added since 0.1.0 (key order kept)."""
    if isinstance(obj, dict):
        added = ADDED_TO_STATS if "runs" in obj else ADDED_TO_TURNS
        return {k: _without_added(v) for k, v in obj.items() if k not in added}
    if isinstance(obj, list):
        return [_without_added(v) for v in obj]
    return obj


def test_the_referee_writes_what_it_wrote_in_0_1_0(tmp_path: Path) -> None:
    """Same lines, same key order, same values: only the fields added since are new."""
    rr = _replay_fake_round(tmp_path)
    old = V010 / "referee-fake" / "round-1"
    new_lines = _lines(tmp_path / "round-1" / "replay.jsonl")
    old_lines = _lines(old / "replay.jsonl")
    assert len(new_lines) == len(old_lines)
    header_new, header_old = new_lines[0], old_lines[0]
    assert header_new.pop("isolation") and header_old.pop("isolation")  # the fake's own words
    assert header_new == header_old and list(header_new) == list(header_old)
    for new, was in zip(new_lines[1:], old_lines[1:], strict=True):
        assert _without_added(new) == was
        assert list(_without_added(new)) == list(was)
    assert new_lines[3]["why"] == ["not_two_integers", "time_limit"]
    for rel in ("a/stderr.log", "b/stderr.log"):
        assert (tmp_path / "round-1" / rel).read_bytes() == (old / rel).read_bytes(), rel
    written = json.loads((old.parent / "round_result.json").read_text())
    assert _without_added(rr.to_json()) == written


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


REPLAYS = sorted(V010.rglob("replay.jsonl"))


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: str(p.relative_to(V010)))
def test_every_line_of_a_0_1_0_replay_reads_back_to_the_same_object(path: Path) -> None:
    header, *turns = _lines(path)
    h = ReplayHeader.from_json(header)
    assert h.to_json() == header
    for line in turns:
        rec = TurnRecord.from_json(line, h.map.rows, h.map.cols)
        assert _without_added(rec.to_json()) == line
        assert rec.runs is not None


def test_replays_cover_placement_attempts_and_every_seat_part() -> None:
    header, first, *_ = _lines(V010 / "referee-fake" / "round-1" / "replay.jsonl")
    rec = TurnRecord.from_json(first, 7, 7)
    assert [a.reask for a in rec.attempts] == [True, True, False]
    assert rec.random_placed == (False, False)
    statuses = {
        r.status.value
        for line in _lines(V010 / "referee-fake" / "round-1" / "replay.jsonl")[1:]
        for r in TurnRecord.from_json(line, 7, 7).runs or ()
        if r.status is not None
    }
    assert {"placed", "moved", "stayed", "outside", "not_two_integers", "run_failed"} <= statuses
    assert {"no_move_out", "sunk"} <= statuses


@pytest.mark.parametrize(
    "folder", ["match", "tournament/Alpha-vs-Beta", "tournament/Beta-vs-Gamma"]
)
def test_0_1_0_result_json_reads_back_and_writes_the_same(folder: str) -> None:
    data = json.loads((V010 / folder / "result.json").read_text())
    result = MatchResult.from_json(data)
    assert _without_added(result.to_json()) == data
    assert result.complete and result.points == tuple(data["points"])
    assert result.winner == data["winner"]


def test_a_tournament_round_with_swapped_seats_is_in_seat_order_in_memory() -> None:
    data = json.loads((V010 / "tournament/Beta-vs-Gamma/result.json").read_text())
    entry = data["rounds"][1]
    assert entry["seats"] == ["Gamma", "Beta"]  # Gamma sat in seat 0
    rr = MatchResult.from_json(data).rounds[1]
    assert rr.seats == ("Gamma", "Beta")
    assert rr.gold == (entry["gold"][1], entry["gold"][0])
    header = _lines(V010 / "tournament/Beta-vs-Gamma" / entry["replay"])
    assert tuple(header[-1]["gold"]) == rr.gold  # the replay is in seat order too


def test_the_views_load_0_1_0_folders() -> None:
    m = load(V010 / "match")
    assert [r.index for r in m.rounds] == [1, 2] and m.teams == ["greedy", "random"]
    assert all(r.result is not None and r.last_turn == r.result.turns_played for r in m.rounds)
    t = load(V010 / "tournament" / "Beta-vs-Gamma")
    assert t.rounds[1].result is not None and t.rounds[1].result.seats == tuple(t.rounds[1].names)


def test_a_0_1_0_ledger_gives_back_its_results_and_standings(tmp_path: Path) -> None:
    shutil.copy(V010 / "tournament" / "ledger.sqlite", tmp_path / "ledger.sqlite")
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        rounds = ledger.rounds()
    assert len(rounds) == 9
    for folder in ("Alpha-vs-Beta", "Beta-vs-Gamma"):
        written = json.loads((V010 / "tournament" / folder / "result.json").read_text())
        mine = sorted((lr for lr in rounds if lr.match == folder), key=lambda lr: lr.round)
        teams = match_teams(folder, mine[0].seats)
        assert [_without_added(lr.result.to_json(teams)) for lr in mine] == written["rounds"]
    rows = standings(["Alpha", "Beta", "Gamma"], (lr.result for lr in rounds))
    written = json.loads((V010 / "tournament" / "standings.json").read_text())
    assert [r.to_json() for r in rows] == written
    assert Standings.from_json(written) == Standings(tuple(rows))  # 0.1.0's file: rows alone


def test_seeds_are_those_of_0_1_0() -> None:
    from judge.match import round_seed
    from judge.tournament.pairings import match_seed

    data = json.loads((V010 / "tournament" / "Beta-vs-Gamma" / "result.json").read_text())
    assert match_seed(5, "Beta", "Gamma") == data["seed"]  # the tournament's seed was 5
    assert [r["seed"] for r in data["rounds"]] == [round_seed(data["seed"], i) for i in (1, 2, 3)]
    match = json.loads((V010 / "match" / "result.json").read_text())
    assert [r["seed"] for r in match["rounds"]] == [round_seed(7, 1), round_seed(7, 2)]
