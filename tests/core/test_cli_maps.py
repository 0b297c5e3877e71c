"""``judge validate`` and ``judge genmap`` from the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge import atomic
from judge.cli import main
from judge.mapgen import generate_map
from judge.maps import format_map, validate_text

from .test_maps import DIAG7, ORIGINAL_EXAMPLE, VALID7


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------------ validate


def test_validate_valid_map_prints_ok_with_size_k_and_axis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = write(tmp_path / "v7.txt", VALID7)
    d = write(tmp_path / "d7.txt", DIAG7)
    code, out, err = run(capsys, "validate", m, d)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"{m}: ok (7x7, K=20, axis: col)",
        f"{d}: ok (7x7, K=30, axis: diag)",
    ]


def test_validate_names_every_broken_limit_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ex = write(tmp_path / "example.txt", ORIGINAL_EXAMPLE)
    code, out, _ = run(capsys, "validate", ex)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{ex}: invalid (5 problems)"
    assert "  - row 4 has 12 cells, expected 13" in lines
    assert "  - cell (4,12) holds 9 gold; a cell holds 1..5 (or 0)" in lines
    assert "  - the gold adds up to 74; it must be exactly 100" in lines
    assert "  - the map has 0 S cells (none); it must have exactly 2" in lines


def test_validate_exit_status_is_0_only_if_all_maps_are_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path / "good.txt", VALID7)
    bad = write(tmp_path / "bad.txt", VALID7.replace("7 7 20", "7 7 21"))
    code, out, _ = run(capsys, "validate", good, bad, good)
    assert code == 1
    assert out.splitlines() == [
        f"{good}: ok (7x7, K=20, axis: col)",
        f"{bad}: invalid (1 problem)",
        "  - K (turns) is 21; it must be even and in 2..100",
        f"{good}: ok (7x7, K=20, axis: col)",
    ]


def test_validate_unreadable_inputs_get_clear_messages_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = write(tmp_path / "empty.txt", "")
    binary = tmp_path / "bin.dat"
    binary.write_bytes(bytes(range(256)))
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"7 7 20\n\xe9\n")
    words = write(tmp_path / "words.txt", "hello world\nthis is not a map\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    missing = tmp_path / "missing.txt"
    code, out, err = run(
        capsys, "validate", empty, str(binary), str(latin), words, str(folder), str(missing)
    )
    assert code == 1 and "Traceback" not in out + err
    lines = out.splitlines()
    assert f"{empty}: invalid (1 problem)" in lines
    assert "  - the file is empty; line 1 should be 'M N K'" in lines
    assert f"{binary}: cannot check: it is a binary file, not a map file" in lines
    assert f"{latin}: cannot check: it is not a text file (not UTF-8)" in lines
    assert any(ln.startswith("  - line 1 is 'hello world'") for ln in lines)
    assert f"{folder}: cannot check: it is a folder, not a map file" in lines
    assert f"{missing}: cannot check: no such file" in lines


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_validate_unreadable_permissions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "secret.txt"
    p.write_text(VALID7)
    p.chmod(0)
    code, out, _ = run(capsys, "validate", str(p))
    assert code == 1 and "cannot check: cannot be read" in out


def test_validate_finds_names_in_the_maps_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "m1.txt").write_text(VALID7)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "validate", "m1")
    assert code == 0 and out == "m1: ok (7x7, K=20, axis: col)\n"


def test_validate_needs_at_least_one_map(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2


def test_validate_as_a_real_process_prints_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"\x00\xff" * 100)
    r = subprocess.run(
        [sys.executable, "-m", "judge", "validate", str(tmp_path / "bin"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stdout + r.stderr
    assert "cannot check" in r.stdout


# ------------------------------------------------------------------ genmap


def test_genmap_prints_a_valid_map(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "genmap", "--rows", "7", "--cols", "9", "--seed", "5")
    assert code == 0 and err == ""
    assert out == format_map(generate_map(7, 9, 40, seed=5))
    assert validate_text(out) == []
    assert out.splitlines()[0] == "7 9 40"


def test_genmap_honours_turns_danger_and_axis(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "genmap",
        "--rows",
        "5",
        "--cols",
        "5",
        "--turns",
        "2",
        "--seed",
        "1",
        "--danger",
        "0",
        "--axis",
        "row",
    )
    assert code == 0
    assert out == format_map(generate_map(5, 5, 2, seed=1, danger=0.0, axis="row"))
    rows = out.splitlines()[1:]
    assert rows == rows[::-1] and "D" not in out


def test_genmap_same_seed_same_map(capsys: pytest.CaptureFixture[str]) -> None:
    a = run(capsys, "genmap", "--rows", "15", "--cols", "15", "--seed", "77")[1]
    b = run(capsys, "genmap", "--rows", "15", "--cols", "15", "--seed", "77")[1]
    assert a == b


def test_genmap_default_seed_is_fresh_and_printed_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen = {}
    for _ in range(3):
        code, out, err = run(capsys, "genmap", "--rows", "9", "--cols", "9")
        assert code == 0 and validate_text(out) == []
        seed = err.split("seed ", 1)[1].split()[0]
        assert err.strip() == f"judge genmap: seed {seed} (--seed {seed} makes this map again)"
        seen[seed] = out
    assert len(seen) >= 2  # fresh seeds
    for seed, text in seen.items():
        assert run(capsys, "genmap", "--rows", "9", "--cols", "9", "--seed", seed)[1] == text


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--rows", "4", "--cols", "4"], "--rows 4"),
        (["--rows", "6", "--cols", "7"], "--rows 6"),
        (["--rows", "7", "--cols", "8"], "--cols 8"),
        (["--rows", "3", "--cols", "5"], "--rows 3"),
        (["--rows", "17", "--cols", "5"], "--rows 17"),
        (["--rows", "5", "--cols", "5", "--turns", "21"], "--turns 21"),
        (["--rows", "5", "--cols", "5", "--turns", "0"], "--turns 0"),
        (["--rows", "5", "--cols", "5", "--turns", "102"], "--turns 102"),
        (["--rows", "5", "--cols", "5", "--danger", "0.5"], "--danger 0.5"),
    ],
)
def test_genmap_refused_requests_exit_2_with_one_line(
    argv: list[str], names: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.txt"
    code, out, err = run(capsys, "genmap", *argv, "-o", str(target))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"judge genmap: refused: {names}:")
    assert not target.exists()


def test_genmap_bad_argument_types_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["--rows", "five", "--cols", "5"],
        ["--cols", "5"],
        ["--rows", "5", "--cols", "5", "--axis", "diag"],
    ):
        with pytest.raises(SystemExit) as info:
            main(["genmap", *argv])
        assert info.value.code == 2


def test_genmap_writes_the_file_atomically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "m.txt"
    target.write_text("old content\n")
    code, out, err = run(
        capsys, "genmap", "--rows", "5", "--cols", "7", "--seed", "3", "-o", str(target)
    )
    assert code == 0 and out == ""
    assert target.read_text() == format_map(generate_map(5, 7, 40, seed=3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.txt"]  # no temp file left
    assert "wrote" in err and "seed 3" in err
    mode = target.stat().st_mode & 0o777
    assert mode & 0o644 == 0o644 or mode & 0o600 == 0o600


def test_genmap_output_in_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(
        capsys, "genmap", "--rows", "5", "--cols", "5", "--seed", "1", "-o", "here.txt"
    )
    assert code == 0 and validate_text((tmp_path / "here.txt").read_text()) == []


def test_genmap_failed_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "m.txt"
    target.write_text("old content\n")

    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    code, out, err = run(
        capsys, "genmap", "--rows", "5", "--cols", "5", "--seed", "1", "-o", str(target)
    )
    assert code == 1
    assert err.strip() == f"judge genmap: cannot write {target}: No space left on device"
    assert target.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.txt"]


def test_genmap_unwritable_destinations_get_clear_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder\n")
    target = blocker / "m.txt"
    code, _, err = run(
        capsys, "genmap", "--rows", "5", "--cols", "5", "--seed", "1", "-o", str(target)
    )
    assert code == 1 and err.startswith(f"judge genmap: cannot write {target}: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    code, _, err = run(
        capsys, "genmap", "--rows", "5", "--cols", "5", "--seed", "1", "-o", str(tmp_path)
    )
    assert code == 1 and err.strip() == f"judge genmap: cannot write {tmp_path}: it is a folder"


def test_genmap_creates_missing_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "new" / "maps" / "m.txt"
    code, _, _ = run(
        capsys, "genmap", "--rows", "5", "--cols", "5", "--seed", "1", "-o", str(target)
    )
    assert code == 0 and validate_text(target.read_text()) == []


def test_genmap_output_validates_with_the_validate_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for rows, cols in [(5, 5), (15, 15), (7, 13)]:
        p = tmp_path / f"g{rows}x{cols}.txt"
        assert (
            run(
                capsys,
                "genmap",
                "--rows",
                str(rows),
                "--cols",
                str(cols),
                "--seed",
                "9",
                "-o",
                str(p),
            )[0]
            == 0
        )
        paths.append(str(p))
    code, out, _ = run(capsys, "validate", *paths)
    assert code == 0 and out.count(": ok (") == 3


def test_commands_are_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "validate" in out and "genmap" in out
