"""``arena.yaml``: the arena's settings, one section per concern, checked before anything runs.

``judge arena init`` writes :data:`TEMPLATE` filled in (every key, commented); a
missing key takes its default, an unknown key or a value out of range is a
message naming the key, and the server does not start on a bad file.  The
sections are ``limits:`` (the runs' limits, the contest's), ``check:`` (the check
on upload), ``practice_maps:``, ``organiser_map:``, ``uploads:`` (caps),
``rate_limits:`` and ``deadline:``.  The ladder's sections (``ladder:``,
``house_bots:``, ``scoreboard:``) are read by the ladder's own code: here they
are only kept, as written (:attr:`ArenaConfig.later`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from judge.arena import ArenaError
from judge.inputfiles import CONFIG_BYTES, InputFileError, excerpt, read_input_text
from judge.settings import MEMORY_LIMIT_MB, TIME_LIMIT_S, Range

CONFIG_FILE = "arena.yaml"
#: Sections another part of the arena reads (the ladder): kept as written, not checked here.
LATER_SECTIONS = ("ladder", "house_bots", "scoreboard")

MIB = 2**20


@dataclass(frozen=True)
class Limits:
    time_s: float = 2.0  # the contest's (judge.settings.TIME_LIMIT_S.contest)
    memory_mb: int = 512  # the contest's (judge.settings.MEMORY_LIMIT_MB.contest)


@dataclass(frozen=True)
class Check:
    #: the practice map (its file name without .txt) the check's round is played on
    map: str = ""
    #: turns of that round (the map's own K when 0)
    turns: int = 20
    #: the bot the round is played against (a bundled bot's name)
    opponent: str = "reference"


@dataclass(frozen=True)
class Uploads:
    bot_mb: int = 20
    source_mb: int = 20
    report_mb: int = 20
    zip_entries: int = 2000
    zip_unpacked_mb: int = 200
    build_timeout_s: int = 120

    @property
    def body_bytes(self) -> int:
        """The most a whole upload request may carry: its three files and the form around them."""
        return (self.bot_mb + self.source_mb + self.report_mb) * MIB + 64 * 1024


@dataclass(frozen=True)
class RateLimits:
    uploads_per_hour: int = 10
    #: wrong passwords for one team from one address: that address waits for that team
    login_failures_per_team: int = 5
    #: ... for one team from all addresses together: every login of the team waits (a
    #: guesser spread over many machines); more than one address's limit below, so that
    #: no single machine can lock a team out of its own account
    login_failures_per_team_everywhere: int = 100
    login_failures_per_address: int = 20
    login_window_s: int = 900


@dataclass(frozen=True)
class ArenaConfig:
    limits: Limits = field(default_factory=Limits)
    check: Check = field(default_factory=Check)
    #: map files, relative to the arena folder
    practice_maps: tuple[str, ...] = ()
    organiser_map: str | None = None
    uploads: Uploads = field(default_factory=Uploads)
    rate_limits: RateLimits = field(default_factory=RateLimits)
    #: uploads close at this moment (None: only when the organiser closes them)
    deadline: _dt.datetime | None = None
    #: the ladder's sections, as written
    later: dict[str, Any] = field(default_factory=dict)

    def check_map(self) -> str:
        """The practice map file the check is played on."""
        if self.check.map:
            for m in self.practice_maps:
                if Path(m).stem == self.check.map:
                    return m
        return self.practice_maps[0]

    def closed_by_deadline(self, now: _dt.datetime | None = None) -> bool:
        if self.deadline is None:
            return False
        return (now or _dt.datetime.now(_dt.timezone.utc)) >= self.deadline


#: (section, key) -> the range a number must be in.
RANGES: dict[tuple[str, str], Range] = {
    ("limits", "time_s"): Range(0.05, TIME_LIMIT_S.high, integer=False),
    ("limits", "memory_mb"): MEMORY_LIMIT_MB,
    ("check", "turns"): Range(0, 100, integer=True),
    ("uploads", "bot_mb"): Range(1, 1024, integer=True),
    ("uploads", "source_mb"): Range(1, 1024, integer=True),
    ("uploads", "report_mb"): Range(1, 1024, integer=True),
    ("uploads", "zip_entries"): Range(1, 100_000, integer=True),
    ("uploads", "zip_unpacked_mb"): Range(1, 8192, integer=True),
    ("uploads", "build_timeout_s"): Range(1, 3600, integer=True),
    ("rate_limits", "uploads_per_hour"): Range(1, 10_000, integer=True),
    ("rate_limits", "login_failures_per_team"): Range(1, 10_000, integer=True),
    ("rate_limits", "login_failures_per_team_everywhere"): Range(1, 100_000, integer=True),
    ("rate_limits", "login_failures_per_address"): Range(1, 100_000, integer=True),
    ("rate_limits", "login_window_s"): Range(1, 86_400, integer=True),
}
_SECTIONS: dict[str, type] = {
    "limits": Limits,
    "check": Check,
    "uploads": Uploads,
    "rate_limits": RateLimits,
}

TEMPLATE = """\
# The arena's settings.  `judge arena init` wrote this file; edit it, then start
# `judge arena serve` again.  A missing key takes the default shown here.

limits:                 # every run of a bot (the contest's limits)
  time_s: {time_s:<13} # seconds of wall clock per run
  memory_mb: {memory_mb:<10} # MiB of peak memory per run

check:                  # the check each upload goes through before it counts
  map: {check_map:<16} # the practice map its short round is played on
  turns: {check_turns:<14} # turns of that round, played once in each seat (0: the map's K)
  opponent: reference   # the bot it plays against

practice_maps:          # the maps the arena plays on (files relative to this folder)
{practice_maps}

# The organiser's map for the final (never played before it); null: none yet.
organiser_map: {organiser_map}

uploads:                # caps on what a team uploads
  bot_mb: 20            # the .exe or the .zip of a bot folder
  source_mb: 20         # the source archive
  report_mb: 20         # the report
  zip_entries: 2000     # files and folders in a bot's .zip
  zip_unpacked_mb: 200  # their size once unpacked
  build_timeout_s: 120  # a zipped bot's build step

rate_limits:
  uploads_per_hour: 10          # uploads of one team in any hour
  login_failures_per_team: 5    # wrong passwords for one team from one address ...
  login_failures_per_team_everywhere: 100  # ... or for one team from all addresses ...
  login_failures_per_address: 20  # ... or from one address for any team ...
  login_window_s: 900           # ... within this many seconds: then logins wait (HTTP 429)

# Uploads close at this moment (ISO 8601 with its time zone), e.g.
# "2027-03-01T18:00:00+07:00"; null: only when the organiser closes them.
deadline: null
"""


def render_template(
    practice_maps: list[str], organiser_map: str | None, check_map: str, check_turns: int = 20
) -> str:
    defaults = Limits()
    maps = "\n".join(f"  - {_quote(m)}" for m in practice_maps)
    return TEMPLATE.format(
        time_s=defaults.time_s,
        memory_mb=defaults.memory_mb,
        check_map=_quote(check_map),
        check_turns=check_turns,
        practice_maps=maps,
        organiser_map=_quote(organiser_map) if organiser_map else "null",
    )


def _quote(text: str) -> str:
    return yaml.safe_dump(text, default_style='"').strip()


def load_config(folder: Path) -> ArenaConfig:
    """``folder/arena.yaml`` checked (ArenaError naming every problem at once)."""
    path = folder / CONFIG_FILE
    try:
        data = yaml.safe_load(read_input_text(path, "an arena.yaml", CONFIG_BYTES))
    except InputFileError as exc:
        raise ArenaError(f"cannot read {exc}") from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise ArenaError(f"{path} is not valid YAML:\n{exc}") from None
    return parse_config(data if data is not None else {}, folder, str(path))


def parse_config(data: Any, folder: Path, where: str = CONFIG_FILE) -> ArenaConfig:
    if not isinstance(data, dict):
        raise ArenaError(f"{where}: must be a mapping of sections (limits:, check:, ...)")
    problems: list[str] = []
    known = {*_SECTIONS, "practice_maps", "organiser_map", "deadline", *LATER_SECTIONS}
    for key in data:
        if key not in known:
            problems.append(
                f"unknown key {excerpt(key)} (known: {', '.join(sorted(map(str, known)))})"
            )
    sections = {
        name: _section(name, data.get(name), cls, problems) for name, cls in _SECTIONS.items()
    }
    maps = _practice_maps(data.get("practice_maps"), folder, problems)
    organiser = data.get("organiser_map")
    if organiser is not None and not (isinstance(organiser, str) and organiser.strip()):
        problems.append("organiser_map: give a map file relative to the arena folder, or null")
        organiser = None
    elif organiser is not None and not (folder / organiser).is_file():
        problems.append(f"organiser_map: {excerpt(organiser)} is not a file of the arena folder")
    deadline = _deadline(data.get("deadline"), problems)
    check: Check = sections["check"]
    if check.map and maps and not any(Path(m).stem == check.map for m in maps):
        problems.append(
            f"check: map: {excerpt(check.map)} is not one of the practice maps "
            f"({', '.join(Path(m).stem for m in maps)})"
        )
    if problems:
        raise ArenaError(f"{where}: " + "; ".join(problems))
    return ArenaConfig(
        limits=sections["limits"],
        check=check,
        practice_maps=tuple(maps),
        organiser_map=organiser,
        uploads=sections["uploads"],
        rate_limits=sections["rate_limits"],
        deadline=deadline,
        later={k: data[k] for k in LATER_SECTIONS if k in data},
    )


def _section(name: str, value: Any, cls: type, problems: list[str]) -> Any:
    if value is None:
        return cls()
    if not isinstance(value, dict):
        problems.append(f"{name}: must be a mapping of keys")
        return cls()
    names = [f.name for f in dataclasses.fields(cls)]
    kept: dict[str, Any] = {}
    for key, v in value.items():
        if key not in names:
            problems.append(f"{name}: unknown key {excerpt(key)} (known: {', '.join(names)})")
            continue
        rng = RANGES.get((name, key))
        if rng is not None:
            if not rng.holds(v):
                kind = "a whole number" if rng.integer else "a number"
                problems.append(
                    f"{name}: {key}: {excerpt(v)}: give {kind} from {rng.low:g} to {rng.high:g}"
                )
                continue
        elif not isinstance(v, str):
            problems.append(f"{name}: {key}: {excerpt(v)}: give a name")
            continue
        kept[key] = v
    return cls(**kept)


def _practice_maps(value: Any, folder: Path, problems: list[str]) -> list[str]:
    if not isinstance(value, list) or not value:
        problems.append("practice_maps: give a list of one or more map files")
        return []
    from judge.maps import MapError, load_map

    out: list[str] = []
    for m in value:
        if not isinstance(m, str) or not m.strip():
            problems.append(f"practice_maps: {excerpt(m)} is not a file name")
            continue
        try:
            load_map(folder / m)
        except MapError as exc:
            problems.append(f"practice_maps: {excerpt(m)}: {exc}")
            continue
        out.append(m)
    stems = [Path(m).stem for m in out]
    if len(set(stems)) != len(stems):
        problems.append("practice_maps: two maps have the same name")
    return out


def _deadline(value: Any, problems: list[str]) -> _dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        when = value
    elif isinstance(value, str):
        try:
            when = _dt.datetime.fromisoformat(value)
        except ValueError:
            problems.append(f"deadline: {excerpt(value)} is not an ISO 8601 moment")
            return None
    else:
        problems.append(f"deadline: {excerpt(value)} is not an ISO 8601 moment")
        return None
    if when.tzinfo is None:
        problems.append(
            f"deadline: {excerpt(value)} has no time zone: write it with one, e.g. +07:00"
        )
        return None
    return when
