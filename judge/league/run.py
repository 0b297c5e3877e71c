"""Running a league: bots join or are replaced, batches of pairs are chosen and played.

One run plays ``pairs`` pairs (a map twice, seats swapped), a batch at a
time: the batch is chosen from the current ratings (:mod:`.ratings`), written
to the database, played, and its rounds rate the bots in pair order.  A
stopped run is finished with ``--resume``: the open batch's missing rounds
are played, then the remaining batches, so the league ends as an
uninterrupted run would (for deterministic bots).

Rounds are tasks of the judge's round scheduler (:mod:`judge.scheduler`): a
whole batch's rounds are handed to one executor at once (threads here, or a
Dask cluster with ``--cluster``: :mod:`judge.cluster`), so a batch of 20
pairs keeps 40 rounds' worth of workers busy.  The ratings do not depend on
the order rounds finish in: a batch is rated in pair order once it is all in.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge import atomic
from judge.bots import BotSpec
from judge.errors import JudgeError
from judge.evaluate import EvalRound, MapPlan, RoundSpec, plan_map, round_task
from judge.league.config import LeagueConfig
from judge.league.ratings import Entrant, Rater, Rating, choose_pairs, inherited
from judge.league.store import DB_FILE, BotRow, PairRow, RoundRow, Store
from judge.names import folder_name
from judge.pentanomial import round_points
from judge.records.leaderboard import COLUMNS, Leaderboard, LeaderboardRow, RetiredRow
from judge.sandbox import Limits, Sandbox
from judge.scheduler import Executor, RoundDone, RoundStatus, RoundTask, ThreadExecutor

PAIRS_DIR = "pairs"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_CSV = "leaderboard.csv"
INDEX_HTML = "index.html"
#: The HTML page links the replays of this many latest pairs.
HTML_PAIRS = 40


class LeagueError(JudgeError, RuntimeError):
    """A league that cannot go on as asked (the message says what to do)."""


@dataclass(frozen=True)
class PairLink:
    """A played pair's folder (relative to the league folder) and its title, for index.html."""

    folder: str
    title: str


@dataclass(frozen=True)
class PairTask:
    """One pair to play: plain data (bots, map, which seat orders are missing)."""

    pair: int
    names: tuple[str, str]
    bots: tuple[BotSpec, BotSpec]
    plan: MapPlan
    a_seats: tuple[int, ...]
    folder: Path


#: Plays a batch's missing rounds (of every pair at once) and reports each as it ends,
#: with its pair.
PairPlayer = Callable[
    [Sequence[PairTask], Callable[[PairTask, RoundRow], None], threading.Event], None
]


def pair_folder(pair: int, a: str, b: str) -> str:
    """A pair's folder: its number and the two bots' folder forms (:mod:`judge.names`)."""
    return f"{pair:06d}-{folder_name(a)}-vs-{folder_name(b)}"


class RoundsPlayer:
    """The real player: a batch's rounds as tasks of one executor (threads, or a cluster).

    ``executor`` defaults to ``jobs`` threads on ``sandbox``.  A round that
    cannot be played at all (a program its seat cannot run) stops the batch
    and is raised as a :class:`LeagueError`, as ``judge eval`` does.
    """

    def __init__(
        self,
        sandbox: Sandbox | None,
        limits: Limits,
        jobs: int,
        executor: Executor | None = None,
    ):
        if executor is None:
            if sandbox is None:
                raise ValueError("RoundsPlayer needs a sandbox or an executor")
            executor = ThreadExecutor(sandbox, jobs)
        self.limits, self.executor = limits, executor

    def __call__(
        self,
        tasks: Sequence[PairTask],
        on_round: Callable[[PairTask, RoundRow], None],
        stop: threading.Event,
    ) -> None:
        by_key: dict[str, tuple[PairTask, RoundSpec]] = {}

        def round_tasks() -> Iterator[RoundTask]:
            for task in tasks:
                for seat in task.a_seats:
                    spec = RoundSpec(seat + 1, task.plan, seat)
                    rt = round_task(spec, task.bots, task.names, self.limits, task.folder)
                    key = f"{task.pair}/{spec.number}"
                    by_key[key] = (task, spec)
                    yield dataclasses.replace(rt, key=key)

        failures: list[RoundDone] = []

        def done(d: RoundDone) -> None:
            task, spec = by_key[d.task.key]
            if d.status is RoundStatus.STOPPED:
                return
            if d.status in (RoundStatus.FAILED, RoundStatus.REFUSED):
                failures.append(d)
                stop.set()
                return
            o = EvalRound(spec, d.result, d.error)
            r = o.result
            rel = f"{PAIRS_DIR}/{task.folder.name}/{r.replay}" if r is not None else None
            on_round(
                task,
                RoundRow(
                    task.pair,
                    spec.a_seat,
                    o.outcome,
                    r.gold[o.a] if r else None,
                    r.gold[o.b] if r else None,
                    r.end_reason.value if r else None,
                    rel,
                    o.error,
                ),
            )

        self.executor.play(round_tasks(), stop, done)
        if failures:
            raise LeagueError(failures[0].error or "a round could not be played")


@dataclass
class RunReport:
    joined: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    pairs: int = 0
    rounds: int = 0
    aborted: int = 0
    stopped: bool = False


class League:
    """A league folder: its database, its bots and the way rounds get played."""

    def __init__(self, cfg: LeagueConfig, out: Path, player: PairPlayer):
        self.cfg, self.out, self.player = cfg, out, player
        self.store = Store(out / DB_FILE)
        self.rater = Rater()

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ the bots
    def sync_bots(self, report: RunReport) -> None:
        """Make the database's active bots those of the league file (join, replace, retire)."""
        rows = self.store.bots()
        active = {r.name: r for r in rows if r.active}
        for b in self.cfg.bots:
            cur = active.get(b.name)
            if cur is not None and cur.version == b.version:
                if cur.source != b.spec.source:
                    self.store.set_active(cur.id, True, b.spec.source)
                continue
            if cur is not None:
                self.store.set_active(cur.id, False)
            again = next((r for r in rows if r.name == b.name and r.version == b.version), None)
            if again is not None:  # an older version is back: its own record goes on
                self.store.set_active(again.id, True, b.spec.source)
                report.replaced.append(f"{b.name} (back to version {b.version})")
                continue
            if cur is None:
                self.store.add_bot(b.name, b.version, b.spec.source, Rating(), None)
                report.joined.append(b.name)
                continue
            start = inherited(cur.rating) if b.new_version == "inherit" else Rating()
            self.store.add_bot(b.name, b.version, b.spec.source, start, cur.id)
            report.replaced.append(f"{b.name} (version {b.version}, {b.new_version})")
        names = {b.name for b in self.cfg.bots}
        for name, r in active.items():
            if name not in names:
                self.store.set_active(r.id, False)
                report.retired.append(name)

    # ------------------------------------------------------------- playing
    def run(
        self,
        resume: bool,
        stop: threading.Event | None = None,
        on_pair: Callable[[RunReport], None] | None = None,
    ) -> RunReport:
        """Play one run (or finish the stopped one with ``resume``)."""
        stop = stop if stop is not None else threading.Event()
        report = RunReport()
        last = self.store.last_run()
        if last is not None and not last[2] and not resume:
            raise LeagueError(
                f"the last run stopped after {self.store.pair_count()} of {last[1]} pairs; "
                "run the same command with --resume to finish it"
            )
        if resume and (last is None or last[2]):
            raise LeagueError("--resume: there is no stopped run to finish in this folder")
        self.sync_bots(report)
        if len(self.store.bots(active_only=True)) < 2:
            raise LeagueError("a league needs at least 2 bots")
        if resume:
            assert last is not None
            run_id, target = last[0], last[1]
        else:
            target = self.store.pair_count() + self.cfg.pairs
            run_id = self.store.start_run(target)
        pending = self.store.open_pairs()
        if pending:
            self._play_batch(pending, report, stop, on_pair)
        while not stop.is_set() and self.store.pair_count() < target:
            n = min(self.cfg.batch, target - self.store.pair_count())
            self._play_batch(self._choose(n), report, stop, on_pair)
        report.stopped = stop.is_set()
        if not report.stopped:
            self.store.finish_run(run_id)
        return report

    def _choose(self, n: int) -> list[PairRow]:
        batch = self.store.next_batch()
        rows = self.store.bots(active_only=True)
        entrants = [Entrant(r.id, r.rating, r.rounds) for r in rows]
        rng = random.Random(f"ocean-league:{self.cfg.seed}:{batch}")
        chosen = choose_pairs(entrants, n, self.rater, rng)
        first = self.store.next_pair_id()
        planned = []
        for k, (a, b) in enumerate(chosen):
            pid = first + k
            plan = plan_map(pid - 1, self.cfg.sizes, self.cfg.turns, self.cfg.seed)
            planned.append((pid, a, b, plan))
        self.store.add_pairs(batch, planned)
        return [PairRow(pid, batch, a, b, plan, False) for pid, a, b, plan in planned]

    def _play_batch(
        self,
        pairs: list[PairRow],
        report: RunReport,
        stop: threading.Event,
        on_pair: Callable[[RunReport], None] | None,
    ) -> None:
        bots = {r.id: r for r in self.store.bots()}
        active = {r.id for r in bots.values() if r.active}
        gone = [p.id for p in pairs if p.a not in active or p.b not in active]
        if gone:  # a bot left or was replaced while its pair was open: drop the pair
            self.store.drop_pairs(gone)
            pairs = [p for p in pairs if p.id not in gone]
        tasks = []
        for p in pairs:
            done = self.store.rounds(p.id)
            missing = tuple(s for s in (0, 1) if s not in done)
            if not missing:
                continue
            a, b = bots[p.a], bots[p.b]
            tasks.append(
                PairTask(
                    p.id,
                    (a.name, b.name),
                    (self.cfg.bot(a.name).spec, self.cfg.bot(b.name).spec),
                    p.plan,
                    missing,
                    self.out / PAIRS_DIR / pair_folder(p.id, a.name, b.name),
                )
            )
        left = {t.pair: len(t.a_seats) for t in tasks}

        def record(task: PairTask, r: RoundRow) -> None:
            if stop.is_set():
                return  # a round that ended after the signal may have been cut by it
            self.store.add_round(r)
            report.rounds += 1
            report.aborted += r.outcome is None
            left[task.pair] -= 1
            if left[task.pair] == 0:  # the pair is complete
                report.pairs += 1
                if on_pair is not None:
                    on_pair(report)

        if tasks and not stop.is_set():
            self.player(tasks, record, stop)
        if stop.is_set() or any(len(self.store.rounds(p.id)) < 2 for p in pairs):
            return
        self._apply(pairs, bots)

    def _apply(self, pairs: list[PairRow], bots: dict[int, BotRow]) -> None:
        """Rate the batch in pair order, one update per pair, in one transaction.

        A pair (the same map, seats swapped) is the unit, as in ``judge eval``: its two
        rounds are one game that A won, drew or lost by its score over them
        (:func:`pair_points`), so the order of the rounds does not matter and a
        mirrored win-win of two deterministic bots counts once.  The rounds won,
        drawn and lost are still counted one by one for the leaderboard.
        """
        ratings = {i: r.rating for i, r in bots.items()}
        tally: dict[int, list[int]] = {}
        for p in pairs:
            outcomes = [r.outcome for _, r in sorted(self.store.rounds(p.id).items())]
            played = [o for o in outcomes if o is not None]  # None: abandoned, no one's fault
            if not played:
                continue
            pts = pair_points(played)
            ratings[p.a], ratings[p.b] = self.rater.rate(ratings[p.a], ratings[p.b], pts)
            for o in played:
                for bot, res in ((p.a, o), (p.b, _flip(o))):
                    t = tally.setdefault(bot, [0, 0, 0])
                    t[("win", "draw", "loss").index(res)] += 1
        updates = {b: (ratings[b], *tally[b]) for b in tally}
        self.store.apply(updates, [p.id for p in pairs])  # type: ignore[arg-type]

    # ---------------------------------------------------------- the outputs
    def leaderboard(self) -> list[LeaderboardRow]:
        """Active bots, best first by the conservative rating (mu - 3 sigma)."""
        rows = sorted(
            self.store.bots(active_only=True),
            key=lambda r: (-r.rating.conservative, -r.rating.mu, r.name),
        )
        return [
            LeaderboardRow(
                rank=i,
                bot=r.name,
                version=r.version,
                rating=round(r.rating.mu, 2),
                uncertainty=round(r.rating.sigma, 2),
                conservative=round(r.rating.conservative, 2),
                rounds=r.rounds,
                wins=r.wins,
                draws=r.draws,
                losses=r.losses,
                win_rate=round(r.wins / r.rounds, 4) if r.rounds else None,
            )
            for i, r in enumerate(rows, start=1)
        ]

    def retired(self) -> list[RetiredRow]:
        """Bots (and older versions) that no longer play, in the order they joined."""
        return [
            RetiredRow(r.name, r.version, round(r.rating.mu, 2), round(r.rating.sigma, 2), r.rounds)
            for r in self.store.bots()
            if not r.active
        ]

    def write_outputs(self) -> list[LeaderboardRow]:
        """leaderboard.json and leaderboard.csv (the command adds index.html)."""
        board = self.leaderboard()
        atomic.write_json(
            self.out / LEADERBOARD_JSON, Leaderboard(tuple(board), tuple(self.retired())).to_json()
        )
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(r.to_json() for r in board)
        # A byte order mark: spreadsheet programs then read the names as UTF-8.
        atomic.write_bytes(self.out / LEADERBOARD_CSV, buf.getvalue().encode("utf-8-sig"))
        return board

    def latest_pairs(self) -> list[PairLink]:
        """The latest rated pairs that have a folder, newest first (index.html links them)."""
        names = {r.id: r.name for r in self.store.bots()}
        latest = self.store.pairs("WHERE applied = 1")[-HTML_PAIRS:][::-1]
        links = []
        for p in latest:
            a, b = names[p.a], names[p.b]
            folder = Path(PAIRS_DIR) / pair_folder(p.id, a, b)
            if (self.out / folder).is_dir():
                links.append(PairLink(str(folder), f"pair {p.id}: {a} vs {b}"))
        return links


def pair_points(outcomes: list[str]) -> float:
    """A pair's result for bot A, as one game: 1 (won more of its rounds' points), 0.5
    (as many as B: a split pair or two draws) or 0, from A's outcomes in any order."""
    score = sum(round_points(o) for o in outcomes) / len(outcomes)
    return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5


def _flip(outcome: str) -> str:
    return {"win": "loss", "loss": "win", "draw": "draw"}[outcome]
