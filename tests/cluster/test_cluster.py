"""Tournaments and evaluations on a real Dask cluster: a ``dask scheduler`` and ``dask worker``
processes on 127.0.0.1 (tests/cluster/dask_procs.py), compared with the same runs on this
machine; a worker killed mid-round, the judge killed and resumed, the scheduler lost, a
worker that is not root, and two bots with the same files shipped once.

Small maps, K = 2 (4 where a bot must still be playing when a worker goes or joins) and
cheap bots keep these to seconds; they are marked ``slow``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from judge.bots import resolve_bot
from judge.cluster.session import cluster_venue, open_cluster
from judge.cluster.worker import worker_counters
from judge.evaluate import EvalRequest, PairTracker, evaluate, parse_sizes
from judge.sandbox import Sandbox
from judge.scheduler import Venue
from judge.tournament.config import load_config
from judge.tournament.play import Runner
from judge.views.evalreport import EvalProgress
from judge.views.tournament import RunView
from tests.cluster.dask_procs import NOBODY, DaskProcs

pytestmark = [pytest.mark.slow, pytest.mark.root("workers as root and as uid 65534")]

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "maps"
TEAMS = ["Alpha", "Beta", "Gamma", "Delta"]
#: ledger rows: (match, round) pairs, to see that each round is recorded once
ROWS = "SELECT match, round FROM rounds"


def _bots(folder: Path) -> Path:
    """twin_a and twin_b (greedy_c's files, twice), slow (greedy, 0.1 s a turn), the others."""
    ignore = shutil.ignore_patterns("greedy", "__pycache__")
    for twin in ("twin_a", "twin_b"):
        shutil.copytree(ROOT / "bots" / "greedy_c", folder / twin, ignore=ignore)
    for name in ("greedy", "random"):
        shutil.copytree(ROOT / "bots" / name, folder / name, ignore=ignore)
    slow = folder / "slow"
    shutil.copytree(ROOT / "bots" / "greedy", slow, ignore=ignore)
    (slow / "slow.py").write_text(
        "import os, runpy, time\n"
        "time.sleep(0.1)\n"
        "runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bot.py'),"
        " run_name='__main__')\n"
    )
    (slow / "bot.yaml").write_text("name: slow\ncommand: [python3, slow.py]\n")
    return folder


def _config(folder: Path, bots: list[str], name: str = "judge.yaml", turns: int = 4) -> Path:
    """K = 4 by default: the slow and sleepy bots' rounds last long enough for a worker to
    be killed, or to join, while one is played; the comparisons with a local run take 2."""
    data = {
        "seed": 2026,
        "turns": turns,
        "time_limit": 2.0,
        "memory_limit_mb": 256,
        "jobs": 2,
        "output": "out",
        "maps_dir": str(MAPS),
        "bots_dir": str(folder / "bots"),
        "organiser_map": str(MAPS / "organiser" / "final.txt"),
        "teams": [{"name": TEAMS[i], "bot": b, "map": f"m{i + 1}"} for i, b in enumerate(bots)],
    }
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _sleepy_config(tmp_path: Path, work: Path) -> Path:
    """sleepy (greedy's moves) against random.  On a root worker, where each seat has a uid
    of its own, sleepy sleeps 1.2 s a turn: rounds of 5 s or so, during which a worker joins
    or goes.  As uid 65534 (nobody: a worker that is not root, its rounds played with
    --unsandboxed) it plays at once: those rounds only need to be played."""
    shutil.copytree(work / "bots", tmp_path / "bots")
    sleepy = tmp_path / "bots" / "sleepy"
    shutil.copytree(tmp_path / "bots" / "slow", sleepy)
    slow = (sleepy / "slow.py").read_text()
    assert "time.sleep(0.1)\n" in slow
    sleep = f"time.sleep(0 if os.getuid() == {NOBODY} else 1.2)\n"
    (sleepy / "slow.py").write_text(slow.replace("time.sleep(0.1)\n", sleep))
    return _config(tmp_path, ["sleepy", "random"])


def _standings(out: Path) -> list[dict[str, Any]]:
    data = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    return data["standings"] if isinstance(data, dict) else data


def _rows(out: Path) -> list[tuple[str, int]]:
    """The ledger's rounds, read only (a probe must not create the judge's file)."""
    uri = f"{(out / 'ledger.sqlite').as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        return sorted(db.execute(ROWS).fetchall())


def _run_local(cfg_path: Path, out: Path) -> None:
    runner = Runner(load_config(cfg_path), out, 2, Sandbox)
    assert runner.run(resume=False).complete


def _headers(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8").splitlines()[0])
        for p in sorted(out.glob("*/round-*/replay.jsonl"))
    ]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskProcs]:
    """A scheduler and two root workers, shared by the tests that do not kill anything."""
    with DaskProcs(tmp_path_factory.mktemp("dask")) as procs:
        procs.start_scheduler()
        procs.start_worker("w1")
        procs.start_worker("w2")
        yield procs


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("work")
    _bots(folder / "bots")
    return folder


def test_a_tournament_on_the_cluster_matches_the_local_one_and_ships_each_bundle_once(
    cluster: DaskProcs, work: Path
) -> None:
    # Three teams, nine rounds: both twins (one bundle) and a bot of another bundle.
    cfg_path = _config(work, ["twin_a", "random", "twin_b"], turns=2)
    venues: list[Venue] = []

    @contextlib.contextmanager
    def venue_for(jobs: int) -> Iterator[Venue]:
        with cluster_venue(cluster.address, None, require_full=True) as venue:
            venues.append(venue)
            yield venue

    cfg = load_config(cfg_path, build=False)
    assert not (work / "bots" / "twin_a" / "greedy").exists()  # the judge built nothing
    screen = io.StringIO()
    view = RunView(Console(file=screen, width=200), progress=True)
    runner = Runner(cfg, work / "cluster", 2, Sandbox, events=view, venue_for=venue_for)
    report = runner.run(resume=False)
    assert report.complete and report.played == 9
    # The header names the cluster and each worker with its isolation; the progress bar
    # says how many workers play and how many rounds a minute.
    shown = screen.getvalue()
    assert f"cluster {cluster.address}: 2 worker(s)" in shown
    for name, address in cluster.names().items():
        assert f"{address} ({name} on " in shown
    assert shown.count("all protections on") == 2
    assert re.search(r"9/9 .*2 workers, 2 threads, \d+\.\d rounds/min", shown), shown
    assert not (work / "bots" / "twin_a" / "greedy").exists()  # built on the workers only
    _run_local(cfg_path, work / "local")
    assert _standings(work / "cluster") == _standings(work / "local")
    assert _rows(work / "cluster") == _rows(work / "local") and len(_rows(work / "local")) == 9

    # Each round's files came back: its replay names the worker that played it and its
    # isolation (all on: the workers are root); both workers played.
    headers = _headers(work / "cluster")
    assert len(headers) == 9
    names = cluster.names()
    assert {h["worker"].split(" ")[0] for h in headers} == set(names.values())
    assert all(all(p["on"] for p in h["isolation"].values()) for h in headers)
    assert all(
        (p.parent / "log.txt").is_file() for p in (work / "cluster").glob("*/round-*/replay.jsonl")
    )

    # twin_a and twin_b are one bundle: two bundles published once each; each worker
    # fetched each at most once and built greedy_c's files at most once.
    traffic = venues[0].executor.traffic  # type: ignore[attr-defined]
    assert traffic.bundles_published == 2 and set(traffic.per_hash.values()) == {1}
    assert traffic.rounds == 9
    assert cluster.client is not None
    for counters in cluster.client.run(worker_counters).values():
        assert set(counters["fetches"].values()) <= {1}
        assert counters["builds"] <= 1
        assert counters["fetched_bytes"] <= traffic.bundle_bytes


def test_an_evaluation_on_the_cluster_matches_the_local_one(cluster: DaskProcs, work: Path) -> None:
    def request(build: bool) -> EvalRequest:
        bots = [resolve_bot(str(work / "bots" / b), build=build) for b in ("twin_a", "random")]
        return EvalRequest(bots, ["twin_a", "random"], 8, parse_sizes("5,7"), [2], 11, 2)

    with Sandbox() as sandbox:
        local = evaluate(request(True), sandbox, work / "eval-local")
    screen = io.StringIO()
    with open_cluster(cluster.address) as session:
        ex = session.executor(None, require_full=False)
        req = request(False)
        with EvalProgress(
            Console(file=screen, width=200), req, PairTracker(), True, session.status
        ) as progress:
            remote = evaluate(req, None, work / "eval-cluster", on_done=progress.done, executor=ex)
    assert remote.rounds_played == 8
    # the progress bar: rounds played, the workers and the pace
    assert re.search(r"8/8 .*2 workers, 2 threads, \d+\.\d rounds/min", screen.getvalue())
    for key in ("result", "pairs", "by_seat", "by_size", "end_reasons", "mirrored_maps"):
        assert getattr(remote, key) == getattr(local, key), key
    assert [replace(r, replay=None) for r in remote.rounds] == [
        replace(r, replay=None) for r in local.rounds
    ]
    assert len(list((work / "eval-cluster").glob("round-*/replay.jsonl"))) == 8


def _judge(*args: str, connect_s: float | None = None) -> list[str]:
    """``judge tournament ... --quiet``; with ``connect_s``, a judge whose Dask client tries
    that long (not judge/cluster/session.py's 20 s) to reach a lost scheduler again before it
    gives up: the test of a lost scheduler does not wait 20 s for the message."""
    if connect_s is None:
        return [sys.executable, "-m", "judge", "tournament", *args, "--quiet"]
    code = (
        "import sys\n"
        "import judge.cluster.session as session\n"
        f"session.CONNECT_TIMEOUT_S = {connect_s!r}\n"
        "from judge.cli import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-c", code, "tournament", *args, "--quiet"]


def _wait(what: str, check: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _ledger_rows(out: Path) -> int:
    try:
        return len(_rows(out))
    except sqlite3.Error:
        return 0


def test_workers_killed_the_judge_killed_and_the_scheduler_lost(tmp_path: Path, work: Path) -> None:
    """One cluster through three accidents; nothing lost, nothing counted twice."""
    cfg_path = _config(tmp_path, ["slow", "twin_a"], "slow.yaml")
    shutil.copytree(work / "bots", tmp_path / "bots")
    # The slow bot plays greedy's moves: a local run with greedy gives the standings.
    _run_local(_config(tmp_path, ["greedy", "twin_a"], "fast.yaml"), tmp_path / "ref")
    expected = _standings(tmp_path / "ref")
    with DaskProcs(tmp_path) as procs:
        address = procs.start_scheduler()
        procs.start_worker("w1")
        procs.start_worker("w2")
        assert procs.client is not None

        # 1. A worker killed while it plays a round: the round is played again on the
        # other worker and recorded once.
        out = tmp_path / "killed-worker"
        judge = subprocess.Popen(_judge(str(cfg_path), "--out", str(out), "--cluster", address))
        names = {v: k for k, v in procs.names().items()}
        busy: list[str] = []

        def someone_busy() -> bool:
            assert procs.client is not None
            busy[:] = [names[a] for a, keys in procs.client.processing().items() if keys]
            return bool(busy) and _ledger_rows(out) >= 1

        _wait("a worker playing a round", someone_busy)
        procs.kill(procs.workers[busy[0]])
        assert judge.wait(timeout=300) == 0
        assert _standings(out) == expected
        rows = _rows(out)
        assert len(rows) == len(set(rows)) == 3

        # 2. The judge killed mid-way: --resume continues against the cluster.
        procs.start_worker("w3")
        out = tmp_path / "killed-judge"
        argv = _judge(str(cfg_path), "--out", str(out), "--cluster", address)
        judge = subprocess.Popen(argv, start_new_session=True)
        _wait("a round in the ledger", lambda: _ledger_rows(out) >= 1)
        os.killpg(judge.pid, signal.SIGKILL)
        judge.wait(timeout=60)
        kept = _rows(out)
        assert 1 <= len(kept) < 3
        resumed = subprocess.run([*argv, "--resume"], capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        rows = _rows(out)
        assert _standings(out) == expected
        assert len(rows) == len(set(rows)) == 3 and set(kept) <= set(rows)
        assert len(_headers(out)) == 3  # each round's files once, the killed run's tidied

        # 3. The scheduler lost: a clear message, the finished rounds kept; a new scheduler
        # and worker, and --resume finishes the tournament.
        out = tmp_path / "lost-scheduler"
        judge = subprocess.Popen(
            _judge(str(cfg_path), "--out", str(out), "--cluster", address, connect_s=4.0),
            stderr=subprocess.PIPE,
            text=True,
        )
        _wait("a round in the ledger", lambda: _ledger_rows(out) >= 1)
        procs.kill(procs.procs[0])  # the scheduler
        _, err = judge.communicate(timeout=300)
        assert judge.returncode == 3, err
        said = " ".join(err.split())
        assert "lost the Dask scheduler" in said or "lost contact with the Dask cluster" in said
        assert "Traceback" not in err
        assert "--resume" in err
        kept = _rows(out)
        assert 1 <= len(kept) < 3
        assert len(_headers(out)) >= len(kept)  # the kept rounds' replays are there
        address = procs.start_scheduler()
        procs.start_worker("w4")
        argv = _judge(str(cfg_path), "--out", str(out), "--cluster", address, "--resume")
        resumed = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        rows = _rows(out)
        assert _standings(out) == expected
        assert len(rows) == len(set(rows)) == 3 and set(kept) <= set(rows)


def test_a_bundle_lost_with_the_worker_holding_it_is_published_again(
    tmp_path: Path, work: Path
) -> None:
    """The only worker holds every bundle (the data Dask scattered) and is killed mid-round:
    a worker that joins later still gets the bots, and the round is played and recorded once."""
    cfg_path = _config(tmp_path, ["slow", "twin_a"], "slow.yaml")
    shutil.copytree(work / "bots", tmp_path / "bots")
    _run_local(_config(tmp_path, ["greedy", "twin_a"], "fast.yaml"), tmp_path / "ref")
    out = tmp_path / "out"
    with DaskProcs(tmp_path) as procs:
        address = procs.start_scheduler()
        procs.start_worker("w1")
        assert procs.client is not None
        venues: list[Venue] = []

        @contextlib.contextmanager
        def venue_for(jobs: int) -> Iterator[Venue]:
            with cluster_venue(address, None, require_full=True) as venue:
                venues.append(venue)
                yield venue

        runner = Runner(load_config(cfg_path, build=False), out, 2, Sandbox, venue_for=venue_for)
        reports: list[Any] = []
        thread = threading.Thread(
            target=lambda: reports.append(runner.run(resume=False)), daemon=True
        )
        thread.start()
        try:

            def w1_busy() -> bool:
                # Exactly one round recorded: w1 (one thread) plays the 2nd of 3, so the
                # 3rd is still to play even if the 2nd ends before the kill.
                assert procs.client is not None
                return any(procs.client.processing().values()) and _ledger_rows(out) == 1

            _wait("w1 playing a round", w1_busy)
            w1 = procs.names()["w1"]
            held = {k for k, who in procs.client.who_has().items() if w1 in who}
            procs.kill(procs.workers["w1"])
            procs.start_worker("w2")
        finally:
            thread.join(timeout=300)
        assert not thread.is_alive(), "the tournament hangs"
        assert reports and reports[0].complete, reports[0].failure
        w2 = procs.names()["w2"]
        counters = procs.client.run(worker_counters)[w2]

    assert any(k.startswith("bytes-") for k in held)  # w1 held the bundles' data
    assert _standings(out) == _standings(tmp_path / "ref")
    rows = _rows(out)
    assert len(rows) == len(set(rows)) == 3
    assert reports[0].played == 3
    # Both bundles were published again once (w1 took the first copies with it) and w2
    # fetched each once; w2 played the rest, among them the round w1 was playing.
    traffic = venues[0].executor.traffic  # type: ignore[attr-defined]
    assert traffic.bundles_published == 4 and set(traffic.per_hash.values()) == {2}
    assert set(counters["fetches"]) == set(traffic.per_hash)
    assert set(counters["fetches"].values()) == {1} and counters["builds"] == 1
    players = [h["worker"].split(" ")[0] for h in _headers(out)]
    assert len(players) == 3 and players.count(w2) >= 2 and set(players) <= {w1, w2}


def test_a_worker_that_is_not_root_is_refused_by_name_unless_unsandboxed(
    tmp_path: Path, work: Path
) -> None:
    """Up front (the worker is there when the judge joins) and per round (it joins later)."""
    cfg_path = _sleepy_config(tmp_path, work)
    with DaskProcs(tmp_path) as procs:
        address = procs.start_scheduler()
        procs.start_worker("root1")
        nobody = procs.start_worker("nobody", as_nobody=True)
        # Both as the scheduler knows them (once, under load, a worker seen joining was
        # missing from the very next listing).
        _wait("both workers", lambda: {"root1", "nobody"} <= set(procs.names()))
        names = procs.names()
        argv = _judge(str(cfg_path), "--out", str(tmp_path / "refused"), "--cluster", address)

        # 1. Joined with a root worker and one that is not: refused before any round is
        # played (not even on the root worker), naming the one that is not.
        refused = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        err = " ".join(refused.stderr.split())
        assert refused.returncode == 2, refused.stderr
        assert f"worker {names['nobody']} (nobody on " in err
        assert "protections are OFF" in err and "separate uid per seat" in err
        assert "--unsandboxed" in err and "Traceback" not in err
        assert names["root1"] not in err
        assert not (tmp_path / "refused").exists()

        # 2. A worker that is not root joins once the rounds are under way (and the root
        # worker goes): the round sent to it is refused, naming it; the rounds played on
        # the root worker are kept.
        procs.kill(nobody)
        _wait("the scheduler to drop the worker", lambda: "nobody" not in procs.names())
        out = tmp_path / "per-round"
        argv = _judge(str(cfg_path), "--out", str(out), "--cluster", address)
        judge = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        _wait("the run to start", (out / "ledger.sqlite").is_file)
        procs.start_worker("late", as_nobody=True)
        late = procs.names()["late"]
        procs.kill(procs.workers["root1"])
        _, err = judge.communicate(timeout=300)
        said = " ".join(err.split())
        assert judge.returncode == 2, err
        assert f"worker {late} (late on " in said and "cannot fully isolate" in said
        assert "--unsandboxed" in said and "Traceback" not in err
        kept = _rows(out)
        assert len(kept) < 3
        assert all(h["worker"].startswith(names["root1"]) for h in _headers(out))

        # 3. --unsandboxed lets the rounds on that worker count, and says so: in each
        # round's replay (its worker and the protections off there) and in standings.json.
        played = subprocess.run(
            [*argv, "--resume", "--unsandboxed"], capture_output=True, text=True, timeout=300
        )
        assert played.returncode == 0, played.stderr
        rows = _rows(out)
        assert len(rows) == len(set(rows)) == 3 and set(kept) <= set(rows)
        by_late = [h for h in _headers(out) if h["worker"].startswith(late)]
        assert len(by_late) == 3 - len(kept)
        for header in by_late:
            off = [name for name, p in header["isolation"].items() if not p["on"]]
            assert "separate uid per seat" in off
        audit = json.loads((out / "standings.json").read_text(encoding="utf-8"))
        assert audit["unsandboxed"] is True and "separate uid per seat" in audit["protections_off"]
        assert [r["unsandboxed_option"] for r in audit["runs"]] == [False, True]


def test_a_worker_of_another_judge_is_refused_by_name_whenever_it_joined(
    tmp_path: Path, work: Path
) -> None:
    """Every round carries the judge's version and code hash; a worker whose
    judge differs (here: the same version string, one comment more in its code) refuses
    the rounds sent to it, naming itself, even when it joins once the run is under way."""
    cfg_path = _sleepy_config(tmp_path, work)
    other = tmp_path / "other-judge"
    shutil.copytree(ROOT / "judge", other / "judge", ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "judge" / "__init__.py"
    init.write_text(init.read_text() + "\n# a judge with one change\n")
    with DaskProcs(tmp_path) as procs:
        address = procs.start_scheduler()
        procs.start_worker("same")
        out = tmp_path / "out"
        argv = _judge(str(cfg_path), "--out", str(out), "--cluster", address)
        judge = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        _wait("the run to start", (out / "ledger.sqlite").is_file)
        procs.start_worker("changed", judge_copy=other)
        changed = procs.names()["changed"]
        procs.kill(procs.workers["same"])
        _, err = judge.communicate(timeout=300)
    said = " ".join(err.split())
    assert judge.returncode == 2, err
    assert f"worker {changed}" in said and "not the judge's" in said, said
    assert "every round of a run is played by the same judge" in said
    assert "Traceback" not in err
    assert len(_rows(out)) < 3  # the rounds the same judge played are kept


def test_a_league_on_the_cluster_matches_the_local_one(cluster: DaskProcs, work: Path) -> None:
    from judge.league.config import load_league
    from judge.league.run import League, RoundsPlayer
    from judge.sandbox import Limits

    league_file = work / "league.yaml"
    league_file.write_text(
        yaml.safe_dump(
            {
                "seed": 5,
                "bots_dir": str(work / "bots"),
                "sizes": "5",
                "turns": [2],
                "pairs": 2,
                "batch": 1,  # two batches: the second chosen from the first one's ratings
                "bots": [{"name": n, "bot": n} for n in ("twin_a", "random", "greedy")],
            }
        ),
        encoding="utf-8",
    )
    limits = Limits(time_s=2.0)
    boards = []
    with open_cluster(cluster.address) as session:
        player = RoundsPlayer(None, limits, 2, session.executor(None, require_full=False))
        league = League(load_league(league_file, build=False), work / "league-c", player)
        try:
            assert league.run(resume=False).pairs == 2
            boards.append(league.leaderboard())
        finally:
            league.close()
    with Sandbox() as sandbox:
        league = League(
            load_league(league_file), work / "league-l", RoundsPlayer(sandbox, limits, 2)
        )
        try:
            assert league.run(resume=False).pairs == 2
            boards.append(league.leaderboard())
        finally:
            league.close()
    assert boards[0] == boards[1] and sum(r.rounds for r in boards[0]) == 8


def test_a_build_that_fails_on_the_workers_is_that_bots_failure(
    cluster: DaskProcs, work: Path
) -> None:
    from judge.evaluate import EvalError

    broken = work / "broken_c"
    shutil.copytree(work / "bots" / "twin_a", broken)
    (broken / "greedy.c").write_text("this is not C\n")
    bots = [resolve_bot(str(broken), build=False), resolve_bot(str(work / "bots" / "random"))]
    req = EvalRequest(bots, ["broken_c", "random"], 2, parse_sizes("5"), [4], 1, 2)
    with open_cluster(cluster.address) as session:
        ex = session.executor(None, require_full=False)
        with pytest.raises(EvalError) as caught:
            evaluate(req, None, work / "eval-broken", executor=ex)
    message = str(caught.value)
    assert caught.value.exit_code == 2
    assert "broken_c" in message and "build failed" in message and "on worker" in message
