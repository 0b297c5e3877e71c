"""The ladder as the server runs it: one :meth:`Ladder.step` a second, while the arena is open.

A step looks at the store and does what is due, in one transaction, so a
server killed at any moment leaves it consistent and the next step carries on:

1. the reference and the house bots are players (once);
2. each team's newly accepted version joins (its team's mu, a wide sigma) and
   its placement burst is queued ahead of the round's games;
3. queued games of a version that has since been replaced are dropped (no
   worker started them: nothing is lost);
4. when no game of the ladder's round is left to play, the round is closed and
   the next one chosen from the players current now (:mod:`.ladder`).

Once the arena is frozen (``judge arena freeze``, or the deadline in
arena.yaml), no round starts and every game still queued is dropped: the
machine is the final's.  Games a worker already started are finished and
recorded (unrated if a version was replaced meanwhile).
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.arena import ArenaError
from judge.arena import games as g
from judge.arena.challenges import HOUR_S, Ask, refusal
from judge.arena.config import ArenaConfig
from judge.arena.ladder import (
    Entrant,
    NoPracticeMap,
    PairKind,
    Pick,
    PracticeMaps,
    next_round,
    placement,
)
from judge.arena.ladderconfig import REFERENCE, LadderSettings, ladder_settings
from judge.arena.store import Phase, Store
from judge.maps import load_map
from judge.seeds import derive

log = logging.getLogger("judge.arena")


@dataclass
class StepReport:
    """What a step did (for the server's log and the tests)."""

    joined: list[str] = field(default_factory=list)
    placement: int = 0
    dropped: int = 0
    round_started: int | None = None
    froze: bool = False


def practice_maps(
    arena_dir: Path, files: tuple[str, ...], settings: LadderSettings, organiser: str | None
) -> PracticeMaps:
    """The arena's practice maps: arena.yaml's files and the ladder's generated sizes, the
    organisers' sea left out."""
    sea = load_map(arena_dir / organiser) if organiser else None
    try:
        return PracticeMaps.load(
            [arena_dir / f for f in files], settings.generated, settings.turns, sea
        )
    except NoPracticeMap as exc:
        raise ArenaError(f"arena.yaml: {exc}") from None


class Ladder:
    """The ladder of one arena folder (its store, its settings, its maps)."""

    def __init__(
        self,
        store: Store,
        settings: LadderSettings,
        maps: PracticeMaps,
        deadline_passed: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.time,
    ):
        self.store, self.settings, self.maps = store, settings, maps
        self.deadline_passed, self.clock = deadline_passed, clock

    # ---------------------------------------------------------------- a step
    def step(self) -> StepReport:
        report = StepReport()
        if self.store.phase is Phase.OPEN and self.deadline_passed():
            from judge.arena.phases import freeze  # the final's versions are written down

            report.froze = freeze(self.store, "the deadline")
        self.store.write(lambda conn: self._step(conn, report))
        return report

    def _step(self, conn: sqlite3.Connection, report: StepReport) -> None:
        now = self.clock()
        for house in self.settings.house_bots:
            g.add_house_player(conn, house.name, now)
        phase = Phase(self._meta(conn, "phase") or Phase.OPEN.value)
        if phase is not Phase.OPEN:
            report.dropped += len(g.drop_queued(conn, "frozen", stale_only=False))
            self._close_round(conn, now)
            return
        self._join(conn, now, report)
        report.dropped += len(g.drop_queued(conn, "replaced"))
        if self._round_over(conn):
            report.round_started = self._next_round(conn, now)

    @staticmethod
    def _meta(conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # ------------------------------------------------------------- joining
    def _join(self, conn: sqlite3.Connection, now: float, report: StepReport) -> None:
        """Each team's current version that is not a player yet joins, with its burst."""
        fresh = conn.execute(
            "SELECT v.id, v.team_id FROM versions v WHERE v.status = 'accepted' "
            "AND v.number = (SELECT max(c.number) FROM versions c WHERE c.team_id = v.team_id "
            "AND c.status = 'accepted') "
            "AND NOT EXISTS (SELECT 1 FROM players p WHERE p.version_id = v.id) ORDER BY v.id"
        ).fetchall()
        for version_id, team_id in fresh:
            new = g.add_version_player(conn, int(version_id), int(team_id), now)
            report.joined.append(new.label)
            others = [_entrant(p) for p in g.players(conn, current_only=True) if p.key != new.key]
            picks = placement(
                _entrant(new), others, g.house_key(REFERENCE), self.settings.rules.placement_nearest
            )
            g.enqueue_picks(conn, picks, self.maps, self.settings.seed, now)
            report.placement += len(picks)

    # -------------------------------------------------------------- rounds
    @staticmethod
    def _open_round(conn: sqlite3.Connection) -> int | None:
        row = conn.execute(
            "SELECT number FROM ladder_rounds WHERE finished_at IS NULL ORDER BY number DESC LIMIT 1"
        ).fetchone()
        return None if row is None else int(row[0])

    def _round_over(self, conn: sqlite3.Connection) -> bool:
        number = self._open_round(conn)
        if number is None:
            return True
        (left,) = conn.execute(
            "SELECT count(*) FROM games WHERE ladder_round = ? AND state = 'queued'", (number,)
        ).fetchone()
        return int(left) == 0

    def _close_round(self, conn: sqlite3.Connection, now: float) -> None:
        number = self._open_round(conn)
        if number is not None and self._round_over(conn):
            conn.execute("UPDATE ladder_rounds SET finished_at = ? WHERE number = ?", (now, number))

    def _next_round(self, conn: sqlite3.Connection, now: float) -> int | None:
        self._close_round(conn, now)
        current = g.players(conn, current_only=True)
        if len(current) < 2:
            return None
        (last,) = conn.execute("SELECT coalesce(max(number), 0) FROM ladder_rounds").fetchone()
        number = int(last) + 1
        rng = random.Random(derive("ocean-arena-ladder", self.settings.seed, number))
        picks = next_round([_entrant(p) for p in current], self.settings.rules, rng, _met(conn))
        conn.execute(
            "INSERT INTO ladder_rounds(number, started_at, pairs) VALUES (?, ?, ?)",
            (number, now, len(picks)),
        )
        g.enqueue_picks(conn, picks, self.maps, self.settings.seed, now, ladder_round=number)
        return number

    # ---------------------------------------------------------- challenges
    def challenge(
        self, team_id: int, team: str, opponent: str, pairs: int
    ) -> tuple[int, str | list[int]]:
        """A team's challenge: (202, the games queued) or (HTTP status, why it is refused)."""

        def ask(conn: sqlite3.Connection) -> tuple[int, str | list[int]]:
            now = self.clock()
            if Phase(self._meta(conn, "phase") or "open") is not Phase.OPEN:
                return 403, "the arena is closed: challenges are played only while it is open"
            current = g.players(conn, current_only=True)
            mine = next((p for p in current if p.team_id == team_id), None)
            names = {p.team: p for p in current if p.key != (mine.key if mine else None)}
            (asked,) = conn.execute(
                "SELECT coalesce(sum(pairs), 0) FROM challenges WHERE team_id = ? AND created_at > ?",
                (team_id, now - HOUR_S),
            ).fetchone()
            why = refusal(
                Ask(team, opponent, pairs),
                self.settings.challenges,
                int(asked),
                frozenset(names),
                mine is not None,
            )
            if why is not None:
                return why
            assert mine is not None
            cur = conn.execute(
                "INSERT INTO challenges(team_id, opponent, pairs, created_at) VALUES (?, ?, ?, ?)",
                (team_id, opponent, pairs, now),
            )
            them = names[opponent]
            picks = [Pick(mine.key, them.key, PairKind.CHALLENGE) for _ in range(pairs)]
            ids = g.enqueue_picks(
                conn, picks, self.maps, self.settings.seed, now, challenge=cur.lastrowid
            )
            return 202, ids

        result: tuple[int, str | list[int]] = self.store.write(ask)
        return result


class LadderThread:
    """The server's ladder: a step every ``period_s`` seconds in a thread of its own, waking
    the task slots when it queued games.  A step that fails (a busy or damaged store) is
    logged and tried again at the next beat: the ladder never stops the server."""

    def __init__(self, ladder: Ladder, wake: Callable[[], None], period_s: float = 1.0):
        self.ladder, self.wake, self.period_s = ladder, wake, period_s
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="arena-ladder", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self, timeout: float = 10.0) -> None:
        self.stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                report = self.ladder.step()
            except Exception:  # noqa: BLE001 - logged; the next beat tries again
                log.exception("the ladder's step failed")
            else:
                if report.placement or report.round_started is not None:
                    self.wake()
                if report.joined or report.round_started is not None or report.froze:
                    log.info(
                        "ladder: joined %s, round %s, %s dropped%s",
                        report.joined,
                        report.round_started,
                        report.dropped,
                        ", frozen by the deadline" if report.froze else "",
                    )
            self.stop.wait(self.period_s)


def start_ladder(
    root: Path, store: Store, config: ArenaConfig, wake: Callable[[], None]
) -> LadderThread:
    """The ladder of an opened arena, started (``judge arena serve``)."""
    settings = ladder_settings(config.later)
    maps = practice_maps(root, config.practice_maps, settings, config.organiser_map)
    thread = LadderThread(Ladder(store, settings, maps, config.closed_by_deadline), wake)
    thread.start()
    return thread


def _entrant(p: g.Player) -> Entrant:
    return Entrant(p.key, p.rating, p.games, p.idle_since)


def _met(conn: sqlite3.Connection) -> dict[frozenset[str], int]:
    """How often each pair of players has met in rated games (matchmaking prefers new pairs)."""
    out: dict[frozenset[str], int] = {}
    for a, b, n in conn.execute(
        "SELECT a, b, count(*) FROM games WHERE kind <> 'challenge' GROUP BY a, b"
    ).fetchall():
        key = frozenset((str(a), str(b)))
        out[key] = out.get(key, 0) + int(n)
    return out
