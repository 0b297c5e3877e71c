"""What the terminal of a running tournament says (the fake sandbox, a recording console).

As ``judge match`` does: one line of sandbox detail at the start (the rest is
``judge sandbox-info``'s), and a team's crashes, time-outs and void moves as
its rounds are recorded.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from rich.console import Console

from judge.sandbox import Isolation
from judge.tournament.config import load_config
from judge.tournament.play import Runner
from judge.tournament.resume import ResumeChoices
from judge.views.tournament import RunView
from tests.referee.fakes import FakeBot, FakeSandbox

from ._helpers import BOTS, config_dict, fake_bots, make_config, write_config

#: A sandbox as a root judge reports it: many protections, some with long details.
FULL = Isolation(items=tuple((f"protection {i}", True, "a long detail " * 20) for i in range(16)))


def _crashing(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    return None, state, "RE"


def _slow(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    return None, state, "TLE"


def _garbage(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    return b"go north please\n", state, "OK"


def _play(tmp_path: Path, bots: dict[str, FakeBot], quiet: bool = False) -> str:
    cfg = make_config(tmp_path / "cfg", 4)
    screen = io.StringIO()

    def sandbox() -> FakeSandbox:
        sb = FakeSandbox(bots)
        sb.isolation = FULL
        return sb

    view = RunView(Console(file=screen, width=200), progress=not quiet)
    report = Runner(cfg, tmp_path / "t", 2, sandbox, events=view).run(resume=False)
    assert report.complete
    return screen.getvalue()


def test_the_header_says_one_line_of_sandbox_detail(tmp_path: Path) -> None:
    shown = _play(tmp_path, fake_bots(["Alpha", "Beta", "Gamma", "Delta"]))
    head = shown.split("Alpha-vs-", 1)[0].split("\n")
    assert "isolation: all protections on (details: judge sandbox-info)" in head
    assert not any("a long detail" in line for line in head)
    assert len(head) < 14


def test_crashes_time_outs_and_void_moves_are_said_as_the_rounds_are_recorded(
    tmp_path: Path,
) -> None:
    bots = fake_bots(["Alpha", "Beta", "Gamma", "Delta"])
    bots.update(Beta=_crashing, Gamma=_slow, Delta=_garbage)
    shown = _play(tmp_path, bots)
    lines = shown.splitlines()
    said = [line for line in lines if "warning:" in line]
    assert any(
        "Beta: 6 of 6 moves void: the program crashed (RE)" in line and "stderr.log" in line
        for line in said
    ), said
    assert any(
        "Gamma: 6 of 6 moves void: the program ran out of time (TLE)" in line for line in said
    )
    assert any(
        "Delta: 6 of 6 moves void: MOVE.OUT's first line is not two integers" in line
        for line in said
    )
    assert not any(line.strip().startswith("warning: Alpha") for line in said)
    # each under its round's line
    first = next(i for i, line in enumerate(lines) if "Beta: 6 of 6" in line)
    assert " round " in lines[first - 1] or "warning:" in lines[first - 1]
    # --quiet keeps to the standings and errors
    assert "warning:" not in _play(tmp_path / "quiet", bots, quiet=True)


def test_a_resume_says_what_it_replays_first(tmp_path: Path) -> None:
    beta = tmp_path / "beta"
    shutil.copytree(BOTS / "random", beta)
    data = config_dict(3)
    data["teams"][1]["bot"] = str(beta)
    cfg_path = write_config(tmp_path / "cfg", data)
    cfg = load_config(cfg_path)
    bots = fake_bots(cfg.team_names)
    out = tmp_path / "t"
    assert Runner(cfg, out, 2, lambda: FakeSandbox(bots)).run(resume=False).complete
    shutil.rmtree(out / "Alpha-vs-Gamma" / "round-3")
    screen = io.StringIO()
    view = RunView(Console(file=screen, width=200), progress=True)
    runner = Runner(cfg, out, 2, lambda: FakeSandbox(bots), events=view)
    assert runner.run(resume=True, choices=ResumeChoices(("Beta",))).complete
    shown = screen.getvalue()
    assert "--replace Beta: its matches are played again" in shown
    assert "(6 of its rounds taken out of the ledger)" in shown
    assert "played again: Alpha-vs-Gamma round 3, whose replay is gone" in shown
    # said with --quiet too: it changes what the ledger holds
    shutil.rmtree(out / "Alpha-vs-Gamma" / "round-3")
    screen = io.StringIO()
    quiet = RunView(Console(file=screen, width=200), progress=False)
    assert Runner(cfg, out, 2, lambda: FakeSandbox(bots), events=quiet).run(resume=True).complete
    assert "played again: Alpha-vs-Gamma round 3" in screen.getvalue()
    assert "tournament:" not in screen.getvalue()


def test_a_round_on_a_bundled_map_names_it_so_not_by_the_judges_whole_path(
    tmp_path: Path,
) -> None:
    """A configuration outside the project records the bundled maps by their whole path;
    the round lines name them among the bundled maps."""
    shown = _play(tmp_path, fake_bots(["Alpha", "Beta", "Gamma", "Delta"]))
    rounds = [line for line in shown.splitlines() if " round 1 (" in line]
    assert rounds, shown
    assert all("(maps/m" in line for line in rounds), rounds
    assert not any(str(Path(__file__).resolve().parents[2]) in line for line in rounds), rounds
