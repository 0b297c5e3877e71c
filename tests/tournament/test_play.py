"""The runner on the in-process fake sandbox: files, resume, stop, refusals, jobs.

The bots here are deterministic Python callables (``_helpers.fake_greedy``),
so these tests check the tournament's bookkeeping in well under a second each;
``test_tournament_e2e`` does the same through the real sandbox.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import TournamentError, schedule_for

from ._helpers import StopAfter, fake_bots, ledger_rows, make_config, read_standings, run_fake


@pytest.mark.parametrize("n", [3, 5])
def test_a_full_tournament_writes_every_file(tmp_path: Path, n: int) -> None:
    cfg = make_config(tmp_path / "cfg", n)
    out = tmp_path / "t"
    report = run_fake(cfg, out)
    matches = n * (n - 1) // 2
    assert report.complete and report.played == 3 * matches and report.done_before == 0
    with Ledger.open(out / LEDGER_FILE) as ledger:
        rounds = ledger.rounds()
    assert len(rounds) == 3 * matches

    rows = read_standings(out)
    assert rows == [r.to_json() for r in report.standings]
    assert [r["team"] for r in rows] != [] and sorted(r["team"] for r in rows) == sorted(
        cfg.team_names
    )
    with open(out / "standings.csv", newline="", encoding="utf-8-sig") as f:
        csv_rows = list(csv.DictReader(f))
    assert [{k: str(v) for k, v in r.items()} for r in rows] == csv_rows
    # Every team played 3 rounds against each other team.
    for r in rows:
        assert r["rounds_won"] + r["draws"] + r["losses"] == 3 * (n - 1)
    assert sum(r["points"] for r in rows) == sum(sum(x.result.points) for x in rounds)
    assert (out / "index.html").is_file()

    for p in schedule_for(cfg):
        result = json.loads((out / p.folder / "result.json").read_text())
        assert result["teams"] == list(p.teams)
        assert len(result["rounds"]) == 3
        for idx, entry in enumerate(result["rounds"], start=1):
            assert (out / p.folder / entry["replay"]).is_file()
            assert entry["replay"] == f"round-{idx}/replay.jsonl"
            replay_header = json.loads(
                (out / p.folder / entry["replay"]).read_text().splitlines()[0]
            )
            assert replay_header["teams"] == entry["seats"]


def test_result_json_is_in_the_matchs_team_order_whatever_the_seats(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    run_fake(cfg, out)
    with Ledger.open(out / LEDGER_FILE) as ledger:
        by_key = {r.key: r for r in ledger.rounds()}
    for p in schedule_for(cfg):
        result = json.loads((out / p.folder / "result.json").read_text())
        a, b = p.teams
        for idx, entry in enumerate(result["rounds"], start=1):
            lr = by_key[(p.folder, idx)]
            assert entry["seats"] == list(lr.seats) == ([a, b] if idx != 2 else [b, a])
            gold_by_team = dict(zip(lr.seats, lr.result.gold, strict=False))
            assert entry["gold"] == [gold_by_team[a], gold_by_team[b]]
            points_by_team = dict(zip(lr.seats, lr.result.points, strict=False))
            assert entry["points"] == [points_by_team[a], points_by_team[b]]
            if lr.result.winner is None:
                assert entry["winner"] is None
            else:
                assert p.teams[entry["winner"]] == lr.seats[lr.result.winner]
        assert result["points"] == [
            sum(e["points"][0] for e in result["rounds"]),
            sum(e["points"][1] for e in result["rounds"]),
        ]


@pytest.mark.slow
def test_jobs_do_not_change_the_results(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 4)
    run_fake(cfg, tmp_path / "one", jobs=1)
    run_fake(cfg, tmp_path / "four", jobs=4)
    assert read_standings(tmp_path / "one") == read_standings(tmp_path / "four")
    assert ledger_rows(tmp_path / "one") == ledger_rows(tmp_path / "four")


def test_stop_then_resume_gives_the_same_standings_as_an_uninterrupted_run(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 4)
    run_fake(cfg, tmp_path / "whole", jobs=2)

    out = tmp_path / "broken"
    stopper = StopAfter(fake_bots(cfg.team_names), calls=60)
    report = run_fake(
        cfg, out, jobs=2, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r)
    )
    assert not report.complete and report.interrupted_by == "SIGINT"
    assert 0 < report.played < report.total
    assert not (out / "standings.json").exists()  # standings are published complete only
    with Ledger.open(out / LEDGER_FILE) as ledger:
        assert len(ledger.rounds()) == report.played

    # A round folder that a killed run left half-written is cleared, not trusted.
    with Ledger.open(out / LEDGER_FILE) as ledger:
        done = ledger.done()
    missing = next(s for s in _slots(cfg) if s not in done)
    junk = out / missing[0] / f"round-{missing[1]}"
    junk.mkdir(parents=True, exist_ok=True)
    (junk / "replay.jsonl.part").write_text("half a line")

    again = run_fake(cfg, out, jobs=3, resume=True)
    assert again.complete and again.done_before == report.played
    assert again.played == again.total - report.played
    assert not (junk / "replay.jsonl.part").exists() and (junk / "replay.jsonl").is_file()
    assert read_standings(out) == read_standings(tmp_path / "whole")
    assert ledger_rows(out) == ledger_rows(tmp_path / "whole")
    for p in schedule_for(cfg):
        assert (
            json.loads((out / p.folder / "result.json").read_text())["points"]
            == json.loads((tmp_path / "whole" / p.folder / "result.json").read_text())["points"]
        )


def _slots(cfg: object) -> list[tuple[str, int]]:
    return [r.key for p in schedule_for(cfg) for r in p.rounds]  # type: ignore[arg-type]


def test_resume_of_a_finished_tournament_plays_nothing(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    run_fake(cfg, out)
    before = read_standings(out)
    (out / "standings.json").unlink()
    report = run_fake(cfg, out, resume=True, bots={})  # no bot may be run
    assert report.complete and report.played == 0
    assert read_standings(out) == before


def test_a_non_empty_folder_is_refused_without_resume(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(TournamentError, match="--resume.*--out|--out") as info:
        run_fake(cfg, out)
    assert info.value.exit_code == 2
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_resume_without_a_ledger_is_refused(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    with pytest.raises(TournamentError, match="nothing to resume"):
        run_fake(cfg, tmp_path / "t", resume=True)


def test_resume_with_another_configuration_is_refused_and_says_what_changed(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    stopper = StopAfter(fake_bots(cfg.team_names), calls=10)
    run_fake(cfg, out, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r))
    other = make_config(tmp_path / "cfg2", 3, seed=7, bots=["random", "random", "random"])
    with pytest.raises(TournamentError) as info:
        run_fake(other, out, resume=True)
    msg = str(info.value)
    assert "another configuration" in msg and "seed (2026 -> 7)" in msg
    assert "teams[0].bot ('greedy' -> 'random')" in msg
    # jobs and output are not part of it: the same configuration with other jobs resumes.
    same = make_config(tmp_path / "cfg3", 3, jobs=5, output="elsewhere")
    assert run_fake(same, out, resume=True).complete


def test_a_judge_failure_stops_the_run_and_keeps_the_ledger(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    bots = fake_bots(cfg.team_names)
    calls = {"n": 0}
    good = bots["Beta"]

    def flaky(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        calls["n"] += 1
        if calls["n"] > 12:
            return None, state, "IE"  # the judge could not run it: never the bot's fault
        return good(map_inp, state)

    bots["Beta"] = flaky
    report = run_fake(cfg, out, jobs=1, bots=bots)
    assert report.failure is not None and report.failure_code == 3
    assert "could not run Beta" in report.failure
    assert not report.complete
    assert run_fake(cfg, out, resume=True).complete  # fixed: resume finishes it
