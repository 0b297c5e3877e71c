"""How a worker fetches a bot's bundle (no cluster: a fake client and a fake clock)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from judge.cluster import worker
from judge.cluster.worker import (
    FETCH_CHECK_S,
    FETCH_TIMEOUT_S,
    _fetch,
    _FetchFailed,
    _Missing,
    _watch_stop,
)

DATA = b"bundle"


class Clock:
    """``time.monotonic`` and ``time.sleep`` of a virtual clock (nothing really waits)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


class FakeFuture:
    """A published bundle: ``ready_at`` when the scheduler says it is in memory, and
    ``transfer_s`` to bring its bytes over (a ``result`` timeout shorter cuts it)."""

    key = "bytes-1"

    def __init__(self, clock: Clock, ready_at: float, transfer_s: float):
        self.clock, self.ready_at, self.transfer_s = clock, ready_at, transfer_s

    def done(self) -> bool:
        return self.clock.now >= self.ready_at

    def result(self, timeout: float | None = None) -> bytes:
        start = max(self.clock.now, self.ready_at)
        if timeout is not None and start + self.transfer_s > self.clock.now + timeout:
            self.clock.now += timeout
            raise TimeoutError(f"timed out after {timeout} s.")
        self.clock.now = start + self.transfer_s
        return DATA


class FakeClient:
    def __init__(self, future: FakeFuture | None, holders: list[str]):
        self.future, self.holders = future, holders
        self.who_has_calls = 0

    def get_dataset(self, name: str, default: Any = None) -> Any:
        return self.future if self.future is not None else default

    def who_has(self, futures: list[FakeFuture]) -> dict[str, list[str]]:
        self.who_has_calls += 1
        return {f.key: list(self.holders) for f in futures}


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(worker, "time", c)
    return c


def _use(monkeypatch: pytest.MonkeyPatch, client: FakeClient) -> None:
    monkeypatch.setattr(worker, "get_client", lambda: client)


def test_a_bundle_that_takes_longer_than_a_check_to_transfer_is_still_fetched(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large bundle on a slow network: its transfer is not cut every FETCH_CHECK_S."""
    future = FakeFuture(clock, ready_at=0.0, transfer_s=5 * FETCH_CHECK_S)
    _use(monkeypatch, FakeClient(future, ["tcp://w1:1"]))
    assert _fetch("d" * 64) == DATA
    assert clock.now == pytest.approx(5 * FETCH_CHECK_S)


def test_a_bundle_no_worker_holds_is_missing_at_once(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    future = FakeFuture(clock, ready_at=float("inf"), transfer_s=0.0)
    _use(monkeypatch, FakeClient(future, []))
    with pytest.raises(_Missing):
        _fetch("d" * 64)
    assert clock.now == 0.0
    _use(monkeypatch, FakeClient(None, []))  # not published at all
    with pytest.raises(_Missing):
        _fetch("d" * 64)


def test_the_wait_for_a_bundle_asks_who_holds_it_and_gives_up_in_the_end(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    future = FakeFuture(clock, ready_at=3.5 * FETCH_CHECK_S, transfer_s=0.1)
    client = FakeClient(future, ["tcp://w1:1"])
    _use(monkeypatch, client)
    assert _fetch("d" * 64) == DATA
    assert client.who_has_calls == 4  # at 0, then every FETCH_CHECK_S while waiting
    # held, but never said to be in memory: given up after FETCH_TIMEOUT_S
    clock.now = 0.0
    _use(monkeypatch, FakeClient(FakeFuture(clock, float("inf"), 0.0), ["tcp://w1:1"]))
    with pytest.raises(_Missing):
        _fetch("d" * 64)
    assert FETCH_TIMEOUT_S <= clock.now < FETCH_TIMEOUT_S + 1


class BrokenFuture(FakeFuture):
    """A published bundle whose bytes cannot be brought over for a reason of its own."""

    def result(self, timeout: float | None = None) -> bytes:
        raise ValueError("the bundle's pickle is damaged")


def test_a_fetch_that_fails_for_another_reason_says_so_and_is_not_missing(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a bundle no worker holds is 'missing' (published again); any other
    failure comes back as it is, with its traceback."""
    _use(monkeypatch, FakeClient(BrokenFuture(clock, 0.0, 0.0), ["tcp://w1:1"]))
    with pytest.raises(_FetchFailed) as exc:
        _fetch("d" * 64)
    assert isinstance(exc.value.cause, ValueError) and "damaged" in str(exc.value.cause)
    assert "ValueError: the bundle's pickle is damaged" in exc.value.trace


def test_a_stop_watcher_that_fails_stops_the_round_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreachable() -> Any:
        raise OSError("the scheduler is gone")

    monkeypatch.setattr(worker, "get_client", unreachable)
    stop, finished = threading.Event(), threading.Event()
    failure: list[str] = []
    _watch_stop("run-1", stop, finished, failure)
    assert stop.is_set() and failure == ["OSError: the scheduler is gone"]
