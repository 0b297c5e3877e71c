"""``judge replay``: the board of a saved round, stepping, HTML, and its error messages."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main
from judge.views.html import write_index_html


@pytest.fixture(autouse=True)
def _fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "50")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    """Text with rich's line wrapping undone (any run of whitespace is one space)."""
    return " ".join(text.split())


def test_default_is_round_1_at_its_last_turn_with_summary(
    match_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(match_dir))
    assert code == 0 and err == ""
    assert "\x1b" not in out
    assert "round 1 of 2: maps/small.txt" in out
    assert "turn 20/20" in out
    assert "alpha vs beta" in out  # the match table
    assert "round 1 on maps/small.txt: alpha wins, gold 23-0, points 20-0" in flat(out)
    assert "match points: alpha" in out


def test_round_and_turn(
    match_dir: Path, capsys: pytest.CaptureFixture[str], big: list[dict[str, Any]]
) -> None:
    code, out, _ = run(capsys, str(match_dir), "--round", "2", "--turn", "5")
    assert code == 0
    assert "turn 5/40" in out and "round 2 of 2: maps/big15.txt" in out
    rec = big[5]
    assert rec["turn"] == 5
    a, b = rec["positions"]
    lines = out.splitlines()
    top = next(k for k, x in enumerate(lines) if x.split()[:3] == ["1", "2", "3"])
    assert lines[top + a[0]][3 + 3 * (a[1] - 1) :][:3].strip("[] ") == "A"
    assert lines[top + b[0]][3 + 3 * (b[1] - 1) :][:3].strip("[] ") == "B"


def test_a_single_replay_file(match_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(match_dir / "round-1" / "replay.jsonl"), "--turn", "3")
    assert code == 0
    assert "beta sank on a reef at (6,4)" in out
    assert (
        "round 1 on maps/small.txt: alpha wins, gold 23-0, points 20-0, 20/20 turns, ended by turns"
    ) in flat(out)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{dir}", "--turn", "99"], r"round 1 has no turn 99: its turns are 1\.\.20"),
        (["{dir}", "--turn", "0"], r"has no turn 0"),
        (["{dir}", "--round", "5"], r"has no round 5 \(rounds: 1, 2\)"),
        (["{dir}/nope"], r"nope: no such file or folder"),
        (["{dir}/round-1/replay.jsonl", "--html", "x.html", "--step"], r"use one of them"),
    ],
)
def test_errors_exit_2_with_a_message(
    match_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *[a.format(dir=match_dir) for a in argv])
    assert code == 2
    assert re.search(message, flat(err)), err
    assert "Traceback" not in err + out and err.startswith("judge replay:")


def test_corrupt_replay_exit_2(match_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = match_dir / "round-2" / "replay.jsonl"
    lines = f.read_text().splitlines()
    lines[7] = lines[7][:-20]
    f.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, str(match_dir))
    assert code == 2
    assert "round-2/replay.jsonl, line 8: not valid JSON" in flat(err)


def test_wrong_schema_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "replay.jsonl"
    f.write_text(json.dumps({"type": "header", "schema": 9}) + "\n")
    code, _, err = run(capsys, str(f))
    assert code == 2 and "replay schema 9 was written by a newer judge" in flat(err)


def test_step_forward_back_jump_and_quit(
    match_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nb\n15\nxyz\n99\nq\n"))
    code, out, _ = run(capsys, str(match_dir), "--turn", "3", "--step")
    assert code == 0
    shown = [int(m) for m in re.findall(r"turn (\d+)/20", out)]
    assert shown == [3, 4, 5, 4, 15, 15, 15]
    assert "'xyz': Enter = next" in flat(out)
    assert "no turn 99: the turns are 1..20" in flat(out)
    assert out.count("Enter: next, b: back") == 7
    assert "round 1 on maps/small.txt: alpha wins" in flat(out)  # the summary after quitting


def test_step_starts_at_turn_1_unless_told(
    match_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stepping starts at the beginning of the round, not at its last turn."""
    monkeypatch.setattr("sys.stdin", io.StringIO("\nq\n"))
    code, out, _ = run(capsys, str(match_dir), "--step")
    assert code == 0
    assert [int(m) for m in re.findall(r"turn (\d+)/20", out)] == [1, 2]
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, _ = run(capsys, str(match_dir), "--step", "--turn", "7")
    assert [int(m) for m in re.findall(r"turn (\d+)/20", out)] == [7]


def test_a_tournament_folder_lists_its_matches(
    match_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tournament = tmp_path / "final"
    tournament.mkdir()
    shutil.copytree(match_dir, tournament / "Rong_Bien-vs-Ca-Map")
    result = json.loads((match_dir / "result.json").read_text())
    result["teams"] = ["Rồng Biển", "Cá-Mập"]
    (tournament / "Rong_Bien-vs-Ca-Map" / "result.json").write_text(
        json.dumps(result, ensure_ascii=False), encoding="utf-8"
    )
    shutil.copytree(match_dir, tournament / "alpha-vs-beta")
    (tournament / "ledger.sqlite").write_bytes(b"")
    code, out, err = run(capsys, str(tournament))
    assert code == 0 and err == ""
    text = flat(out)
    assert f"{tournament} is a tournament folder with 2 matches" in text
    assert f"judge replay {tournament}/MATCH" in text
    lines = out.splitlines()
    row = next(line for line in lines if line.startswith("Rong_Bien-vs-Ca-Map"))
    assert "Rồng Biển vs Cá-Mập" in row and "2/2" in row
    assert any(line.startswith("alpha-vs-beta") for line in lines)


def test_step_at_the_ends_and_end_of_input(
    match_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("b\n20\n\n"))
    code, out, _ = run(capsys, str(match_dir), "--turn", "1", "--step")
    assert code == 0
    assert "turn 1 is the first turn" in flat(out)
    assert "turn 20 is the last turn" in flat(out)


def test_html_file(
    match_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    eventful: list[dict[str, Any]],
) -> None:
    out_file = tmp_path / "usb" / "final.html"
    code, out, _ = run(capsys, str(match_dir), "--html", str(out_file))
    assert code == 0 and "wrote" in out and "2 rounds" in out
    page = out_file.read_text()
    data = _embedded(page)
    assert [r["index"] for r in data["rounds"]] == [1, 2]
    frames = data["rounds"][0]["frames"]
    assert [f["turn"] for f in frames] == [r["turn"] for r in eventful[1:]]
    for f, rec in zip(frames, eventful[1:], strict=False):
        assert f["positions"] == rec["positions"] and f["gold"] == rec["gold"]
        assert f["grid"] == [row.split() for row in rec["grid"]]
    assert "beta sank on a reef at (6,4)" in frames[2]["text"]
    _self_contained(page)


def test_html_one_round_and_start_turn(
    match_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "r2.html"
    code, out, _ = run(
        capsys, str(match_dir), "--round", "2", "--turn", "12", "--html", str(out_file)
    )
    assert code == 0 and "1 round)" in out
    data = _embedded(out_file.read_text())
    assert [r["index"] for r in data["rounds"]] == [2]
    assert data["start"] == {"round": 2, "turn": 12}
    code, _, err = run(capsys, str(match_dir), "--turn", "77", "--html", str(out_file))
    assert code == 2 and "no turn 77" in flat(err)


def test_html_cannot_break_out_of_its_script_tag(
    match_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    res = json.loads((match_dir / "result.json").read_text())
    evil = "</script><script>alert(1)</script>{{JS}}&amp;"
    res["teams"][0] = evil
    (match_dir / "result.json").write_text(json.dumps(res))
    for f in (match_dir / "round-1" / "replay.jsonl", match_dir / "round-2" / "replay.jsonl"):
        lines = [json.loads(x) for x in f.read_text().splitlines()]
        lines[0]["teams"][0] = evil
        f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out_file = tmp_path / "evil.html"
    assert run(capsys, str(match_dir), "--html", str(out_file))[0] == 0
    page = out_file.read_text()
    assert page.count("</script>") == 2  # the data block and the code block, nothing else
    assert _embedded(page)["teams"][0] == evil


def test_index_html(match_dir: Path, tmp_path: Path) -> None:
    standings = [
        {"team": "alpha", "points": 20, "won": 1, "gold": 23},
        {"team": "beta", "points": 20, "won": 1, "gold": 38},
    ]
    (tmp_path / "broken").mkdir()
    matches = [
        {"dir": str(match_dir)},
        {"dir": "never-played", "title": "gamma vs delta"},
        {"dir": "broken"},
    ]
    index = write_index_html(tmp_path, standings, matches, title="Final <2025>")
    page = index.read_text()
    assert index == tmp_path / "index.html"
    assert "Final &lt;2025&gt;" in page
    assert re.search(r"<th>team</th><th>points</th><th>won</th><th>gold</th>", page)
    assert '<tr data-rank="1"><td>1</td><td>alpha</td><td>20</td><td>1</td><td>23</td></tr>' in page
    links = re.findall(r'href="([^"]+)"', page)
    assert links == ["match/replay.html", "match/round-1/replay.html", "match/round-2/replay.html"]
    for link in links:
        assert (tmp_path / link).is_file()
    assert 'gamma vs delta: <span class="why">not played yet' in page
    round_page = (match_dir / "round-2" / "replay.html").read_text()
    assert _embedded(round_page)["back"] == "../../index.html"
    assert _embedded((match_dir / "replay.html").read_text())["back"] == "../index.html"
    assert 'broken: <span class="why">' in page and "not a match folder" in page
    _self_contained(page)


def _embedded(page: str) -> Any:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m, "no embedded replay data"
    return json.loads(m.group(1))


def _self_contained(page: str) -> None:
    """Nothing that a browser would fetch: no src/href to the network, no @import or url()."""
    assert not re.search(r"https?://", page)
    assert not re.search(r"\bsrc\s*=", page)
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page
