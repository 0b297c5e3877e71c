"""The one scheduler: N jobs, a stop event looked at before each turn, one report per task."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from judge.maps import map_from_text
from judge.referee import RoundConfig, RoundStopped, play_round
from judge.scheduler import (
    INTERNAL_ERROR_LOG,
    RoundDone,
    RoundStatus,
    RoundTask,
    ThreadExecutor,
    play_task,
)
from tests.referee.fakes import FakeBot, FakeSandbox, spec

SEA = """5 5 10
0 0 1 0 0
0 D 0 D 0
1 0 0 0 1
0 D 0 D 0
0 0 1 0 0
"""
GAME_MAP = map_from_text(SEA, "sea", allow_invalid=True)


def stay(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    """Starts on a corner (seat by MAP.INP's own view) and stays there."""
    me = map_inp.split("\n")[1].split()[:2]
    cell = b"1 1" if me == ["0", "0"] else f"{me[0]} {me[1]}".encode()
    return cell, state, "OK"


def other_corner(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    me = map_inp.split("\n")[1].split()[:2]
    cell = b"5 5" if me == ["0", "0"] else f"{me[0]} {me[1]}".encode()
    return cell, state, "OK"


def tasks(tmp_path: Path, n: int, game_map: object = GAME_MAP) -> list[RoundTask]:
    return [
        RoundTask(
            key=f"r{i}",
            config=RoundConfig(game_map=game_map, map_label="sea", seed=i),  # type: ignore[arg-type]
            bots=(spec("a"), spec("b")),
            names=("a", "b"),
            out_dir=tmp_path / f"round-{i}",
            replay_rel=f"round-{i}/replay.jsonl",
        )
        for i in range(n)
    ]


def collect(
    executor: ThreadExecutor, todo: Iterable[RoundTask], stop: threading.Event | None = None
) -> tuple[list[RoundDone], set[int]]:
    done: list[RoundDone] = []
    threads: set[int] = set()

    def on_done(d: RoundDone) -> None:
        threads.add(threading.get_ident())
        done.append(d)

    executor.play(todo, stop or threading.Event(), on_done)
    return done, threads


class CountingSandbox(FakeSandbox):
    """The fake sandbox, counting the seats open at once (two per round in flight)."""

    def __init__(self, bots: dict[str, FakeBot]):
        super().__init__(bots)
        self.lock = threading.Lock()
        self.open = self.most = 0

    def seat(self, *args: object, **kwargs: object) -> object:
        seat = super().seat(*args, **kwargs)  # type: ignore[arg-type]
        with self.lock:
            self.open += 1
            self.most = max(self.most, self.open)
        close = seat.close

        def closing() -> None:
            with self.lock:
                self.open -= 1
            close()

        seat.close = closing  # type: ignore[method-assign]
        return seat


def slow(bot: FakeBot) -> FakeBot:
    def wrapped(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        threading.Event().wait(0.01)
        return bot(map_inp, state)

    return wrapped


def test_every_task_is_played_jobs_at_a_time_and_reported_once_in_the_calling_thread(
    tmp_path: Path,
) -> None:
    sb = CountingSandbox({"a": slow(stay), "b": other_corner})
    done, threads = collect(ThreadExecutor(sb, jobs=2), tasks(tmp_path, 5))  # type: ignore[arg-type]
    assert sb.most == 4 and sb.open == 0  # two rounds (four seats) at a time, all closed
    assert sorted(d.task.key for d in done) == [f"r{i}" for i in range(5)]
    assert all(d.status is RoundStatus.PLAYED and d.result is not None for d in done)
    assert threads == {threading.get_ident()}
    assert done[0].result is not None and done[0].result.turns_played == 10
    assert (tmp_path / "round-4" / "replay.jsonl").is_file()
    with pytest.raises(ValueError, match="at least 1"):
        ThreadExecutor(sb, jobs=0)  # type: ignore[arg-type]


def test_a_round_sees_the_stop_event_before_its_next_turn_and_no_new_round_starts(
    tmp_path: Path,
) -> None:
    stop = threading.Event()
    calls = {"n": 0}

    def stopper(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        calls["n"] += 1
        if calls["n"] == 4:  # the 4th turn of the first round
            stop.set()
        return stay(map_inp, state)

    sb = FakeSandbox({"a": stopper, "b": other_corner})
    done, _ = collect(ThreadExecutor(sb, jobs=1), tasks(tmp_path, 3), stop)  # type: ignore[arg-type]
    assert [(d.task.key, d.status) for d in done] == [("r0", RoundStatus.STOPPED)]
    assert calls["n"] == 4  # turn 5 was never run
    part = (tmp_path / "round-0" / "replay.jsonl.part").read_text().splitlines()
    assert len(part) == 1 + 4  # the header and turns 1..4
    assert not (tmp_path / "round-1").exists()


def test_failures_come_back_as_records_with_the_exit_status(tmp_path: Path) -> None:
    def judge_fails(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        return None, state, "IE"

    def crashes(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        raise RuntimeError("the judge has a bug")

    full = map_from_text("5 5 10\n" + "1 1 1 1 1\n" * 5, "full", allow_invalid=True)
    for bots, task, status, code, words in (
        (
            {"a": judge_fails, "b": stay},
            tasks(tmp_path / "ie", 1)[0],
            RoundStatus.ABORTED,
            3,
            "could not run a at turn 1",
        ),
        (
            {"a": stay, "b": stay},
            tasks(tmp_path / "full", 1, full)[0],
            RoundStatus.FAILED,
            2,
            "fewer than 2 empty cells",
        ),
        (
            {"a": crashes, "b": stay},
            tasks(tmp_path / "bug", 1)[0],
            RoundStatus.FAILED,
            3,
            "RuntimeError: the judge has a bug",
        ),
    ):
        d = play_task(task, FakeSandbox(bots))  # type: ignore[arg-type]
        assert (d.status, d.exit_code, d.result) == (status, code, None)
        assert words in (d.error or "")


def test_a_stopped_round_writes_nothing(tmp_path: Path) -> None:
    stop = threading.Event()
    stop.set()
    cfg = RoundConfig(game_map=GAME_MAP, map_label="sea", seed=1)
    sb = FakeSandbox({"a": stay, "b": stay})
    with pytest.raises(RoundStopped):
        play_round(cfg, [spec("a"), spec("b")], ["a", "b"], sb, tmp_path / "r", stop=stop)  # type: ignore[arg-type]
    assert not (tmp_path / "r").exists() and sb.seats == []


def test_an_interrupt_in_the_caller_stops_the_rounds_in_flight_and_propagates(
    tmp_path: Path,
) -> None:
    stop = threading.Event()
    sb = FakeSandbox({"a": stay, "b": other_corner})

    def on_done(d: RoundDone) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ThreadExecutor(sb, jobs=2).play(tasks(tmp_path, 6), stop, on_done)  # type: ignore[arg-type]
    assert stop.is_set()
    assert len(list(tmp_path.iterdir())) < 6  # no new round started after it


class Inline:
    """Another executor: one round at a time in the calling thread (what a cluster plugs into)."""

    def __init__(self, sandbox: object, jobs: int) -> None:
        self.sandbox = sandbox
        self.played: list[str] = []

    def play(
        self,
        todo: Iterable[RoundTask],
        stop: threading.Event,
        on_done: Callable[[RoundDone], None],
    ) -> None:
        for task in todo:
            if stop.is_set():
                return
            self.played.append(task.key)
            on_done(play_task(task, self.sandbox, stop))  # type: ignore[arg-type]


def test_the_tournament_and_eval_take_any_executor(tmp_path: Path) -> None:
    from judge.evaluate import plan_maps, play_rounds, round_specs
    from judge.sandbox import Limits
    from judge.tournament.play import Runner
    from tests.tournament._helpers import fake_bots, make_config, read_standings

    cfg = make_config(tmp_path / "cfg", 3)
    made: list[Inline] = []

    def inline(sb: object, jobs: int) -> Inline:
        made.append(Inline(sb, jobs))
        return made[-1]

    for out, executor_for in (
        (tmp_path / "threads", ThreadExecutor),
        (tmp_path / "inline", inline),
    ):
        Runner(
            cfg,
            out,
            2,
            lambda: FakeSandbox(fake_bots(cfg.team_names)),
            executor_for=executor_for,  # type: ignore[arg-type]
        ).run(resume=False)
    assert len(made[0].played) == 9
    assert read_standings(tmp_path / "inline") == read_standings(tmp_path / "threads")

    sb = FakeSandbox({"a": stay, "b": other_corner})
    specs = round_specs(plan_maps(2, [(5, 5)], [6], seed=1))
    ex = Inline(sb, 1)
    rounds = play_rounds(
        [spec("a"), spec("b")],
        ["a", "b"],
        specs,
        sb,
        Limits(),
        tmp_path / "e",
        1,
        executor=ex,  # type: ignore[arg-type]
    )
    assert ex.played == ["1", "2", "3", "4"] and [r.spec.number for r in rounds] == [1, 2, 3, 4]


def test_an_internal_error_keeps_its_traceback_and_the_message_points_at_it(
    tmp_path: Path,
) -> None:
    """An unexpected exception in a round is written whole (traceback, where it
    was played) into the round's folder; the one-line message names the file."""

    def crashes(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        raise RuntimeError("the judge has a bug")

    done, _ = collect(
        ThreadExecutor(FakeSandbox({"a": crashes, "b": stay}), 1),  # type: ignore[arg-type]
        tasks(tmp_path, 1),
    )
    (d,) = done
    log = tmp_path / INTERNAL_ERROR_LOG.format(round="round-0")
    assert d.status is RoundStatus.FAILED and d.exit_code == 3
    assert f"(the traceback is in {log})" in (d.error or "")
    text = log.read_text()
    assert "RuntimeError: the judge has a bug" in text and "Traceback (most recent call" in text
    assert "played on this machine" in text and "in crashes" in text
