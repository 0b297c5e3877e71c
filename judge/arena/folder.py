"""An arena folder: made by ``judge arena init`` from a list of teams, opened by the server.

``TEAMS.csv`` has a header with a ``team`` column and, optionally, ``members``
(other columns are ignored); UTF-8 with or without the BOM Excel writes, commas
or the semicolons some locales' Excel uses.  Names are kept as written (NFC).
Every line is checked before anything is written: a duplicate team, an empty or
unprintable name, a file that is not CSV text is a message naming the line, and
no folder is made.  The folder is built beside its final place and renamed into
it, so it is there whole or not at all.

What it holds::

    arena.yaml          the settings (commented)
    arena.sqlite        the store
    credentials.csv     each team's password and upload token, the organiser's login (0600)
    maps/               the practice maps; maps/organiser/ the organiser's map
    store/              every uploaded file, under its content hash
    tmp/                uploads being received (emptied at each start)
    checks/             the checks' rounds and logs
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher

from judge import bundled
from judge.arena import ArenaError
from judge.arena.accounts import ORGANISER, Accounts, name_key, new_password, new_token
from judge.arena.config import CONFIG_FILE, ArenaConfig, load_config, render_template
from judge.arena.ladderconfig import TEMPLATE as LADDER_TEMPLATE
from judge.arena.store import STORE_FILE, Role, Store
from judge.arena.submissions import STORE_DIR, TMP_DIR
from judge.inputfiles import InputFileError, read_input
from judge.names import name_problem, normalise

CREDENTIALS_FILE = "credentials.csv"
MAPS_DIR = "maps"
CHECKS_DIR = "checks"
LOCK_FILE = "arena.lock"
#: The largest TEAMS.csv read.
TEAMS_BYTES = 1 << 20


@dataclass(frozen=True)
class TeamLine:
    line: int
    name: str
    members: str


@dataclass(frozen=True)
class Credential:
    role: str
    name: str
    password: str
    token: str
    members: str = ""


def read_teams(path: Path) -> list[TeamLine]:
    """The teams of a TEAMS.csv, checked (ArenaError naming the line of each problem)."""
    rows = _csv_rows(path)
    header = [h.strip().casefold() for h in rows[0]]
    if "team" not in header:
        raise ArenaError(
            f"{path}: line 1 must be a header with a 'team' column (and optionally 'members'); "
            f"it is {', '.join(repr(h) for h in rows[0]) or 'empty'}"
        )
    col = header.index("team")
    members_col = header.index("members") if "members" in header else None
    problems: list[str] = []
    teams: list[TeamLine] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        name = normalise(row[col]) if col < len(row) else ""
        members = ""
        if members_col is not None and members_col < len(row):
            members = normalise(row[members_col])
        why = _team_problem(name, seen)
        if why is not None:
            problems.append(f"line {number}: {why}")
            continue
        seen[name_key(name)] = number
        teams.append(TeamLine(number, name, members))
    if problems:
        raise ArenaError(f"{path}: " + "; ".join(problems) + "; nothing was written")
    if not teams:
        raise ArenaError(f"{path}: no team in it; give a team a line under the header")
    return teams


def _csv_rows(path: Path) -> list[list[str]]:
    """The rows of a CSV file of at most :data:`TEAMS_BYTES` (UTF-8, with or without
    Excel's BOM; commas or, in a header without them, semicolons), at least one."""
    try:
        data = read_input(path, "a TEAMS.csv", TEAMS_BYTES)
    except InputFileError as exc:
        raise ArenaError(f"cannot read {exc}") from None
    if data.startswith(b"PK\x03\x04"):
        raise ArenaError(
            f"{path}: an Excel workbook (or another zip), not a CSV file: save it as "
            "'CSV UTF-8 (comma delimited)'"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ArenaError(
            f"{path}: not UTF-8 text (byte {exc.start + 1}): save it as 'CSV UTF-8'"
        ) from None
    if "\0" in text:
        raise ArenaError(f"{path}: not a CSV file (it holds NUL bytes)")
    first = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first and "," not in first else ","
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        raise ArenaError(f"{path}: not a CSV file this judge can read ({exc})") from None
    if not rows:
        raise ArenaError(
            f"{path}: empty; give a header line with a 'team' column, then a team a line"
        )
    return rows


def _team_problem(name: str, seen: dict[str, int]) -> str | None:
    """Why ``name`` cannot be a team's (``seen``: the names so far, by key, with their line)."""
    if not name:
        return "the team name is empty"
    why = name_problem(name)
    if why is not None:
        return f"team {name!r}: {why}"
    key = name_key(name)
    if key == name_key(ORGANISER):
        return f"{name!r} is the organiser's login; call the team otherwise"
    if key in seen:
        return f"team {name!r} is already on line {seen[key]}"
    return None


def _maps(maps_dir: Path | None) -> list[Path]:
    from judge.maps import MapError, load_map

    folder = maps_dir if maps_dir is not None else bundled.bundled_dir(bundled.MAPS)
    if folder is None or not folder.is_dir():
        raise ArenaError(f"{folder}: no such folder of maps")
    files = sorted(p for p in folder.glob("*.txt") if p.is_file())
    if not files:
        raise ArenaError(f"{folder}: no map files (*.txt) in it")
    for f in files:
        try:
            load_map(f)
        except MapError as exc:
            raise ArenaError(f"practice map {f}: {exc}") from None
    return files


def make_arena(
    folder: Path,
    teams_csv: Path,
    maps_dir: Path | None = None,
    organiser_map: Path | None = None,
    hasher: PasswordHasher | None = None,
) -> list[Credential]:
    """Make the arena folder (nothing is left behind when anything is wrong)."""
    teams = read_teams(teams_csv)
    maps = _maps(maps_dir)
    if organiser_map is not None:
        from judge.maps import MapError, load_map

        try:
            load_map(organiser_map)
        except MapError as exc:
            raise ArenaError(f"--organiser-map: {exc}") from None
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ArenaError(f"{folder} already exists and is not an empty folder; give a new one")
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = folder.parent / f".{folder.name}.init-{secrets.token_hex(4)}"
    building.mkdir(mode=0o700)
    try:
        creds = _fill(building, teams, maps, organiser_map, hasher)
        if folder.exists():
            folder.rmdir()
        os.replace(building, folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    os.chmod(folder, 0o755)
    return creds


def _fill(
    root: Path,
    teams: list[TeamLine],
    maps: list[Path],
    organiser_map: Path | None,
    hasher: PasswordHasher | None,
) -> list[Credential]:
    for sub, mode in ((MAPS_DIR, 0o755), (STORE_DIR, 0o711), (TMP_DIR, 0o700), (CHECKS_DIR, 0o700)):
        (root / sub).mkdir()
        os.chmod(root / sub, mode)  # the store's and the checks' files are the teams' own
    practice = []
    for m in maps:
        shutil.copyfile(m, root / MAPS_DIR / m.name)
        practice.append(f"{MAPS_DIR}/{m.name}")
    organiser_rel = None
    if organiser_map is not None:
        # the final's sea is the organiser's secret until the final: nobody else's to read
        (root / MAPS_DIR / "organiser").mkdir(mode=0o700)
        kept = root / MAPS_DIR / "organiser" / organiser_map.name
        shutil.copyfile(organiser_map, kept)
        os.chmod(kept, 0o600)
        organiser_rel = f"{MAPS_DIR}/organiser/{organiser_map.name}"
    settings = render_template(practice, organiser_rel, Path(practice[0]).stem)
    (root / CONFIG_FILE).write_text(settings + "\n" + LADDER_TEMPLATE, encoding="utf-8")
    creds = [Credential(Role.ORGANISER.value, ORGANISER, new_password(), "")]
    creds += [
        Credential(Role.TEAM.value, t.name, new_password(), new_token(), t.members) for t in teams
    ]
    with Store.create(root / STORE_FILE) as store:
        accounts = Accounts(store, hasher)

        def write(conn):  # type: ignore[no-untyped-def]
            for c in creds:
                accounts.add_in(conn, Role(c.role), c.name, c.members, c.password, c.token or None)

        store.write(write)
    os.chmod(root / STORE_FILE, 0o600)
    _write_credentials(root / CREDENTIALS_FILE, creds)
    return creds


def _write_credentials(path: Path, creds: list[Credential]) -> None:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(["role", "team", "members", "password", "token"])
    for c in creds:
        w.writerow([c.role, c.name, c.members, c.password, c.token])
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8-sig", newline="") as f:  # Excel reads the BOM
        f.write(out.getvalue())
        f.flush()
        os.fsync(f.fileno())
    os.chmod(path, 0o600)


@dataclass
class Arena:
    """An arena folder opened by its one server: settings, store, and the folder's lock."""

    root: Path
    config: ArenaConfig
    store: Store
    lock_fd: int

    def close(self) -> None:
        self.store.close()
        os.close(self.lock_fd)


def open_arena(folder: Path) -> Arena:
    """The arena in ``folder``, locked for this process (ArenaError if another one holds it)."""
    if not (folder / CONFIG_FILE).is_file() or not (folder / STORE_FILE).is_file():
        raise ArenaError(
            f"{folder}: not an arena folder (no {CONFIG_FILE} and {STORE_FILE}); make one with "
            "judge arena init"
        )
    config = load_config(folder)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise ArenaError(
            f"{folder}: another judge arena serve is serving this arena; stop it first"
        ) from None
    try:
        store = Store.open(folder / STORE_FILE)
    except BaseException:
        os.close(fd)
        raise
    tmp = folder / TMP_DIR
    shutil.rmtree(tmp, ignore_errors=True)  # uploads a dead server was receiving
    tmp.mkdir(mode=0o700)
    return Arena(folder.resolve(), config, store, fd)
