"""An official tournament is isolated, or says so loudly and records it.

Also what standings.json records for an audit (item 7): seed, date, the judge's
version, the configuration's hash and each team's program hash.  These run on
the fake sandbox; tests/sandbox/test_tournament_normal_user.py runs the real
judge as a normal user.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge import __version__
from judge.sandbox import Isolation
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import Runner, TournamentError
from tests.referee.fakes import FakeSandbox

from ._helpers import fake_bots, make_config

OFF = Isolation(
    items=(
        ("separate uid per seat", False, "not root"),
        ("no network", False, "no namespaces"),
        ("file size cap", True, "RLIMIT_FSIZE"),
    )
)


def weak_sandbox(bots: dict) -> FakeSandbox:  # type: ignore[type-arg]
    sb = FakeSandbox(bots)
    sb.isolation = OFF
    return sb


def runner(cfg, out: Path, unsandboxed: bool) -> Runner:  # type: ignore[no-untyped-def]
    bots = fake_bots(cfg.team_names)
    return Runner(cfg, out, 2, lambda: weak_sandbox(bots), unsandboxed=unsandboxed)


def test_without_full_isolation_a_tournament_is_refused(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    with pytest.raises(TournamentError) as info:
        runner(cfg, out, unsandboxed=False).run(resume=False)
    msg = str(info.value)
    assert "2 of 3 sandbox protections are OFF (separate uid per seat, no network)" in msg
    assert "--unsandboxed" in msg and "judge sandbox-info" in msg
    assert info.value.exit_code == 2
    assert not out.exists()  # nothing written


def test_unsandboxed_runs_and_is_recorded(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    report = runner(cfg, out, unsandboxed=True).run(resume=False)
    assert report.complete
    with Ledger.open(out / LEDGER_FILE) as ledger:
        (run,) = ledger.runs()
    assert run.unsandboxed is True and run.unsandboxed_option is True
    assert run.protections_off == ("separate uid per seat", "no network")
    assert run.judge_version == __version__ and run.started_at
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert data["unsandboxed"] is True
    assert data["protections_off"] == ["no network", "separate uid per seat"]
    (entry,) = data["runs"]  # the ledger's run, with the rounds it played
    assert {k: v for k, v in entry.items() if k != "rounds"} == run.to_json()
    assert len(entry["rounds"]) == report.total == 9
    assert [row["team"] for row in data["standings"]] == [row.team for row in report.standings]


def test_standings_json_holds_what_an_audit_needs(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    out = tmp_path / "t"
    bots = fake_bots(cfg.team_names)
    Runner(cfg, out, 2, lambda: FakeSandbox(bots)).run(resume=False)
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert data["seed"] == cfg.seed and data["config_hash"] == cfg.config_hash()
    assert data["judge_version"] == __version__
    assert data["date"][:4].isdigit() and data["started_at"]
    assert data["unsandboxed"] is False and data["protections_off"] == []
    for team in cfg.teams:
        entry = data["programs"][team.name]
        assert entry["bot"] == team.bot.source
        assert len(entry["sha256"]) == 64 and entry["sha256"] == team.bot.digest
    assert data["programs_changed_between_runs"] == []
    # The same bot in two teams has one hash; another bot another.
    by_bot = {e["bot"]: e["sha256"] for e in data["programs"].values()}
    assert len(set(by_bot.values())) == len(by_bot)


@pytest.mark.parametrize("root", [False, True])
def test_the_refusal_says_what_is_really_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: bool
) -> None:
    """A normal user is told to run the judge as root; a judge that already runs as root is
    told what the machine lacks (running as root again would change nothing)."""
    monkeypatch.setattr("judge.isolation.is_root", lambda: root)
    cfg = make_config(tmp_path / "cfg", 3)
    with pytest.raises(TournamentError) as info:
        runner(cfg, tmp_path / "t", unsandboxed=False).run(resume=False)
    msg = str(info.value)
    assert "this machine cannot fully isolate the bots: 2 of 3 sandbox protections" in msg
    assert "--unsandboxed" in msg and "judge sandbox-info" in msg
    if root:
        assert "run the judge as root" not in msg and "already runs as root" in msg
        assert "separate uid per seat: not root" in msg and "no network: no namespaces" in msg
    else:
        assert "run the judge as root on Linux" in msg


def test_off_is_computed_alike_from_the_sandbox_and_from_its_record() -> None:
    from judge import isolation

    assert isolation.protections_off(OFF) == ["separate uid per seat", "no network"]
    assert isolation.protections_off(OFF.as_dict()) == isolation.protections_off(OFF)
    assert isolation.off_with_reasons(OFF.as_dict()) == isolation.off_with_reasons(OFF)
    assert isolation.protections_off({"x": {"on": True}, "y": "damaged"}) == ["y"]
