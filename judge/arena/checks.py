"""The check on upload: check-bot's battery, then a strict short round against the reference bot.

A version is checked on this machine's sandbox, under the contest's limits
(``limits:`` of arena.yaml), wine for an ``.exe``, as the final will run it:

1. the bot is made ready in its store folder: an ``.exe`` in a folder of its own, a
   ``.zip`` unpacked and built (:mod:`judge.arena.builds`, confined);
2. ``judge check-bot``'s battery (:func:`judge.checkbot.check_bot`): any error
   rejects it, in check-bot's words (the situation, what went wrong, its likely
   cause);
3. a short round (``check: turns``) on a practice map against ``check: opponent``
   in each seat: strict, so a crash, a time-out, a memory or output overrun, or a
   void move of the bot in either round rejects it, naming the turn.

The verdict's reason is one paragraph; its log says what each step saw, with
the first lines of the program's error output.  A failure of the judge itself
(the sandbox could not run anything: IE) is no verdict: the check is run again
(:class:`judge.arena.service.Retry`), and only after the last attempt is the
version rejected, saying it was not the bot's fault.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sqlite3
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from judge.arena import ArenaError
from judge.arena.builds import build
from judge.arena.config import ArenaConfig
from judge.arena.service import Context, Outcome, Retry, TaskKind
from judge.arena.store import Account, Status, Store, Version
from judge.arena.submissions import set_status, store_folder, unpack
from judge.arena.tasks import Task
from judge.bots import BOT_FILE, BotError, BotSpec, named, resolve_bot
from judge.checkbot import ERROR, CheckAborted, SituationResult, check_bot, passed
from judge.maps import load_map
from judge.names import distinct_folders
from judge.records import ReplayHeader, RoundResult, TurnRecord
from judge.referee import RoundAborted, RoundConfig, RoundStopped, play_round
from judge.rules import MoveStatus
from judge.sandbox import Limits, ProgramUnreachable, Sandbox
from judge.seeds import derive

CHECKS_DIR = "checks"
UNPACKED = "bot"
#: The bot folder an uploaded .exe is run from: the .exe and a bot.yaml that runs it.
EXE_FOLDER = "exe"
#: Lines of a program's error output kept in a verdict's log.
STDERR_LINES = 20
STDERR_CHARS = 2000


@dataclass
class Verdict:
    accepted: bool
    reason: str
    log: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:
        return Status.ACCEPTED if self.accepted else Status.REJECTED


class Rejected(Exception):
    """The version is rejected; the message is the reason."""


# ------------------------------------------------------------------ the bot
def prepare(
    root: Path, version: Version, team: str, config: ArenaConfig, log: list[str]
) -> BotSpec:
    """The version as a runnable bot, under the team's name (Rejected: why it cannot be).

    Every version is a bot folder inside its store folder, so that nothing of it is
    copied out of the arena (a lone program would be staged in the judge's cache): an
    ``.exe`` gets a folder of its own with a ``bot.yaml`` that runs it, a zip is
    unpacked, and a zipped ``.exe`` without a ``bot.yaml`` gets one the same way."""
    stored = root / version.path
    try:
        folder = _made_ready(root, version, config)
        if _has_build(folder):
            result = build(folder, config.uploads.build_timeout_s, hidden=(root,))
            if not result.ok:
                raise Rejected(f"its build failed: {_shown(result.message, root, folder)}")
            log.append(f"built ({result.message})")
        return named(resolve_bot(str(folder), build=False), team)
    except BotError as exc:
        raise Rejected(_shown(str(exc), root, stored.parent)) from None


def _has_build(folder: Path) -> bool:
    try:
        data = yaml.safe_load((folder / BOT_FILE).read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError, RecursionError, ValueError):
        return False  # said by resolve_bot, in its words
    return isinstance(data, dict) and "build" in data


def _made_ready(root: Path, version: Version, config: ArenaConfig) -> Path:
    """The version's bot folder in its store folder, made once (whole, or not at all)."""
    home = store_folder(root, version.sha256)
    folder = home / (UNPACKED if version.kind == "zip" else EXE_FOLDER)
    if folder.is_dir():
        return folder
    building = home / f".{folder.name}-{secrets.token_hex(4)}"
    try:
        if version.kind == "zip":
            _unpacked(root / version.path, building, config)
        else:
            building.mkdir()
            shutil.copyfile(root / version.path, building / "bot.exe")
        if not (building / BOT_FILE).exists():
            exe = next(p.name for p in sorted(building.iterdir()) if p.suffix.lower() == ".exe")
            (building / BOT_FILE).write_text(yaml.safe_dump({"command": [exe]}), encoding="utf-8")
        os.chmod(building, 0o700)  # the team's own files: no other team's build may read them
        os.replace(building, folder)
    except OSError as exc:
        if not folder.is_dir():  # (when it is, another check of the same bytes made it)
            said = _shown(str(exc), root, building)
            raise Rejected(f"its files could not be made ready: {said}") from None
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return folder


def _unpacked(zip_path: Path, dest: Path, config: ArenaConfig) -> None:
    """The zip unpacked into ``dest`` (Rejected: its data is damaged, or arena.yaml's caps
    refuse it now): a zip's directory was checked at the upload, its data only here."""
    try:
        unpack(zip_path, dest, config.uploads)
    except ArenaError as exc:
        raise Rejected(f"its .zip is refused: {exc}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise Rejected(
            f"its .zip cannot be unpacked ({exc}): the file is damaged; zip the folder again"
        ) from None


def _shown(text: str, root: Path, folder: Path) -> str:
    """A message with the arena's own paths taken out (the team knows its files by name)."""
    return (
        text.replace(str(folder) + os.sep, "")
        .replace(str(folder), "your bot")
        .replace(str(root), "the arena")
    )


# -------------------------------------------------------------- the battery
def _battery(bot: BotSpec, sandbox: Sandbox, limits: Limits, log: list[str]) -> None:
    try:
        results = check_bot(bot, sandbox, limits)
    except ProgramUnreachable as exc:
        raise Rejected(f"it cannot be run: {exc}") from None
    except CheckAborted as exc:
        raise Retry(str(exc)) from None
    log.append(f"check-bot, {len(results)} situations under {_limits(limits)}:")
    for r in results:
        log.append(
            f"  {r.situation.title}: {r.level or 'ok'} ({r.run.verdict}, {r.facts.wall_s * 1000:.0f} ms)"
        )
        for f in r.findings:
            log.append(
                f"    {f.level}: {f.reason}" + (f" (likely cause: {f.cause})" if f.cause else "")
            )
    if passed(results):
        return
    bad = next(r for r in results if any(f.level == ERROR for f in r.findings))
    finding = next(f for f in bad.findings if f.level == ERROR)
    reason = f"check-bot, situation '{bad.situation.title}': {finding.reason}"
    if finding.cause:
        reason += f"; likely cause: {finding.cause}"
    _stderr(bad, log)
    raise Rejected(reason)


def _stderr(result: SituationResult, log: list[str]) -> None:
    text = result.facts.stderr.decode("utf-8", "replace").strip()
    if text:
        log.append(f"error output in '{result.situation.title}' (first lines):")
        log.extend("  " + ln for ln in _first_lines(text))


def _first_lines(text: str) -> list[str]:
    return text[:STDERR_CHARS].splitlines()[:STDERR_LINES]


def _limits(limits: Limits) -> str:
    return f"{limits.time_s:g} s and {limits.memory_bytes // 2**20} MiB a run"


# ---------------------------------------------------------------- the round
class _Watch:
    """The first turn the checked seat's program failed in (a crash, a limit, a void move)."""

    def __init__(self, seat: int):
        self.seat = seat
        self.failure: str | None = None

    def start(self, header: ReplayHeader) -> None:
        pass

    def turn(self, record: TurnRecord) -> None:
        if self.failure is not None or record.runs is None:
            return
        run = record.runs[self.seat]
        what = "placement" if record.turn == 0 else f"turn {record.turn}"
        if run.verdict is not None and run.verdict != "OK":
            words = {
                "RE": "a crash",
                "TLE": "a time-out",
                "MLE": "over the memory limit",
                "OLE": "too much output",
            }
            self.failure = f"{what}: {words.get(run.verdict, run.verdict)}" + (
                f" ({run.message})" if run.message else ""
            )
        elif run.status is not None and run.status.void and run.status is not MoveStatus.SUNK:
            shown = f" (MOVE.OUT: {run.raw!r})" if run.raw is not None else ""
            why = f", {run.why}" if run.why else ""
            self.failure = f"{what}: a void move, {run.status.value.replace('_', ' ')}{why}{shown}"

    def end(self, result: RoundResult) -> None:
        pass


def _round(
    root: Path,
    version: Version,
    bot: BotSpec,
    opponent: BotSpec,
    seat: int,
    ctx: Context,
    limits: Limits,
    log: list[str],
) -> None:
    config = ctx.config
    map_file = config.check_map()
    game_map = load_map(root / map_file)
    cfg = RoundConfig(
        game_map=game_map,
        map_label=Path(map_file).name,
        seed=derive("arena-check", version.id, seat),
        limits=limits,
        turns=config.check.turns or None,
    )
    bots = (bot, opponent) if seat == 0 else (opponent, bot)
    names = (bot.name, opponent.name) if seat == 0 else (opponent.name, bot.name)
    if names[0].casefold() == names[1].casefold():
        names = (
            (names[0], names[1] + " (arena)") if seat == 1 else (names[0] + " (arena)", names[1])
        )
    out = root / CHECKS_DIR / f"v{version.id}" / f"seat-{seat}"
    if out.exists():
        shutil.rmtree(out)
    watch = _Watch(seat)
    try:
        result = play_round(cfg, bots, names, ctx.sandbox, out, observer=watch, stop=ctx.stop)
    except (RoundAborted, RoundStopped) as exc:
        raise Retry(str(exc)) from None
    where = f"the round against {opponent.name} with your bot in seat {seat} ({cfg.map_label}, {cfg.k} turns)"
    if watch.failure is None:
        log.append(
            f"{where}: no crash, time-out or void move; gold {result.gold[seat]} against "
            f"{result.gold[1 - seat]}"
        )
        return
    log.append(f"{where}: {watch.failure}")
    stderr = out / distinct_folders(list(names))[seat] / "stderr.log"
    text = stderr.read_text(encoding="utf-8", errors="replace").strip() if stderr.is_file() else ""
    if text:
        log.append("error output in that round (first lines):")
        log.extend("  " + ln for ln in _first_lines(text))
    raise Rejected(f"strict round: in {where}, {watch.failure}")


# ---------------------------------------------------------------- the check
def check_version(root: Path, version: Version, team: Account, ctx: Context) -> Verdict:
    """Check one version (Retry when the judge itself cannot)."""
    lim = ctx.config.limits
    limits = Limits(time_s=lim.time_s, memory_bytes=lim.memory_mb * 2**20)
    log: list[str] = []
    try:
        bot = prepare(root, version, team.name, ctx.config, log)
        _battery(bot, ctx.sandbox, limits, log)
        opponent = resolve_bot(ctx.config.check.opponent)
        for seat in (0, 1):
            _round(root, version, bot, opponent, seat, ctx, limits, log)
    except Rejected as exc:
        return Verdict(False, str(exc), log)
    return Verdict(
        True,
        f"accepted: check-bot found no error, and it played {ctx.config.check.turns or 'all'} "
        f"turns in each seat against {ctx.config.check.opponent} without a crash, a time-out "
        "or a void move",
        log,
    )


def _run(task: Task, ctx: Context) -> Outcome:
    store: Store = ctx.store
    version = store.version(int(task.payload["version"]))
    if version is None or version.status.final:
        return Outcome({"skipped": "no such version, or it has its verdict"})
    team = store.account(version.team_id)
    assert team is not None
    store.write(lambda conn: set_status(conn, version.id, Status.CHECKING))
    verdict = check_version(ctx.root, version, team, ctx)
    log = "\n".join(verdict.log)

    def write(conn: sqlite3.Connection) -> None:
        set_status(conn, version.id, verdict.status, verdict.reason, log)

    return Outcome({"status": verdict.status.value}, write)


def _restart(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE versions SET status = 'queued' WHERE status = 'checking'")


def _give_up(task: Task, why: str) -> Outcome:
    version_id = int(task.payload["version"])
    reason = (
        f"the judge itself could not check this version ({why}): not your bot's fault; "
        "upload it again, or tell the organiser"
    )

    def write(conn: sqlite3.Connection) -> None:
        set_status(conn, version_id, Status.REJECTED, reason)

    return Outcome({"status": "rejected", "judge_failed": why}, write)


def check_kind() -> TaskKind:
    return TaskKind("check", _run, on_restart=_restart, max_attempts=3, give_up=_give_up)
