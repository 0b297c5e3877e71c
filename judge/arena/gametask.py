"""The ``game`` kind of task: what a server's slot does with a game of the ladder.

A slot (:mod:`judge.arena.service`) claims a game task, and this plays it
(:func:`judge.arena.games.play_game`) on this machine's sandbox, both rounds
at once, or on the Dask cluster the server was given (``--cluster``, as
``judge tournament`` plays there), then hands the slot the outcome: the result,
and the game's row and rating moves as writes of the task's finish
transaction, so they are recorded exactly when the task is, and once.

A game the server stops in the middle (Ctrl-C, the lease lost) goes back to
the queue and is played again from its first round; one the judge cannot play
three times over (its sandbox failing, never a bot) is recorded as abandoned,
moving no rating.
"""

from __future__ import annotations

import threading
from pathlib import Path

from judge.arena import games
from judge.arena.checks import EXE_FOLDER, UNPACKED
from judge.arena.ladderconfig import ladder_settings
from judge.arena.service import Context, Outcome, Retry, TaskKind
from judge.arena.store import Store
from judge.arena.submissions import store_folder
from judge.arena.tasks import Task
from judge.bots import BOT_FILE, BotSpec, named, resolve_bot
from judge.sandbox import Limits
from judge.scheduler import Executor, ThreadExecutor


def program_path(root: Path, kind: str, path: str, sha256: str) -> Path:
    """A version's program as its check left it: the bot folder it made for an ``.exe``, or
    the zip's folder as the check unpacked and built it (a bot folder, or the ``.exe`` in
    it).  A folder, never the lone stored ``.exe``: a lone program would be copied into the
    judge's cache, out of the arena folder."""
    if kind == "exe":
        folder = store_folder(root, sha256) / EXE_FOLDER
        return folder if (folder / BOT_FILE).is_file() else root / path
    folder = store_folder(root, sha256) / UNPACKED
    if (folder / BOT_FILE).is_file():
        return folder
    return next(f for f in sorted(folder.iterdir()) if f.suffix.lower() == ".exe")


def version_bot(root: Path, store: Store, p: games.Player) -> BotSpec:
    """A version's program, never built again here (its check built it)."""
    assert p.version_id is not None
    found = store.row("SELECT kind, path, sha256 FROM versions WHERE id = ?", (p.version_id,))
    assert found is not None
    program = program_path(root, *found)
    return named(resolve_bot(str(program), build=False), p.label)


class GameRunner:
    """Plays game tasks for one server (its house bots resolved once, its limits)."""

    def __init__(self) -> None:
        self._house: games.HouseBots | None = None
        self._lock = threading.Lock()

    def _setup(self, ctx: Context) -> games.GameSetup:
        with self._lock:
            if self._house is None:
                settings = ladder_settings(ctx.config.later)
                self._house = games.HouseBots(
                    ctx.root, {h.name: h.bot for h in settings.house_bots}
                )
            house = self._house
        lim = ctx.config.limits
        limits = Limits(time_s=lim.time_s, memory_bytes=lim.memory_mb * 2**20)

        def bot_for(p: games.Player) -> BotSpec:
            if p.house is not None:
                return named(house.spec(p.house), p.label)
            return version_bot(ctx.root, ctx.store, p)

        return games.GameSetup(ctx.root, limits, bot_for)

    def run(self, task: Task, ctx: Context) -> Outcome:
        found = games.claimed(ctx.store, task)
        if found is None:
            return Outcome({"skipped": "the game is not queued any more"})
        g, a, b = found
        executor: Executor = (
            ctx.cluster if ctx.cluster is not None else ThreadExecutor(ctx.sandbox, 2)
        )
        halt = _either(ctx.stop, ctx.lost)
        try:
            result = games.play_game(self._setup(ctx), g, a, b, executor, halt)
        finally:
            halt.set()
        if result is None:
            raise Retry("stopped before the game ended: it is played again")
        failed = [r for r in result["rounds"] if r["status"] in ("failed", "refused")]
        if failed:
            raise Retry(str(failed[0].get("error") or "a round could not be played"))
        return Outcome({"game": g.id}, games.recorder(g.id, result))


def _give_up(task: Task, why: str) -> Outcome:
    gid = int(task.payload["game"])
    abandoned = {"rounds": [], "abandoned": why}
    return Outcome({"game": gid, "abandoned": why}, games.recorder(gid, abandoned))


def _either(a: threading.Event, b: threading.Event) -> threading.Event:
    """An event set as soon as ``a`` or ``b`` is (watched until it is set)."""
    out = threading.Event()

    def watch() -> None:
        while not out.wait(0.2):
            if a.is_set() or b.is_set():
                out.set()

    threading.Thread(target=watch, name="game-halt", daemon=True).start()
    return out


def game_kind() -> TaskKind:
    runner = GameRunner()
    return TaskKind(games.GAME_KIND, runner.run, max_attempts=3, give_up=_give_up)
