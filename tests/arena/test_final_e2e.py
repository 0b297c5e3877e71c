"""The arena's final end to end: freeze, the teams' maps, `judge arena final`, and the same
standings as `judge tournament` for the same bots, maps and seed, round for round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from judge.arena.phases import MapList, choose_map
from judge.arena.store import STORE_FILE, Phase, Store
from judge.cli import main
from tests.arena.arena_support import add_bot_version, make_test_arena
from tests.tournament._helpers import ledger_rows

pytestmark = pytest.mark.slow  # real programs, two tournaments

TEAMS = ["Rồng Biển", "Beta", "Gamma"]


def test_the_final_is_judge_tournament_on_the_frozen_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _creds = make_test_arena(tmp_path, TEAMS)
    with Store.open(root / STORE_FILE) as store:
        add_bot_version(root, store, "Rồng Biển", "random")
        add_bot_version(root, store, "Rồng Biển", "greedy")  # replaces it: the final's version
        add_bot_version(root, store, "Beta", "random")
        add_bot_version(root, store, "Gamma", "greedy_c")
        maps = MapList(root, ("maps/m1.txt", "maps/m2.txt", "maps/m3.txt"))
        ids = {t.name: t.id for t in store.teams()}
        assert choose_map(store, maps, ids["Beta"], "m2") == (200, "m2")
        status, why = choose_map(store, maps, ids["Gamma"], "m2")
        assert status == 409 and "Beta has already chosen" in why
        assert choose_map(store, maps, ids["Gamma"], "m3") == (200, "m3")
    assert main(["arena", "final", str(root), "--quiet"]) == 2
    assert "freeze it first" in capsys.readouterr().err
    assert main(["arena", "freeze", str(root)]) == 0
    assert "Rồng Biển: version 2" in capsys.readouterr().out
    with Store.open(root / STORE_FILE) as store:
        assert store.phase is Phase.FROZEN
        add_bot_version(root, store, "Beta", "greedy")  # accepted after the freeze: not played
    assert main(["arena", "final", str(root), "--quiet", "--seed", "41", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "Rồng Biển chose no map: it plays on m1" in out
    final = root / "final"
    for f in ("ledger.sqlite", "standings.json", "standings.csv", "index.html", "schedule.json"):
        assert (final / f).is_file(), f
    with Store.open(root / STORE_FILE) as store:
        assert store.phase is Phase.FINAL
    # The same bots, maps and seed, written by hand: judge tournament gives the same final.
    hand = root / "by-hand.yaml"  # beside final.yaml: the maps' labels are the same
    config = yaml.safe_load((root / "final.yaml").read_text(encoding="utf-8"))
    programs = {t["name"]: str(root / t["bot"]) for t in config["teams"]}
    hand.write_text(
        yaml.safe_dump(
            {
                "seed": 41,
                "time_limit": 2.0,
                "memory_limit_mb": 512,
                "maps_dir": "final-maps",
                "organiser_map": "maps/organiser/organiser.txt",
                "teams": [
                    {"name": "Beta", "bot": programs["Beta"], "map": "m2"},
                    {"name": "Gamma", "bot": programs["Gamma"], "map": "m3"},
                    {"name": "Rồng Biển", "bot": programs["Rồng Biển"], "map": "m1"},
                ],
            },
            allow_unicode=True,
        ),
        encoding="utf-8",
    )
    assert "greedy_c" not in programs["Beta"]
    other = tmp_path / "by-hand"
    assert main(["tournament", str(hand), "--out", str(other), "--quiet", "--jobs", "2"]) == 0
    ours = json.loads((final / "standings.json").read_text(encoding="utf-8"))["standings"]
    theirs = json.loads((other / "standings.json").read_text(encoding="utf-8"))["standings"]
    assert ours == theirs and len(ours) == 3
    assert ledger_rows(final) == ledger_rows(other)  # round for round
    # The public board: the final's standings only once released.
    from judge.arena.board import standings_json
    from judge.arena.scoreboard import ScoreboardRules

    hide = ScoreboardRules(hidden=True)
    with Store.open(root / STORE_FILE) as store:
        assert (
            "final" not in standings_json(root, store, hide)
            and standings_json(root, store, hide)["hidden"]
        )
        assert main(["arena", "release", str(root)]) == 0
        shown = standings_json(root, store, hide)
        assert shown["hidden"] is False and shown["final"] == ours
    # Run again: the final resumes (nothing left to play), final.yaml is not rewritten.
    before = (root / "final.yaml").read_text(encoding="utf-8")
    assert main(["arena", "final", str(root), "--quiet"]) == 0
    assert (root / "final.yaml").read_text(encoding="utf-8") == before
