"""Wine's own failures are the judge's, never the program's.

A run wine fails (its server gone, a prefix it cannot use: anything before
wine has loaded the program's own file) is IE, and the referee runs it again.
A program that makes wine fail itself (it kills its own wineserver) gets IE
once and RE from the second time in its round on, once the judge has seen
wine run its own test program: a program can neither stop a round nor throw
away a run it does not like by blaming wine.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import judge.sandbox.wine as wine_module
from judge.bots import BotSpec
from judge.maps import load_map
from judge.referee import RoundConfig, play_round
from judge.sandbox import Limits, Sandbox, SandboxError, Verdict
from tests.referee.game_trace import game_trace
from tests.windows.conftest import Exes

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_a_program_that_kills_its_wineserver_gets_ie_then_re(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    with wine_sandbox.seat("killer", exes.hostile) as seat:
        assert seat.program_dir is not None
        exe = str(seat.program_dir / "hostile.exe")
        verdicts = []
        for mode in ("killall", "ok", "killall", "killall", "ok"):
            for _ in range(3):  # a run the machine kept waiting is run again, as by the referee
                run = seat.run_turn([exe, mode], {}, ["MOVE.OUT"], Limits())
                if not run.result.kept_waiting:
                    break
            verdicts.append((run.result.verdict, run.result.message))
    assert [v for v, _ in verdicts] == [
        Verdict.IE,  # first time: could be wine's fault, run again
        Verdict.OK,
        Verdict.RE,  # again in its round while wine runs the judge's test program: its own
        Verdict.RE,
        Verdict.OK,  # and its wine works again for the next run
    ], verdicts
    assert "wineserver stopped during the run" in verdicts[0][1]
    assert "second time this round" in verdicts[2][1] and "test program" in verdicts[2][1]


def test_a_second_wine_failure_when_wine_was_not_made_afresh_stays_ie(
    wine_sandbox: Sandbox, exes: Exes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge's test program runs only on the server the judge made afresh after the
    run: when that failed, a second wine failure is not shown to be the program's (IE,
    not RE), and the next run makes wine again."""
    with wine_sandbox.seat("unmade", exes.hostile) as seat:
        assert seat.program_dir is not None
        exe = str(seat.program_dir / "hostile.exe")
        first = seat.run_turn([exe, "killall"], {}, ["MOVE.OUT"], Limits())
        assert seat.companion.wine is not None  # made at the first Windows run

        def no_wine(*args: Any, **kwargs: Any) -> None:
            raise SandboxError("no wine today")

        monkeypatch.setattr(seat.companion.wine, "refresh", no_wine)
        second = seat.run_turn([exe, "killall"], {}, ["MOVE.OUT"], Limits())
        monkeypatch.undo()
        again = seat.run_turn([exe, "ok"], {}, ["MOVE.OUT"], Limits())
    assert first.result.verdict is Verdict.IE, first.result.message
    assert second.result.verdict is Verdict.IE, second.result.message
    assert "could not make it afresh" in second.result.message
    assert any("no wine today" in d for d in second.discarded), second.discarded
    assert again.result.verdict is Verdict.OK, again.result.message


@pytest.mark.root("the prefix belongs to the seat's uid")
def test_a_prefix_wine_cannot_use_is_ie_in_wines_words(wine_sandbox: Sandbox, exes: Exes) -> None:
    with wine_sandbox.seat("prefix", exes.hostile) as seat:
        assert seat.program_dir is not None and seat.uid is not None and seat.gid is not None
        argv = [str(seat.program_dir / "hostile.exe"), "ok"]
        assert seat.run_turn(argv, {}, ["MOVE.OUT"], Limits()).result.verdict is Verdict.OK
        prefix = Path(seat.base) / "wine" / "prefix"
        os.chown(prefix, 0, 0)  # a prefix problem: wine refuses to use it
        try:
            broken = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
        finally:
            os.chown(prefix, seat.uid, seat.gid)
        again = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits())
    r = broken.result
    assert r.verdict is Verdict.IE, r.message
    assert "before it had loaded the program" in r.message and "wine said:" in r.message
    assert again.result.verdict is Verdict.OK, again.result.message


def test_a_server_killed_mid_round_leaves_the_round_unchanged(
    wine_sandbox: Sandbox, exes: Exes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = BotSpec("exe", "exe", exes.counting, ("counting.exe",))
    native = BotSpec("native", "native", exes.counting_native, ("./counting",))
    cfg = RoundConfig(game_map=load_map(ROOT / "maps" / "m1.txt"), map_label="m1", seed=7, turns=8)
    play_round(cfg, [exe, native], ["exe", "native"], wine_sandbox, tmp_path / "quiet")

    real = wine_module.WineSeat.needs_restart
    calls = [0]

    def needs_restart(self: Any) -> bool:
        """At the fourth run, the seat's server dies after the judge looked at it."""
        calls[0] += 1
        if calls[0] == 4:
            for pid in self.server_pids():
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while self.alive and time.monotonic() < deadline:
                time.sleep(0.005)
            return False
        return bool(real(self))

    monkeypatch.setattr(wine_module.WineSeat, "needs_restart", needs_restart)
    play_round(cfg, [exe, native], ["exe", "native"], wine_sandbox, tmp_path / "killed")
    log = (tmp_path / "killed" / "exe" / "stderr.log").read_text()
    assert "IE (judge internal error: wine failed, not the program" in log and "run again" in log
    assert game_trace(tmp_path / "killed" / "replay.jsonl") == game_trace(
        tmp_path / "quiet" / "replay.jsonl"
    )


def test_a_program_named_in_any_letters_is_not_taken_for_a_wine_failure(
    wine_sandbox: Sandbox, exes: Exes, tmp_path: Path
) -> None:
    """Wine's "Loaded" line escapes a name it does not print as is (and cuts a long one):
    any module of the program's own counts, whatever its file is called."""
    folder = tmp_path / "Rồng Biển"
    folder.mkdir()
    name = "Đội-bé-" + "x" * 120 + ".exe"
    shutil.copy(exes.hostile / "hostile.exe", folder / name)
    with wine_sandbox.seat("named", folder) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn([str(seat.program_dir / name), "ok"], {}, ["MOVE.OUT"], Limits())
    assert run.result.verdict is Verdict.OK, run.result.message
    assert run.outputs["MOVE.OUT"] == b"1 1\r\n"


def test_the_judges_test_program_failing_once_at_a_seats_start_is_run_again(
    wine_sandbox: Sandbox, exes: Exes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wine's loader now and then exits with status 1 without a word before loading
    anything: one failed start of the judge's own test program is not "wine cannot run a
    program here"; the same failure twice is, and says so."""
    from judge.sandbox.wine.companion import WineCompanion

    real = WineCompanion._probe
    calls: list[int] = []

    def once(self: WineCompanion) -> str | None:
        calls.append(1)
        return "status 256: " if len(calls) == 1 else real(self)

    monkeypatch.setattr(WineCompanion, "_probe", once)
    with wine_sandbox.seat("probe-once", exes.hostile) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn(
            [str(seat.program_dir / "hostile.exe"), "ok"], {}, ["MOVE.OUT"], Limits()
        )
    assert run.result.verdict is Verdict.OK, run.result.message
    assert len(calls) == 2

    monkeypatch.setattr(WineCompanion, "_probe", lambda self: "status 256: ")
    with wine_sandbox.seat("probe-never", exes.hostile) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn(
            [str(seat.program_dir / "hostile.exe"), "ok"], {}, ["MOVE.OUT"], Limits()
        )
    assert run.result.verdict is Verdict.IE
    assert "wine cannot run a program here: status 256:  (the same twice)" in run.result.message


def test_wine_giving_up_at_a_start_counts_against_the_program_only_twice_in_a_row(
    wine_sandbox: Sandbox, exes: Exes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """None of the program's code ran when wine gave up before loading it, and wine's loader
    does so on its own now and then: two such failures far apart in a round are both IE (run
    again); twice in a row, while wine runs the judge's own test program, RE."""
    with wine_sandbox.seat("gave-up", exes.hostile) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / "hostile.exe"), "ok"]
        assert seat.run_turn(argv, {}, ["MOVE.OUT"], Limits()).result.verdict is Verdict.OK
        wine = seat.companion.wine
        assert wine is not None
        real = wine.failure
        gives_up = {1, 3, 4}  # of the runs below: one alone, then two in a row

        def failure(head: bytes, tail: bytes, code: int | None = None) -> str | None:
            if len(verdicts) in gives_up:
                return "wine stopped before it had loaded the program (wine said nothing)"
            return real(head, tail, code)

        monkeypatch.setattr(wine, "failure", failure)
        verdicts: list[tuple[Verdict, str]] = []
        for _ in range(6):
            r = seat.run_turn(argv, {}, ["MOVE.OUT"], Limits()).result
            verdicts.append((r.verdict, r.message))
    assert [v for v, _ in verdicts] == [
        Verdict.OK,
        Verdict.IE,  # once: wine's, run again
        Verdict.OK,
        Verdict.IE,  # a second time in the round, not in a row: wine's still
        Verdict.RE,  # twice in a row, the judge's test program runs: the program's
        Verdict.OK,
    ], verdicts
    assert "twice in a row" in verdicts[4][1] and "test program" in verdicts[4][1]
