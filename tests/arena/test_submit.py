"""``judge submit`` against a served arena, and the task slots behind it (a fake check).

The check itself is faked here (a verdict by file name): the point is the way from
the command line to the verdict and back, the exit statuses, and the slots' handling
of tasks (the check's own tests run real bots: test_checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.arena import tasks
from judge.arena.service import Outcome, Retry, Service, TaskKind
from judge.arena.store import Phase, Status
from judge.cli import main
from tests.arena.conftest import Live, Made, Served, fake_check, python_bot_zip

TEAM = "Rồng Biển"


@pytest.fixture()
def bots(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name in ("good.zip", "bad.zip"):
        out[name] = tmp_path / name
        out[name].write_bytes(python_bot_zip())
    (tmp_path / "source.zip").write_bytes(b"source")
    return out


def test_judge_submit_waits_for_the_verdict_and_exits_by_it(
    made: Made,
    bots: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kind = fake_check({"good.zip": (True, "fine"), "bad.zip": (False, "check-bot: <it crashed>")})
    with Live(made, [kind]) as live:
        code = main(
            [
                "submit",
                live.url,
                str(bots["good.zip"]),
                "--token",
                made.token(TEAM),
                "--source",
                str(bots["good.zip"].parent / "source.zip"),
            ]
        )
        out = capsys.readouterr().out
        assert code == 0, out
        assert (
            f"as version 1 of {TEAM}" in out
            and "accepted: fine" in out
            and "log of good.zip" in out
        )
        monkeypatch.setenv("JUDGE_ARENA_TOKEN", made.token(TEAM))
        assert main(["submit", live.url, str(bots["bad.zip"])]) == 1
        assert "rejected: check-bot: <it crashed>" in capsys.readouterr().out
        v = live.served.arena.store.versions()
        assert [x.status for x in v] == [Status.ACCEPTED, Status.REJECTED] and v[
            0
        ].source_name == "source.zip"


def test_judge_submit_says_why_it_was_refused(
    made: Made, bots: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with Live(made, [fake_check({})]) as live:
        good = str(bots["good.zip"])
        assert main(["submit", live.url, good]) == 2
        assert "not logged in" in capsys.readouterr().err
        assert main(["submit", live.url, good, "--token", "arena_wrong"]) == 2
        assert "not logged in: " in capsys.readouterr().err
        (tmp_path / "notes.txt").write_text("hello")
        assert (
            main(["submit", live.url, str(tmp_path / "notes.txt"), "--token", made.token(TEAM)])
            == 2
        )
        assert "neither a 64-bit .exe" in capsys.readouterr().err
        # over a file's cap, and over the whole request's: the arena's answer, not a reset
        for size, words in (
            (3 << 19, "the bot file is larger than its cap of 1 MiB"),
            (4 << 20, "the request is larger than its cap of 3 MiB"),
        ):
            (tmp_path / "big.zip").write_bytes(b"PK\x03\x04" + b"\0" * size)
            assert (
                main(["submit", live.url, str(tmp_path / "big.zip"), "--token", made.token(TEAM)])
                == 2
            )
            err = capsys.readouterr().err
            assert f"judge submit: too large: {words}" in err, err
        live.served.arena.store.set_phase(Phase.FROZEN)
        assert main(["submit", live.url, good, "--token", made.token(TEAM)]) == 2
        assert "the arena is closed for uploads" in capsys.readouterr().err
    assert main(["submit", live.url, good, "--token", made.token(TEAM)]) == 2
    assert "cannot reach the arena" in capsys.readouterr().err


def test_a_task_the_judge_could_not_do_runs_again_then_gives_up(served: Served) -> None:
    store = served.arena.store
    calls: list[int] = []

    def flaky(task: tasks.Task, ctx: object) -> Outcome:
        calls.append(task.attempts)
        raise Retry("the sandbox is away")

    def give_up(task: tasks.Task, why: str) -> Outcome:
        return Outcome(
            {"gave_up": why}, lambda c: c.execute("INSERT INTO meta VALUES ('gave', ?)", (why,))
        )

    kind = TaskKind("check", flaky, max_attempts=3, give_up=give_up)
    service = Service(served.arena.root, store, served.arena.config, [kind], 1)
    tid = tasks.enqueue(store, "check", {}, tasks.CHECK_PRIORITY)
    for _ in range(3):
        t = tasks.claim(store, "me", ["check"], 30)
        assert t is not None
        service.run_one(t, "me")
    assert calls == [1, 2, 3]
    done = tasks.get(store, tid)
    assert (
        done is not None
        and done.state == "done"
        and done.result == {"gave_up": "the sandbox is away"}
    )
    assert store.meta("gave") == "the sandbox is away"


def test_a_restarted_server_checks_a_version_left_checking_again_once(made: Made) -> None:
    """What a kill -9 leaves (a task running, its version checking) is taken up again."""
    s = Served(made)
    store = s.arena.store
    r = s.client().post(
        "/api/submissions",
        headers={"Authorization": f"Bearer {made.token(TEAM)}"},
        files={"bot": ("good.zip", python_bot_zip())},
    )
    vid = r.json()["id"]
    t = tasks.claim(store, "the-dead-server", ["check"], 3600)
    assert t is not None
    store.write(lambda c: c.execute("UPDATE versions SET status = 'checking' WHERE id = ?", (vid,)))
    s.close()
    with Live(made, [fake_check({"good.zip": (True, "fine")})]) as live:
        import time

        for _ in range(200):
            v = live.served.arena.store.version(vid)
            if v is not None and v.status.final:
                break
            time.sleep(0.05)
        assert v is not None and v.status is Status.ACCEPTED
        [task] = tasks.tasks(live.served.arena.store, "check")
        assert task.state == "done" and task.attempts == 2
        assert len(live.served.arena.store.versions()) == 1
