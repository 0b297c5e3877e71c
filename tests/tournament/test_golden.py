"""A tournament's result files byte for byte: standings.json, standings.csv and index.html.

Three teams (one with a Vietnamese name, one with a name HTML must escape)
play on the in-process fake sandbox with the project's maps and a fixed seed;
the run is stopped once and resumed, so the audit record lists two runs.  Only
what differs between two runs or checkouts is replaced by placeholders: dates,
the judge's version, the configuration hash (it holds absolute paths), program
hashes and the project's folder (in the maps' names).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from judge.records import Standings, StandingsAudit
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.standings import standings
from tests.golden import check, normalise

from ._helpers import ROOT, StopAfter, config_dict, fake_bots, make_config, run_fake

GOLDEN = Path(__file__).parent / "golden"
V010 = ROOT / "tests" / "fixtures" / "v0.1.0" / "tournament"
NAMES = ["Alpha", "Rồng Biển", "Cá & <Mập>"]


def _normalise(text: str) -> str:
    """standings.json with what differs between two runs of one tournament as placeholders."""
    keys = r'"(date|started_at|judge_version|config_hash|sha256)": "[^"]*"'
    text = re.sub(keys, lambda m: f'"{m[1]}": "<{m[1]}>"', text)
    return re.sub(r'"[0-9a-f]{64}"', '"<sha256>"', text)  # each run's program hashes


def test_standings_files_and_index_are_those_of_the_golden_files(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    data = config_dict(3)
    for team, name in zip(data["teams"], NAMES, strict=True):
        team["name"] = name
    cfg = make_config(tmp_path / "cfg", 3, teams=data["teams"])
    out = tmp_path / "t"
    stopper = StopAfter(fake_bots(cfg.team_names), 40)
    first = run_fake(
        cfg, out, jobs=1, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r)
    )
    assert not first.complete
    report = run_fake(cfg, out, jobs=1, resume=True)
    assert report.complete

    text = (out / "standings.json").read_text(encoding="utf-8")
    check(request, GOLDEN, "standings.json", _normalise(text))
    check(request, GOLDEN, "standings.csv", (out / "standings.csv").read_bytes())
    page = (out / "index.html").read_text(encoding="utf-8")  # rounds named by their map's path
    check(request, GOLDEN, "index.html", normalise(page, [(str(ROOT), "<ROOT>")]))
    with Ledger.open(out / LEDGER_FILE) as ledger:
        assert len(ledger.runs()) == 2 and len(ledger.rounds()) == 9
    # the file reads back into the same records, which write the same bytes
    again = Standings.from_json(json.loads(text))
    assert again.rows == tuple(report.standings) and again.audit is not None
    assert json.dumps(again.to_json(), indent=2, ensure_ascii=False) + "\n" == text


def test_a_0_1_0_ledger_has_no_runs_and_its_audit_says_so(tmp_path: Path) -> None:
    """Ledgers of 0.1.0 have no 'runs' key: the audit then lists none and nothing is off."""
    shutil.copy(V010 / "ledger.sqlite", tmp_path / "ledger.sqlite")
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        runs = ledger.runs()
        rows = standings(["Alpha", "Beta", "Gamma"], (lr.result for lr in ledger.rounds()))
    assert runs == []
    audit = StandingsAudit.of_runs(
        runs, {}, seed=5, date="d", started_at=None, judge_version="v", config_hash="h"
    )
    assert not audit.unsandboxed and audit.protections_off == () and audit.runs == ()
    written = json.loads((V010 / "standings.json").read_text(encoding="utf-8"))
    assert Standings.from_json(written).rows == tuple(rows)
