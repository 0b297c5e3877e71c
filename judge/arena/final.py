"""The final of an arena: ``judge tournament`` itself, on the versions current at the freeze.

The final is not a second implementation of the tournament.  Once uploads
are closed, :func:`write_config` writes ``DIR/final.yaml``, a tournament
configuration like any ``judge.yaml``: each team's frozen version as its bot
(a path into the arena's content store), the map it chose from the
organisers' list (ruling R19: fixed for all its rounds, no two teams on one
sea), the organisers' final map, the contest's limits and the arena's seed.
Then ``judge tournament``'s own runner plays it into ``DIR/final/``: the
same ledger, resume, ``standings.json``, ``standings.csv``, ``index.html`` and
live pages, so that ``judge tournament DIR/final.yaml --out ELSEWHERE`` gives
the same standings, round for round (tests/arena/test_final.py checks it).

``final.yaml`` is written once: a final that was started is resumed on the
configuration it was started with, never on one rewritten since.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from judge import atomic
from judge.errors import JudgeError
from judge.inputfiles import excerpt
from judge.maps import MapError, load_map
from judge.names import folder_name
from judge.tournament.config import sea_key

FINAL_YAML = "final.yaml"
FINAL_DIR = "final"

_HEADER = """\
# The arena's final, written by `judge arena final` from the versions current at the
# freeze and the maps the teams chose.  It is an ordinary tournament configuration:
#   judge tournament final.yaml --out final --resume   resumes it,
#   judge tournament final.yaml --out ELSEWHERE        plays it again (the same standings).
# Do not edit it once the final has started: its ledger is tied to this content.
"""


class FinalError(JudgeError, ValueError):
    """The final cannot be written or played as asked (the message says what to do)."""


@dataclass(frozen=True)
class FinalTeam:
    """A team of the final: its frozen version's program and the map it chose (if any)."""

    name: str
    bot: Path  # the version's program: an .exe or a bot folder (absolute)
    map: str | None  # a map of the organisers' list, by name (None: not chosen)
    version: int = 0


def listed_maps(maps_dir: Path) -> list[str]:
    """The organisers' list: the names of the ``.txt`` maps directly in ``maps_dir``."""
    if not maps_dir.is_dir():
        return []
    return sorted(p.stem for p in maps_dir.glob("*.txt") if p.is_file())


def assign_maps(teams: Sequence[FinalTeam], maps_dir: Path) -> tuple[dict[str, str], list[str]]:
    """Each team's map: its choice, or for a team that chose none the first map of the
    list that no team chose (teams in name order), and a note for each such team.

    Two teams on one sea (a file under two names) are refused, as ``judge tournament``
    would refuse them; so are more teams than maps.
    """
    listed = listed_maps(maps_dir)
    chosen: dict[str, str] = {}
    seas: dict[Any, str] = {}
    for t in teams:
        if t.map is None:
            continue
        if t.map not in listed:
            raise FinalError(
                f"{t.name}'s map {excerpt(t.map)} is not on the organisers' list ({maps_dir}): "
                f"pick one of {', '.join(listed) or '(none)'}"
            )
        sea = _sea(maps_dir, t.map)
        if sea in seas:
            raise FinalError(
                f"{t.name} and {seas[sea]} chose the same sea ({t.map}); ruling R19: a match "
                "needs three different maps, so one of them must choose another map"
            )
        seas[sea] = t.name
        chosen[t.name] = t.map
    free = [m for m in listed if _sea(maps_dir, m) not in seas]
    notes = []
    for t in sorted((t for t in teams if t.map is None), key=_by_name):
        while free and _sea(maps_dir, free[0]) in seas:
            free.pop(0)
        if not free:
            raise FinalError(
                f"{len(teams)} teams but the organisers' list ({maps_dir}) has no map left for "
                f"{t.name}, which chose none; add maps to the list, or have the teams choose"
            )
        m = free.pop(0)
        seas[_sea(maps_dir, m)] = t.name
        chosen[t.name] = m
        notes.append(
            f"{t.name} chose no map: it plays on {m}, the first map of the list nobody chose"
        )
    return chosen, notes


def _by_name(t: FinalTeam) -> tuple[str, str]:
    """Name order, by the names' plain-ASCII form first ("Ánh" sorts with "A")."""
    return (folder_name(t.name).casefold(), t.name)


def _sea(maps_dir: Path, name: str) -> Any:
    try:
        return sea_key(load_map(maps_dir / f"{name}.txt"))
    except MapError as exc:
        raise FinalError(f"the map {name} of the list cannot be read: {exc}") from None


def config_for(
    arena_dir: Path,
    teams: Sequence[FinalTeam],
    maps: Mapping[str, str],
    maps_dir: Path,
    organiser_map: Path,
    seed: int,
    limits: Mapping[str, Any],
) -> dict[str, Any]:
    """The final's tournament configuration, as a mapping (paths relative to the arena's
    folder where they are inside it, so the folder can be moved).

    ``limits``: ``time_limit``, ``memory_limit_mb`` and ``turns`` (any left out: the
    tournament's defaults).
    """
    data: dict[str, Any] = {"seed": seed}
    for key in ("turns", "time_limit", "memory_limit_mb"):
        if limits.get(key) is not None:
            data[key] = limits[key]
    data.update(
        {
            "output": FINAL_DIR,
            "maps_dir": _rel(maps_dir, arena_dir),
            "organiser_map": _rel(organiser_map, arena_dir),
            "teams": [
                {"name": t.name, "bot": _rel(t.bot, arena_dir), "map": maps[t.name]}
                for t in sorted(teams, key=_by_name)
            ],
        }
    )
    return data


def _rel(path: Path, base: Path) -> str:
    path, base = path.resolve(), base.resolve()
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def write_config(arena_dir: Path, data: Mapping[str, Any]) -> tuple[Path, bool]:
    """``DIR/final.yaml`` (atomically), unless it is there already; (its path, written now)."""
    path = arena_dir / FINAL_YAML
    if os.path.lexists(path):
        return path, False
    text = _HEADER + yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True)
    atomic.write_text(path, text)
    return path, True
