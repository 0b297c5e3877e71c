"""Team names shown as written, folders under a safe derived form."""

from __future__ import annotations

import pytest

from judge import names


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("Alpha", "Alpha"),  # plain names are their own folder (old tournaments keep theirs)
        ("team_2-b", "team_2-b"),
        ("Rồng Biển", "Rong_Bien"),
        ("Đội Hải Âu", "Doi_Hai_Au"),
        ("Cá-Mập", "Ca-Map"),
        ("[bold]x[/]", "bold_x"),
        ("../../etc", "etc"),
        ("A-vs-B", "A_vs_B"),
        ("con", "con_"),
        ("Straße Œuvre", "Strasse_OEuvre"),
    ],
)
def test_folder_forms(name: str, folder: str) -> None:
    assert names.folder_name(name) == folder


def test_names_without_latin_letters_get_a_stable_hashed_folder() -> None:
    a, b = names.folder_name("海龍"), names.folder_name("火鳥")
    assert a.startswith("team-") and len(a) == 13 and a != b
    assert names.folder_name("海龍") == a  # stable across runs: resume finds its folders


def test_folder_forms_are_safe() -> None:
    for name in ("Rồng Biển", "a/b\\c", "x" * 40, " spaced  out ", "..", "-vs-", "ё-ж"):
        form = names.folder_name(name)
        assert form and len(form) <= names.MAX_FOLDER
        assert all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in form), form
        assert "-vs-" not in form.lower()


def test_composed_and_decomposed_spellings_are_one_name() -> None:
    composed, decomposed = "Rồng", "Ro\u0302\u0300ng"
    assert names.normalise(decomposed) == composed
    assert names.folder_name(decomposed) == names.folder_name(composed)


def test_name_problems() -> None:
    assert names.name_problem("Rồng Biển") is None
    assert names.name_problem("[bold]x[/]") is None
    assert "visible" in (names.name_problem("   ") or "")
    assert "at most" in (names.name_problem("x" * 41) or "")
    assert "U+0009" in (names.name_problem("a\tb") or "")


def test_match_names_and_folders_made_distinct() -> None:
    assert names.distinct_names(["greedy", "greedy"]) == ["greedy", "greedy-2"]
    assert names.distinct_folders(["Rồng", "Rong"]) == ["Rong", "Rong-2"]
    assert names.match_folder("Rồng Biển", "Cá-Mập") == "Rong_Bien-vs-Ca-Map"
