"""``judge check-bot``: the situations, the diagnoses, and fixture bots through the real sandbox.

Each fixture bot (tests/checkbot/fixtures/flawed_bot.py, copied into a bot
folder per mistake) is a sane bot with one classic mistake; check-bot must
name that mistake.  bots/greedy must pass.  The pure parts (situations,
diagnosis of synthetic runs) are checked without running anything.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.bots import resolve_bot
from judge.checkbot import ERROR, WARNING, RunFacts, battery, check_bot, diagnose
from judge.checkbot.diagnose import patterns
from judge.checkbot.situations import PLACEMENT_SEA, placement_game
from judge.checkbot.trials import SituationResult
from judge.cli import main
from judge.maps import validate_text
from judge.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
LIMITS = Limits(time_s=1.0)


# ------------------------------------------------------------------ situations (pure)


def test_placement_sea_is_a_contest_map_with_isolated_zero_cells() -> None:
    assert validate_text(PLACEMENT_SEA) == []
    g = placement_game()
    zeros = set(g.start_cells())
    assert len(zeros) >= 2
    for i, j in zeros:
        for c in ((i - 1, j - 1), (i + 1, j + 1), (j, i), (j - 1, i - 1), (j + 1, i + 1)):
            assert c == (i, j) or c not in zeros, ((i, j), c)


def test_moving_situations_keep_mistakes_visible() -> None:
    """Off the diagonal (swaps show) and on valid cells; the boat afloat, K as described."""
    for sit in battery():
        g = sit.game
        if sit.placement or sit.follow_up is not None:
            continue
        own = g.position(0)
        assert own is not None and not g.sunk[0]
        assert abs(own[0] - own[1]) >= 2, sit.key
        assert g.grid[g.board.flat(own)] == 0, sit.key
        for c in g.board.neighbours[g.board.flat(own)]:
            i, j = g.board.pos(c)
            # the swapped answer of any legal move is not a legal move
            assert g.classify(0, (j, i)).void, (sit.key, (i, j))
    keys = {s.key: s for s in battery()}
    assert keys["last_turn"].game.turns_left == 1
    assert "15" in keys["treasure"].map_inp().split()
    wreck = keys["wreck"].game
    assert wreck.sunk[1] and wreck.shield[0]
    assert keys["reef"].map_inp().splitlines()[2] == "0 0"
    assert " W " not in keys["reef"].map_inp() and " W " in keys["reef"].map_inp("W")


# ------------------------------------------------------------------ diagnosis (pure)


def facts(
    move: bytes | None = None,
    verdict: str = "OK",
    stdout: bytes = b"",
    stderr: bytes = b"",
    wall: float = 0.02,
    mem: int = 4 << 20,
    misnamed: dict[str, bytes] | None = None,
) -> RunFacts:
    return RunFacts(
        verdict,
        wall,
        wall,
        mem,
        0 if verdict == "OK" else 1,
        None,
        "exited normally" if verdict == "OK" else "exited with code 1",
        stdout,
        stderr,
        move,
        misnamed or {},
    )


def tags(
    sit_key: str, f: RunFacts, previous: tuple[int, int] | None = None
) -> list[tuple[str, str]]:
    sit = {s.key: s for s in battery()}[sit_key]
    return [(x.level, x.tag) for x in diagnose(sit, f, LIMITS, previous).findings]


def test_diagnose_wrong_cells() -> None:
    assert tags("placement", facts(b"1 6\n")) == []
    assert tags("placement", facts(b"0 5\n")) == [(ERROR, "zero_based")]
    assert tags("placement", facts(b"6 1\n")) == [(ERROR, "swapped")]
    assert tags("placement", facts(b"3 3\n")) == [(ERROR, "bad_start")]
    # the boat is at (5, 10) in the reef sea
    assert tags("reef", facts(b"4 10\n")) == []
    assert tags("reef", facts(b"3 9\n")) == [(ERROR, "zero_based")]
    assert tags("reef", facts(b"10 4\n")) == [(ERROR, "swapped")]
    assert tags("reef", facts(b"5 9\n")) == [(WARNING, "reef_entered")]
    assert tags("wreck", facts(b"5 9\n")) == [(WARNING, "wreck_entered")]
    assert tags("reef_shield", facts(b"5 9\n")) == []  # a shield crosses reefs
    assert tags("reef", facts(b"7 3\n")) == [(ERROR, "own_is_opp")]  # next to the other boat (8, 3)
    for corner in (b"4 9\n", b"6 11\n", b"4 11\n", b"6 9\n"):  # diagonals, not slips
        assert tags("reef", facts(corner)) == [(ERROR, "diagonal")], corner
    assert tags("last_turn", facts(b"4 10\n")) == [("advice", "missed_gold")]
    assert tags("treasure", facts(b"5 7\n")) == []
    assert tags("reask", facts(b"1 6\n"), previous=(1, 6)) == [("advice", "same_reask")]
    assert tags("reask", facts(b"2 3\n"), previous=(1, 6)) == []


def test_diagnose_bad_files() -> None:
    assert tags("reef", facts(None, stdout=b"4 10\n")) == [(ERROR, "stdout")]
    assert tags("reef", facts(None, misnamed={"move.out": b"4 10\n"})) == [(ERROR, "misnamed")]
    assert tags("reef", facts(None)) == [(ERROR, "no_move_out")]
    assert tags("reef", facts(b"4 10extra")) == [(ERROR, "trailing")]
    assert tags("reef", facts(b"4 10 debug: 3\n")) == [(ERROR, "trailing")]
    assert tags("reef", facts(b"4 10\r5 9\r")) == [(ERROR, "bare_cr")]
    assert tags("reef", facts(b"4 10\r\n")) == []  # CRLF is fine (R10)
    assert tags("reef", facts(b"\xef\xbb\xbf4 10\n")) == []  # so is a BOM
    assert tags("reef", facts(b"4\n10\n")) == [(ERROR, "two_lines")]
    assert tags("reef", facts(b"(4, 10)\n")) == [(ERROR, "punctuation")]
    assert tags("reef", facts(b"4.0 10.0\n")) == [(ERROR, "decimals")]
    assert tags("reef", facts("4 10\n".encode("utf-16"))) == [(ERROR, "utf16")]
    assert tags("reef", facts(b"")) == [(ERROR, "empty")]
    assert tags("reef", facts(b"\n4 10\n")) == [(ERROR, "empty_first_line")]


def test_diagnose_failed_runs_and_limits() -> None:
    eof = b"Traceback...\n  line = input()\nEOFError: EOF when reading a line\n"
    assert tags("reef", facts(None, "RE", stderr=eof)) == [(ERROR, "stdin")]
    crash = b"ZeroDivisionError: integer division or modulo by zero\n"
    sit = {s.key: s for s in battery()}["last_turn"]
    d = diagnose(sit, facts(None, "RE", stderr=crash), LIMITS)
    assert [f.tag for f in d.findings] == ["crash"] and "ZeroDivisionError" in (
        d.findings[0].cause or ""
    )
    assert tags("reef", facts(b"4 10\n", "TLE", wall=1.0)) == [(ERROR, "tle")]  # no extra warning
    assert tags("reef", facts(b"4 10\n", wall=0.7)) == [(WARNING, "slow")]
    assert tags("reef", facts(b"4 10\n", mem=300 << 20)) == [(WARNING, "memory")]


def test_patterns_name_the_mistake_across_situations() -> None:
    found = patterns(
        [[], [_f("zero_based")], [_f("zero_based"), _f("swapped")], [_f("zero_based")]]
    )
    assert found[0] == ("0-based coordinates", 3, 3)
    assert found[1] == ("i and j swapped", 1, 3)


def _f(tag: str) -> Any:
    from judge.checkbot.diagnose import Finding

    return Finding(ERROR, "r", "c", tag)


# ------------------------------------------------------------------ through the sandbox


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def make_fixture(root: Path, mode: str) -> Path:
    folder = root / mode
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "flawed_bot.py", folder / "bot.py")
    (folder / "bot.yaml").write_text(f"name: {mode}\ncommand: [python3, bot.py, {mode}]\n")
    return folder


@pytest.fixture(scope="module")
def fixtures_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("checkbot-fixtures")


def run_fixture(sandbox: Sandbox, root: Path, mode: str) -> dict[str, SituationResult]:
    bot = resolve_bot(str(make_fixture(root, mode)))
    return {r.situation.key: r for r in check_bot(bot, sandbox, LIMITS)}


def error_tags(r: SituationResult) -> set[str]:
    return {f.tag for f in r.findings if f.level == ERROR}


ALL_KEYS = [s.key for s in battery()]
#: mode -> situations that must show this error tag (the others may pass or fail)
EXPECTED: dict[str, tuple[str, list[str]]] = {
    "zero_based": (
        "zero_based",
        [
            "placement",
            "reask",
            "reef",
            "reef_shield",
            "wreck",
            "treasure",
            "last_turn",
            "largest_placement",
        ],
    ),
    "swapped": (
        "swapped",
        ["placement", "reask", "reef", "reef_shield", "wreck", "treasure", "last_turn"],
    ),
    "stdout": ("stdout", ALL_KEYS),
    "misnamed": ("misnamed", ALL_KEYS),
    "trailing": ("trailing", ALL_KEYS),
    "stdin": ("stdin", ALL_KEYS),
    "expects_w": ("expects_w", ["reef"]),
    "crash": ("crash", ["last_turn"]),
    "slow": ("tle", ["largest_placement"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_fixture_mistake_is_diagnosed(sandbox: Sandbox, fixtures_dir: Path, mode: str) -> None:
    results = run_fixture(sandbox, fixtures_dir, mode)
    assert list(results) == ALL_KEYS
    tag, where = EXPECTED[mode]
    for key in where:
        assert tag in error_tags(results[key]), (key, results[key].findings)
    # the mistake is the top pattern, and nothing else is called an error where it does not apply
    assert patterns([r.findings for r in results.values()])[0][0] in {
        "0-based coordinates",
        "i and j swapped",
        "the move on standard output instead of MOVE.OUT",
        "a misnamed MOVE.OUT",
        "trailing text after the move",
        "reading standard input instead of MAP.INP",
        "W expected instead of D",
        "a crash",
        "too slow",
    }
    for key, r in results.items():
        if key not in where:
            assert error_tags(r) <= {tag}, (key, r.findings)


@pytest.mark.slow
def test_fixture_details(sandbox: Sandbox, fixtures_dir: Path) -> None:
    slow = run_fixture(sandbox, fixtures_dir / "d", "slow")
    assert [f.tag for f in slow["largest_move"].findings] == ["slow"]  # 0.6 s of 1 s: a warning
    assert not error_tags(slow["placement"]) and not error_tags(slow["treasure"])  # fine elsewhere
    crash = run_fixture(sandbox, fixtures_dir / "e", "crash")
    cause = crash["last_turn"].findings[0].cause or ""
    assert "ZeroDivisionError" in cause and crash["last_turn"].facts.verdict == "RE"
    correct = run_fixture(sandbox, fixtures_dir / "f", "correct")
    assert not any(r.level == ERROR for r in correct.values())
    assert [f.tag for f in correct["reask"].findings] == ["same_reask"]  # the advice


@pytest.mark.slow
def test_greedy_passes_and_cli_exit_status(
    capsys: pytest.CaptureFixture[str], fixtures_dir: Path
) -> None:
    code = main(["check-bot", str(ROOT / "bots" / "greedy"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["passed"] is True and report["errors"] == 0
    assert [s["key"] for s in report["situations"]] == ALL_KEYS
    for s in report["situations"]:
        assert s["verdict"] == "OK" and s["target"] is not None and s["result"] in ("ok", "warning")
        assert s["map_inp"].startswith(("7 11 20", "9 13", "15 15"))
    assert report["situations"][1]["target"] != report["situations"][0]["target"]  # re-ask handled

    folder = make_fixture(fixtures_dir / "cli", "swapped")
    code = main(["check-bot", str(folder), "--time-limit", "1", "--show-input"])
    out = capsys.readouterr().out
    assert code == 1
    assert "i and j swapped" in out and "likely cause" in out and "MAP.INP given" in out
    assert "breaks the protocol" in out

    code = main(["check-bot", str(fixtures_dir / "nothing-here")])
    assert code == 2 and "no such bot" in capsys.readouterr().err
