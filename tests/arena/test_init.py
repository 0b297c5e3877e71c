"""``judge arena init``: the arena folder from a list of teams; a bad list writes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.arena.config import load_config
from judge.arena.ladderconfig import _LADDER_KEYS, LadderSettings, ladder_settings
from judge.arena.store import Store
from judge.cli import main
from tests.arena.conftest import CHEAP


def _init(tmp_path: Path, text: str | bytes, *extra: str) -> tuple[int, Path]:
    teams = tmp_path / "teams.csv"
    if isinstance(text, str):
        teams.write_text(text, encoding="utf-8")
    else:
        teams.write_bytes(text)
    out = tmp_path / "arena"
    return main(["arena", "init", str(out), "--teams", str(teams), *extra]), out


def test_an_arena_is_made_with_the_names_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("judge.arena.accounts.PasswordHasher", lambda: CHEAP)
    # Excel's BOM, semicolons, combining accents (NFD) kept as the composed name
    text = "\ufeffTeam;Members\nRo\u0302\u0300ng Bi\u1ec3n;An, Bình\nĐội Hải Âu;\n\nCá Mập;Chi\n"
    code, out = _init(
        tmp_path,
        text,
        "--organiser-map",
        str(Path(__file__).parents[2] / "maps" / "organiser" / "final.txt"),
    )
    assert code == 0, capsys.readouterr().err
    assert "for 3 teams" in capsys.readouterr().out
    creds = (out / "credentials.csv").read_text(encoding="utf-8-sig").splitlines()
    assert creds[0] == "role,team,members,password,token"
    assert creds[1].startswith("organiser,organiser,,")
    assert [line.split(",")[1] for line in creds[2:]] == ["Rồng Biển", "Đội Hải Âu", "Cá Mập"]
    assert '"An, Bình"' in creds[2]
    assert os.stat(out / "credentials.csv").st_mode & 0o777 == 0o600
    with Store.open(out / "arena.sqlite") as store:
        assert [t.name for t in store.teams()] == ["Rồng Biển", "Đội Hải Âu", "Cá Mập"]
        assert store.rows("PRAGMA journal_mode")[0][0] == "wal"
    cfg = load_config(out)
    assert cfg.limits.time_s == 2.0 and cfg.limits.memory_mb == 512
    assert cfg.practice_maps[0] == "maps/m1.txt" and cfg.organiser_map == "maps/organiser/final.txt"
    assert (out / cfg.organiser_map).is_file()
    assert os.stat(out / cfg.organiser_map).st_mode & 0o077 == 0  # the organiser's secret
    assert os.stat((out / cfg.organiser_map).parent).st_mode & 0o077 == 0
    text = (out / "arena.yaml").read_text(encoding="utf-8")
    for section in ("limits:", "practice_maps:", "uploads:", "rate_limits:", "deadline:"):
        assert f"\n{section}" in text
    assert text.count("#") > 20  # every setting commented
    # the ladder's settings too, as their defaults
    for section in ("ladder:", "house_bots:", "scoreboard:"):
        assert f"\n{section}" in text
    assert ladder_settings(cfg.later) == LadderSettings()
    assert set(cfg.later["ladder"]) == set(_LADDER_KEYS)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("team\nAlpha\nBeta\nalpha\n", "line 4: team 'alpha' is already on line 2"),
        ("team,members\nAlpha,x\n,y\n", "line 3: the team name is empty"),
        ("name\nAlpha\n", "line 1 must be a header with a 'team' column"),
        (b"PK\x03\x04 a workbook", "an Excel workbook"),
        (b"team\n\xff\xfe\x00A", "not UTF-8 text"),
        ("team\norganiser\n", "the organiser's login"),
        ("team\n" + "x" * 41 + "\n", "line 2: team"),
        ("team\n", "no team in it"),
        ('team\n"Alpha\n', "not a CSV file"),
    ],
)
def test_a_bad_team_list_is_named_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | bytes, words: str
) -> None:
    code, out = _init(tmp_path, text)
    err = capsys.readouterr().err
    assert code == 2 and words in err, err
    assert "Traceback" not in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["teams.csv"]


def test_an_existing_folder_with_files_is_not_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "mine.txt").write_text("keep")
    code, out = _init(tmp_path, "team\nAlpha\n")
    assert code == 2 and "not an empty folder" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_a_bad_arena_yaml_is_refused_naming_the_key(tmp_path: Path) -> None:
    from judge.arena import ArenaError
    from tests.arena.conftest import configure, make

    made = make(tmp_path)
    configure(
        made.root, {"limits.time_s": 99, "uploads.bogus": 1, "deadline": "tomorrow", "extra": 1}
    )
    with pytest.raises(ArenaError) as err:
        load_config(made.root)
    message = str(err.value)
    for words in (
        "limits: time_s: 99",
        "uploads: unknown key 'bogus'",
        "deadline: 'tomorrow'",
        "unknown key 'extra'",
    ):
        assert words in message
    configure(
        made.root,
        {
            "limits.time_s": 1.5,
            "uploads": {},
            "deadline": "2030-01-01T00:00:00+07:00",
            "extra": None,
            "ladder": {"rounds": 3},
        },
    )
    data = (made.root / "arena.yaml").read_text()
    (made.root / "arena.yaml").write_text(data.replace("extra: null\n", ""))
    cfg = load_config(made.root)
    assert (
        cfg.limits.time_s == 1.5
        and cfg.deadline is not None
        and cfg.later["ladder"] == {"rounds": 3}
    )
