"""The arena's phases: ``open`` -> ``frozen`` -> ``final``, and the release of the results.

* **freeze** (``judge arena freeze DIR``, or the deadline in arena.yaml, seen
  by the server's ladder): uploads close on the server (every upload handler
  reads the phase), and each team's current version at that moment (its last
  accepted one) is written down: those are the final's versions, whatever a
  check still under way decides later.  The ladder stops; games still queued
  are dropped.
* **final** (``judge arena final DIR``): the final's configuration is written
  from the frozen versions and the teams' map choices
  (:mod:`judge.arena.final`), the phase becomes ``final``, and ``judge
  tournament`` plays it into ``DIR/final``.
* **release** (``judge arena release DIR``): a hidden scoreboard is shown
  (:mod:`judge.arena.scoreboard`), with the final's standings.

Map choices (``POST /api/map``): each team picks one map of the organisers'
list for all its rounds of the final; by ruling R19 no two teams may pick one
sea, so the first to pick a sea has it.  A team may change its pick until the
final starts.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from judge.arena import ArenaError
from judge.arena.config import ArenaConfig
from judge.arena.final import FINAL_DIR, FinalTeam
from judge.arena.gametask import program_path
from judge.arena.store import Phase, Store, now_iso
from judge.inputfiles import excerpt
from judge.maps import MapError, load_map
from judge.tournament.config import sea_key

RELEASED = "released"
FROZEN_VERSIONS = "frozen_versions"
FROZEN_AT = "frozen_at"


def freeze_in(conn: sqlite3.Connection, why: str) -> bool:
    """Close the arena in the caller's transaction (False: it was not open): the phase, the
    moment, and each team's current version then."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'phase'").fetchone()
    if row is not None and row[0] != Phase.OPEN.value:
        return False
    frozen = {
        str(team): int(version)
        for team, version in conn.execute(
            "SELECT v.team_id, v.id FROM versions v WHERE v.status = 'accepted' AND v.number = "
            "(SELECT max(c.number) FROM versions c WHERE c.team_id = v.team_id "
            "AND c.status = 'accepted')"
        ).fetchall()
    }
    for key, value in (
        ("phase", Phase.FROZEN.value),
        (FROZEN_VERSIONS, json.dumps(frozen)),
        (FROZEN_AT, now_iso()),
        ("frozen_by", why),
    ):
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
    return True


def freeze(store: Store, why: str = "the organiser") -> bool:
    result: bool = store.write(lambda conn: freeze_in(conn, why))
    return result


def released(store: Store) -> bool:
    return store.meta(RELEASED) == "1"


def release(store: Store) -> None:
    """Show the results (a hidden scoreboard is hidden no more)."""
    store.set_meta(RELEASED, "1")


# ------------------------------------------------------------- map choices
@dataclass(frozen=True)
class MapList:
    """The organisers' list the teams choose from: the practice maps of arena.yaml."""

    root: Path
    files: tuple[str, ...]

    def names(self) -> list[str]:
        return [Path(f).stem for f in self.files]

    def path(self, name: str) -> Path | None:
        for f in self.files:
            if Path(f).stem == name:
                return self.root / f
        return None


def choose_map(store: Store, maps: MapList, team_id: int, name: str) -> tuple[int, str]:
    """A team's pick: (200, what it chose) or (HTTP status, why it is refused)."""
    path = maps.path(name)
    if path is None:
        return 404, f"no map {excerpt(name)} on the list; pick one of {', '.join(maps.names())}"
    try:
        sea = json.dumps(sea_key(load_map(path)))
    except MapError as exc:
        return 409, f"the map {name} cannot be read: {exc}"

    def pick(conn: sqlite3.Connection) -> tuple[int, str]:
        phase = conn.execute("SELECT value FROM meta WHERE key = 'phase'").fetchone()
        if phase is not None and phase[0] == Phase.FINAL.value:
            return 403, "the final has started: the maps are fixed"
        other = conn.execute(
            "SELECT a.name FROM map_choices m JOIN accounts a ON a.id = m.team_id "
            "WHERE m.sea = ? AND m.team_id <> ?",
            (sea, team_id),
        ).fetchone()
        if other is not None:
            return 409, (
                f"{other[0]} has already chosen this sea ({name}); ruling R19: no two teams "
                "play on one map, so pick another"
            )
        conn.execute(
            "INSERT OR REPLACE INTO map_choices(team_id, map, sea, chosen_at) VALUES (?, ?, ?, ?)",
            (team_id, name, sea, now_iso()),
        )
        return 200, name

    result: tuple[int, str] = store.write(pick)
    return result


def chosen_maps(store: Store) -> dict[int, str]:
    return {int(t): str(m) for t, m in store.rows("SELECT team_id, map FROM map_choices")}


# ----------------------------------------------------------------- the final
def final_teams(root: Path, store: Store) -> list[FinalTeam]:
    """The final's teams: each team's version current at the freeze, as a program path, and
    its map pick (ArenaError: the arena is not frozen, or a team has no version)."""
    if store.phase is Phase.OPEN:
        raise ArenaError(f"{root}: the arena is open: freeze it first (judge arena freeze {root})")
    frozen = json.loads(store.meta(FROZEN_VERSIONS) or "{}")
    picks = chosen_maps(store)
    out = []
    for team in store.teams():
        version_id = frozen.get(str(team.id))
        if version_id is None:
            continue  # no accepted version at the freeze: not in the final
        v = store.version(int(version_id))
        assert v is not None
        out.append(
            FinalTeam(
                team.name,
                program_path(root, v.kind, v.path, v.sha256),
                picks.get(team.id),
                v.number,
            )
        )
    if len(out) < 2:
        raise ArenaError(
            f"{root}: {len(out)} team(s) had an accepted version at the freeze; a final needs 2"
        )
    return out


def wait_for_games(store: Store, timeout_s: float, poll_s: float = 1.0) -> int:
    """Wait until no game is being played (the final gets the machine); the number still
    running when ``timeout_s`` ran out."""
    end = time.monotonic() + timeout_s
    while True:
        (running,) = store.row(
            "SELECT count(*) FROM tasks WHERE kind = 'game' AND state = 'running'"
        ) or (0,)
        if int(running) == 0 or time.monotonic() >= end:
            return int(running)
        time.sleep(poll_s)


def final_dir(root: Path) -> Path:
    return root / FINAL_DIR


def organiser_map(root: Path, config: ArenaConfig) -> Path:
    if config.organiser_map is None:
        raise ArenaError(
            f"{root}: arena.yaml names no organiser_map: give the final's map (a file in the "
            "arena folder, off the practice list) there"
        )
    return root / config.organiser_map


FINAL_MAPS = "final-maps"


@dataclass(frozen=True)
class FinalPlan:
    """The final as written: its configuration file, and what was decided for it."""

    config: Path
    written: bool  # written now (False: a final that had started is resumed)
    notes: tuple[str, ...] = ()


def prepare_final(root: Path, store: Store, config: ArenaConfig, seed: int) -> FinalPlan:
    """``DIR/final.yaml`` from the frozen versions and the teams' picks (once), and the phase
    ``final``: from now on the maps are fixed too."""
    import shutil

    from judge.arena.final import FINAL_YAML, assign_maps, config_for, write_config

    path = root / FINAL_YAML
    if path.exists():
        store.set_phase(Phase.FINAL)
        return FinalPlan(path, False)
    final_teams(root, store)  # refused before anything changes
    organiser = organiser_map(root, config)
    store.set_phase(Phase.FINAL)  # no pick changes from here on ...
    try:
        teams = final_teams(root, store)  # ... so these are the last picks
        maps_dir = root / FINAL_MAPS
        # The list as the final plays it: arena.yaml's practice maps, where nothing else is.
        shutil.rmtree(maps_dir, ignore_errors=True)
        maps_dir.mkdir()
        for f in config.practice_maps:
            shutil.copyfile(root / f, maps_dir / Path(f).name)
        maps, notes = assign_maps(teams, maps_dir)
        limits = {"time_limit": config.limits.time_s, "memory_limit_mb": config.limits.memory_mb}
        data = config_for(root, teams, maps, maps_dir, organiser, seed, limits)
        written_path, written = write_config(root, data)
    except BaseException:
        store.set_phase(Phase.FROZEN)  # nothing was played: the teams may still pick
        raise
    return FinalPlan(written_path, written, tuple(notes))
