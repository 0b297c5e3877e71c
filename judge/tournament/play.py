"""Play a tournament: every round the ledger does not have yet, ``jobs`` at a time.

Why it is built this way:

* **The ledger is the truth.**  A round counts once its row is committed
  (:mod:`.ledger`); ``result.json`` and the standings are rewritten from the
  ledger, so a judge killed between the commit and the file write loses
  nothing.  A round folder without a ledger row is a half-written leftover of
  a killed run: ``--resume`` clears it and plays the round again.
* **A resume plays the programs the rounds were played by.**  What changed
  since the last run (a team's program, a round's files) is settled by
  :mod:`.resume` before anything is played: refused, or the rounds concerned
  taken out of the ledger in the same transaction that records the run.
* **Results never depend on scheduling.**  A round's seed derives from the
  tournament seed, the match's two teams and the round index (see
  :func:`.pairings.match_seed` and :func:`judge.match.round_seed`), never from
  when or in which thread it is played: ``--jobs 1``, ``--jobs 4`` and an
  interrupted-then-resumed run give the same standings.
* **One scheduler.**  Rounds are tasks for :mod:`judge.scheduler` (threads
  here; another executor can be given), which reports each finished round in
  the main thread: the ledger and result files are written by the main thread
  alone (SQLite connections stay in their own thread and no two writers race
  on a ``result.json``).
* **Stopping is cooperative.**  On SIGINT/SIGTERM no new round starts and no
  new turn starts: the round threads stop at their next turn, their seats are
  closed (the sandbox kills whatever is left) and their folders are left for
  ``--resume`` to clear.  No round is recorded after the signal, not even one
  that ends in that moment: a Ctrl-C reaches the sandbox's helpers too, and a
  round whose last run was cut short by it must not count.  A second signal
  stops waiting.  A SIGKILL cannot be
  caught, but the sandbox's helper dies with the judge and takes its bot with
  it, and the ledger is consistent after any kill.
* **Privacy between teams** is the sandbox's: every round seat is a private
  copy of the team's program in a folder only that seat (its own uid, when the
  judge runs as root) can read, and STATE.OUT stays in that folder.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime as _dt
import io
import shlex
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judge import __version__, atomic, isolation
from judge.errors import JudgeError
from judge.inputfiles import excerpt
from judge.match import round_seed, write_result
from judge.names import folder_name
from judge.records import Json, MatchResult, RoundResult
from judge.records.standings import (
    COLUMNS,
    LedgerRun,
    StandingRow,
    Standings,
    StandingsAudit,
    TeamProgram,
)
from judge.referee import RoundConfig
from judge.sandbox import Isolation, Limits, ProgramUnreachable, Sandbox, SandboxError
from judge.scheduler import (
    Executor,
    RoundDone,
    RoundStatus,
    RoundTask,
    ThreadExecutor,
    Venue,
)
from judge.tournament.config import TournamentConfig, diff_fingerprints
from judge.tournament.ledger import LEDGER_FILE, Ledger, LedgerError, LedgerRound
from judge.tournament.pairings import (
    Pairing,
    RoundSlot,
    match_seed,
    round_robin,
    rounds_in_play_order,
)
from judge.tournament.resume import ResumeChoices, ResumePlan, plan_resume, unknown_teams
from judge.tournament.standings import standings

STANDINGS_JSON = "standings.json"
STANDINGS_CSV = "standings.csv"
INDEX_HTML = "index.html"


class TournamentError(JudgeError, RuntimeError):
    """The tournament cannot start or go on; ``exit_code`` is the exit status to give."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class RunReport:
    """What a run did: enough for the command to print and choose its exit status."""

    total: int
    done_before: int
    played: int = 0
    interrupted_by: str | None = None  # the signal's name
    failure: str | None = None  # a judge failure (exit 3)
    failure_code: int = 3
    standings: list[StandingRow] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def complete(self) -> bool:
        return self.done_before + self.played == self.total


def schedule_for(cfg: TournamentConfig) -> list[Pairing]:
    """The tournament's schedule: the same for the same configuration, on any machine."""
    import random

    return round_robin(cfg.team_names, random.Random(f"ocean-pairings:{cfg.seed}"))


# ------------------------------------------------------------ result files
def write_match_result(
    out: Path, cfg: TournamentConfig, pairing: Pairing, recorded: dict[int, LedgerRound]
) -> None:
    """Rewrite one match's result.json from its recorded rounds (1, 2, ... while contiguous).

    Only the unbroken run of rounds from round 1 is listed, so entry i is
    always round i (as readers of ``judge match`` results expect); a later
    round that finished early is in the ledger and joins when the gap fills.
    """
    rounds = []
    for idx in range(1, len(pairing.rounds) + 1):
        if idx not in recorded:
            break
        rounds.append(recorded[idx].result)
    if not rounds:  # none yet, or taken out of the ledger to be played again
        (out / pairing.folder / "result.json").unlink(missing_ok=True)
        return
    result = MatchResult(
        pairing.teams,
        match_seed(cfg.seed, *pairing.teams),
        rounds=rounds,
        planned=len(pairing.rounds),
        bots=tuple(cfg.team(t).bot.source for t in pairing.teams),
        time_limit_lifted=False,
    )
    write_result(out / pairing.folder, result)


#: The tournament's plan, written when it starts (and again on every resume): what a live
#: view (``judge serve``) needs to show the rounds still to play.
SCHEDULE_JSON = "schedule.json"


def write_schedule(out: Path, cfg: TournamentConfig, schedule: Sequence[Pairing]) -> None:
    """``schedule.json``: the teams, and every match with its rounds (map owner, seats), in
    the order the rounds are played."""
    atomic.write_json(
        out / SCHEDULE_JSON,
        {
            "title": cfg.title,
            "teams": list(cfg.team_names),
            "matches": [
                {
                    "folder": p.folder,
                    "teams": list(p.teams),
                    "rounds": [
                        {
                            "index": r.index,
                            "map_owner": r.map_owner,
                            "seats": list(r.seats),
                            # the map's file name, never a path of the judge's machine
                            "map": Path(cfg.map_of(r.map_owner)[1].replace("\\", "/")).name,
                        }
                        for r in p.rounds
                    ],
                }
                for p in schedule
            ],
            "play_order": [[r.match, r.index] for r in rounds_in_play_order(schedule)],
        },
    )


def write_standings(
    out: Path, rows: Sequence[StandingRow], audit: StandingsAudit | None = None
) -> None:
    """standings.json and standings.csv (the same rows, best first).

    standings.json is an object: the audit record first (seed, date, judge version,
    configuration hash, program hashes, isolation: see :meth:`Runner.audit`), then
    ``standings``, the rows.

    The CSV starts with a UTF-8 byte order mark: without it a spreadsheet
    program (Excel) reads the file in the machine's legacy code page and shows
    ``Rồng Biển`` as ``Rá»“ng Biá»ƒn``; with it every program reads UTF-8.
    """
    atomic.write_json(out / STANDINGS_JSON, Standings(tuple(rows), audit).to_json())
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(r.to_json() for r in rows)
    atomic.write_bytes(out / STANDINGS_CSV, buf.getvalue().encode("utf-8-sig"))


def withdraw_results(out: Path) -> None:
    """Remove the final results of a tournament whose recorded rounds are about to be taken
    out to be played again: until the last round is in again, no file (nor the served
    pages, which call a folder with standings.json finished) gives the old results.

    Done before the ledger's change: a judge killed at any moment leaves a ledger that
    the next resume completes, and the results are written again from it.
    """
    for name in (STANDINGS_JSON, STANDINGS_CSV, INDEX_HTML):
        (out / name).unlink(missing_ok=True)


# ---------------------------------------------------------------- the runner
def _is_empty_dir(p: Path) -> bool:
    return p.is_dir() and not any(p.iterdir())


def check_fresh_folder(out: Path) -> None:
    """A new tournament needs an empty or absent folder: never mix two tournaments' files."""
    if out.exists() and not _is_empty_dir(out):
        hint = " (it holds a tournament's ledger)" if (out / LEDGER_FILE).exists() else ""
        raise TournamentError(
            f"{out} is not empty{hint}; to continue that tournament add --resume, or give a "
            "new folder with --out"
        )


def open_for_resume(cfg: TournamentConfig, out: Path) -> Ledger:
    """The folder's ledger, checked to be of this very configuration."""
    path = out / LEDGER_FILE
    if not path.is_file():
        raise TournamentError(
            f"{out} has no {LEDGER_FILE}: there is nothing to resume; run without --resume "
            "to start the tournament"
        )
    try:
        ledger = Ledger.open(path)
    except LedgerError as exc:
        raise TournamentError(str(exc)) from None
    if ledger.config_hash != cfg.config_hash():
        try:
            changed = diff_fingerprints(ledger.config, cfg.fingerprint()) or ["(unknown keys)"]
        except LedgerError as exc:
            ledger.close()
            raise TournamentError(
                f"{path} was started with another configuration, and what changed cannot be "
                f"said: {exc}.  Resume with the configuration it was started with, or start "
                "a new tournament with --out NEW_FOLDER"
            ) from None
        hint = _moved_hint(ledger.config, cfg.fingerprint())
        ledger.close()
        raise TournamentError(
            f"{path} was started with another configuration; changed since: "
            f"{'; '.join(changed)}.  Resume with the configuration it was started with, "
            f"or start a new tournament with --out NEW_FOLDER{hint}"
        )
    return ledger


def _moved_hint(old: Json, new: Json) -> str:
    """When only teams' ``bot:`` changed between the ledger's fingerprint and the
    configuration's (a new program given at a new path): how to play the new program
    in this tournament."""
    teams_old, teams_new = old.get("teams"), new["teams"]
    if (
        {k: v for k, v in old.items() if k != "teams"}
        != {k: v for k, v in new.items() if k != "teams"}
        or not isinstance(teams_old, list)
        or len(teams_old) != len(teams_new)
    ):
        return ""
    moved = []
    for was, now in zip(teams_old, teams_new, strict=True):
        if not isinstance(was, dict):
            return ""
        differ = {k for k in set(was) | set(now) if was.get(k) != now.get(k)}
        if differ - {"bot", "command"}:
            return ""
        if differ:
            moved.append((str(now["name"]), str(was.get("bot"))))
    if not moved:
        return ""
    places = "; ".join(f"{team}'s at {excerpt(bot, 1000)}" for team, bot in moved)
    options = " ".join(f"--replace {shlex.quote(team)}" for team, _ in moved)
    return (
        f".  To play a team's new program in this tournament instead, put it where the "
        f"configuration had the old one ({places}), keep the configuration as it was, and "
        f"resume with {options}"
    )


def _programs(sandbox: Any) -> str:
    """The budget every round in flight shares, described ('' for a stand-in sandbox)."""
    cores = getattr(sandbox, "cores", None)
    return cores.describe() if cores is not None else ""


@dataclass(frozen=True)
class RunStart:
    """What a run is about to do, for whoever shows it (the header of ``judge tournament``)."""

    cfg: TournamentConfig
    matches: int
    total: int  # rounds in the tournament
    done_before: int  # rounds already in the ledger
    jobs: int
    isolation: str  # the sandbox's protections, described (each worker's, on a cluster)
    out: Path
    #: protections that are off (only with --unsandboxed: the run is recorded as not isolated)
    protections_off: tuple[str, ...] = ()
    #: how many programs run at once and on which cores (the sandbox's core budget)
    programs: str = ""
    #: what plays the rounds now ("2 at a time", "3 workers, 6 threads"): asked again as
    #: rounds end, since a cluster's workers come and go
    status: Callable[[], str] = lambda: ""
    #: what a resume does first: teams replaced or kept with a changed program, rounds
    #: played again
    resume: ResumePlan = ResumePlan()
    #: this machine's sandbox report, when the rounds are played here (None: a cluster,
    #: whose workers ``isolation`` describes)
    sandbox_isolation: Isolation | None = None


class RunEvents(Protocol):
    """What a run tells as it goes; the command draws it (a progress bar), tests keep it quiet.

    Every method is called in the thread that called :meth:`Runner.run`.
    """

    def starting(self, run: RunStart) -> None:
        """The sandbox is up and rounds are about to be played."""

    def round_recorded(self, slot: RoundSlot, result: RoundResult) -> None:
        """A round is in the ledger (``result`` in seat order, ``result.seats`` set)."""

    def failed(self, message: str) -> None:
        """The judge failed: no new round starts."""

    def finished(self) -> None:
        """No round is in flight any more (after ``starting``)."""


class Runner:
    """One run of a tournament (a start or a resume) into the folder ``out``.

    It shows nothing itself: it calls ``events`` (:class:`RunEvents`), and
    the command that made it handles signals (:meth:`request_stop`).
    """

    def __init__(
        self,
        cfg: TournamentConfig,
        out: Path,
        jobs: int,
        sandbox_factory: Callable[[], AbstractContextManager[Any]],
        events: RunEvents | None = None,
        executor_for: Callable[[Sandbox, int], Executor] = ThreadExecutor,
        venue_for: Callable[[int], AbstractContextManager[Venue]] | None = None,
        unsandboxed: bool = False,
    ):
        self.cfg, self.out, self.jobs = cfg, out, max(1, jobs)
        #: play even when some sandbox protection is off (recorded in the ledger and standings)
        self.unsandboxed = unsandboxed
        self.sandbox_factory = sandbox_factory
        #: how rounds are played (``jobs`` at a time): threads here, a cluster elsewhere
        self.executor_for = executor_for
        #: where rounds are played when not on this machine's sandbox (judge.cluster)
        self.venue_for = venue_for
        #: accept rounds played with some sandbox protection off (a cluster worker's)
        self.unsandboxed = unsandboxed
        self.events: RunEvents = events if events is not None else _Quiet()
        self.schedule = schedule_for(cfg)
        self.pairing_of = {p.folder: p for p in self.schedule}
        self.stop = threading.Event()
        self._signal: str | None = None
        self._ledger: Ledger | None = None
        self.limits = Limits(time_s=cfg.time_limit, memory_bytes=cfg.memory_limit_mb * 2**20)

    # ------------------------------------------------------------- signals
    def request_stop(self, why: str) -> None:
        """Stop starting rounds and turns (what a first SIGINT/SIGTERM does); ``why``: its name.

        Callable from a signal handler: it only sets values.
        """
        if self._signal is None:
            self._signal = why
        self.stop.set()

    # ---------------------------------------------------------------- run
    def run(self, resume: bool, choices: ResumeChoices | None = None) -> RunReport:
        """Play what the ledger lacks; raise :class:`TournamentError` if it cannot start.

        Nothing is written before the folder, the configuration and every
        team's program have been checked: a refused start leaves no trace.
        ``choices``: what a resume does with a team whose program changed
        (:mod:`.resume`).
        """
        started = time.monotonic()
        plan = ResumePlan()
        choices = choices or ResumeChoices()
        if resume:
            self._ledger = open_for_resume(self.cfg, self.out)
            try:
                plan = self._plan(choices)
            except BaseException:
                self._ledger.close()
                raise
        else:
            if choices.replace or choices.keep_changed:
                raise TournamentError(
                    "--replace and --keep-changed say what a resume does with a team's "
                    "changed program: add --resume (a new tournament plays every program "
                    "as it is)"
                )
            check_fresh_folder(self.out)
        try:
            report = self._run(plan)
        finally:
            if self._ledger is not None:
                self._ledger.close()
        report.elapsed_s = time.monotonic() - started
        return report

    def _plan(self, choices: ResumeChoices) -> ResumePlan:
        """What the resume does first; refused (nothing played) for a changed program that
        nobody said what to do with."""
        assert self._ledger is not None
        problems = unknown_teams(self.cfg, choices.replace)
        if problems:
            raise TournamentError("; ".join(problems))
        plan = plan_resume(
            self.cfg,
            self.schedule,
            self._ledger.runs(),
            [lr.key for lr in self._ledger.rounds()],
            self.out,
            choices,
        )
        if plan.refusal is not None:
            raise TournamentError(plan.refusal)
        return plan

    def _recorded(self, plan: ResumePlan) -> dict[str, dict[int, LedgerRound]]:
        """The ledger's rounds by match and index, but those the resume plays again."""
        recorded: dict[str, dict[int, LedgerRound]] = {p.folder: {} for p in self.schedule}
        again = set(plan.replay)
        for lr in self._ledger.rounds() if self._ledger else []:
            if lr.match not in recorded:
                raise TournamentError(
                    f"the ledger holds a round of {lr.match}, which is not a "
                    "match of this tournament"
                )
            if lr.key not in again:
                recorded[lr.match][lr.round] = lr
        return recorded

    def _run_record(self, plan: ResumePlan, off: Sequence[str], cluster: str | None) -> LedgerRun:
        """This run as the ledger's audit trail keeps it."""
        return LedgerRun(
            started_at="",  # the ledger's clock
            judge_version=__version__,
            unsandboxed=bool(off),
            unsandboxed_option=self.unsandboxed,
            protections_off=tuple(off),
            programs=self.program_hashes(),
            jobs=self.jobs,
            cluster=cluster,
            replaced=plan.replaced,
            replayed=tuple(f"{m}/{r}" for m, r in plan.replay),
            kept_changed=plan.kept_changed,
        )

    def _run(self, plan: ResumePlan) -> RunReport:
        slots = rounds_in_play_order(self.schedule)
        recorded = self._recorded(plan)
        todo = [s for s in slots if s.index not in recorded[s.match]]
        report = RunReport(total=len(slots), done_before=len(slots) - len(todo))
        if todo and not self.stop.is_set():
            with self._venue() as venue:
                # An official run is isolated, or was allowed not to be (and says so); on a
                # cluster each round is checked against its worker's isolation instead.
                off = list(venue.protections_off)
                if venue.sandbox is not None and off and not self.unsandboxed:
                    raise TournamentError(
                        isolation.refusal(
                            "this machine", venue.sandbox.isolation, isolation.is_root()
                        )
                    )
                self.events.starting(
                    RunStart(
                        self.cfg,
                        len(self.schedule),
                        report.total,
                        report.done_before,
                        self.jobs,
                        venue.isolation,
                        self.out,
                        tuple(off),
                        venue.programs,
                        venue.status,
                        plan,
                        venue.sandbox.isolation if venue.sandbox is not None else None,
                    )
                )
                try:
                    if venue.sandbox is not None:
                        self._preflight(venue.sandbox)
                    ledger = self._ledger
                    if ledger is None:
                        self.out.mkdir(parents=True, exist_ok=True)
                        ledger = self._ledger = Ledger.create(
                            self.out / LEDGER_FILE, self.cfg.config_hash(), self.cfg.fingerprint()
                        )
                    if plan.replay:
                        withdraw_results(self.out)
                    ledger.record_run(
                        self._run_record(plan, off, venue.cluster or None), plan.replay
                    )
                    write_schedule(self.out, self.cfg, self.schedule)
                    self._tidy(todo, recorded)
                    self._play(todo, venue, ledger, recorded, report)
                finally:
                    self.events.finished()
        else:
            if self._ledger is not None and plan.decided and not self.stop.is_set():
                # Nothing to play, but a changed program kept knowingly is still recorded.
                self._ledger.record_run(self._run_record(plan, (), None), plan.replay)
            self._tidy(todo, recorded)
        rows = standings(
            self.cfg.team_names, (lr.result for per in recorded.values() for lr in per.values())
        )
        report.standings = rows
        report.interrupted_by = self._signal if not report.complete else None
        if report.complete:
            write_standings(self.out, rows, self.audit(recorded))
        return report

    def program_hashes(self) -> dict[str, str]:
        """Each team's program fingerprint (judge.programs.tree_hash of its files)."""
        return {t.name: t.bot.digest for t in self.cfg.teams}

    def audit(self, recorded: dict[str, dict[int, LedgerRound]]) -> StandingsAudit:
        """What standings.json records so a result can be checked later: seed, dates, the
        judge's version, the configuration's hash, each team's program and which program
        played which of its rounds, and how isolated the bots were in every run of the
        tournament (from the ledger)."""
        ledger = self._ledger
        played_in = ledger.round_runs() if ledger is not None else {}
        rounds = {
            f"{s.match}/{s.index}": (self.pairing_of[s.match].teams, played_in.get(s.key))
            for s in rounds_in_play_order(self.schedule)
            if s.index in recorded[s.match]
        }
        return StandingsAudit.of_runs(
            ledger.runs() if ledger is not None else [],
            {t.name: TeamProgram(t.bot.source, t.bot.digest) for t in self.cfg.teams},
            rounds,
            ledger.round_runs_from() - 1 if ledger is not None else 0,
            seed=self.cfg.seed,
            date=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            started_at=ledger.created_at if ledger is not None else None,
            judge_version=__version__,
            config_hash=self.cfg.config_hash(),
        )

    @contextlib.contextmanager
    def _venue(self) -> Iterator[Venue]:
        """Where this run's rounds are played: this machine's sandbox, or ``venue_for``'s."""
        if self.venue_for is not None:
            with contextlib.ExitStack() as stack:
                try:
                    venue = stack.enter_context(self.venue_for(self.jobs))
                except JudgeError as exc:  # a cluster that cannot be used: nothing was played
                    raise TournamentError(str(exc), exc.exit_code) from None
                yield venue
            return
        try:
            sandbox_cm = self.sandbox_factory()
        except (OSError, RuntimeError) as exc:
            raise TournamentError(f"cannot set up the sandbox: {exc}", 3) from None
        with sandbox_cm as sandbox:
            yield Venue(
                self.executor_for(sandbox, self.jobs),
                sandbox.isolation.describe(),
                sandbox,
                lambda: f"{self.jobs} round(s) at a time",
                tuple(isolation.protections_off(sandbox.isolation)),
                _programs(sandbox),
            )

    def _tidy(self, todo: Sequence[RoundSlot], recorded: dict[str, dict[int, LedgerRound]]) -> None:
        """Clear half-written rounds of a killed run; rewrite result.json from the ledger."""
        for slot in todo:
            leftover = self.out / slot.match / f"round-{slot.index}"
            if leftover.exists():
                shutil.rmtree(leftover)
        for p in self.schedule:
            write_match_result(self.out, self.cfg, p, recorded[p.folder])

    def _preflight(self, sandbox: Any) -> None:
        """Check that every team's seat can run its program, before any round is played.

        The sandbox refuses a program its seat's uid cannot reach
        (:class:`~judge.sandbox.ProgramUnreachable`); found here, it stops the
        tournament with nothing played instead of in the middle of it.
        """
        for i, t in enumerate(self.cfg.teams):
            seat = sandbox.seat(t.name, t.bot.program_dir)
            try:
                check = getattr(seat, "check", None)
                if check is not None:
                    check(t.bot.argv_for(seat.program_dir))
            except ProgramUnreachable as exc:
                raise TournamentError(
                    f"teams[{i}].bot ({t.name}, {t.bot.source}): {exc}; make the program "
                    "reachable (a bot folder, a system interpreter), then run again"
                ) from None
            except SandboxError as exc:
                raise TournamentError(f"cannot check {t.name}'s program: {exc}", 3) from None
            finally:
                seat.close()

    def _task(self, slot: RoundSlot) -> RoundTask:
        """A round of the schedule as a scheduler task (plain data)."""
        pairing = self.pairing_of[slot.match]
        game_map, label = self.cfg.map_of(slot.map_owner)
        rcfg = RoundConfig(
            game_map=game_map,
            map_label=label,
            seed=round_seed(match_seed(self.cfg.seed, *pairing.teams), slot.index),
            limits=self.limits,
            turns=self.cfg.turns,
        )
        bots = [self.cfg.team(n).bot for n in slot.seats]
        return RoundTask(
            key=f"{slot.match}/{slot.index}",
            config=rcfg,
            bots=(bots[0], bots[1]),
            names=slot.seats,
            out_dir=self.out / slot.match / f"round-{slot.index}",
            replay_rel=f"round-{slot.index}/replay.jsonl",
            folders=(folder_name(slot.seats[0]), folder_name(slot.seats[1])),
        )

    def _record(
        self,
        slot: RoundSlot,
        rr: RoundResult,
        ledger: Ledger,
        recorded: dict[str, dict[int, LedgerRound]],
    ) -> LedgerRound:
        lr = LedgerRound(slot.match, slot.index, dataclasses.replace(rr, seats=slot.seats))
        ledger.record(lr)  # from here on the round counts
        recorded[slot.match][slot.index] = lr
        write_match_result(self.out, self.cfg, self.pairing_of[slot.match], recorded[slot.match])
        return lr

    def _play(
        self,
        todo: Sequence[RoundSlot],
        venue: Venue,
        ledger: Ledger,
        recorded: dict[str, dict[int, LedgerRound]],
        report: RunReport,
    ) -> None:
        slot_of = {f"{s.match}/{s.index}": s for s in todo}

        def done(d: RoundDone) -> None:
            slot = slot_of[d.task.key]
            if self._signal is not None or d.status is RoundStatus.STOPPED:
                # Stopped by a signal: a terminal's Ctrl-C also reaches the sandbox's
                # helpers, which kill their bot; a round that ended after that would
                # hold a void move that was not the bot's.  Resume replays it.
                return
            if slot.index in recorded[slot.match]:
                return  # a round reported twice is recorded once
            short = self._isolation_refusal(d)
            if short is not None:
                self._fail(report, f"round {slot.index} of {slot.match}: {short}", 2)
                return
            if d.result is None:
                why = d.error or d.status.value
                self._fail(report, f"round {slot.index} of {slot.match}: {why}", d.exit_code)
                return
            lr = self._record(slot, d.result, ledger, recorded)
            report.played += 1
            self.events.round_recorded(slot, lr.result)

        try:
            venue.executor.play((self._task(s) for s in todo), self.stop, done)
        except JudgeError as exc:  # the cluster was lost: the ledger keeps what finished
            self._fail(report, str(exc), exc.exit_code)

    def _isolation_refusal(self, d: RoundDone) -> str | None:
        """Why a round played elsewhere cannot count: its worker isolates less than required.

        On this machine the sandbox is checked before the first round; a
        cluster round carries its worker's isolation, checked here (the worker
        itself refuses to play, REFUSED, when it knows it is short).
        """
        if d.status is RoundStatus.REFUSED:
            return d.error or f"refused by worker {d.worker}"
        if d.worker is None or self.unsandboxed or d.isolation is None:
            return None
        if not isolation.protections_off(d.isolation):
            return None
        short = isolation.refusal(f"worker {d.worker}", d.isolation, None, "that worker")
        return f"played, but not counted: {short}"

    def _fail(self, report: RunReport, message: str, code: int) -> None:
        if report.failure is None:
            report.failure, report.failure_code = message, code
            self.events.failed(message)
        self.stop.set()


class _Quiet:
    """Events nobody shows (tests, library use)."""

    def starting(self, run: RunStart) -> None:
        pass

    def round_recorded(self, slot: RoundSlot, result: RoundResult) -> None:
        pass

    def failed(self, message: str) -> None:
        pass

    def finished(self) -> None:
        pass
