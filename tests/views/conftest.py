"""Shared replays for the view tests: made once per session (they are pure data)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from ._replays import big_round, eventful_round, write_match


@pytest.fixture(scope="session")
def _eventful() -> list[dict[str, Any]]:
    return eventful_round()


@pytest.fixture(scope="session")
def _big() -> list[dict[str, Any]]:
    return big_round()


@pytest.fixture
def eventful(_eventful: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 7x7 round (header first): shield, reef sinking (a wreck), treasure."""
    return copy.deepcopy(_eventful)


@pytest.fixture
def big(_big: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A 15x15, K=40 round between two greedy boats (header first)."""
    return copy.deepcopy(_big)


@pytest.fixture
def match_dir(tmp_path: Path, _eventful: list[dict[str, Any]], _big: list[dict[str, Any]]) -> Path:
    """A match folder as ``judge match`` writes it: round 1 the 7x7 round, round 2 the 15x15."""
    return write_match(tmp_path / "match", [_eventful, _big])
