"""``judge check-bot BOT --from FOLDER``: a match's failed turns rebuilt as the bot saw them
(MAP.INP and STATE.OUT), run again and explained; ``judge match`` names the command.

The rebuilding is checked against what a fake bot was really given (in-process, quick);
the command end to end through the real sandbox with a scripted bot (slow).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from judge.checkbot.replayed import PlayedRound, choose, failed_turns
from judge.cli import main
from judge.maps import map_from_text
from judge.referee import RoundConfig, play_round
from judge.views.replayfile import load
from judge.voidwhy import Why
from tests.referee.fakes import FakeSandbox, spec
from tests.referee.test_match_e2e import SEA, make_bot

V010 = Path(__file__).resolve().parents[1] / "fixtures" / "v0.1.0"


def counting(moves: list[str | None], seen: list[tuple[str, bytes | None]]) -> Any:
    """A fake bot that plays ``moves`` by its run count, kept in STATE.OUT, noting what
    it was given each run (MAP.INP, STATE.OUT)."""

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        seen.append((map_inp, state))
        n = int(state or b"0")
        move = moves[min(n, len(moves) - 1)]
        return (None if move is None else move.encode()), str(n + 1).encode(), "OK"

    return bot


def _played(folder: Path) -> list[PlayedRound]:
    match = load(folder)
    return [
        PlayedRound(r.path.parent, r.header, r.records, f"round {r.index}") for r in match.rounds
    ]


def test_a_failed_turn_is_rebuilt_as_the_bot_was_given_it(tmp_path: Path) -> None:
    """Each void move's MAP.INP and STATE.OUT, from the replay alone, are what the bot got."""
    seen_a: list[tuple[str, bytes | None]] = []
    seen_b: list[tuple[str, bytes | None]] = []
    # a: places at (1, 1), moves to (1, 2), then (5, 5) (not next), stays, no MOVE.OUT, 0-based
    a = counting(["1 1", "1 2", "5 5", "1 2", None, "0 2"], seen_a)
    b = counting(["7 7", "9 9", "7 6", "oops", "7 6", "7 5"], seen_b)
    gm = map_from_text(SEA.format(k=6), "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="sea.txt", seed=4)
    play_round(
        cfg, [spec("a"), spec("b")], ["a", "b"], FakeSandbox({"a": a, "b": b}), tmp_path / "round-1"
    )
    (played,) = _played(tmp_path)
    turns_a = failed_turns(played, [0])
    assert [(t.record.turn, t.why) for t in turns_a] == [
        (3, Why.NOT_ADJACENT),
        (5, Why.NO_MOVE_OUT),
        (6, Why.ZERO_BASED),
    ]
    for t in turns_a:
        assert (t.map_inp, t.state) == seen_a[t.record.turn - 1], t.record.turn
        assert t.state_unknown is None
    turns_b = failed_turns(played, [1])  # seat 1: MAP.INP from its own view, its boat first
    assert [(t.record.turn, t.why) for t in turns_b] == [
        (2, Why.OUTSIDE),
        (4, Why.NOT_TWO_INTEGERS),
    ]
    for t in turns_b:
        assert (t.map_inp, t.state) == seen_b[t.record.turn - 1], t.record.turn
        assert t.game.position(0) == played.records[t.record.turn - 2].positions[1]
    assert "in the match: (5, 5) is not next to the boat at (1, 2)" == turns_a[0].in_the_match()
    # the STATE.OUT files are kept once each, in the team's folder of the round
    kept = {t.run.state_in for t in turns_a}
    assert all(k and (tmp_path / "round-1" / k).is_file() for k in kept)


def test_an_old_replay_rebuilds_its_map_inp_and_says_its_state_out_is_unknown() -> None:
    (played,) = _played(V010 / "referee-fake")
    turns = failed_turns(played, [0, 1])
    assert turns and all(t.state is None and t.state_unknown for t in turns)
    assert all("older judge" in (t.state_unknown or "") for t in turns)
    first = turns[0]
    header = first.map_inp.splitlines()[0].split()
    assert int(header[2]) == first.record.turns_left  # K as written then


def test_at_most_the_cap_run_again_every_kind_first() -> None:
    (played,) = _played(V010 / "referee-fake")
    turns = failed_turns(played, [0, 1])
    kinds = {t.why for t in turns}
    assert len(turns) > len(kinds) >= 2
    chosen = choose(turns, len(kinds))
    assert {t.why for t in chosen} == kinds
    assert chosen == sorted(chosen, key=lambda t: turns.index(t))  # in the match's order
    assert choose(turns, 100) == turns


# ------------------------------------------------------------ through the real sandbox


@pytest.mark.slow
def test_the_match_advice_is_the_command_that_explains_its_failed_turns(
    tmp_path: Path, capsys: Any
) -> None:
    bots = tmp_path / "bots"
    # places at (1, 1), moves to (1, 2); (5, 5) is not next; a crash; a move; no MOVE.OUT
    a = make_bot(bots, "a", ["1 1", "1 2", "5 5", "!crash 1 3", "1 3", "-"])
    make_bot(bots, "b", ["7 7"])
    sea = tmp_path / "sea.txt"
    sea.write_text(SEA.format(k=6))
    out = tmp_path / "out"
    argv = ["match", str(a), str(bots / "b"), "--map", str(sea), "--allow-invalid-map"]
    assert main([*argv, "--seed", "3", "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    command = f"judge check-bot {shlex.quote(str(a))} --from {shlex.quote(str(out))}"
    assert command in said, said
    assert main(shlex.split(command)[1:]) == 1
    report = capsys.readouterr().out
    text = " ".join(report.split())
    assert "on the turns it failed in" in text
    assert "in the match: (5, 5) is not next to the boat at (1, 2)" in text
    assert "(5, 5) is not next to the boat at (1, 2): the boat stays where it is" in text
    assert "in the match: the program crashed (RE)" in text
    assert "in the match: no MOVE.OUT" in text
    assert "a fails again in 3 of the 3 turns it failed in" in text
    # with the STATE.OUT of the match, the script's run counter plays those same lines again
    assert main([*shlex.split(command)[1:], "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    by_turn = {s["key"]: s for s in found["situations"]}
    assert by_turn["round 1 turn 3"]["target"] == [5, 5]
    assert by_turn["round 1 turn 4"]["verdict"] == "RE"
    assert by_turn["round 1 turn 6"]["move_out"] is None
    assert found["from"] == str(out) and found["failed_turns"] == 3
    # a round folder and --team say the same; a team that is not there is refused
    assert main(["check-bot", str(a), "--from", str(out / "round-1"), "--team", "a", "--json"]) == 1
    assert len(json.loads(capsys.readouterr().out)["situations"]) == 3
    assert main(["check-bot", str(a), "--from", str(out), "--team", "zz"]) == 2
    assert "no team of that name" in capsys.readouterr().err


def test_a_tournaments_folder_and_a_bot_that_is_not_there(capsys: Any) -> None:
    """Every match of a tournament is looked at; a bot of none of them is told which teams are."""
    assert main(["check-bot", "random", "--from", str(V010 / "tournament")]) == 0
    assert "random has no void move in" in capsys.readouterr().out
    assert main(["check-bot", "collector", "--from", str(V010 / "match")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "collector is not one of the bots of" in err and "'greedy', 'random'" in err
    assert main(["check-bot", "greedy", "--team", "greedy"]) == 2  # --team needs --from


def _recheck(tmp_path: Path, a: Any, b: Any, k: int = 6) -> list[Any]:
    """Play a round with fake bots, then run seat 0's failed turns again with ``a``."""
    from judge.checkbot.replayed import recheck
    from judge.sandbox import Limits

    gm = map_from_text(SEA.format(k=k), "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="sea.txt", seed=4)
    sandbox = FakeSandbox({"a": a, "b": b})
    play_round(cfg, [spec("a"), spec("b")], ["a", "b"], sandbox, tmp_path / "round-1")
    (played,) = _played(tmp_path)
    return recheck(spec("a"), sandbox, Limits(time_s=1.0), failed_turns(played, [0]))


def test_a_start_the_other_boat_named_too_is_not_called_a_change_of_the_program(
    tmp_path: Path,
) -> None:
    """Three re-asks exhausted: the rerun, alone, names its start; that is what it did in
    the match, where the other boat named the same cell each time."""
    same = counting(["1 1"], [])  # the same start at every ask, whatever STATE.OUT says
    res = _recheck(tmp_path / "same", same, counting(["1 1"], []))[0]
    assert res.situation.title == "round 1, turn 1"
    said = " ".join(f"{f.reason} {f.cause}" for f in res.findings)
    assert [f.tag for f in res.findings] == ["same_reask"], said
    assert "named (1, 1) at each of the 4 asks" in said and "pick another" in said
    assert "has changed since" not in said
    moving = counting(["1 1", "1 3", "3 1", "4 4"], [])  # another start at each re-ask
    res = _recheck(tmp_path / "moving", moving, counting(["1 1", "1 3", "3 1", "4 4"], []))[0]
    assert res.situation.title == "round 1, turn 1"
    said = " ".join(f"{f.reason} {f.cause}" for f in res.findings)
    assert [f.tag for f in res.findings] == ["reask_shared"], said
    assert "the other boat named the same start each time" in said
    assert "has changed since" not in said


def test_a_turn_that_passes_now_without_its_state_out_says_that_may_be_why(
    tmp_path: Path,
) -> None:
    from judge.checkbot.replayed import recheck
    from judge.sandbox import Limits

    (played,) = _played(V010 / "referee-fake")
    turn = failed_turns(played, [0])[0]
    good = counting(["1 2"], [])  # a move from (1, 3), where it answered badly in the match
    sandbox = FakeSandbox({"a": good})
    (res,) = recheck(spec("a"), sandbox, Limits(time_s=1.0), [turn])
    passes = next(f for f in res.findings if f.tag == "passes_now")
    assert "without the STATE.OUT it had then" in (passes.cause or "")


def test_a_kept_state_out_that_is_not_what_was_kept_is_not_given(tmp_path: Path) -> None:
    """A copy is named by its digest: one cut short (a power cut before it reached the
    disk) or changed since is refused, not given to the bot as its STATE.OUT of then."""
    a = counting(["1 1", "1 2", "5 5", "1 2", "5 5"], [])
    gm = map_from_text(SEA.format(k=6), "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="sea.txt", seed=4)
    sandbox = FakeSandbox({"a": a, "b": counting(["7 7"], [])})
    play_round(cfg, [spec("a"), spec("b")], ["a", "b"], sandbox, tmp_path / "round-1")
    (played,) = _played(tmp_path)
    first, second, _ = failed_turns(played, [0])
    assert first.state == b"2" and second.state == b"4"
    (tmp_path / "round-1" / (second.run.state_in or "")).write_bytes(b"")
    first, second, _ = failed_turns(played, [0])
    assert first.state == b"2" and second.state is None
    assert "cannot be read" in (second.state_unknown or "")


def test_a_persons_seat_is_not_run_as_the_bots(tmp_path: Path, capsys: Any) -> None:
    """A round of judge play: the person's void moves are no program's turns to run again."""
    from judge.bots import BotSpec

    person = BotSpec("You", "a person", None, ("human",), person=True)
    gm = map_from_text(SEA.format(k=4), "sea", allow_invalid=True)
    cfg = RoundConfig(game_map=gm, map_label="sea.txt", seed=4)
    sandbox = FakeSandbox({"You": counting(["1 1", "9 9"], []), "b": counting(["7 7"], [])})
    play_round(cfg, [person, spec("b")], ["You", "b"], sandbox, tmp_path / "round-1")
    assert main(["check-bot", "greedy", "--from", str(tmp_path), "--team", "You"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--team 'You': that seat was played by a person (judge play)" in err, err
    assert "(its teams: 'b')" in err
