"""A team's program replaced between runs, and one team's matches played again.

A resume whose programs changed is refused, naming the team; ``--replace TEAM``
plays that team's matches again with the new program; ``--keep-changed`` keeps
the old rounds knowingly; a round whose replay is gone is played again.  Every
decision is in the ledger's runs, and standings.json says which program played
which round.  The bots are in-process fakes; a team's "program" is a copy of a
bundled bot's folder, edited to change its hash as a replaced ``.exe`` would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.tournament.config import TournamentConfig, load_config
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import TournamentError, schedule_for
from judge.tournament.resume import ResumeChoices
from tests.referee.fakes import scripted

from ._helpers import (
    BOTS,
    StopAfter,
    config_dict,
    fake_bots,
    ledger_rows,
    read_standings,
    run_fake,
    write_config,
)


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    """A 3-team configuration whose Beta plays the program in ``tmp_path/beta``."""
    beta = tmp_path / "beta"
    shutil.copytree(BOTS / "random", beta)
    data = config_dict(3)
    data["teams"][1]["bot"] = str(beta)
    return write_config(tmp_path / "cfg", data), beta


def _change(beta: Path) -> None:
    """Beta's program replaced in place: same path, other bytes."""
    with open(beta / "bot.py", "a", encoding="utf-8") as f:
        f.write("\n# version 2\n")


def _runs(out: Path) -> list[Any]:
    with Ledger.open(out / LEDGER_FILE) as ledger:
        return ledger.runs()


def _round_runs(out: Path) -> dict[tuple[str, int], int]:
    with Ledger.open(out / LEDGER_FILE) as ledger:
        return ledger.round_runs()


def _keys_of(cfg: TournamentConfig, team: str) -> set[str]:
    return {f"{p.folder}/{r.index}" for p in schedule_for(cfg) if team in p.teams for r in p.rounds}


def _stopped(cfg: TournamentConfig, out: Path, calls: int) -> None:
    stopper = StopAfter(fake_bots(cfg.team_names), calls)
    report = run_fake(cfg, out, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r))
    assert not report.complete and report.played > 0


def test_a_resume_whose_program_changed_is_refused_naming_the_team(tmp_path: Path) -> None:
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    _stopped(load_config(cfg_path), out, 60)
    before = ledger_rows(out)
    _change(beta)
    changed = load_config(cfg_path)
    with pytest.raises(TournamentError) as info:
        run_fake(changed, out, resume=True)
    msg = str(info.value)
    assert info.value.exit_code == 2
    assert "the program of Beta" in msg and str(beta) in msg and "changed" in msg
    assert "Alpha" not in msg and "Gamma" not in msg
    assert "--replace Beta" in msg and "--keep-changed" in msg and "nothing was played" in msg
    assert ledger_rows(out) == before and len(_runs(out)) == 1  # the ledger is untouched


def test_replace_plays_exactly_that_teams_matches_with_the_new_program(tmp_path: Path) -> None:
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    old = load_config(cfg_path)
    assert run_fake(old, out).complete
    before = {r[0:2]: r for r in ledger_rows(out)}
    _change(beta)
    new = load_config(cfg_path)
    assert new.team("Beta").bot.digest != old.team("Beta").bot.digest
    bots = fake_bots(new.team_names)
    bots["Beta"] = scripted([])  # the new program writes no move: its rounds show it
    report = run_fake(new, out, resume=True, bots=bots, choices=ResumeChoices(("Beta",)))
    assert report.complete and report.played == 6  # Beta's two matches, 3 rounds each

    theirs = _keys_of(new, "Beta")
    assert len(theirs) == 6
    runs = _round_runs(out)
    assert {f"{m}/{r}" for (m, r), run in runs.items() if run == 2} == theirs
    assert {run for (m, r), run in runs.items() if f"{m}/{r}" not in theirs} == {1}
    after = {r[0:2]: r for r in ledger_rows(out)}
    for key, row in after.items():
        if f"{key[0]}/{key[1]}" in theirs:
            beta_seat = row[4].index("Beta")
            assert row[5][beta_seat] == 0  # played by the new program
        else:
            assert row == before[key]  # Alpha against Gamma: the very same rounds

    first, second = _runs(out)
    assert first.programs["Beta"] == old.team("Beta").bot.digest
    assert second.programs["Beta"] == new.team("Beta").bot.digest
    assert second.replaced == ("Beta",) and set(second.replayed) == theirs
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert data["programs"]["Beta"]["sha256"] == new.team("Beta").bot.digest
    assert data["programs"]["Beta"]["played"] == {
        new.team("Beta").bot.digest: sorted(theirs, key=data["runs"][1]["rounds"].index)
    }
    assert set(data["runs"][1]["rounds"]) == theirs
    assert (
        set(data["runs"][0]["rounds"])
        == {f"{p.folder}/{r.index}" for p in schedule_for(new) for r in p.rounds} - theirs
    )
    assert next(r for r in read_standings(out) if r["team"] == "Beta")["gold"] == 0
    # the match files follow the ledger: Beta's match lists its new rounds
    for p in schedule_for(new):
        result = json.loads((out / p.folder / "result.json").read_text(encoding="utf-8"))
        assert len(result["rounds"]) == 3
        if "Beta" in p.teams:
            assert all(r["gold"][p.teams.index("Beta")] == 0 for r in result["rounds"])


def test_keep_changed_keeps_the_old_rounds_and_standings_say_which_program_played_which(
    tmp_path: Path,
) -> None:
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    old = load_config(cfg_path)
    _stopped(old, out, 60)
    played_before = set(_round_runs(out))
    _change(beta)
    new = load_config(cfg_path)
    report = run_fake(new, out, resume=True, choices=ResumeChoices(keep_changed=True))
    assert report.complete and report.done_before == len(played_before)
    first, second = _runs(out)
    assert second.kept_changed == ("Beta",) and second.replaced == () and second.replayed == ()

    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    was, now = old.team("Beta").bot.digest, new.team("Beta").bot.digest
    played = data["programs"]["Beta"]["played"]
    theirs = _keys_of(new, "Beta")
    assert set(played) == {was, now}
    assert set(played[was]) == {f"{m}/{r}" for m, r in played_before} & theirs
    assert set(played[now]) == theirs - set(played[was])
    assert data["programs"]["Beta"]["sha256"] == now  # the program of its last rounds
    assert data["programs_changed_between_runs"] == ["Beta"]
    assert list(data["programs"]["Alpha"]["played"]) == [old.team("Alpha").bot.digest]
    # kept once, knowingly: the next resume has nothing to ask
    assert run_fake(new, out, resume=True).complete


def test_a_finished_tournament_keeps_the_hash_of_the_program_that_played(tmp_path: Path) -> None:
    """The file replaced after the last round: standings.json never names a program that
    played no round."""
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    old = load_config(cfg_path)
    assert run_fake(old, out).complete
    _change(beta)
    new = load_config(cfg_path)
    with pytest.raises(TournamentError, match="the program of Beta"):
        run_fake(new, out, resume=True)
    report = run_fake(new, out, resume=True, bots={}, choices=ResumeChoices(keep_changed=True))
    assert report.complete and report.played == 0
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert data["programs"]["Beta"]["sha256"] == old.team("Beta").bot.digest
    assert list(data["programs"]["Beta"]["played"]) == [old.team("Beta").bot.digest]
    assert data["runs"][-1]["kept_changed"] == ["Beta"] and data["runs"][-1]["rounds"] == []


def test_replace_replays_a_teams_matches_when_nothing_changed(tmp_path: Path) -> None:
    cfg_path, _beta = _setup(tmp_path)
    cfg = load_config(cfg_path)
    out = tmp_path / "t"
    assert run_fake(cfg, out).complete
    before = read_standings(out)
    report = run_fake(cfg, out, resume=True, choices=ResumeChoices(("gamma",)))  # any case
    assert report.played == 6 and read_standings(out) == before  # the same bots, same rounds
    assert _runs(out)[-1].replaced == ("Gamma",)


def test_a_match_folder_deleted_is_played_again_and_the_run_says_so(tmp_path: Path) -> None:
    cfg_path, _beta = _setup(tmp_path)
    cfg = load_config(cfg_path)
    out = tmp_path / "t"
    assert run_fake(cfg, out).complete
    before = read_standings(out)
    gone = schedule_for(cfg)[0].folder
    shutil.rmtree(out / gone)
    (out / schedule_for(cfg)[1].folder / "round-2" / "replay.jsonl").unlink()
    report = run_fake(cfg, out, resume=True)
    assert report.complete and report.played == 4
    assert set(_runs(out)[-1].replayed) == {f"{gone}/1", f"{gone}/2", f"{gone}/3"} | {
        f"{schedule_for(cfg)[1].folder}/2"
    }
    assert len(json.loads((out / gone / "result.json").read_text())["rounds"]) == 3
    assert all((out / gone / f"round-{i}" / "replay.jsonl").is_file() for i in (1, 2, 3))
    assert read_standings(out) == before
    page = (out / "index.html").read_text(encoding="utf-8")
    assert f"{gone}/round-1/replay.html" in page


def test_replace_and_keep_changed_are_for_a_resume_and_name_known_teams(tmp_path: Path) -> None:
    cfg_path, _beta = _setup(tmp_path)
    cfg = load_config(cfg_path)
    out = tmp_path / "t"
    with pytest.raises(TournamentError, match="add --resume"):
        run_fake(cfg, out, choices=ResumeChoices(("Beta",)))
    assert not out.exists()
    assert run_fake(cfg, out).complete
    with pytest.raises(TournamentError, match="--replace Betta: no such team; did you mean 'Beta'"):
        run_fake(cfg, out, resume=True, choices=ResumeChoices(("Betta",)))
    assert len(_runs(out)) == 1


def test_the_refusal_goes_through_the_command_with_exit_status_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from judge.cli import main
    from tests.referee.fakes import FakeSandbox

    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    cfg = load_config(cfg_path)
    monkeypatch.setattr("judge.sandbox.Sandbox", lambda **_: FakeSandbox(fake_bots(cfg.team_names)))
    args = ["tournament", str(cfg_path), "--out", str(out), "--quiet"]
    assert main(args) == 0
    _change(beta)
    capsys.readouterr()
    assert main([*args, "--resume"]) == 2
    assert "the program of Beta" in capsys.readouterr().err
    assert main([*args, "--resume", "--replace", "Beta"]) == 0
    assert _runs(out)[-1].replaced == ("Beta",)


def test_replace_names_a_vietnamese_team_typed_without_its_accents_or_decomposed(
    tmp_path: Path,
) -> None:
    """A teacher's keyboard without Vietnamese types ``Rong Bien``; a terminal may send the
    accents as combining marks (NFD): both name ``Rồng Biển``, never 'no such team'."""
    import unicodedata

    from judge.tournament.resume import team_named, unknown_teams

    data = config_dict(3)
    data["teams"][1]["name"] = "Rồng Biển"
    cfg = load_config(write_config(tmp_path, data))
    typed = ["Rồng Biển", unicodedata.normalize("NFD", "Rồng Biển"), "Rong Bien", "rong bien"]
    assert [team_named(cfg, t) for t in typed] == ["Rồng Biển"] * 4
    assert unknown_teams(cfg, typed) == []
    assert team_named(cfg, "Rong") is None and unknown_teams(cfg, ["Rong"])


def test_a_replace_stopped_half_way_leaves_no_standings_of_the_old_rounds(tmp_path: Path) -> None:
    """The rounds taken out of the ledger are no longer the results: a judge stopped (or
    killed) before their replay leaves no standings.json, standings.csv or index.html that
    still give them (the served pages would call the tournament over); the next resume,
    asked nothing more, plays what is missing with the new program and writes them again."""
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    assert run_fake(load_config(cfg_path), out).complete
    assert all((out / f).is_file() for f in ("standings.json", "standings.csv", "index.html"))
    _change(beta)
    new = load_config(cfg_path)
    stopper = StopAfter(fake_bots(new.team_names), 10)
    report = run_fake(
        new,
        out,
        resume=True,
        bots=stopper.bots,
        hook=lambda r: setattr(stopper, "runner", r),
        choices=ResumeChoices(("Beta",)),
    )
    assert not report.complete
    assert not any((out / f).exists() for f in ("standings.json", "standings.csv", "index.html"))
    report = run_fake(new, out, resume=True)  # no --replace again: the ledger knows
    assert report.complete and (out / "standings.json").is_file()
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert list(data["programs"]["Beta"]["played"]) == [new.team("Beta").bot.digest]


def _as_older_judge_left_it(out: Path, runs: bool) -> None:
    """The ledger as a judge before round_runs left it: no round_runs table (and, for judge
    0.1.0, no runs either)."""
    import sqlite3

    conn = sqlite3.connect(out / LEDGER_FILE)
    conn.execute("DROP TABLE round_runs")
    conn.execute("DELETE FROM meta WHERE key = 'round_runs_from'")
    if not runs:
        conn.execute("DELETE FROM meta WHERE key = 'runs'")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("runs", [False, True], ids=["judge 0.1.0", "runs but no round_runs"])
def test_rounds_an_older_judge_played_are_never_given_to_a_later_runs_program(
    tmp_path: Path, runs: bool
) -> None:
    """A 0.1.0 ledger recorded no program at all: its rounds are played by an 'unknown'
    program, not by the one that played the resume.  A ledger with runs but no round_runs
    names the programs of those runs alone, not a later one (a --keep-changed)."""
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    old = load_config(cfg_path)
    _stopped(old, out, 60)
    before = {f"{m}/{r}" for m, r in _round_runs(out)}
    _as_older_judge_left_it(out, runs)
    _change(beta)
    new = load_config(cfg_path)
    report = run_fake(new, out, resume=True, choices=ResumeChoices(keep_changed=True))
    assert report.complete
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    was, now = old.team("Beta").bot.digest, new.team("Beta").bot.digest
    for team, then in (("Beta", was), ("Alpha", old.team("Alpha").bot.digest)):
        mine = _keys_of(new, team)
        want: dict[str, set[str]] = {}
        for digest, keys in (
            (then if runs else "unknown", before & mine),
            (new.team(team).bot.digest, mine - before),
        ):
            want.setdefault(digest, set()).update(keys)
        played = {h: set(k) for h, k in data["programs"][team]["played"].items()}
        assert played == {h: k for h, k in want.items() if k}, team
    assert data["programs"]["Beta"]["sha256"] == now


def test_a_refusal_says_where_a_bot_named_by_its_name_is_now(tmp_path: Path) -> None:
    """A team's bot named ``greedy`` (bots_dir, then the bundled bots): the teacher did not
    touch 'greedy' as far as they know (a new bots/greedy, an upgraded judge): the refusal
    says which folder the name finds now."""
    bots = tmp_path / "bots"
    shutil.copytree(BOTS / "greedy", bots / "greedy")
    data = config_dict(3, bots_dir=str(bots))
    cfg_path = write_config(tmp_path / "cfg", data)
    out = tmp_path / "t"
    assert run_fake(load_config(cfg_path), out).complete
    _change(bots / "greedy")
    with pytest.raises(TournamentError) as info:
        run_fake(load_config(cfg_path), out, resume=True)
    assert f"the program of Alpha (greedy, the folder {bots / 'greedy'})" in str(info.value)


def test_a_new_program_given_at_a_new_path_is_told_how_to_replace_the_team(
    tmp_path: Path,
) -> None:
    """The teacher points Beta's ``bot:`` at the new .exe: the configuration changed, so the
    resume is refused, and told how to play the new program in this tournament."""
    cfg_path, beta = _setup(tmp_path)
    out = tmp_path / "t"
    assert run_fake(load_config(cfg_path), out).complete
    shutil.copytree(beta, tmp_path / "beta2")
    data = config_dict(3)
    data["teams"][1]["bot"] = str(tmp_path / "beta2")
    moved = write_config(tmp_path / "cfg", data)
    with pytest.raises(TournamentError) as info:
        run_fake(load_config(moved), out, resume=True)
    msg = str(info.value)
    assert "teams[1].bot" in msg and f"Beta's at '{beta}'" in msg
    assert "resume with --replace Beta" in msg
    data["seed"] = 1  # something else changed too: no such advice
    with pytest.raises(TournamentError) as info:
        run_fake(load_config(write_config(tmp_path / "cfg", data)), out, resume=True)
    assert "--replace" not in str(info.value)
