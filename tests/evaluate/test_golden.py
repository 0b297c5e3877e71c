"""``judge eval``'s outputs byte for byte: ``--json``, ``eval.json`` and the tables.

The evaluation is played by in-process bots (``tests/referee/fakes.py``) with
a fixed seed and one job, so every number is the same on every run; only the
``--out`` folder is replaced by a placeholder.  BOT_A's name is Vietnamese, so
the two encodings are both checked: ``--json`` escapes it (``json.dumps``),
``eval.json`` keeps it as UTF-8.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from judge.bots import BotSpec
from judge.cli import main
from judge.pentanomial import SprtVerdict
from judge.records import EvalSummary, RecordError
from judge.views.evalreport import render, sprt_line
from judge.views.tables import print_item
from tests.golden import check, normalise
from tests.referee.fakes import FakeBot, FakeSandbox
from tests.tournament._helpers import fake_greedy

GOLDEN = Path(__file__).parent / "golden"
V010 = Path(__file__).parents[1] / "fixtures" / "v0.1.0"
NAMES = {"rong": "Rồng", "rival": "rival", "flaky": "flaky"}


def _stay(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    """Places on the first 0-cell in reading order, then stays there."""
    tok = map_inp.split()
    m, n = int(tok[0]), int(tok[1])
    if tok[3] == "0":
        cells = tok[9 : 9 + m * n]
        f = cells.index("0")
        return f"{f // n + 1} {f % n + 1}".encode(), b"x", "OK"
    return f"{tok[3]} {tok[4]}".encode(), b"x", "OK"


def _flaky(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    """Cannot be run on maps of K = 10 (the judge abandons those rounds), else stays."""
    if map_inp.split()[2] == "10":
        return None, None, "IE"
    return _stay(map_inp, state)


BOTS: dict[str, FakeBot] = {"Rồng": fake_greedy(0), "rival": fake_greedy(1), "flaky": _flaky}


@pytest.fixture
def fake_eval(monkeypatch: pytest.MonkeyPatch) -> None:
    """``judge eval`` on the fake sandbox: BOT arguments name the fake bots."""

    def resolve_bot(spec: str, bots_dir: object = None, build: bool = True) -> BotSpec:
        return BotSpec(NAMES[spec], f"bots/{spec}", None, ("fake",))

    @contextlib.contextmanager
    def open_sandbox(**options: object) -> Iterator[FakeSandbox]:
        yield FakeSandbox(BOTS)

    monkeypatch.setattr("judge.bots.resolve_bot", resolve_bot)
    monkeypatch.setattr("judge.commands.eval.open_sandbox", open_sandbox)


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    common = ["--sizes", "5,5x7", "--turns", "6,10", "--seed", "7", "--jobs", "1", "--quiet"]
    code = main(["eval", *args, *common])
    return code, capsys.readouterr().out


@pytest.mark.usefixtures("fake_eval")
def test_eval_json_and_out_file_with_an_sprt_are_those_of_the_golden_files(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "kept"
    sprt = ["--sprt", "0", "50", "--max-rounds", "8"]
    code, printed = _eval(capsys, "rong", "rival", *sprt, "--json", "--out", str(out))
    assert code == 0
    volatile = [(str(out), "<OUT>")]
    check(request, GOLDEN, "eval-sprt.stdout.json", normalise(printed, volatile))
    written = (out / "eval.json").read_text(encoding="utf-8")
    check(request, GOLDEN, "eval-sprt.eval.json", normalise(written, volatile))
    check(request, GOLDEN, "eval-sprt.book.txt", (out / "book.txt").read_bytes())
    # the file reads back into the same record, which writes the same bytes
    summary = EvalSummary.from_json(json.loads(written))
    assert json.dumps(summary.to_json(), indent=2, ensure_ascii=False) + "\n" == written
    assert summary.sprt is not None and summary.sprt.verdict is SprtVerdict.INCONCLUSIVE


@pytest.mark.usefixtures("fake_eval")
def test_eval_json_with_abandoned_rounds_is_that_of_the_golden_file(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    code, printed = _eval(capsys, "rong", "flaky", "--rounds", "8", "--json")
    assert code == 3  # the judge abandoned rounds
    check(request, GOLDEN, "eval-abandoned.stdout.json", printed)
    summary = EvalSummary.from_json(json.loads(printed))
    assert json.dumps(summary.to_json(), indent=2) + "\n" == printed
    assert [r.round for r in summary.rounds_aborted] == [3, 4, 7, 8]
    assert summary.pairs is not None and summary.pairs.incomplete == 2


@pytest.mark.usefixtures("fake_eval")
@pytest.mark.parametrize(
    "name, args",
    [
        ("eval-sprt.tables.txt", ["rong", "rival", "--sprt", "0", "50", "--max-rounds", "8"]),
        ("eval-abandoned.tables.txt", ["rong", "flaky", "--rounds", "8"]),
    ],
)
def test_eval_tables_are_those_of_the_golden_files(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], name: str, args: list[str]
) -> None:
    _code, printed = _eval(capsys, *args)
    check(request, GOLDEN, name, printed)


def test_an_eval_json_of_judge_0_1_0_still_loads_and_shows() -> None:
    """0.1.0's eval.json had no pairs, SPRT or book, and its rounds named no pair."""
    text = (V010 / "eval" / "eval.json").read_text(encoding="utf-8")
    summary = EvalSummary.from_json(json.loads(text))
    assert summary.pairs is None and summary.sprt is None and summary.book is None
    assert summary.rounds_played == 4 and summary.result.wins == 4 and summary.maps == 2
    assert [r.pair for r in summary.rounds] == [None] * 4
    assert summary.a.time_ms.max == json.loads(text)["a"]["time_ms"]["max"]
    # what 0.1.0 wrote comes back out unchanged, the keys added since aside
    added = {"book", "wilson95_assumes", "pairs", "sprt"}
    again = {k: v for k, v in summary.to_json().items() if k not in added}
    assert again == json.loads(text)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    for item in render(summary):
        print_item(console, item)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "greedy vs random: 4 rounds (2 maps x 2 seat orders), seed 3" in shown
    assert "no complete pair" in shown and sprt_line(summary, ["a", "b"]) is None


@pytest.mark.parametrize(
    "change, field",
    [
        ({"seed": "7"}, "eval.seed"),
        ({"turns": [6, "x"]}, "eval.turns"),
        ({"result": {"wins": 1}}, "eval.result.draws"),
        ({"sprt": {"verdict": "maybe"}}, "eval.sprt.verdict"),
    ],
)
def test_a_broken_eval_json_is_refused_naming_the_field(
    change: dict[str, object], field: str
) -> None:
    data = json.loads((GOLDEN / "eval-abandoned.stdout.json").read_text(encoding="utf-8"))
    data.update(change)
    with pytest.raises(RecordError, match=field.replace(".", r"\.")):
        EvalSummary.from_json(data)


def test_the_end_reasons_are_one_line_whatever_the_table_width() -> None:
    """In the by-size table's title they wrapped, leaving a lone count on a line of its own."""
    data = json.loads((GOLDEN / "eval-sprt.eval.json").read_text(encoding="utf-8"))
    data["end_reasons"] = {"both_sunk": 3, "gold_gap": 36, "turns": 10}
    console = Console(file=io.StringIO(), width=80, color_system=None)
    for item in render(EvalSummary.from_json(data)):
        print_item(console, item)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert "end reasons: both_sunk 3, gold_gap 36, turns 10" in lines
    assert not any(line.strip() == "10" for line in lines)
