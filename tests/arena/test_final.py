"""The final (judge.arena.final): judge tournament's own configuration, maps by ruling R19."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from judge.arena.final import FinalError, FinalTeam, assign_maps, config_for, write_config
from judge.tournament.config import load_config

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "maps"


def published(tmp: Path, names: tuple[str, ...] = ("m1", "m2", "m3")) -> Path:
    d = tmp / "maps"
    d.mkdir(parents=True, exist_ok=True)
    for n in names:
        shutil.copy(MAPS / f"{n}.txt", d / f"{n}.txt")
    return d


def test_teams_keep_their_maps_and_a_team_without_one_gets_the_first_free(tmp_path: Path) -> None:
    maps_dir = published(tmp_path)
    teams = [
        FinalTeam("Zeta", Path("/x"), None),
        FinalTeam("Beta", Path("/y"), "m1"),
        FinalTeam("Ánh", Path("/z"), None),
    ]
    maps, notes = assign_maps(teams, maps_dir)
    assert maps == {"Beta": "m1", "Ánh": "m2", "Zeta": "m3"}
    assert len(notes) == 2 and "Zeta chose no map: it plays on m3" in notes[1]


def test_two_teams_on_one_sea_or_too_few_maps_are_refused(tmp_path: Path) -> None:
    maps_dir = published(tmp_path, ("m1", "m2"))
    shutil.copy(maps_dir / "m1.txt", maps_dir / "copy.txt")
    same = [FinalTeam("A", Path("/a"), "m1"), FinalTeam("B", Path("/b"), "copy")]
    with pytest.raises(FinalError, match="same sea"):
        assign_maps(same, maps_dir)
    three = [FinalTeam(n, Path("/a"), None) for n in ("A", "B", "C")]
    with pytest.raises(FinalError, match="no map left for C"):
        assign_maps(three, maps_dir)
    with pytest.raises(FinalError, match="not on the organisers' list"):
        assign_maps([FinalTeam("A", Path("/a"), "m9")], maps_dir)


def test_the_final_config_is_a_tournament_config_equal_to_a_hand_written_one(
    tmp_path: Path,
) -> None:
    arena = tmp_path / "arena"
    maps_dir = published(arena)
    store = arena / "store"
    bots = {}
    for name, bot in (("Rồng Biển", "greedy"), ("Beta", "random")):
        bots[name] = store / bot
        shutil.copytree(ROOT / "bots" / bot, bots[name])
    organiser = MAPS / "organiser" / "final.txt"
    teams = [FinalTeam(n, p, None) for n, p in bots.items()]
    maps, _ = assign_maps(teams, maps_dir)
    data = config_for(arena, teams, maps, maps_dir, organiser, 77, {"time_limit": 1.5, "turns": 6})
    path, written = write_config(arena, data)
    assert written and path == arena / "final.yaml"
    assert write_config(arena, {"seed": 1}) == (path, False)  # written once, never again
    text = path.read_text(encoding="utf-8")
    assert "Rồng Biển" in text and "bot: store/greedy" in text and "output: final" in text
    ours = load_config(path, build=False)
    assert ours.output == arena / "final"
    hand = arena / "hand.yaml"
    hand.write_text(
        yaml.safe_dump(
            {
                "seed": 77,
                "turns": 6,
                "time_limit": 1.5,
                "maps_dir": "maps",
                "organiser_map": str(organiser),
                "teams": [
                    {"name": "Beta", "bot": "store/random", "map": "m1"},
                    {"name": "Rồng Biển", "bot": "store/greedy", "map": "m2"},
                ],
            },
            allow_unicode=True,
        ),
        encoding="utf-8",
    )
    # The same fingerprint: a ledger of one is the ledger of the other (resume included).
    assert ours.config_hash() == load_config(hand, build=False).config_hash()
