"""The command layer: one table of limits, one way to fail, errors with their exit status, a
command line that starts without loading what only a run needs."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge import errors
from judge.bots import BotError
from judge.checkbot.trials import CheckAborted
from judge.cli import COMMANDS, main
from judge.commands.options import add_limit_options, jobs_from, limits_from
from judge.evaluate import EvalError
from judge.league.run import LeagueError
from judge.mapgen import GenerateError
from judge.maps import MapError
from judge.records import RecordError
from judge.referee import RoundAborted, RoundStopped
from judge.rules import NoRoomToStart
from judge.settings import JOBS, MEMORY_LIMIT_MB, TIME_LIMIT_S
from judge.tournament.config import ConfigError
from judge.tournament.ledger import LedgerError
from judge.tournament.play import TournamentError
from tests.tournament._helpers import config_dict, write_config


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_limit_options(p)
    return p.parse_args(list(argv))


def test_limit_options_are_checked_against_the_one_table() -> None:
    lim = limits_from(_args())
    assert (
        lim.time_s == TIME_LIMIT_S.contest and lim.memory_bytes == MEMORY_LIMIT_MB.contest * 2**20
    )
    assert limits_from(_args("--time-limit", "0")).time_s is None  # lifted, for debugging
    for argv, message in (
        (("--time-limit", "nan"), "--time-limit nan: give seconds from 0 (no limit) to 60"),
        (("--time-limit", "61"), "--time-limit 61.0"),
        (("--memory-limit", "16385"), "--memory-limit 16385: give MiB from 16 to 16384"),
    ):
        with pytest.raises(
            errors.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")
        ):
            limits_from(_args(*argv))
    with pytest.raises(errors.UsageError, match=r"check-bot always measures"):
        limits_from(_args("--time-limit", "0"), needs_time_limit="check-bot always measures")
    assert jobs_from(None, 3) == 3 and jobs_from(JOBS.high) == JOBS.high
    with pytest.raises(errors.UsageError, match=r"--jobs 0: give 1 to 256"):
        jobs_from(0)


@pytest.mark.parametrize(
    ("key", "ok", "refused"),
    [
        ("memory_limit_mb", MEMORY_LIMIT_MB.high, MEMORY_LIMIT_MB.high + 1),
        ("time_limit", TIME_LIMIT_S.high, TIME_LIMIT_S.high + 0.5),
        ("jobs", JOBS.high, JOBS.high + 1),
    ],
)
def test_the_tournament_configuration_uses_the_same_table(
    tmp_path: Path, key: str, ok: float, refused: float
) -> None:
    from judge.tournament.config import load_config

    assert (
        getattr(load_config(write_config(tmp_path / "a", config_dict(3, **{key: ok}))), key) == ok
    )
    with pytest.raises(ConfigError, match=key):
        load_config(write_config(tmp_path / "b", config_dict(3, **{key: refused})))


def test_every_error_is_a_judge_error_with_an_exit_status_and_a_builtin() -> None:
    expected = {
        BotError: 2,
        MapError: 2,
        GenerateError: 2,
        ConfigError: 2,
        EvalError: 2,
        NoRoomToStart: 2,
        RecordError: 2,
        errors.UsageError: 2,
        LedgerError: 2,
        LeagueError: 2,
        TournamentError: 2,
        RoundAborted: 3,
        CheckAborted: 3,
        RoundStopped: 130,
    }
    for cls, code in expected.items():
        assert issubclass(cls, errors.JudgeError), cls
        assert cls is RoundStopped or issubclass(cls, (ValueError, RuntimeError)), cls
        assert cls.exit_code == code, cls  # the class's status; a few take another per case
    assert TournamentError("x", 3).exit_code == 3 and EvalError("x", 3).exit_code == 3
    assert MapError("m", ["no such file"]).exit_code == 2


def test_a_judge_error_from_any_command_is_one_line_and_its_status(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["match", "no-such-bot", "random", "--map", "m1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("judge match: bot 'no-such-bot'") and "Traceback" not in err
    assert main(["tournament", str(tmp_path / "none.yaml")]) == 2
    assert capsys.readouterr().err.startswith("judge tournament: ")
    assert main(["replay", str(tmp_path / "nothing")]) == 2
    assert "judge replay: " in capsys.readouterr().err
    assert main(["eval", "greedy", "random", "--sizes", "4"]) == 2
    assert capsys.readouterr().err.startswith("judge eval: --sizes")


def test_every_command_has_help_a_description_and_a_run() -> None:
    for name, module in COMMANDS:
        assert module.HELP and module.DESCRIPTION and callable(module.run), name


def test_the_command_line_starts_without_what_only_a_run_needs() -> None:
    """``judge --help`` builds every command's options yet loads no rich, sandbox, yaml or rules."""
    code = (
        "import sys, contextlib, io\n"
        "from judge.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "print(__import__('json').dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    heavy = {
        "rich",
        "yaml",
        "judge.sandbox",
        "judge.rules",
        "judge.maps",
        "judge.referee",
        "psutil",
    }
    assert heavy & loaded == set()
    assert {"judge.commands.match", "judge.commands.tournament"} <= loaded  # imported plainly


def test_piped_output_is_not_cut_at_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped (a log, `| tee`), a line with a team's name stays whole; COLUMNS still rules."""
    from judge.commands.options import PIPE_WIDTH, make_console

    line = "Rồng Biển Xanh Thẳm wins: Rồng Biển Xanh Thẳm 20 points (75 gold), Đội Hải Âu 0 points (25 gold)"
    assert 80 < len(line) < PIPE_WIDTH
    console = make_console()
    assert not console.is_terminal and console.width == PIPE_WIDTH
    console.print(line)
    assert capsys.readouterr().out == line + "\n"
    monkeypatch.setenv("COLUMNS", "100")
    assert make_console().width == 100
    assert make_console(stderr=True).width == 100
