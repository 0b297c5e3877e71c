"""``judge eval``'s outputs byte for byte: ``--json``, ``eval.json`` and the tables.

The evaluation is played by in-process bots (``tests/referee/fakes.py``) with
a fixed seed and one job, so every number is the same on every run; only the
``--out`` folder is replaced by a placeholder.  BOT_A's name is Vietnamese, so
the two encodings are both checked: ``--json`` escapes it (``json.dumps``),
``eval.json`` keeps it as UTF-8.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.bots import BotSpec
from judge.cli import main
from tests.golden import check, normalise
from tests.referee.fakes import FakeBot, FakeSandbox
from tests.tournament._helpers import fake_greedy

GOLDEN = Path(__file__).parent / "golden"
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


@pytest.mark.usefixtures("fake_eval")
def test_eval_json_with_abandoned_rounds_is_that_of_the_golden_file(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    code, printed = _eval(capsys, "rong", "flaky", "--rounds", "8", "--json")
    assert code == 3  # the judge abandoned rounds
    check(request, GOLDEN, "eval-abandoned.stdout.json", printed)


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
