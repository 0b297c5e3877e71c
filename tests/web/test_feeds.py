"""Watchers cost the play nothing: one reader per followed thing, shared by all its viewers.

Many viewers follow one tournament's event stream through a real server
(uvicorn in a thread, HTTP clients on sockets): the tournament is read once
per change, however many viewers there are, and every viewer gets every
change.  The hub itself: a late viewer of a state gets the newest one, a late
viewer of a log gets it all, and the reader stops with its last viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import threading
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import starlette  # noqa: F401  (the web extra: a broken install must fail)

from judge.web import state  # noqa: E402
from judge.web.app import Background  # noqa: E402
from judge.web.feeds import Hub, Poll, Snapshot  # noqa: E402
from tests.tournament._helpers import make_config, run_fake  # noqa: E402
from tests.views._replays import eventful_round  # noqa: E402

VIEWERS = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("feeds")
    teams = [{"name": n, "bot": "greedy", "map": f"m{i + 1}"} for i, n in enumerate(["A", "B"])]
    cfg = make_config(root / "cfg", n_teams=2, teams=teams, turns=6)
    assert run_fake(cfg, root / "final").complete
    return root / "final"


async def _events(client: Any, url: str, want: int) -> list[Any]:
    """The first ``want`` events of a stream (comments skipped)."""
    got: list[Any] = []
    async with client.stream("GET", url, headers={"accept": "text/event-stream"}) as r:
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                got.append(json.loads(line[6:]))
                if len(got) == want:
                    return got
    return got


def test_many_viewers_of_a_tournament_cost_one_read_per_change(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "final"
    shutil.copytree(played, folder)
    reads: list[Path] = []
    real = state.tournament

    def counted(f: Path) -> Any:
        reads.append(f)
        return real(f)

    monkeypatch.setattr(state, "tournament", counted)
    port = _free_port()
    web = Background(folder, "127.0.0.1", port)
    web.start()
    url = f"http://127.0.0.1:{port}/api/tournament?p="

    async def main() -> list[list[Any]]:
        limits = httpx.Limits(max_connections=VIEWERS + 5)
        async with httpx.AsyncClient(timeout=20, limits=limits) as client:
            viewers = [asyncio.create_task(_events(client, url, 2)) for _ in range(VIEWERS)]
            await asyncio.sleep(1.5)  # every viewer has the first state; six polls went by
            assert len(reads) == 1, len(reads)
            (folder / "standings.json").unlink()  # a change: the tournament is no longer over
            return await asyncio.wait_for(asyncio.gather(*viewers), 20)

    try:
        got = asyncio.run(main())
    finally:
        web.stop()
    assert len(reads) == 2, len(reads)  # once at the start, once for the change
    for first, second in got:
        assert first["complete"] is True and second["complete"] is False
        assert first["standings"] == second["standings"]


class Counting:
    """A source that says a new number each time ``tick`` is set, counting its polls."""

    def __init__(self, snapshot: bool) -> None:
        self.snapshot = snapshot
        self.polls = 0
        self.value = 0
        self.tick = threading.Event()

    def poll(self) -> Poll:
        self.polls += 1
        if not self.tick.is_set():
            return Poll()
        self.tick.clear()
        self.value += 1
        return Poll([self.value])


async def _messages(
    stream: AsyncGenerator[bytes, None], enough: Callable[[list[Any]], bool]
) -> list[Any]:
    """A viewer's messages until it has ``enough``; then it leaves (as a closed connection
    does)."""
    out: list[Any] = []
    async with contextlib.aclosing(stream):
        async for message in stream:
            if message.startswith(b"data: "):
                out.append(json.loads(message[6:]))
                if enough(out):
                    break
    return out


async def _take(stream: AsyncGenerator[bytes, None], last: int) -> list[int]:
    """The messages up to ``last``."""
    return await _messages(stream, lambda out: out[-1] == last)


async def _first_messages(stream: AsyncGenerator[bytes, None], n: int) -> list[Any]:
    """A viewer's first ``n`` messages."""
    return await _messages(stream, lambda out: len(out) == n)


async def _tick(src: Counting) -> None:
    """One change, and time for it to be sent."""
    src.tick.set()
    while src.tick.is_set():
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)


@pytest.mark.parametrize("snapshot", [True, False])
def test_a_late_viewer_gets_the_newest_state_or_the_whole_log(snapshot: bool) -> None:
    async def main() -> tuple[list[int], list[int], int, Hub]:
        hub = Hub(threading.Event(), interval=0.01)
        src = Counting(snapshot)
        early = asyncio.create_task(_take(hub.follow("x", lambda: src), 4))
        for _ in range(3):
            await _tick(src)
        late = await asyncio.wait_for(_take(hub.follow("x", lambda: Counting(snapshot)), 3), 5)
        await _tick(src)
        got = await asyncio.wait_for(early, 5)
        polls = src.polls
        await asyncio.sleep(0.1)  # ten intervals: a reader still running would poll
        return got, late, src.polls - polls, hub

    early, late, polls_after, hub = asyncio.run(main())
    assert early == [1, 2, 3, 4]
    assert late == ([3] if snapshot else [1, 2, 3])
    assert hub.feeds == {} and polls_after == 0  # the last viewer gone, the reader stopped


def _append(path: Path, line: Any) -> None:
    """One line more, as the referee writes a turn (appended and flushed)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def test_a_round_is_read_once_for_all_its_viewers(tmp_path: Path) -> None:
    """A round being written, followed by many viewers: each new line is read once, and every
    viewer sees every turn and the end."""
    lines = eventful_round()
    part = tmp_path / "round-1" / "replay.jsonl.part"
    part.parent.mkdir()
    for line in lines[:2]:
        _append(part, line)
    sources: list[state.RoundSource] = []

    def make() -> state.RoundSource:
        sources.append(state.RoundSource(part.parent))
        return sources[-1]

    async def viewer(hub: Hub) -> list[int]:
        turns: list[int] = []
        stream = hub.follow("round", make)
        async with contextlib.aclosing(stream):
            async for message in stream:
                msg = json.loads(message[6:]) if message.startswith(b"data: ") else {}
                turns += [f["turn"] for f in msg.get("frames", [])]
                if msg.get("finished"):
                    break
        return turns

    async def main() -> list[list[int]]:
        hub = Hub(threading.Event(), interval=0.02)
        tasks = [asyncio.create_task(viewer(hub)) for _ in range(VIEWERS)]
        for k in range(3, len(lines) + 1):
            await asyncio.sleep(0.06)
            _append(part, lines[k - 1])
        await asyncio.sleep(0.06)
        part.rename(part.with_name("replay.jsonl"))
        return await asyncio.wait_for(asyncio.gather(*tasks), 10)

    got = asyncio.run(main())
    assert len(sources) == 1
    turns = [r["turn"] for r in lines[1:]]
    assert all(g == turns for g in got)
    # one read per line added (and one for the end): never one per viewer
    assert sources[0].reads <= len(lines) + 1


def test_the_watchers_benchmark_plays_a_valid_final(tmp_path: Path) -> None:
    """benchmarks/watchers.py's final is one the judge accepts (the figures are its own)."""
    from judge.tournament.config import load_config
    from tests.benchmark_module import load_benchmark

    bench = load_benchmark("watchers")
    cfg = load_config(bench.write_final(tmp_path, 3, 20))
    assert len(cfg.teams) == 3 and cfg.turns == 20 and cfg.title == "watchers benchmark"
    assert bench.PLAYED.search("9 round(s) played in 6.9 s; written to out/").group(2) == "6.9"


def test_a_snapshot_of_a_read_state_is_sent_when_it_changes_and_read_once_for_all() -> None:
    """The arena's pages: a state read whole (from its store), shared by every viewer of one
    key; a read that gives the same state again sends nothing."""
    reads: list[int] = []
    state = {"status": "queued"}

    def read() -> dict[str, str]:
        reads.append(1)
        return dict(state)

    async def main() -> tuple[list[list[Any]], int]:
        hub = Hub(threading.Event(), interval=0.01)

        async def first(n: int) -> list[Any]:
            return await _first_messages(hub.follow(("team", 7), lambda: Snapshot(read)), n)

        viewers = [asyncio.create_task(first(2)) for _ in range(20)]
        await asyncio.sleep(0.1)  # ten polls of an unchanged state
        before = len(reads)
        state["status"] = "accepted"
        got = await asyncio.wait_for(asyncio.gather(*viewers), 5)
        return list(got), before

    got, before = asyncio.run(main())
    assert all(g == [{"status": "queued"}, {"status": "accepted"}] for g in got)
    assert before <= 15  # one reader for twenty viewers, about ten polls in 0.1 s


def test_a_finished_round_is_read_once_for_viewers_who_come_one_after_another(
    tmp_path: Path,
) -> None:
    """Projectors behind the play each open a round long over, at their own moment: the
    round is read once for all of them, and again only once its replay is written anew."""
    lines = eventful_round()
    path = tmp_path / "round-1" / "replay.jsonl"
    path.parent.mkdir()
    for line in lines:
        _append(path, line)
    sources: list[state.RoundSource] = []

    def make() -> state.RoundSource:
        sources.append(state.RoundSource(path.parent))
        return sources[-1]

    async def viewer(hub: Hub) -> list[int]:
        turns: list[int] = []
        stream = hub.follow("round", make)
        async with contextlib.aclosing(stream):
            async for message in stream:
                msg = json.loads(message[6:]) if message.startswith(b"data: ") else {}
                turns += [f["turn"] for f in msg.get("frames", [])]
        return turns

    async def main() -> tuple[list[list[int]], list[int]]:
        hub = Hub(threading.Event(), interval=0.01)
        seen = [await asyncio.wait_for(viewer(hub), 5) for _ in range(20)]
        path.unlink()  # the round played again (a team's program replaced): a new replay
        for line in lines[:3]:
            _append(path, line)
        return seen, await asyncio.wait_for(viewer(hub), 5)

    seen, again = asyncio.run(main())
    turns = [r["turn"] for r in lines[1:]]
    assert all(s == turns for s in seen)
    assert again == [1, 2]
    assert len(sources) == 2, len(sources)  # once for the twenty viewers, once for the new one


def test_a_viewer_who_comes_after_a_change_is_never_sent_the_state_before_it() -> None:
    """A form's redirect: the team's page is loaded after the write, drawn from the new state,
    while the feed's last message, read before the write, is still the old one: the new
    viewer's first message comes from a read begun after it came."""
    state = {"map": None}
    first_of = _first_messages

    async def main() -> tuple[list[Any], list[Any]]:
        hub = Hub(threading.Event(), interval=0.5)
        follow = lambda: hub.follow(("team", 1), lambda: Snapshot(lambda: dict(state)))  # noqa: E731
        early = asyncio.create_task(first_of(follow(), 2))
        while not hub.feeds or not hub.feeds[("team", 1)].log:
            await asyncio.sleep(0.01)  # the early viewer's page has the state before the write
        state["map"] = "m2"  # the write, then at once the redirected page's viewer
        late = await asyncio.wait_for(first_of(follow(), 1), 5)
        return late, await asyncio.wait_for(early, 5)

    late, early = asyncio.run(main())
    assert late == [{"map": "m2"}]
    assert early == [{"map": None}, {"map": "m2"}]


def test_a_viewer_of_an_unchanged_state_gets_keepalives_and_is_closed_when_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reads that find nothing new wake no viewer: its stream sends a comment line after
    KEEPALIVE_S without news, and ends after its idle time, however often the state is read."""
    import judge.web.feeds as feeds

    monkeypatch.setattr(feeds, "KEEPALIVE_S", 0.05)

    async def main() -> list[bytes]:
        hub = Hub(threading.Event(), interval=0.005)
        got: list[bytes] = []
        stream = hub.follow(("team", 2), lambda: Snapshot(lambda: {"map": "m1"}), 0.3)
        async with contextlib.aclosing(stream):
            async for message in stream:
                got.append(message)
        return got

    got = asyncio.run(asyncio.wait_for(main(), 5))
    assert got[0].startswith(b"data: ") and len([m for m in got if m.startswith(b"data")]) == 1
    assert b": still here\n\n" in got[1:], got
