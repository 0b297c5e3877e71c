"""``league.yaml``: a league's bots and settings, checked before anything is played.

Example::

    seed: 7                     # maps and tie-breaks derive from it (required)
    output: matches/league      # the league folder (its SQLite database lives there)
    sizes: [5, 9, 7x11]         # map sizes, taken in turn (default 5, 9, 15)
    turns: [10, 40]             # K values, taken in turn (default: varied, every even 2..100)
    pairs: 50                   # pairs (2 rounds, seats swapped) played per run (default 50)
    batch: 4                    # pairs chosen at once from the current ratings (default 4)
    new_version: fresh          # a replaced bot starts fresh, or 'inherit's the old rating
    time_limit: 2               # seconds per run; memory_limit_mb: 512; jobs: cores
    bots:
      - {name: greedy, bot: greedy}
      - {name: mine, bot: ../mybot, new_version: inherit}   # per-bot override
      - {name: old, bot: ../mybot-v1, version: "1"}         # version: instead of the files' hash

A bot's version is a hash of its files unless ``version`` is given; when it
changes between runs the bot is *replaced*.  Bots missing from the file are
retired (kept in the database, no longer scheduled).  Every problem is
reported at once, naming the key and the fix; nothing is played from a bad
file.  Relative paths are read from the file's folder.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import bundled
from judge.bots import BotError, BotSpec, build_output, config_bot
from judge.evaluate import EvalError, Size, parse_sizes, parse_turns
from judge.inputfiles import CONFIG_BYTES, InputFileError, excerpt, read_input_text
from judge.names import folder_name, name_problem, normalise
from judge.records import Json
from judge.settings import DEFAULT_SIZES, JOBS, MEMORY_LIMIT_MB, TIME_LIMIT_S, Range
from judge.tournament.config import ConfigError
from judge.yamlfile import YamlSyntaxError, YamlTooDeep, load_yaml

DEFAULT_OUTPUT = "matches/league"
MAX_BOTS = 256
KEYS = {
    "seed": "maps and tie-breaks derive from it (required)",
    "output": f"the league folder (default {DEFAULT_OUTPUT})",
    "bots_dir": "where bot names are looked up (default bots)",
    "sizes": f"map sizes, N or RxC (default {DEFAULT_SIZES})",
    "turns": "K values taken in turn (default: varied)",
    "pairs": "pairs played per run (default 50)",
    "batch": "pairs chosen at once from the ratings (default 4)",
    "new_version": "fresh or inherit: what a replaced bot starts from (default fresh)",
    "time_limit": "seconds per run (default 2)",
    "memory_limit_mb": "MiB per run (default 512)",
    "jobs": "rounds played at the same time (default: the number of cores)",
    "cluster": "play the rounds on a Dask cluster: its scheduler's address, or local:N",
    "bots": "a list of {name, bot[, version][, new_version]} (required)",
}
BOT_KEYS = ("name", "bot", "version", "new_version")
POLICIES = ("fresh", "inherit")


@dataclass(frozen=True)
class LeagueBot:
    """A bot of the league as this run knows it."""

    name: str
    spec: BotSpec
    version: str
    new_version: str  # "fresh" or "inherit"


@dataclass(frozen=True)
class LeagueConfig:
    path: Path
    seed: int
    output: Path
    sizes: tuple[Size, ...]
    turns: tuple[int, ...] | None
    pairs: int
    batch: int
    time_limit: float
    memory_limit_mb: int
    jobs: int
    bots: tuple[LeagueBot, ...]
    #: a Dask scheduler's address or local:N (judge.cluster); None = this machine
    cluster: str | None = None

    def bot(self, name: str) -> LeagueBot:
        return next(b for b in self.bots if b.name == name)


def fingerprint(spec: BotSpec) -> str:
    """A short hash of a bot's files (its build output left out) and command: it changes when
    the bot does."""
    h = hashlib.sha256(repr(spec.command).encode())
    folder = spec.program_dir
    if folder is not None and folder.is_dir():
        product = build_output(folder)  # built here or not (on a cluster's workers): one version
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".git"))
            for f in sorted(files):
                p = Path(root) / f
                if product is not None and p == folder / product:
                    continue
                h.update(str(p.relative_to(folder)).encode())
                try:
                    h.update(p.read_bytes())
                except OSError:
                    h.update(b"?")
    return h.hexdigest()[:12]


#: Pairs in one run, and pairs chosen at a time.
PAIRS = Range(1, 100_000, integer=True)
BATCH = Range(1, 256, integer=True)


def _int(data: Json, key: str, default: int, bounds: Range, bad: list[str]) -> int:
    v = data.get(key, default)
    if not bounds.holds(v):
        bad.append(f"{key}: {excerpt(v)}; give a whole number from {bounds.low} to {bounds.high}")
        return default
    assert isinstance(v, int)
    return v


def _bots(data: Json, folder: Path, bots_dir: Path, default_policy: str, bad: list[str], build: bool = True) -> list[LeagueBot]:  # fmt: skip
    raw = data.get("bots")
    if not isinstance(raw, list) or len(raw) < 2:
        bad.append("bots: give a list of at least 2 entries like {name: greedy, bot: greedy}")
        return []
    if len(raw) > MAX_BOTS:
        bad.append(f"bots: {len(raw)} bots; at most {MAX_BOTS}")
    out: list[LeagueBot] = []
    seen: set[str] = set()
    folders: dict[str, str] = {}  # folder form (casefolded) -> the name that has it
    for i, entry in enumerate(raw):
        where = f"bots[{i}]"
        if not isinstance(entry, dict):
            bad.append(f"{where}: write {{name: NAME, bot: BOT}}")
            continue
        for k in entry:
            if k not in BOT_KEYS:
                guess = bundled.did_you_mean(str(k), BOT_KEYS)
                bad.append(f"{where}: unknown key {excerpt(k)}; {guess}keys: {', '.join(BOT_KEYS)}")
        name = entry.get("name")
        problem = name_problem(name) if isinstance(name, str) else "give a name"
        if problem is not None:
            bad.append(f"{where}.name: {excerpt(name)}; {problem}")
            continue
        assert isinstance(name, str)
        name = normalise(name)
        if name in seen:
            bad.append(f"{where}.name: {excerpt(name)} twice; names must differ")
            continue
        form = folder_name(name).casefold()
        if form in folders:
            bad.append(
                f"{where}.name: {excerpt(name)} and {excerpt(folders[form])} both give the folder name "
                f"{excerpt(folder_name(name))} (names are spelt in plain ASCII for folders); "
                "change one of them"
            )
            continue
        folders[form] = name
        seen.add(name)
        policy = entry.get("new_version", default_policy)
        if policy not in POLICIES:
            bad.append(f"{where}.new_version: {excerpt(policy)}; give fresh or inherit")
        bot = entry.get("bot")
        if not isinstance(bot, str) or not bot:
            bad.append(f"{where}.bot: give a bots/ name or a path")
            continue
        try:
            spec = config_bot(bot, folder, bots_dir, build, "the league file")
        except BotError as exc:
            bad.append(f"{where}.bot: {exc}")
            continue
        version = entry.get("version")
        if version is not None and not isinstance(version, (str, int)):
            bad.append(f"{where}.version: give a short text")
            continue
        out.append(LeagueBot(name, spec, str(version) if version is not None else fingerprint(spec), str(policy)))  # fmt: skip
    return out


def load_league(path: Path | str, build: bool | None = None) -> LeagueConfig:
    """Read and check a league file; raise :class:`ConfigError` listing every problem.

    The bots are built here unless the rounds are played on a cluster (``build``
    False, or None with a ``cluster:`` key): each worker builds them.
    """
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise ConfigError(source, ["no such league file; write one (see judge league --help)"])
    try:
        text = read_input_text(path, "a league file", CONFIG_BYTES)
    except InputFileError as exc:
        raise ConfigError(source, [exc.reason]) from None
    try:
        data = load_yaml(text)
    except YamlSyntaxError as exc:
        raise ConfigError(source, [f"not valid YAML: {exc}"]) from None
    except YamlTooDeep as exc:
        raise ConfigError(source, [f"not a league file: {exc}"]) from None
    if not isinstance(data, dict):
        raise ConfigError(source, [f"not a mapping of keys (keys: {', '.join(KEYS)})"])
    bad: list[str] = []
    for k in data:
        if k not in KEYS:
            guess = bundled.did_you_mean(str(k), KEYS)
            bad.append(f"unknown key {excerpt(k)}; {guess}keys: " + "; ".join(f"{n} ({w})" for n, w in KEYS.items()))  # fmt: skip
    folder = path.parent
    seed = data.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        bad.append(f"seed: {excerpt(seed)}; give a whole number (required)")
        seed = 0
    sizes: list[Size] = []
    turns: list[int] | None = None
    try:
        raw_sizes = data.get("sizes", DEFAULT_SIZES)
        text = (
            ",".join(str(x) for x in raw_sizes) if isinstance(raw_sizes, list) else str(raw_sizes)
        )
        sizes = parse_sizes(text)
        if data.get("turns") is not None:
            raw_t = data["turns"]
            turns = parse_turns(",".join(str(x) for x in raw_t) if isinstance(raw_t, list) else str(raw_t))  # fmt: skip
    except EvalError as exc:
        bad.append(str(exc).replace("--", "", 1))
    t: Any = data.get("time_limit", TIME_LIMIT_S.contest)
    if not (TIME_LIMIT_S.holds(t) and t > 0):
        bad.append(
            f"time_limit: {excerpt(t)}; give seconds from 0 to {TIME_LIMIT_S.high:g} (not 0 in a league)"
        )
        t = TIME_LIMIT_S.contest
    policy = data.get("new_version", "fresh")
    if policy not in POLICIES:
        bad.append(f"new_version: {excerpt(policy)}; give fresh or inherit")
        policy = "fresh"
    bots_dir = folder / str(data.get("bots_dir", "bots"))
    cluster = data.get("cluster")
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        bad.append(f"cluster: {excerpt(cluster)}; give a Dask scheduler's address or local:N")
        cluster = None
    if build is None:
        build = not cluster
    cfg_bots = _bots(data, folder, bots_dir, str(policy), bad, build)
    pairs = _int(data, "pairs", 50, PAIRS, bad)
    batch = _int(data, "batch", 4, BATCH, bad)
    memory = _int(data, "memory_limit_mb", 512, MEMORY_LIMIT_MB, bad)
    jobs = _int(data, "jobs", os.cpu_count() or 1, JOBS, bad)
    if bad:
        raise ConfigError(source, bad)
    return LeagueConfig(
        path=path,
        seed=seed,
        output=folder / str(data.get("output", DEFAULT_OUTPUT)),
        sizes=tuple(sizes),
        turns=tuple(turns) if turns else None,
        pairs=pairs,
        batch=batch,
        time_limit=float(t),
        memory_limit_mb=memory,
        jobs=jobs,
        bots=tuple(cfg_bots),
        cluster=cluster.strip() if cluster else None,
    )
