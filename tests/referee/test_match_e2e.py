"""End-to-end matches through the real protocol and sandbox, with scripted bots.

Each scripted bot is a real program (tests/referee/scripted_bot.py) run by
``judge match`` in the sandbox; it plays the moves listed in its script.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.cli import main

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

HERE = Path(__file__).parent

# 7x7 scenario sea (deliberately not a contest map: --allow-invalid-map).
SEA = """7 7 {k}
0 0 0 0 0 0 0
0 D 0 S 0 D 0
0 0 3 0 3 0 0
0 0 0 0 0 0 0
0 0 3 0 3 0 0
0 D 0 0 0 D 0
0 0 0 0 0 0 0
"""


def make_bot(root: Path, name: str, script: list[str]) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    shutil.copy(HERE / "scripted_bot.py", folder / "scripted_bot.py")
    (folder / "script.txt").write_text("\n".join(script) + "\n", encoding="utf-8")
    (folder / "bot.yaml").write_text(f"name: {name}\ncommand: [python3, scripted_bot.py]\n")
    return folder


def play(
    tmp_path: Path,
    a: list[str],
    b: list[str],
    sea: str = SEA,
    k: int = 20,
    extra: tuple[str, ...] = (),
    out_name: str = "out",
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    bots = tmp_path / "bots"
    if not (bots / "a").exists():
        make_bot(bots, "a", a)
        make_bot(bots, "b", b)
    map_file = tmp_path / "sea.txt"
    map_file.write_text(sea.format(k=k))
    out = tmp_path / out_name
    code = main(
        [
            "match",
            str(bots / "a"),
            str(bots / "b"),
            "--map",
            str(map_file),
            "--allow-invalid-map",
            "--seed",
            "5",
            "--out",
            str(out),
            "--quiet",
            "--time-limit",
            "1",
            *extra,
        ]
    )
    assert code == 0
    result = json.loads((out / "result.json").read_text())
    lines = (out / "round-1" / "replay.jsonl").read_text().splitlines()
    return result, [json.loads(x) for x in lines]


def sinks(rec: dict[str, Any]) -> list[tuple[int, str, list[int]]]:
    return [(e["seat"], e["cause"], e["pos"]) for e in rec["events"] if e["kind"] == "sink"]


def test_r3_same_destination_sinks_both(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 1", "1 2"], ["1 3", "1 2"])
    rnd = result["rounds"][0]
    assert rnd["end_reason"] == "both_sunk" and rnd["turns_played"] == 2
    assert rnd["sunk"] == [True, True] and rnd["positions"] == [[1, 2], [1, 2]]
    assert sinks(turns[-1]) == [(0, "collision", [1, 2]), (1, "collision", [1, 2])]
    assert rnd["points"] == [0, 0] and rnd["winner"] is None


def test_r3_move_onto_staying_boat_sinks_both(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 1", "1 2"], ["1 2", "-"])
    rnd = result["rounds"][0]
    assert rnd["sunk"] == [True, True] and rnd["positions"] == [[1, 2], [1, 2]]
    assert turns[-1]["move_status"] == ["moved", "no_move_out"]


def test_r4_swap_sinks_both_on_their_own_cells(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["4 3", "4 4"], ["4 4", "4 3"])
    rnd = result["rounds"][0]
    assert rnd["positions"] == [[4, 3], [4, 4]] and rnd["sunk"] == [True, True]
    assert sinks(turns[-1]) == [(0, "swap", [4, 3]), (1, "swap", [4, 4])]


def test_r6_reef_sinks_and_r5_wreck_sinks_r11_sunk_not_run(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 2", "2 2"], ["3 1", "3 1", "2 1", "2 2"])
    rnd = result["rounds"][0]
    assert rnd["end_reason"] == "both_sunk"
    assert sinks(turns[2]) == [(0, "reef", [2, 2])]
    assert sinks(turns[-1]) == [(1, "wreck", [2, 2])]
    # R11: the sunk boat's program is not run any more.
    for rec in turns[3:]:
        assert rec["verdicts"][0] is None and rec["move_status"][0] == "sunk"


def test_r6_shield_floats_on_reef_and_reef_stays(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 4", "2 4", "2 5", "2 6", "1 6"], ["7 7", "-"], k=6)
    rnd = result["rounds"][0]
    assert rnd["shield"] == [True, False] and rnd["sunk"] == [False, False]
    assert rnd["positions"][0] == [1, 6]
    assert turns[4]["positions"][0] == [2, 6]
    assert turns[-1]["grid"][1].split()[5] == "D"  # the reef is still there
    assert turns[-1]["grid"][1].split()[3] == "0"  # the shield cell became 0


def test_treasure_appears_and_is_collected(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["3 2", "3 3", "3 4", "4 4"], ["7 7", "-"], k=4)
    rnd = result["rounds"][0]
    # after turn 2 = K/2: gap 3 -> treasure floor(9/4) = 2 on the centre
    assert any(
        e["kind"] == "treasure" and e["value"] == 2 and e["pos"] == [4, 4]
        for e in turns[2]["events"]
    )
    assert rnd["treasure"] == {"value": 2, "collected_by": 0}
    assert rnd["gold"] == [5, 0] and rnd["winner"] == 0 and rnd["points"] == [20, 0]


def test_half_time_gap_over_20_ends_the_round(tmp_path: Path) -> None:
    sea = SEA.replace("0 0 3 0 3 0 0\n0 0 0", "0 0 25 0 3 0 0\n0 0 0", 1)
    result, turns = play(tmp_path, ["3 2", "3 3", "3 4"], ["7 7", "-"], sea=sea, k=6)
    rnd = result["rounds"][0]
    assert rnd["end_reason"] == "gold_gap" and rnd["turns_played"] == 3
    assert rnd["treasure"] is None and rnd["gold"] == [25, 0]


def test_reasks_then_random_placement(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 1"], ["1 1"], k=4)
    place = turns[1]
    assert place["turn"] == 1 and len(place["attempts"]) == 4
    assert [a["reask"] for a in place["attempts"]] == [True, True, True, False]
    assert place["random_placed"] == [True, True]
    p0, p1 = place["positions"]
    assert p0 != p1
    # a re-ask gives the same MAP.INP, and STATE.OUT is kept (the counter went on)
    assert turns[2]["turns_left"] == 3


def test_reask_resolved_when_one_bot_changes(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["1 1", "1 1"], ["1 1", "7 7"], k=4)
    place = turns[1]
    assert len(place["attempts"]) == 2 and place["random_placed"] == [False, False]
    assert place["positions"] == [[1, 1], [7, 7]]


def test_invalid_start_is_placed_at_random(tmp_path: Path) -> None:
    result, turns = play(tmp_path, ["2 2", "-"], ["7 7", "-"], k=4)
    place = turns[1]
    assert place["move_status"] == ["invalid_start", "placed"]
    assert place["random_placed"] == [True, False]
    assert place["positions"][1] == [7, 7] and place["positions"][0] != [7, 7]


def test_r10_failed_runs(tmp_path: Path) -> None:
    script = [
        "1 1",  # 1 placement
        "-",  # 2 no MOVE.OUT
        "!crash 1 2",  # 3 exit 3 after writing a move: void
        "!sleep 3 1 2",  # 4 time limit: void
        "!hex fffe00",  # 5 garbage bytes
        "1 2 3",  # 6 three numbers
        "a b",  # 7 words
        "9 9",  # 8 outside
        "3 3",  # 9 not adjacent
        "!stdout 1 2",  # 10 the move on stdout
        "!segv",  # 11 signal
        "!mem 300 1 2",  # 12 over the memory limit
        "!hex efbbbf2020312009320d0a",  # 13 BOM, spaces, tab, CRLF: accepted
        "1 3",  # 14 a normal move still works after all that
    ]
    result, turns = play(
        tmp_path, script, ["7 7", "-"], k=14, extra=("--memory-limit", "128", "--time-limit", "0.7")
    )
    got = [(t["verdicts"][0], t["move_status"][0]) for t in turns[2:]]
    assert got == [
        ("OK", "no_move_out"),
        ("RE", "run_failed"),
        ("TLE", "run_failed"),
        ("OK", "unreadable"),
        ("OK", "not_two_integers"),
        ("OK", "not_two_integers"),
        ("OK", "outside"),
        ("OK", "not_adjacent"),
        ("OK", "no_move_out"),
        ("RE", "run_failed"),
        ("MLE", "run_failed"),
        ("OK", "moved"),
        ("OK", "moved"),
    ]
    # Why each move was void, kept in the replay for the views and the summary.
    assert [t["why"][0] for t in turns[2:]] == [
        "no_move_out",
        "crashed",
        "time_limit",
        "unreadable",
        "not_two_integers",
        "not_two_integers",
        "outside",
        "not_adjacent",
        "move_on_stdout",
        "crashed",
        "memory_limit",
        None,
        None,
    ]
    assert result["rounds"][0]["stats"][0]["why_void"]["crashed"] == 2
    log = (tmp_path / "out" / "round-1" / "log.txt").read_text(encoding="utf-8")
    assert "void: no MOVE.OUT — the move was printed on standard output" in log
    for code in ("run_failed", "no_move_out", "not_two_integers", "move_on_stdout"):
        assert code not in log, code
    positions = [t["positions"][0] for t in turns[1:]]
    assert positions[:12] == [[1, 1]] * 12  # every void move left the boat in place
    assert positions[12] == [1, 2] and positions[13] == [1, 3]
    stderr_log = (tmp_path / "out" / "round-1" / "a" / "stderr.log").read_text()
    assert "turn 3: RE" in stderr_log


def test_r15_state_out_starts_absent_each_round(tmp_path: Path) -> None:
    """The scripted bot counts its runs in STATE.OUT: round 2 must start again from line 1."""
    bots = tmp_path / "bots"
    make_bot(bots, "a", ["1 1", "1 2", "1 3", "1 4"])
    make_bot(bots, "b", ["7 7", "7 6", "7 5", "7 4"])
    sea = tmp_path / "sea.txt"
    sea.write_text(SEA.format(k=4))
    out = tmp_path / "out"
    assert (
        main(
            [
                "match",
                str(bots / "a"),
                str(bots / "b"),
                "--map",
                str(sea),
                "--map",
                str(sea),
                "--allow-invalid-map",
                "--seed",
                "1",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    result = json.loads((out / "result.json").read_text())
    assert [r["positions"] for r in result["rounds"]] == [[[1, 4], [7, 4]]] * 2


def _strip_timings(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {
            k: _strip_timings(v)
            for k, v in obj.items()
            if k not in ("stats", "wall_ms", "cpu_ms", "wait_ms", "mem_mb")
        }
    if isinstance(obj, list):
        return [_strip_timings(v) for v in obj]
    return obj


def test_same_seed_same_result(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    outs = []
    for name in ("one", "two"):
        out = tmp_path / name
        code = main(
            [
                "match",
                "random",
                "random",
                "--map",
                str(root / "maps" / "m2.txt"),
                "--seed",
                "11",
                "--out",
                str(out),
                "--quiet",
                "--bots-dir",
                str(root / "bots"),
            ]
        )
        assert code == 0
        outs.append(out)
    r1, r2 = (json.loads((o / "result.json").read_text()) for o in outs)
    assert _strip_timings(r1) == _strip_timings(r2)
    rp1, rp2 = (
        [
            _strip_timings(json.loads(x))
            for x in (o / "round-1" / "replay.jsonl").read_text().splitlines()[1:]
        ]
        for o in outs
    )
    assert rp1 == rp2
    assert r1["teams"] == ["random", "random-2"]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["match", "no_such_bot", "random", "--map", "m1"], "no such bot"),
        (["match", "random", "random", "--map", "no_such_map"], "no such map"),
        (["match", "random", "random", "--map", "m1", "--turns", "7"], "--turns 7"),
        (["match", "random", "random", "--map", "m1", "--time-limit", "nan"], "--time-limit nan"),
        (["match", "random", "random", "--map", "m1", "--out", "/proc/no/such"], "cannot write"),
    ],
)
def test_bad_arguments_give_a_message(argv: list[str], needle: str, capsys: Any) -> None:
    root = Path(__file__).resolve().parents[2]
    argv = argv + ["--bots-dir", str(root / "bots"), "--maps-dir", str(root / "maps")]
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_map_inp_can_be_opened_read_write(tmp_path: Path) -> None:
    """Pascal's default file mode and C's "r+" open MAP.INP for writing too: that must work."""
    bot = tmp_path / "rw.py"
    bot.write_text(
        '#!/usr/bin/env python3\nwith open("MAP.INP", "r+") as f:\n    f.read()\n'
        'open("MOVE.OUT", "w").write("1 1\\n")\n'
    )
    bot.chmod(0o755)
    sea = tmp_path / "sea.txt"
    sea.write_text(SEA.format(k=4))
    out = tmp_path / "out"
    make_bot(tmp_path / "bots", "b", ["7 7", "-"])
    assert (
        main(
            [
                "match",
                str(bot),
                str(tmp_path / "bots" / "b"),
                "--map",
                str(sea),
                "--allow-invalid-map",
                "--seed",
                "1",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    turns = [json.loads(x) for x in (out / "round-1" / "replay.jsonl").read_text().splitlines()[1:]]
    assert all(t["verdicts"][0] == "OK" for t in turns)


def test_out_folder_must_be_new_or_empty(tmp_path: Path, capsys: Any) -> None:
    root = Path(__file__).resolve().parents[2]
    base = [
        "match",
        "random",
        "random",
        "--map",
        "m1",
        "--bots-dir",
        str(root / "bots"),
        "--maps-dir",
        str(root / "maps"),
        "--quiet",
        "--seed",
        "1",
    ]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(base + ["--out", str(a_file)]) == 2
    assert "is a file" in capsys.readouterr().err
    used = tmp_path / "used"
    assert main(base + ["--out", str(used)]) == 0
    result = json.loads((used / "result.json").read_text())
    assert result["complete"] is True and result["rounds_planned"] == 1
    assert main(base + ["--out", str(used)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_sigterm_keeps_finished_rounds_marked_incomplete(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    import psutil

    bots = tmp_path / "bots"
    make_bot(bots, "a", ["1 1"] + ["!sleep 0.3 1 2", "!sleep 0.3 1 1"] * 10)
    make_bot(bots, "b", ["7 7"] + ["!sleep 0.3 7 6", "!sleep 0.3 7 7"] * 10)
    sea = tmp_path / "sea.txt"
    sea.write_text(SEA.format(k=6))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judge",
            "match",
            str(bots / "a"),
            str(bots / "b"),
            "--map",
            str(sea),
            "--map",
            str(sea),
            "--allow-invalid-map",
            "--seed",
            "2",
            "--out",
            str(out),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if len(json.loads((out / "result.json").read_text())["rounds"]) == 1:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    time.sleep(0.5)  # well inside round 2
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    result = json.loads((out / "result.json").read_text())
    assert len(result["rounds"]) == 1 and result["complete"] is False
    assert result["rounds_planned"] == 2
    time.sleep(0.2)
    leftovers = [
        p
        for p in psutil.process_iter(["cmdline"])
        if any("scripted_bot.py" in c for c in (p.info["cmdline"] or []))
        and str(tmp_path) in " ".join(p.info["cmdline"] or [])
        or any(str(bots) in c for c in (p.info["cmdline"] or []))
    ]
    assert not [p for p in leftovers if p.pid != os.getpid()]
