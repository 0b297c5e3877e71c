"""The kinds of task an arena server runs, by name (each a :class:`~judge.arena.service.TaskKind`).

``check`` (:mod:`.checks`) is the check on upload; a kind added to the arena is
registered here, and every server runs it.
"""

from __future__ import annotations

from judge.arena.checks import check_kind
from judge.arena.gametask import game_kind
from judge.arena.service import TaskKind


def task_kinds() -> list[TaskKind]:
    return [check_kind(), game_kind()]
