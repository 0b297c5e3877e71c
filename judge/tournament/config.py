"""``judge.yaml``: read and check a tournament's configuration before anything is run.

A tournament takes hours and its results are published, so every mistake that
can be seen in the configuration is refused up front, all at once, each
problem naming the key (``teams[1].map``) and the fix.  Nothing is played
from a configuration that has a problem.

Relative paths (``maps_dir``, ``output``, ``organiser_map``, a bot given as a
path) are read from the configuration file's folder, so ``judge tournament
path/to/judge.yaml`` means the same thing from any working folder.

Ruling R19 is enforced here: the teams' maps must be different seas, and the
organisers' map must differ from every map of the published list.  Maps are
compared by content, not by file name: the same sea saved under two names, with
``W`` for ``D``, another K, or mirrored/rotated, is still the same sea.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import bundled, names
from judge.bots import BotError, BotSpec, config_bot
from judge.errors import JudgeError
from judge.inputfiles import CONFIG_BYTES, InputFileError, excerpt, read_input_text
from judge.mapgen import AXIS_CHOICES, GenerateError, generate_map
from judge.maps import (
    MAX_SIZE,
    MAX_TURNS,
    MIN_SIZE,
    MIN_TURNS,
    GameMap,
    MapError,
    format_map,
    load_map,
    map_from_text,
    read_text,
)
from judge.records import Json
from judge.sandbox.cores import CoreSpecError, plan_cores, usable_cores
from judge.settings import DEFAULT_CONFIG, JOBS, MEMORY_LIMIT_MB, TIME_LIMIT_S
from judge.yamlfile import YamlSyntaxError, YamlTooDeep, load_yaml

DEFAULT_OUTPUT = "matches/tournament"

#: Every key a configuration may hold, with a word on each (shown when a key is unknown).
TOP_KEYS: dict[str, str] = {
    "title": "the contest's name, shown on the projector and the pages (default: the "
    "output folder's name)",
    "seed": "all randomness of the tournament derives from it (required)",
    "turns": "overrides every map's K (optional)",
    "time_limit": "seconds per run (default 2)",
    "memory_limit_mb": "MiB per run (default 512)",
    "jobs": "rounds played at the same time (default: the number of cores)",
    "cores": "cores for the bots, one program per core: a number or a list like 0,2-3 "
    "(default: every core the judge may use)",
    "cluster": "play the rounds on a Dask cluster: its scheduler's address, or local:N "
    "(like --cluster; needs the [cluster] extra)",
    "output": f"the tournament folder (default {DEFAULT_OUTPUT})",
    "maps_dir": "the organisers' published list of maps (default: maps/ beside the "
    "configuration, else the bundled maps)",
    "bots_dir": "where bot names are looked up before the bundled bots (default bots)",
    "organiser_map": "a map file, or {generate: {rows, cols, turns, seed}} (required)",
    "teams": "a list of {name, bot, map} (required)",
}
TEAM_KEYS = ("name", "bot", "map")
#: A title fits one line of the projector's header.
MAX_TITLE = 80
GENERATE_KEYS = ("rows", "cols", "turns", "seed", "danger", "axis")

MAX_TEAMS = 64


class ConfigError(JudgeError, ValueError):
    """A configuration that cannot be run; each problem names the key and the fix."""

    def __init__(self, source: str, problems: Sequence[str]):
        self.source = source
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = f"{source}: {self.problems[0]}"
        else:
            text = f"{source} has {len(self.problems)} problems:\n" + "\n".join(
                f"  - {p}" for p in self.problems
            )
        super().__init__(text + "\nnothing was run")


@dataclass(frozen=True)
class Team:
    """One team as the tournament uses it: its bot and its map, both checked."""

    name: str
    bot: BotSpec
    map_spec: str  # as written in the configuration
    map_path: Path
    game_map: GameMap
    map_label: str = ""  # the map's path as results show it (relative to the configuration)


@dataclass(frozen=True)
class TournamentConfig:
    """A checked configuration: everything here can be played."""

    path: Path
    seed: int
    turns: int | None
    time_limit: float
    memory_limit_mb: int
    jobs: int
    output: Path
    maps_dir: Path
    bots_dir: Path
    organiser_label: str
    organiser_map: GameMap
    teams: tuple[Team, ...]
    #: the sandbox's ``cores`` setting (None: automatic); like jobs, it never changes results
    cores: str | int | None = None
    #: a Dask scheduler's address or local:N (judge.cluster); None = this machine
    cluster: str | None = None
    #: the contest's name as the pages show it ("" = none given: the output folder's name)
    title: str = ""

    @property
    def team_names(self) -> list[str]:
        return [t.name for t in self.teams]

    def team(self, name: str) -> Team:
        for t in self.teams:
            if t.name == name:
                return t
        raise KeyError(name)

    def map_of(self, owner: str | None) -> tuple[GameMap, str]:
        """The map of a team (``owner``) or the organisers' map (``None``), with its label."""
        if owner is None:
            return self.organiser_map, self.organiser_label
        t = self.team(owner)
        return t.game_map, t.map_label or str(t.map_path)

    def fingerprint(self) -> Json:
        """What decides the results: stored in the ledger so a resume cannot mix two tournaments.

        ``jobs``, ``cores``, ``output`` and ``cluster`` are left out on purpose:
        results do not depend on them, and a tournament folder may be moved or
        resumed with other jobs, or on a cluster.
        """
        return {
            "seed": self.seed,
            "turns": self.turns,
            "time_limit": self.time_limit,
            "memory_limit_mb": self.memory_limit_mb,
            "organiser_map": format_map(self.organiser_map),
            "teams": [
                {
                    "name": t.name,
                    "bot": t.bot.source,
                    "command": list(t.bot.command),
                    "map": t.map_spec,
                    "sea": format_map(t.game_map),
                }
                for t in self.teams
            ],
        }

    def config_hash(self) -> str:
        text = json.dumps(self.fingerprint(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def diff_fingerprints(old: Json, new: Json) -> list[str]:
    """The keys whose values differ, named as in judge.yaml (``seed``, ``teams[1].bot``)."""
    out: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "teams" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(f"teams (the ledger has {len(a)} teams, the configuration {len(b)})")
                continue
            for i, (ta, tb) in enumerate(zip(a, b, strict=False)):
                for k in sorted(set(ta) | set(tb)):
                    if ta.get(k) != tb.get(k):
                        label = {"sea": "map (its content)", "command": "bot (its command)"}.get(
                            k, k
                        )
                        shown = (
                            ""
                            if k in ("sea", "command")
                            else f" ({excerpt(ta.get(k))} -> {excerpt(tb.get(k))})"
                        )
                        out.append(f"teams[{i}].{label}{shown}")
        elif key == "organiser_map":
            out.append("organiser_map (its content)")
        else:
            out.append(f"{key} ({excerpt(a)} -> {excerpt(b)})")
    return out


# ------------------------------------------------------------------ reading
def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


#: Marks the problems that are unknown keys: they are listed first (a typo explains the rest).
UNKNOWN_KEY = "unknown key"


def _unknown(keys: Any, known: Sequence[str], where: str, what: str) -> list[str]:
    out = []
    for k in keys:
        if k not in known:
            prefix = f"{where}." if where else ""
            guess = bundled.did_you_mean(str(k), known)
            out.append(
                f"{prefix}{k}: {UNKNOWN_KEY}; {guess}{what} {', '.join(known)} "
                "(check the spelling, or remove it: a misspelt key is ignored, which may "
                "cause the problems listed after this one)"
            )
    return out


def _resolve_path(base: Path, value: str) -> Path:
    p = Path(os.path.expanduser(value))
    return p if p.is_absolute() else base / p


def sea_key(gm: GameMap) -> tuple[Any, ...]:
    """The sea up to mirroring and rotation, whatever its K or file name (R19 compares seas)."""
    grid = [list(gm.cells[r * gm.cols : (r + 1) * gm.cols]) for r in range(gm.rows)]
    variants = []
    g = grid
    for _ in range(4):
        for h in (g, [row[::-1] for row in g]):
            variants.append((len(h), len(h[0]) if h else 0, tuple(v for row in h for v in row)))
        g = [list(row) for row in zip(*g[::-1], strict=False)]  # rotate a quarter turn
    return min(variants)


def load_config(
    path: Path | str, bots_dir: Path | None = None, build: bool | None = None
) -> TournamentConfig:
    """Read, check and resolve a configuration; raise :class:`ConfigError` listing every problem.

    Bots with a build step are built here, so a broken bot stops the
    tournament before its first round rather than in the middle of it; not
    when the rounds are played on a cluster (``build`` False, or None with a
    ``cluster:`` key): each worker builds them (:mod:`judge.cluster`).
    """
    path = Path(path)
    source = str(path)
    if not path.is_file():
        fix = (
            f"create it (the project's {DEFAULT_CONFIG} is an example)"
            if not path.exists()
            else "give the path of a YAML file"
        )
        raise ConfigError(source, [f"no such configuration file; {fix}"])
    try:
        text = read_input_text(path, "a configuration file", CONFIG_BYTES)
    except InputFileError as exc:
        fix = "write the configuration as YAML text" if "text" in exc.reason else ""
        raise ConfigError(source, [f"{exc.reason}{'; ' + fix if fix else ''}"]) from None
    try:
        data = load_yaml(text)
    except YamlSyntaxError as exc:
        raise ConfigError(source, [f"not valid YAML: {exc}; fix the line shown"]) from None
    except YamlTooDeep as exc:
        raise ConfigError(source, [f"not a configuration: {exc}"]) from None
    if not isinstance(data, dict):
        shown = "empty" if data is None else f"a {type(data).__name__}"
        raise ConfigError(
            source,
            [
                f"the file is {shown}, not a mapping of keys; write 'seed: ...', 'teams: ...' etc. "
                f"(keys: {', '.join(TOP_KEYS)})"
            ],
        )
    if build is None:
        build = not data.get("cluster")
    return _check(data, path.resolve().parent, source, bots_dir, build)


def _check(
    data: Json, base: Path, source: str, bots_dir_override: Path | None, build: bool
) -> TournamentConfig:
    """Every key checked by a function of its own, in the file's order of keys (a problem
    is listed in that order, a misspelt key first); ConfigError lists them all."""
    problems: list[str] = _unknown(data, list(TOP_KEYS), "", "the keys are")
    title = _check_title(data, problems)
    seed = _check_seed(data, problems)
    turns = _check_turns(data, problems)
    time_limit = _check_time_limit(data, problems)
    memory = _check_memory_limit(data, problems)
    jobs = _check_jobs(data, problems)
    cores = _check_cores(data, problems)
    cluster = _check_cluster(data, problems)
    paths = _check_paths(data, base, problems)
    maps_dir = _check_maps_dir(data, paths["maps_dir"], problems)
    bots_dir = _check_bots_dir(data, bots_dir_override or paths["bots_dir"], problems)

    organiser, org_label, _org_path = _organiser_map(data, base, seed, turns, problems)
    entries = _teams(data.get("teams"), "teams" in data, maps_dir, bots_dir, base, problems, build)
    _check_distinct_seas(entries, organiser, org_label, maps_dir, problems)

    if problems:
        # A misspelt key first: it is often the cause of the problems after it.
        problems.sort(key=lambda p: 0 if f": {UNKNOWN_KEY};" in p.split("\n")[0] else 1)
        raise ConfigError(source, problems)
    assert organiser is not None and isinstance(seed, int) and isinstance(jobs, int)
    return TournamentConfig(
        path=base / Path(source).name,
        seed=seed,
        turns=turns,
        time_limit=float(time_limit),
        memory_limit_mb=memory,
        jobs=jobs,
        output=paths["output"],
        maps_dir=maps_dir,
        bots_dir=bots_dir,
        organiser_label=org_label,
        organiser_map=organiser,
        teams=tuple(e.team for e in entries if e is not None and e.team is not None),
        cores=cores,
        cluster=cluster.strip() if cluster else None,
        title=title,
    )


def _check_title(data: Json, problems: list[str]) -> str:
    """``title``: optional text of one line (the projector's header), as written."""
    title: Any = data.get("title")
    if title is None:
        return ""
    if not isinstance(title, str):
        problems.append(
            f"title: {excerpt(title)} is not text; write the contest's name, e.g. "
            "'title: Chung kết Kho Báu Đại Dương 2026' (in quotes if it holds a ':' or a '#')"
        )
        return ""
    text = names.normalise(title)
    bad = sorted({f"U+{ord(ch):04X}" for ch in text if not ch.isprintable()})
    if not text:
        problems.append("title: empty; write the contest's name, or remove the key")
    elif len(text) > MAX_TITLE:
        problems.append(
            f"title: {len(text)} characters; a title has at most {MAX_TITLE} (it is one line "
            "of the projector's header)"
        )
    elif bad:
        problems.append(
            f"title: holds {', '.join(bad)}; a title is one line of printable characters"
        )
    else:
        return text
    return ""


def _check_seed(data: Json, problems: list[str]) -> Any:
    """``seed``: required, a whole number >= 0 (all of the tournament's randomness)."""
    seed: Any = data.get("seed")
    if "seed" not in data:
        problems.append(
            "seed: missing; add e.g. 'seed: 2026' (all randomness of the "
            "tournament derives from it, so a tournament can be replayed)"
        )
    elif not _is_int(seed) or seed < 0:
        problems.append(f"seed: {excerpt(seed)} is not a whole number >= 0; give e.g. 'seed: 2026'")
    return seed


def _check_turns(data: Json, problems: list[str]) -> Any:
    """``turns``: optional K for every map, even, within the rules' range."""
    turns: Any = data.get("turns")
    if turns is not None and (
        not _is_int(turns) or not (MIN_TURNS <= turns <= MAX_TURNS) or turns % 2
    ):
        problems.append(
            f"turns: {excerpt(turns)}; K must be even, from {MIN_TURNS} to {MAX_TURNS} "
            "(or remove the key to use each map's own K)"
        )
    return turns


def _check_time_limit(data: Json, problems: list[str]) -> Any:
    """``time_limit``: seconds, never 0 (a tournament is always timed alike for every team)."""
    time_limit: Any = data.get("time_limit", TIME_LIMIT_S.contest)
    if not _is_number(time_limit):
        problems.append(
            f"time_limit: {excerpt(time_limit)} is not a number; give seconds, e.g. 2.0"
        )
    elif time_limit == 0:
        problems.append(
            "time_limit: 0 lifts the time limit, which a tournament never allows "
            "(every team must play under the same limit); give seconds, e.g. 2.0"
        )
    elif not (time_limit > 0 and TIME_LIMIT_S.holds(time_limit)):
        problems.append(
            f"time_limit: {excerpt(time_limit)}; give seconds above 0 and at most "
            f"{TIME_LIMIT_S.high:g} (the contest uses {TIME_LIMIT_S.contest:g})"
        )
    return time_limit


def _check_memory_limit(data: Json, problems: list[str]) -> Any:
    """``memory_limit_mb``: whole MiB within the settings' range."""
    memory: Any = data.get("memory_limit_mb", MEMORY_LIMIT_MB.contest)
    if not MEMORY_LIMIT_MB.holds(memory):
        problems.append(
            f"memory_limit_mb: {excerpt(memory)}; give whole MiB from {MEMORY_LIMIT_MB.low} to "
            f"{MEMORY_LIMIT_MB.high} (the contest uses {MEMORY_LIMIT_MB.contest})"
        )
    return memory


def _check_jobs(data: Json, problems: list[str]) -> Any:
    """``jobs``: rounds at once (default: the number of cores)."""
    jobs = data.get("jobs")
    if jobs is None:
        jobs = os.cpu_count() or 1
    elif not JOBS.holds(jobs):
        problems.append(
            f"jobs: {excerpt(jobs)}; give the number of rounds to play at once, "
            f"1 to {JOBS.high} (or remove it to use the number of cores)"
        )
    return jobs


def _check_cores(data: Json, problems: list[str]) -> int | str | None:
    """``cores``: a number of cores or a core list this machine has (None: every core)."""
    cores = data.get("cores")
    if cores is None:
        return None
    if isinstance(cores, bool) or not isinstance(cores, (int, str)):
        problems.append(
            f"cores: {excerpt(cores)}; give a number of cores (e.g. 2) or a core list "
            "(e.g. '0,2-3'), or remove it to use every core"
        )
        return None
    try:
        plan_cores(cores, *usable_cores())
    except CoreSpecError as exc:
        problems.append(f"{exc}; or remove 'cores' to use every core")
        return None
    return cores


def _check_cluster(data: Json, problems: list[str]) -> Any:
    """``cluster``: a Dask scheduler's address or local:N (None: this machine)."""
    cluster = data.get("cluster")
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        problems.append(
            f"cluster: {excerpt(cluster)}; give a Dask scheduler's address (e.g. tcp://10.0.0.1:8786) "
            "or local:N, or remove the key to play on this machine"
        )
        cluster = None
    return cluster


def _check_paths(data: Json, base: Path, problems: list[str]) -> dict[str, Path]:
    """``output``, ``maps_dir``, ``bots_dir``: paths relative to the configuration file's
    folder, never to the current folder."""
    paths: dict[str, Path] = {}
    for key, default in (("output", DEFAULT_OUTPUT), ("maps_dir", "maps"), ("bots_dir", "bots")):
        value = data.get(key, default)
        if not isinstance(value, str) or not value.strip():
            problems.append(
                f"{key}: {excerpt(value)} is not a path; give a folder, e.g. '{default}'"
            )
            value = default
        paths[key] = _resolve_path(base, value)
    return paths


def _check_maps_dir(data: Json, maps_dir: Path, problems: list[str]) -> Path:
    """The published maps' folder (no maps/ beside the configuration: the bundled maps)."""
    bundled_maps = bundled.bundled_dir(bundled.MAPS)
    if "maps_dir" not in data and not maps_dir.is_dir() and bundled_maps is not None:
        maps_dir = bundled_maps
    if not maps_dir.is_dir():
        problems.append(
            f"maps_dir: {maps_dir} is not a folder; give the folder of the "
            "organisers' published maps (e.g. 'maps'), relative to the configuration file"
        )
    return maps_dir


def _check_bots_dir(data: Json, bots_dir: Path, problems: list[str]) -> Path:
    """The teams' bots' folder, when one is named."""
    if "bots_dir" in data and not bots_dir.is_dir():
        problems.append(
            f"bots_dir: {bots_dir} is not a folder; give the folder of the teams' bots "
            "(e.g. 'bots'), relative to the configuration file"
        )
    return bots_dir


def _check_distinct_seas(
    entries: Sequence[_Entry | None],
    organiser: GameMap | None,
    org_label: str,
    maps_dir: Path,
    problems: list[str],
) -> None:
    """R19: three different seas in every match; the organisers' map off the list.

    Checked on every readable pick, even of a team with another problem."""
    picks = [(i, e) for i, e in enumerate(entries) if e is not None and e.game_map is not None]
    by_sea: dict[tuple[Any, ...], int] = {}
    for i, t in picks:
        sea = sea_key(t.game_map)
        if sea in by_sea:
            j = by_sea[sea]
            other = entries[j]
            assert other is not None
            same = (
                "the same file"
                if other.map_path.resolve() == t.map_path.resolve()
                else f"the same sea as {other.map_path.name}"
            )
            problems.append(
                f"teams[{i}].map: {excerpt(t.map_spec)} is {same}, already teams[{j}]'s map "
                f"({other.name}); two teams may not pick the same map (ruling R19: a match "
                f"needs 3 different maps); pick another map from {maps_dir}"
            )
        else:
            by_sea[sea] = i
    if organiser is None:
        return
    okey = sea_key(organiser)
    for i, t in picks:
        if sea_key(t.game_map) == okey:
            problems.append(
                f"teams[{i}].map: {excerpt(t.map_spec)} is the organisers' map (organiser_map); "
                f"ruling R19: the organisers' map is used in every match besides the "
                f"teams' own; pick another map from {maps_dir}"
            )
    picked = {t.map_path.resolve() for _, t in picks}
    for listed, gm in _published(maps_dir):
        # The published list is the map files directly in maps_dir; the organisers keep
        # theirs elsewhere (e.g. maps/organiser/), so a listed file is never exempt.
        if listed.resolve() in picked:
            continue
        if sea_key(gm) == okey:
            problems.append(
                f"organiser_map: {org_label} is the same sea as {listed}, which is on the "
                f"published list ({maps_dir}); ruling R19: the organisers' map must "
                "differ from every listed map; make a new one, e.g. "
                "'organiser_map: {generate: {rows: 11, cols: 13, turns: 40, seed: 9}}'"
            )


def _published(maps_dir: Path) -> list[tuple[Path, GameMap]]:
    """Every readable map of the published list (unreadable files are not maps: skipped)."""
    out: list[tuple[Path, GameMap]] = []
    if not maps_dir.is_dir():
        return out
    for p in sorted(maps_dir.iterdir()):
        if not p.is_file():
            continue
        try:
            out.append((p, map_from_text(read_text(p), str(p), allow_invalid=True)))
        except MapError:
            continue
    return out


def _organiser_map(
    data: Json, base: Path, seed: Any, turns: int | None, problems: list[str]
) -> tuple[GameMap | None, str, Path | None]:
    example = (
        "'organiser_map: maps/organiser/final.txt' or 'organiser_map: {generate: {rows: 11, "
        "cols: 13, turns: 40, seed: 9}}'"
    )
    if "organiser_map" not in data:
        problems.append(f"organiser_map: missing; add {example}")
        return None, "", None
    value = data["organiser_map"]
    if isinstance(value, str) and value.strip():
        p = _resolve_path(base, value)
        try:
            return load_map(p), value, p
        except MapError as exc:
            listed = "\n".join(f"      {x}" for x in exc.problems)
            problems.append(
                f"organiser_map: {value} cannot be used:\n{listed}\n"
                f"    fix the file (judge validate {p}) or give another map"
            )
            return None, value, p
    if isinstance(value, dict):
        problems_before = len(problems)
        problems += _unknown(value, ["generate"], "organiser_map", "the only key is")
        gen = value.get("generate")
        if not isinstance(gen, dict):
            problems.append(
                f"organiser_map.generate: {excerpt(gen)}; give a mapping, e.g. {example}"
            )
            return None, "", None
        problems += _unknown(gen, GENERATE_KEYS, "organiser_map.generate", "the keys are")
        where = "organiser_map.generate"
        rows: Any = gen.get("rows")
        cols: Any = gen.get("cols")
        for key, v in (("rows", rows), ("cols", cols)):
            if v is None:
                problems.append(
                    f"{where}.{key}: missing; give an odd size from {MIN_SIZE} to {MAX_SIZE}"
                )
            elif not _is_int(v) or not (MIN_SIZE <= v <= MAX_SIZE) or v % 2 == 0:
                problems.append(
                    f"{where}.{key}: {excerpt(v)}; give an odd size from {MIN_SIZE} to {MAX_SIZE}"
                )
        gturns = gen.get("turns", turns if turns is not None else 40)
        if not _is_int(gturns) or not (MIN_TURNS <= gturns <= MAX_TURNS) or gturns % 2:
            problems.append(
                f"{where}.turns: {excerpt(gturns)}; K must be even, from {MIN_TURNS} to {MAX_TURNS}"
            )
        gseed = gen.get("seed", seed)
        if not _is_int(gseed) or gseed < 0:
            problems.append(
                f"{where}.seed: {excerpt(gseed)}; give a whole number >= 0 "
                "(default: the tournament's seed)"
            )
        danger = gen.get("danger", 0.12)
        if not _is_number(danger) or not (0.0 <= danger <= 0.4):
            problems.append(f"{where}.danger: {excerpt(danger)}; give the share of reefs, 0 to 0.4")
        axis = gen.get("axis")
        if axis is not None and axis not in AXIS_CHOICES:
            problems.append(f"{where}.axis: {excerpt(axis)}; give one of {', '.join(AXIS_CHOICES)}")
        if len(problems) > problems_before or not (_is_int(rows) and _is_int(cols)):
            return None, "", None
        label = f"generated {rows}x{cols} K={gturns} seed={gseed}"
        try:
            gm = generate_map(rows, cols, gturns, gseed, danger, axis, name=label)
        except GenerateError as exc:
            problems.append(f"{where}: {exc}; change the seed or the size")
            return None, label, None
        return gm, label, None
    problems.append(f"organiser_map: {excerpt(value)}; give {example}")
    return None, "", None


def _label(path: Path, base: Path) -> str:
    """A path as results show it: relative to the configuration's folder when inside it."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _find_map(spec: str, maps_dir: Path) -> Path | None:
    if "/" in spec or "\\" in spec or spec in ("", ".", ".."):
        return None
    for cand in (maps_dir / spec, maps_dir / f"{spec}.txt"):
        if cand.is_file():
            return cand
    return None


@dataclass
class _Entry:
    """A team entry while it is checked: its map may be known even if its bot is not."""

    name: str
    map_spec: str
    map_path: Path
    game_map: GameMap
    team: Team | None = None  # set when everything about the team is right


def _teams(
    value: Any,
    present: bool,
    maps_dir: Path,
    bots_dir: Path,
    base: Path,
    problems: list[str],
    build: bool = True,
) -> list[_Entry | None]:
    example = "'teams: [{name: Alpha, bot: greedy, map: m1}, {name: Beta, bot: random, map: m2}]'"
    if not present:
        problems.append(f"teams: missing; add at least two teams, e.g. {example}")
        return []
    if not isinstance(value, list):
        problems.append(f"teams: {type(value).__name__}; give a list of teams, e.g. {example}")
        return []
    if len(value) < 2:
        problems.append(
            f"teams: {len(value)} team(s); a round robin needs at least 2, e.g. {example}"
        )
    if len(value) > MAX_TEAMS:
        problems.append(f"teams: {len(value)} teams; at most {MAX_TEAMS}")
    available = sorted(p.stem for p in maps_dir.glob("*.txt")) if maps_dir.is_dir() else []
    seen_names: dict[str, int] = {}
    seen_folders: dict[str, int] = {}
    out: list[_Entry | None] = []
    for i, entry in enumerate(value):
        where = f"teams[{i}]"
        if not isinstance(entry, dict):
            problems.append(
                f"{where}: {excerpt(entry)}; give a mapping {{name: ..., bot: ..., map: ...}}"
            )
            out.append(None)
            continue
        before = len(problems)
        problems += _unknown(entry, TEAM_KEYS, where, "a team has")
        for key in TEAM_KEYS:
            if key not in entry:
                problems.append(f"{where}.{key}: missing; every team needs name, bot and map")
            elif (
                not isinstance(entry[key], (str, int))
                or isinstance(entry[key], bool)
                or not str(entry[key]).strip()
            ):
                problems.append(f"{where}.{key}: {excerpt(entry[key])}; give a word")
        if len(problems) > before:
            out.append(None)
            continue
        name, bot_spec, map_spec = (str(entry[k]).strip() for k in TEAM_KEYS)
        name = names.normalise(name)
        problem = names.name_problem(name)
        if problem is not None:
            problems.append(f"{where}.name: {excerpt(name)}: {problem}")
        elif name.casefold() in seen_names:
            problems.append(
                f"{where}.name: {excerpt(name)} is already the name of "
                f"teams[{seen_names[name.casefold()]}]; give every team its own name"
            )
        else:
            folder = names.folder_name(name).casefold()
            if folder in seen_folders:
                j = seen_folders[folder]
                other = value[j]["name"] if isinstance(value[j], dict) else "?"
                problems.append(
                    f"{where}.name: {excerpt(name)} and teams[{j}].name {excerpt(str(other).strip())} "
                    f"both give the folder name {excerpt(names.folder_name(name))} (names are spelt "
                    "in plain ASCII for folders and files); change one of them"
                )
            else:
                seen_folders[folder] = i
            seen_names[name.casefold()] = i
        bot: BotSpec | None = None
        try:
            bot = config_bot(bot_spec, base, bots_dir, build, "the configuration file")
        except BotError as exc:
            problems.append(f"{where}.bot: {exc}")
        map_path = _find_map(map_spec, maps_dir)
        game_map: GameMap | None = None
        if map_path is None:
            problems.append(
                f"{where}.map: {excerpt(map_spec)} is not a map of the published list {maps_dir}; "
                f"{bundled.did_you_mean(map_spec, available)}"
                f"pick one of: {', '.join(available) or '(the folder has no .txt maps)'}"
            )
        else:
            try:
                game_map = load_map(map_path)
            except MapError as exc:
                listed = "\n".join(f"      {x}" for x in exc.problems)
                problems.append(
                    f"{where}.map: {map_path} is not a valid map:\n{listed}\n"
                    f"    fix it (judge validate {map_path}) or pick another map"
                )
        if game_map is None or map_path is None:
            out.append(None)
            continue
        entry_ = _Entry(name, map_spec, map_path, game_map)
        if bot is not None and len(problems) == before:
            entry_.team = Team(name, bot, map_spec, map_path, game_map, _label(map_path, base))
        out.append(entry_)
    return out
