"""judge.yaml: every kind of bad configuration is refused with the key and the fix (R19 too).

Each test checks that the message names the key, and the command tests check
that nothing is run: exit status 2 and no tournament folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main
from judge.maps import format_map, load_map
from judge.tournament.config import ConfigError, load_config, sea_key

from ._helpers import BOTS, MAPS, ROOT, config_dict, copy_maps, write_config


def refused(tmp_path: Path, data: Any) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, data))
    return str(info.value)


def mirrored(text: str) -> str:
    """The same sea, flipped left to right (and written with W for D)."""
    lines = text.splitlines()
    body = [" ".join(reversed(line.split())) for line in lines[1:]]
    return "\n".join([lines[0]] + body).replace("D", "W") + "\n"


# ------------------------------------------------------------------ valid ones
def test_the_projects_example_judge_yaml_is_valid() -> None:
    cfg = load_config(ROOT / "judge.yaml")
    assert cfg.team_names == ["Alpha", "Beta", "Gamma"]
    assert [t.map_spec for t in cfg.teams] == ["m1", "m2", "m3"]
    assert cfg.seed == 2026 and cfg.jobs == 2 and cfg.output == ROOT / "matches" / "final"
    assert cfg.organiser_label == "maps/organiser/final.txt"


def test_defaults_and_paths_relative_to_the_config_file(tmp_path: Path) -> None:
    copy_maps(tmp_path / "sea")
    shutil.copy(MAPS / "organiser" / "final.txt", tmp_path / "org.txt")
    data = config_dict(2, maps_dir="sea", organiser_map="org.txt")
    for key in ("time_limit", "memory_limit_mb", "jobs", "output", "turns"):
        del data[key]
    cfg = load_config(write_config(tmp_path, data))
    assert cfg.time_limit == 2.0 and cfg.memory_limit_mb == 512 and cfg.turns is None
    assert cfg.jobs >= 1 and cfg.output == tmp_path / "matches" / "tournament"
    assert cfg.maps_dir == tmp_path / "sea"
    assert cfg.map_of("Alpha")[1] == "sea/m1.txt" and cfg.map_of(None)[1] == "org.txt"


def test_a_generated_organisers_map(tmp_path: Path) -> None:
    data = config_dict(
        3, organiser_map={"generate": {"rows": 9, "cols": 11, "turns": 20, "seed": 9}}
    )
    cfg = load_config(write_config(tmp_path, data))
    gm = cfg.organiser_map
    assert (gm.rows, gm.cols, gm.turns) == (9, 11, 20)
    again = load_config(write_config(tmp_path, data))
    assert again.organiser_map.cells == gm.cells  # the same seed, the same map


def test_a_bot_given_as_a_path_relative_to_the_config(tmp_path: Path) -> None:
    shutil.copytree(BOTS / "greedy", tmp_path / "teams" / "alpha")
    data = config_dict(2)
    data["teams"][0]["bot"] = "./teams/alpha"
    cfg = load_config(write_config(tmp_path, data))
    assert cfg.teams[0].bot.source == "./teams/alpha"
    assert cfg.teams[0].bot.program_dir == (tmp_path / "teams" / "alpha").resolve()


# ------------------------------------------------------------ the file itself
def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.yaml")


def test_not_yaml(tmp_path: Path) -> None:
    msg = refused(tmp_path, "seed: 1\nteams: [unclosed\n")
    assert "not valid YAML" in msg and "line" in msg


def test_not_a_mapping(tmp_path: Path) -> None:
    msg = refused(tmp_path, "- seed\n- teams\n")
    assert "not a mapping" in msg and "seed" in msg


def test_a_key_written_twice(tmp_path: Path) -> None:
    msg = refused(tmp_path, "seed: 1\nseed: 2\n")
    assert "'seed' appears twice" in msg


# --------------------------------------------------------------- unknown keys
def test_unknown_top_level_key(tmp_path: Path) -> None:
    msg = refused(tmp_path, config_dict(2, time_limt=3))
    assert "time_limt: unknown key" in msg and "time_limit" in msg


def test_unknown_team_key(tmp_path: Path) -> None:
    data = config_dict(2)
    data["teams"][1]["colour"] = "red"
    msg = refused(tmp_path, data)
    assert "teams[1].colour: unknown key" in msg and "name, bot, map" in msg


def test_unknown_generate_key(tmp_path: Path) -> None:
    msg = refused(
        tmp_path, config_dict(2, organiser_map={"generate": {"rows": 9, "cols": 9, "size": 3}})
    )
    assert "organiser_map.generate.size: unknown key" in msg


def test_unknown_organiser_map_key(tmp_path: Path) -> None:
    msg = refused(tmp_path, config_dict(2, organiser_map={"generat": {"rows": 9, "cols": 9}}))
    assert "organiser_map.generat: unknown key" in msg


def test_a_misspelt_key_is_reported_first_with_did_you_mean(tmp_path: Path) -> None:
    """The typo comes before the problems it causes (here: maps/ not found)."""
    data = config_dict(3)
    data["maps_dri"] = data.pop("maps_dir")
    data["seed"] = -1
    data["teams"][2]["nmae"] = data["teams"][2].pop("name")
    err = refused(tmp_path / "elsewhere", data)
    problems = [line for line in err.splitlines() if line.startswith("  - ")]
    assert problems[0].startswith("  - maps_dri: unknown key; did you mean 'maps_dir'?")
    assert problems[1].startswith("  - teams[2].nmae: unknown key; did you mean 'name'?")
    assert any(p.startswith("  - seed:") for p in problems[2:])
    assert any(p.startswith("  - teams[2].name: missing") for p in problems[2:])


def test_a_configuration_outside_the_project_uses_the_bundled_bots_and_maps(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Paths are read from the configuration's folder; names fall back to the bundled ones."""
    own = tmp_path / "contest"
    shutil.copytree(BOTS / "random", own / "my bots" / "mine")
    (own / "team3").mkdir()
    shutil.copy(BOTS / "greedy" / "bot.py", own / "team3" / "prog.py")
    (own / "team3" / "prog.py").chmod(0o755)
    data = config_dict(3, organiser_map={"generate": {"rows": 9, "cols": 11, "turns": 20}})
    for key in ("maps_dir", "bots_dir"):
        del data[key]
    data["bots_dir"] = "my bots"
    data["teams"][0]["bot"] = "greedy"  # bundled
    data["teams"][1]["bot"] = "mine"  # from bots_dir, relative to the configuration
    data["teams"][2]["bot"] = "team3/prog.py"  # a path relative to the configuration
    path = write_config(own, data)
    monkeypatch.chdir(tmp_path)  # another folder: nothing may be read from here
    cfg = load_config(Path("contest") / "judge.yaml")
    assert [t.bot.source for t in cfg.teams] == ["greedy", "mine", "team3/prog.py"]
    assert cfg.teams[1].bot.home == (own / "my bots" / "mine").resolve()
    assert cfg.teams[2].bot.home == (own / "team3").resolve()
    assert cfg.maps_dir.resolve() == MAPS.resolve()  # no maps/ beside it: the bundled maps
    assert cfg.output == path.parent.resolve() / "out"


def test_a_misspelt_bot_or_map_in_a_configuration(tmp_path: Path) -> None:
    data = config_dict(2)
    data["teams"][0]["bot"] = "gredy"
    data["teams"][1]["map"] = "m22"
    msg = refused(tmp_path, data)
    assert "teams[0].bot: bot 'gredy': no such bot; did you mean 'greedy'" in msg
    assert "teams[1].map: 'm22' is not a map of the published list" in msg
    assert "did you mean 'm2'?" in msg


# --------------------------------------------------------------- missing keys
@pytest.mark.parametrize("key", ["seed", "teams", "organiser_map"])
def test_missing_required_key(tmp_path: Path, key: str) -> None:
    data = config_dict(2)
    del data[key]
    msg = refused(tmp_path, data)
    assert f"{key}: missing" in msg


def test_team_without_a_bot(tmp_path: Path) -> None:
    data = config_dict(2)
    del data["teams"][0]["bot"]
    assert "teams[0].bot: missing" in refused(tmp_path, data)


def test_missing_bot(tmp_path: Path) -> None:
    data = config_dict(2)
    data["teams"][1]["bot"] = "no_such_bot"
    msg = refused(tmp_path, data)
    assert "teams[1].bot" in msg and "no such bot" in msg


def test_one_team_is_not_a_round_robin(tmp_path: Path) -> None:
    assert "teams: 1 team(s)" in refused(tmp_path, config_dict(1))


# ------------------------------------------------------------------- names
def test_duplicate_names(tmp_path: Path) -> None:
    data = config_dict(3)
    data["teams"][2]["name"] = "alpha"  # differs only in case: the same folder on some systems
    msg = refused(tmp_path, data)
    assert "teams[2].name" in msg and "teams[0]" in msg and "its own name" in msg


@pytest.mark.parametrize("name", ["", "x" * 41, "tab\there", "bell\x07"])
def test_names_that_cannot_be_names(tmp_path: Path, name: str) -> None:
    data = config_dict(2)
    data["teams"][0]["name"] = name
    assert "teams[0].name" in refused(tmp_path, data)


def test_unicode_names_are_kept_as_written(tmp_path: Path) -> None:
    """Vietnamese names, spaces, slashes and rich markup are names like any other."""
    data = config_dict(3)
    written = ["Rồng Biển", "Đội Hải Âu", "[bold]x[/] / ../A-vs-B"]
    for team, name in zip(data["teams"], written, strict=True):
        team["name"] = name
    cfg = load_config(write_config(tmp_path, data))
    assert cfg.team_names == written


def test_names_giving_the_same_folder_are_refused(tmp_path: Path) -> None:
    data = config_dict(3)
    data["teams"][0]["name"] = "Rồng Biển"
    data["teams"][2]["name"] = "Rong_Bien"
    msg = refused(tmp_path, data)
    assert "teams[2].name" in msg and "teams[0].name 'Rồng Biển'" in msg
    assert "'Rong_Bien'" in msg and "change one of them" in msg


# ------------------------------------------------------------------ R19 maps
def test_r19_two_teams_with_the_same_map(tmp_path: Path) -> None:
    data = config_dict(3)
    data["teams"][2]["map"] = "m1"
    msg = refused(tmp_path, data)
    assert "teams[2].map" in msg and "R19" in msg and "teams[0]" in msg


def test_r19_two_teams_with_the_same_sea_under_two_names(tmp_path: Path) -> None:
    sea = copy_maps(tmp_path / "sea")
    (sea / "m1copy.txt").write_text(mirrored((MAPS / "m1.txt").read_text()))
    assert sea_key(load_map(sea / "m1copy.txt")) == sea_key(load_map(sea / "m1.txt"))
    data = config_dict(2, maps_dir=str(sea))
    data["teams"][1]["map"] = "m1copy"
    msg = refused(tmp_path, data)
    assert "teams[1].map" in msg and "same sea as m1.txt" in msg and "R19" in msg


def test_r19_same_sea_with_another_k_is_the_same_map(tmp_path: Path) -> None:
    sea = copy_maps(tmp_path / "sea")
    text = (MAPS / "m2.txt").read_text().replace("7 9 40", "7 9 12", 1)
    (sea / "m2short.txt").write_text(text)
    data = config_dict(2, maps_dir=str(sea))
    data["teams"][0]["map"] = "m2short"
    assert "teams[1].map" in refused(tmp_path, data)


def test_r19_organisers_map_equal_to_a_listed_map(tmp_path: Path) -> None:
    sea = copy_maps(tmp_path / "sea")
    # m4 is on the list but picked by nobody; the organisers' file is a copy of it elsewhere.
    shutil.copy(sea / "m4.txt", tmp_path / "secret.txt")
    msg = refused(tmp_path, config_dict(3, maps_dir=str(sea), organiser_map="secret.txt"))
    assert "organiser_map" in msg and "m4.txt" in msg and "R19" in msg


def test_r19_organisers_map_equal_to_a_teams_pick(tmp_path: Path) -> None:
    shutil.copy(MAPS / "m2.txt", tmp_path / "org.txt")
    msg = refused(tmp_path, config_dict(3, organiser_map="org.txt"))
    assert "teams[1].map" in msg and "organisers' map" in msg and "R19" in msg


def test_r19_a_team_picking_the_organisers_map(tmp_path: Path) -> None:
    sea = copy_maps(tmp_path / "sea")
    shutil.copy(MAPS / "organiser" / "final.txt", sea / "copy.txt")
    data = config_dict(2, maps_dir=str(sea))
    data["teams"][1]["map"] = "copy"
    msg = refused(tmp_path, data)
    assert "teams[1].map" in msg and "organisers' map" in msg


def test_r19_a_listed_file_as_the_organisers_map(tmp_path: Path) -> None:
    # m4 is on the published list (picked by nobody): it cannot be the organisers' map.
    sea = copy_maps(tmp_path / "sea")
    msg = refused(tmp_path, config_dict(3, maps_dir=str(sea), organiser_map=str(sea / "m4.txt")))
    assert "organiser_map" in msg and "m4.txt" in msg and "R19" in msg


def test_the_organisers_file_in_a_subfolder_is_off_the_list(tmp_path: Path) -> None:
    # The example keeps maps/organiser/final.txt below the list's folder, not on the list.
    cfg = load_config(write_config(tmp_path, config_dict(3)))
    assert format_map(cfg.organiser_map) == format_map(load_map(MAPS / "organiser" / "final.txt"))


# -------------------------------------------------------------- map files
def test_a_map_not_on_the_list(tmp_path: Path) -> None:
    data = config_dict(2)
    data["teams"][0]["map"] = "m9"
    msg = refused(tmp_path, data)
    assert "teams[0].map" in msg and "pick one of" in msg and "m1" in msg


def test_an_invalid_team_map_file(tmp_path: Path) -> None:
    sea = copy_maps(tmp_path / "sea")
    (sea / "m1.txt").write_text((MAPS / "m1.txt").read_text().replace("5 5 20", "6 5 20", 1))
    msg = refused(tmp_path, config_dict(2, maps_dir=str(sea)))
    assert "teams[0].map" in msg and "not a valid map" in msg and "judge validate" in msg


def test_an_invalid_organisers_map_file(tmp_path: Path) -> None:
    (tmp_path / "org.txt").write_text("this is not a map\n")
    msg = refused(tmp_path, config_dict(2, organiser_map="org.txt"))
    assert "organiser_map" in msg and "cannot be used" in msg


def test_a_bad_generate_request(tmp_path: Path) -> None:
    msg = refused(tmp_path, config_dict(2, organiser_map={"generate": {"rows": 8, "cols": 9}}))
    assert "organiser_map.generate.rows" in msg and "odd" in msg


def test_maps_dir_that_is_not_a_folder(tmp_path: Path) -> None:
    msg = refused(tmp_path, config_dict(2, maps_dir="nowhere"))
    assert "maps_dir" in msg and "not a folder" in msg


# ------------------------------------------------------------------ limits
def test_time_limit_zero_is_never_allowed(tmp_path: Path) -> None:
    msg = refused(tmp_path, config_dict(2, time_limit=0))
    assert "time_limit: 0" in msg and "never allows" in msg


@pytest.mark.parametrize(
    "key, value",
    [
        ("time_limit", 61),
        ("time_limit", -1),
        ("time_limit", "fast"),
        ("memory_limit_mb", 8),
        ("memory_limit_mb", 100000),
        ("memory_limit_mb", 1.5),
        ("jobs", 0),
        ("turns", 7),
        ("turns", 102),
        ("seed", -3),
        ("seed", "x"),
        ("seed", True),
    ],
)
def test_limits_out_of_range(tmp_path: Path, key: str, value: Any) -> None:
    msg = refused(tmp_path, config_dict(2, **{key: value}))
    assert f"{key}:" in msg


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    data = config_dict(2, time_limit=0, jobs=0, colour=1)
    data["teams"][1]["bot"] = "no_such_bot"
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, data))
    keys = " ".join(info.value.problems)
    for key in ("time_limit", "jobs", "colour", "teams[1].bot"):
        assert key in keys
    assert "nothing was run" in str(info.value)


# ----------------------------------------------------------------- command
def test_the_command_refuses_a_bad_config_with_status_2_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, config_dict(2, time_limit=0))
    out = tmp_path / "t"
    assert main(["tournament", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "time_limit" in err
    assert not out.exists()


def test_the_command_refuses_a_bad_jobs_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, config_dict(2))
    assert main(["tournament", str(path), "--out", str(tmp_path / "t"), "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


# ------------------------------------------------------------------ the title
def test_a_title_is_kept_as_written_and_is_not_in_the_fingerprint(tmp_path: Path) -> None:
    title = "  Chung kết Kho Báu Đại Dương 2026: lớp 10A  "
    cfg = load_config(write_config(tmp_path, config_dict(2, title=title)))
    assert cfg.title == title.strip()
    plain = load_config(write_config(tmp_path / "plain", config_dict(2)))
    assert plain.title == "" and plain.config_hash() == cfg.config_hash()  # a resume may rename


@pytest.mark.parametrize(
    ("title", "words"),
    [(12, "is not text"), ("   ", "empty"), ("x" * 81, "at most 80"), ("a\u0007b", "U+0007")],
)
def test_a_title_that_cannot_be_shown_is_refused(tmp_path: Path, title: Any, words: str) -> None:
    msg = refused(tmp_path, config_dict(2, title=title))
    assert "title:" in msg and words in msg
