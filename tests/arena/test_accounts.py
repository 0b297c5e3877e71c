"""Logins held back (no web here): the limit holds for guesses made at once, and the record of
wrong passwords keeps only what still counts."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from argon2 import PasswordHasher

from judge.arena.accounts import Accounts
from judge.arena.config import RateLimits
from judge.arena.store import Store
from tests.arena.conftest import CHEAP, make

TEAM = "Rồng Biển"
LIMITS = RateLimits(
    login_failures_per_team=3,
    login_failures_per_team_everywhere=3,
    login_failures_per_address=100,
    login_window_s=60,
)


class SlowHasher(PasswordHasher):
    """Verifies as slowly as the server's real parameters do on a loaded machine."""

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:  # noqa: A002
        time.sleep(0.2)
        return super().verify(hash, password)


def _store(tmp_path: Path) -> Store:
    made = make(tmp_path)
    return Store.open(made.root / "arena.sqlite")


def test_guesses_made_at_once_get_no_more_tries_than_the_limit(tmp_path: Path) -> None:
    store = _store(tmp_path)
    accounts = Accounts(store, SlowHasher(time_cost=1, memory_cost=1024, parallelism=1))
    answers: list[float | None] = []
    start = threading.Barrier(10)

    def guess(i: int) -> None:
        start.wait()
        got = accounts.login(TEAM, f"guess {i}", f"10.0.0.{i}", LIMITS)
        answers.append(got.retry_after_s)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tried = [a for a in answers if a is None]  # verified (and wrong), not held back
    assert len(tried) == LIMITS.login_failures_per_team_everywhere, answers
    store.close()


def test_a_right_password_within_the_limit_is_no_failure(tmp_path: Path) -> None:
    made = make(tmp_path)
    store = Store.open(made.root / "arena.sqlite")
    accounts = Accounts(store, CHEAP)
    for _ in range(LIMITS.login_failures_per_team - 1):
        assert accounts.login(TEAM, "guess", "10.0.0.1", LIMITS).account is None
    assert accounts.login(TEAM, made.password(TEAM), "10.0.0.1", LIMITS).account is not None
    assert accounts.login(TEAM, made.password(TEAM), "10.0.0.1", LIMITS).account is not None
    store.close()


def test_wrong_passwords_older_than_the_window_are_forgotten(tmp_path: Path) -> None:
    store = _store(tmp_path)
    accounts = Accounts(store, CHEAP)
    t = 1_000_000.0
    for i in range(50):  # a guesser going through names from ever new addresses
        accounts.login(f"nobody {i}", "guess", f"10.1.0.{i}", LIMITS, now=t)
    assert store.row("SELECT count(*) FROM login_failures") == (50,)
    accounts.login("nobody else", "guess", "10.2.0.1", LIMITS, now=t + LIMITS.login_window_s + 1)
    assert store.row("SELECT count(*) FROM login_failures") == (1,)
    store.close()
