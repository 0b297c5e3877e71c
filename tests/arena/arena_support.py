"""An arena folder for the ladder's end-to-end tests: made by `judge arena init`'s own code,
with versions whose programs are bundled bots (as a check would leave them)."""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path

from argon2 import PasswordHasher

from judge.arena.checks import UNPACKED
from judge.arena.folder import Credential, make_arena
from judge.arena.store import Store
from judge.arena.submissions import store_folder

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "bots"
#: Quick to hash: the tests make arenas, they do not guard them.
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def short_maps(folder: Path, k: int = 6) -> Path:
    """The bundled maps m1..m3 with K = ``k``, and an organiser's map apart (quick finals)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("m1", "m2", "m3"):
        lines = (ROOT / "maps" / f"{name}.txt").read_text().splitlines()
        rows, cols, _k = lines[0].split()
        (folder / f"{name}.txt").write_text("\n".join([f"{rows} {cols} {k}", *lines[1:]]) + "\n")
    lines = (ROOT / "maps" / "organiser" / "final.txt").read_text().splitlines()
    rows, cols, _k = lines[0].split()
    organiser = folder.parent / "organiser.txt"
    organiser.write_text("\n".join([f"{rows} {cols} {k}", *lines[1:]]) + "\n")
    return organiser


def make_test_arena(tmp: Path, teams: list[str]) -> tuple[Path, list[Credential]]:
    csv = tmp / "teams.csv"
    csv.write_text("team,members\n" + "".join(f"{t},\n" for t in teams), encoding="utf-8")
    organiser = short_maps(tmp / "maps")
    root = tmp / "arena"
    creds = make_arena(root, csv, tmp / "maps", organiser, hasher=FAST)
    return root, creds


def add_bot_version(root: Path, store: Store, team: str, bot: str) -> int:
    """An accepted version of ``team`` whose program is the bundled ``bot`` (a zipped bot
    folder, unpacked where its check would have unpacked it)."""
    team_id = next(t.id for t in store.teams() if t.name == team)
    sha = hashlib.sha256(f"{team}:{bot}:{time.time_ns()}".encode()).hexdigest()
    folder = store_folder(root, sha)
    folder.mkdir(parents=True)
    shutil.copytree(BUNDLED / bot, folder / UNPACKED)

    def write(conn):  # type: ignore[no-untyped-def]
        (n,) = conn.execute(
            "SELECT coalesce(max(number), 0) + 1 FROM versions WHERE team_id = ?", (team_id,)
        ).fetchone()
        cur = conn.execute(
            "INSERT INTO versions(team_id, number, sha256, size, uploaded_at, uploaded_ts, "
            "original_name, kind, status, path) VALUES (?, ?, ?, 1, 'now', ?, ?, 'zip', "
            "'accepted', ?)",
            (team_id, n, sha, time.time(), f"{bot}.zip", f"store/{sha[:2]}/{sha}/bot.zip"),
        )
        return cur.lastrowid

    return int(store.write(write))
