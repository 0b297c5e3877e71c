"""The referee: one round between two programs, over the file protocol.

It glues the pure rules engine (:mod:`judge.rules`), the protocol text
(:mod:`judge.protocol`) and the sandbox (:mod:`judge.sandbox`), and records
everything: ``replay.jsonl`` (one JSON object per turn), each team's
``stderr.log`` and a ``log.txt`` for people.  The round's result comes back as
a value (:class:`RoundResult`); writing ``result.json`` is the match's job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from judge import atomic, voidwhy
from judge.bots import BotSpec
from judge.errors import JudgeError
from judge.maps import GameMap, cell_token
from judge.names import distinct_folders
from judge.protocol import (
    MAP_INP,
    MOVE_OUT,
    STATE_MAX_BYTES,
    STATE_OUT,
    parse_move_out,
    render_map_inp,
)
from judge.records import (
    REPLAY_SCHEMA,
    Attempt,
    Boat,
    Json,
    MapInfo,
    ReplayHeader,
    RoundResult,
    RunLimits,
    SeatRun,
    SeatStats,
    Treasure,
    TurnRecord,
)
from judge.rules import EndReason, Event, Game, Move, MoveStatus

# The sandbox's retry policy and run_retrying are named here too: callers of the
# referee (the web's play page, check-bot) run single turns through it.
from judge.sandbox import (
    BUSY_PAUSE_S,
    BUSY_RETRIES,
    IE_RETRIES,
    Limits,
    PairRun,
    RunResult,
    Sandbox,
    Seat,
    SeatPair,
    TurnRun,
    Verdict,
    run_retrying,
)

__all__ = [
    "BUSY_PAUSE_S",
    "BUSY_RETRIES",
    "IE_RETRIES",
    "REPLAY_SCHEMA",
    "RoundAborted",
    "RoundConfig",
    "RoundObserver",
    "RoundResult",
    "RoundStopped",
    "kept_state_name",
    "play_round",
    "read_run",
    "run_retrying",
]

#: At most this much of one seat's STATE.OUT is kept in a round's folder for its void
#: moves (``judge check-bot --from``); identical ones are kept once.
STATES_KEPT_BYTES = 8 * STATE_MAX_BYTES
#: Where a team's kept STATE.OUT files go, in its folder of the round.
STATES_FOLDER = "states"


class RoundAborted(JudgeError, RuntimeError):
    """The judge itself could not run the round (never the bots' fault)."""

    exit_code = 3


class RoundStopped(JudgeError):
    """The round was asked to stop (its stop event was set) before it ended: nothing to record."""

    exit_code = 130


class RoundObserver(Protocol):
    """Live watchers (terminal board, progress) get each record as it is made."""

    def start(self, header: ReplayHeader) -> None: ...

    def turn(self, record: TurnRecord) -> None: ...

    def end(self, result: RoundResult) -> None: ...


@dataclass(frozen=True)
class RoundConfig:
    """Everything that decides a round besides the two programs."""

    game_map: GameMap
    map_label: str
    seed: int
    limits: Limits = field(default_factory=Limits)
    turns: int | None = None  # overrides the map's K
    sequential: bool = False
    reef_symbol: str = "D"

    @property
    def k(self) -> int:
        return self.turns if self.turns is not None else self.game_map.turns


def read_run(run: TurnRun | None) -> SeatRun:
    """R10: what a run asked for; a move counts only from a run that ended OK with two integers.

    ``status`` is set when the run gave no usable target (a failed run, no or
    unreadable MOVE.OUT, not two integers); otherwise it is left for the rules
    to decide (moved, stayed, outside, ...).  ``None`` = the seat was not run.
    """
    if run is None:
        return SeatRun(status=MoveStatus.SUNK)
    r = run.result
    parsed = parse_move_out(run.outputs.get(MOVE_OUT))
    ok = r.verdict is Verdict.OK
    if not ok:
        status: MoveStatus | None = MoveStatus.RUN_FAILED
    else:
        status = parsed.status
    why = voidwhy.for_run(
        r.verdict.value,
        parsed.status,
        r.stdout_tail,
        r.stderr_tail + b"\n" + r.message.encode("utf-8", "replace"),
        run.outputs.get(MOVE_OUT),
    )
    return SeatRun(
        move=parsed.target if ok and parsed.status is None else None,
        raw=parsed.raw,
        verdict=r.verdict.value,
        status=status,
        wall_ms=round(r.wall_s * 1000, 1),
        cpu_ms=round(r.cpu_s * 1000, 1),
        wait_ms=round(r.wait_s * 1000, 1) if r.wait_s is not None else None,
        mem_mb=round(r.peak_memory_bytes / 2**20, 1),
        discarded=tuple(run.discarded),
        message=r.message if not ok else None,
        why=why.value if why is not None else None,
    )


def _state_read_unsaid(run: TurnRun) -> TurnRun:
    """The run without the notes of the referee's own read of STATE.OUT (a link, a file
    over the cap): the seat's clean says what became of the file, in its own note."""
    notes = tuple(
        d for d in run.discarded if not (d.startswith(f"{STATE_OUT} ") and "not read" in d)
    )
    return run if notes == run.discarded else dataclasses.replace(run, discarded=notes)


def kept_state_name(data: bytes) -> str:
    """The file name of a kept STATE.OUT in its folder: its digest, so that identical ones
    are kept once and a reader can tell a copy that is not what was kept."""
    return hashlib.sha256(data).hexdigest()[:16]


def _kept_state(run: TurnRun) -> bytes | None:
    """STATE.OUT as the seat keeps it for its next run: None when absent, over its cap,
    or refused by the seat (its note names the file: a link, hard links)."""
    data = run.outputs.get(STATE_OUT)
    if data is None or len(data) > STATE_MAX_BYTES:
        return None
    if any(d.startswith(f"{STATE_OUT} ") for d in run.discarded):
        return None
    return data


@dataclass
class _Tally:
    """One seat's measurements while the round is played (a :class:`SeatStats` at the end)."""

    verdicts: dict[str, int] = field(default_factory=dict)
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    peak_mem_mb: float = 0.0
    void_moves: int = 0
    #: turns the program was asked for a move (placement included, re-asks not)
    moves: int = 0
    #: why its void moves were void (judge.voidwhy.Why values), placement included
    why_void: dict[str, int] = field(default_factory=dict)

    def add(self, run: TurnRun) -> None:
        r = run.result
        self.verdicts[r.verdict.value] = self.verdicts.get(r.verdict.value, 0) + 1
        self.wall_ms.append(round(r.wall_s * 1000, 1))
        self.cpu_ms.append(round(r.cpu_s * 1000, 1))
        self.peak_mem_mb = max(self.peak_mem_mb, r.peak_memory_bytes / 2**20)

    def count_move(self, run: SeatRun) -> None:
        """One more move asked for; its ``why`` says why it was void (None: it was not)."""
        self.moves += 1
        if run.why is not None:
            self.why_void[run.why] = self.why_void.get(run.why, 0) + 1

    def stats(self) -> SeatStats:
        return SeatStats.measured(
            self.verdicts,
            self.wall_ms,
            self.cpu_ms,
            self.peak_mem_mb,
            self.void_moves,
            self.moves,
            self.why_void,
        )


def _grid_rows(game: Game) -> tuple[str, ...]:
    b = game.board
    return tuple(
        " ".join(cell_token(v) for v in game.grid[r * b.cols : (r + 1) * b.cols])
        for r in range(b.rows)
    )


_END_WORDS = {
    EndReason.TURNS: "all turns were played",
    EndReason.BOTH_SUNK: "both boats sank",
    EndReason.GOLD_GAP: "the gold gap at half time was over 20",
}


class _Round:
    """The mutable bookkeeping of one round in progress (kept out of the rules' state)."""

    def __init__(
        self,
        cfg: RoundConfig,
        bots: Sequence[BotSpec],
        names: Sequence[str],
        sandbox: Sandbox,
        out_dir: Path,
        replay_rel: str,
        observer: RoundObserver | None,
        folders: Sequence[str] | None = None,
        stop: threading.Event | None = None,
        worker: str | None = None,
    ):
        self.cfg, self.bots, self.names = cfg, bots, list(names)
        self.stop = stop
        self.worker = worker
        #: the teams' folder forms (judge.names): their stderr.log folders and seat names
        self.folders = list(folders) if folders else distinct_folders(self.names)
        self.sandbox, self.out_dir, self.observer = sandbox, out_dir, observer
        self.replay_rel = replay_rel
        self.game = Game(cfg.game_map, cfg.k)
        self.rng = random.Random(f"ocean-placement:{cfg.seed}")
        self.tallies = (_Tally(), _Tally())
        self.stderr: tuple[list[str], list[str]] = ([], [])
        self.log_turns: list[str] = []
        self.replay_path = out_dir / "replay.jsonl"
        self.part_path = out_dir / "replay.jsonl.part"
        self.replay_file: TextIO | None = None
        #: each seat's STATE.OUT as its next run gets it (None: absent), and as the runs
        #: of this turn got it, for :meth:`keep_state`
        self.states: list[bytes | None] = [None, None]
        self.started_with: list[bytes | None] = [None, None]
        #: the STATE.OUT files kept in the round's folder, by digest, and their bytes
        self.kept: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self.kept_bytes = [0, 0]
        #: the round's two seats' runs, at once (closed by play_round)
        self.pair = SeatPair()

    # ------------------------------------------------------------ recording
    def header(self) -> ReplayHeader:
        gm = self.cfg.game_map
        lim = self.cfg.limits
        return ReplayHeader(
            map=MapInfo(self.cfg.map_label, gm.rows, gm.cols, gm.turns, _grid_rows(self.game)),
            turns=self.cfg.k,
            seed=self.cfg.seed,
            teams=(self.names[0], self.names[1]),
            bots=tuple(b.source for b in self.bots),
            limits=RunLimits(lim.time_s, lim.memory_bytes / 2**20, lim.file_bytes / 2**20),
            isolation=self.sandbox.isolation.as_dict(),
            worker=self.worker,
            people=tuple(s for s in (0, 1) if self.bots[s].person),
        )

    def write_line(self, obj: Json) -> None:
        assert self.replay_file is not None
        self.replay_file.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.replay_file.flush()

    def boats(self) -> tuple[Boat, Boat]:
        g = self.game
        b0, b1 = (Boat(g.position(s), g.gold[s], g.shield[s], g.sunk[s]) for s in (0, 1))
        return (b0, b1)

    def record(
        self,
        runs: Sequence[SeatRun],
        events: Sequence[Event],
        turn: int,
        k_left: int,
        **placement: Any,
    ) -> TurnRecord:
        g = self.game
        return TurnRecord(
            turn=turn,
            turns_left=k_left,
            runs=(runs[0], runs[1]),
            events=tuple(events),
            boats=self.boats(),
            grid=_grid_rows(g),
            treasure=g.treasure,
            ended=g.ended,
            end_reason=g.reason,
            **placement,
        )

    # -------------------------------------------------------------- running
    def check_stop(self, turn: int) -> None:
        """Before each turn: a round whose stop event is set goes no further."""
        if self.stop is not None and self.stop.is_set():
            raise RoundStopped(f"stopped before turn {turn}")

    def run_seats(
        self, seats: Sequence[Seat], argvs: Sequence[list[str]], active: Sequence[bool], turn: int
    ) -> list[SeatRun]:
        """Run the active seats (both at once unless sequential) on the current state."""
        asked = [
            PairRun(
                seats[s],
                argvs[s],
                {MAP_INP: render_map_inp(self.game, s, self.cfg.reef_symbol).encode()},
                [MOVE_OUT, STATE_OUT],
                self.cfg.limits,
            )
            if active[s]
            else None
            for s in (0, 1)
        ]

        def noted(s: int, r: RunResult) -> None:
            # Only the run that counts is recorded; the runs thrown away go to the log.
            self.stderr[s].append(
                f"--- turn {turn}: {r.verdict.value} ({r.message}); run again ---"
            )

        def counted(s: int, run: TurnRun) -> None:
            if run.result.verdict is Verdict.IE:
                raise RoundAborted(
                    f"the judge could not run {self.names[s]} at turn {turn}: {run.result.message}"
                )

        self.started_with = list(self.states)
        runs = self.pair.run(asked, not self.cfg.sequential, on_retry=noted, on_done=counted)
        runs = [None if run is None else _state_read_unsaid(run) for run in runs]
        for s, run in enumerate(runs):
            if run is not None:
                self.states[s] = _kept_state(run)
                self.tallies[s].add(run)
                # The bot's own paths, not the sandbox's, as its author knows them.
                own = self.bots[s].own_paths
                err = own(run.result.stderr_tail.decode("utf-8", "replace"), seats[s].program_dir)
                if err or run.result.verdict is not Verdict.OK:
                    self.stderr[s].append(
                        f"--- turn {turn}: {run.result.verdict.value} "
                        f"({own(run.result.message, seats[s].program_dir)}) ---\n{err}"
                    )
        return [read_run(run) for run in runs]

    def log_block(self, rec: TurnRecord) -> None:
        """The turn in words for log.txt: the same words as the summary and the board."""
        assert rec.runs is not None
        lines = [f"turn {rec.turn} (K left {rec.turns_left})"]
        for s, run in enumerate(rec.runs):
            name = self.names[s]
            if run.status is MoveStatus.SUNK:
                lines.append(f"  {name}: sunk, not run")
                continue
            what = f"asked {run.move}, " if run.move else ""
            extra = f" [{run.message}]" if run.message else ""
            said = voidwhy.status_words(run, voidwhy.Where.of_record(rec, s), self.bots[s].person)
            lines.append(f"  {name}: {what}{said}; run {run.verdict} in {run.wall_ms} ms{extra}")
            for d in run.discarded:
                lines.append(f"  {name}: {d}")
        for e in rec.events:
            lines.append("  * " + e.describe(self.names))
        self.log_turns.append("\n".join(lines))

    def emit(self, rec: TurnRecord) -> None:
        self.write_line(rec.to_json())
        self.log_block(rec)
        if self.observer is not None:
            self.observer.turn(rec)

    # ----------------------------------------------------------------- turns
    def placement(self, seats: Sequence[Seat], argvs: Sequence[list[str]]) -> None:
        attempts: list[Attempt] = []
        reasks = 0
        k_left = self.game.turns_left
        while True:
            self.check_stop(1)
            runs = self.run_seats(seats, argvs, (True, True), 1)
            asked: tuple[Move, Move] = (runs[0].move, runs[1].move)
            decision = self.game.decide_placement(asked, reasks, self.rng)
            runs = [
                self.with_why(
                    s,
                    r
                    if r.status is not None
                    else dataclasses.replace(r, status=decision.statuses[s]),
                    placement=True,
                )
                for s, r in enumerate(runs)
            ]
            attempts.append(Attempt(1, k_left, (runs[0], runs[1]), decision.events, decision.reask))
            if decision.reask:
                reasks += 1
                continue
            assert decision.positions is not None
            for s in (0, 1):
                self.tallies[s].count_move(runs[s])
            events = list(decision.events) + self.game.place(decision.positions)
            self.emit(
                self.record(
                    runs,
                    events,
                    1,
                    k_left,
                    attempts=tuple(attempts),
                    random_placed=decision.random_placed,
                )
            )
            return

    def moving_turn(self, seats: Sequence[Seat], argvs: Sequence[list[str]]) -> None:
        g = self.game
        turn, k_left = g.turn + 1, g.turns_left
        self.check_stop(turn)
        active = (not g.sunk[0], not g.sunk[1])
        runs = self.run_seats(seats, argvs, active, turn)
        for s, r in enumerate(runs):
            if r.status is None:
                r = dataclasses.replace(r, status=g.classify(s, r.move))
            runs[s] = r = self.with_why(s, r, placement=False)
            if r.status is not MoveStatus.SUNK:
                self.tallies[s].count_move(r)
                if r.status is not None and r.status.void:
                    self.tallies[s].void_moves += 1
        events = g.step((runs[0].move, runs[1].move))
        self.emit(self.record(runs, events, turn, k_left))

    def with_why(self, s: int, run: SeatRun, placement: bool) -> SeatRun:
        """Seat ``s``'s run with why its move is void (None when it is not): the run's, else
        the cell's; a void move's run also with the STATE.OUT it started with."""
        status = run.status
        if status is None or not status.void or status is MoveStatus.SUNK:
            return dataclasses.replace(run, why=None) if run.why is not None else run
        if run.why is None:
            if run.move is None:
                why = voidwhy.for_run("OK", status)
            else:
                guess = not self.bots[s].person
                why = voidwhy.for_cell(self.game, s, run.move, status, placement, guess)
            run = dataclasses.replace(run, why=why.value if why is not None else None)
        if run.why is None or not run.ran or self.bots[s].person:
            return run
        return dataclasses.replace(run, state_in=self.keep_state(s))

    def keep_state(self, s: int) -> str | None:
        """The STATE.OUT seat ``s``'s last run started with, kept in the round's folder:
        its path there, "" when there was none, None when the seat's share is used up."""
        data = self.started_with[s]
        if data is None:
            return ""
        digest = kept_state_name(data)
        kept = self.kept[s]
        if digest in kept:
            return kept[digest]
        if self.kept_bytes[s] + len(data) > STATES_KEPT_BYTES:
            return None
        rel = f"{self.folders[s]}/{STATES_FOLDER}/{digest}"
        # Not forced to disk: it is written inside the turn, and a copy lost to a power
        # cut is only one check-bot --from says it cannot read.
        atomic.write_bytes(self.out_dir / rel, data, durable=False)
        kept[digest] = rel
        self.kept_bytes[s] += len(data)
        return rel

    def result(self) -> RoundResult:
        g = self.game
        outcome = g.outcome()
        assert outcome is not None
        treasure = None
        if g.treasure is not None:
            treasure = Treasure(g.treasure, g.treasure_by)
        return RoundResult(
            map_label=self.cfg.map_label,
            turns=g.turns,
            turns_played=g.turn,
            outcome=outcome,
            gold=(g.gold[0], g.gold[1]),
            sunk=(g.sunk[0], g.sunk[1]),
            shield=(g.shield[0], g.shield[1]),
            positions=(g.position(0), g.position(1)),
            treasure=treasure,
            replay=self.replay_rel,
            seed=self.cfg.seed,
            stats=(self.tallies[0].stats(), self.tallies[1].stats()),
        )

    def write_logs(self, result: RoundResult | None, error: str | None) -> None:
        for s in (0, 1):
            atomic.write_text(
                self.out_dir / self.folders[s] / "stderr.log",
                "\n".join(self.stderr[s]) + ("\n" if self.stderr[s] else ""),
            )
        head = []
        if result is not None:
            if result.winner is None:
                verdict = "draw"
            else:
                verdict = f"{self.names[result.winner]} wins"
            head.append(
                f"{verdict}: {self.names[0]} {result.gold[0]} gold, "
                f"{self.names[1]} {result.gold[1]} gold; points {result.points[0]}-"
                f"{result.points[1]}"
            )
            head.append(
                f"{result.turns_played} of {result.turns} turns played; ended because "
                f"{_END_WORDS[result.end_reason]}"
            )
        if error:
            head.append(f"ROUND ABANDONED: {error}")
        head.append(
            f"map {self.cfg.map_label}, seed {self.cfg.seed}, seat 0 = {self.names[0]}, "
            f"seat 1 = {self.names[1]}"
        )
        atomic.write_text(
            self.out_dir / "log.txt", "\n".join(head) + "\n\n" + "\n\n".join(self.log_turns) + "\n"
        )


def play_round(
    cfg: RoundConfig,
    bots: Sequence[BotSpec],
    names: Sequence[str],
    sandbox: Sandbox,
    out_dir: Path,
    replay_rel: str = "replay.jsonl",
    observer: RoundObserver | None = None,
    folders: Sequence[str] | None = None,
    stop: threading.Event | None = None,
    worker: str | None = None,
) -> RoundResult:
    """Play one round and write its replay and logs into ``out_dir``.

    ``stop`` is looked at before each turn (and before anything is written):
    once it is set the round raises :class:`RoundStopped`, its seats are closed
    (the sandbox kills what is left) and its folder is left as it is.

    ``names`` are shown as written (replay, log.txt); ``folders`` are their
    folder forms (default :func:`judge.names.distinct_folders` of the names).
    ``worker`` names the cluster worker playing the round (recorded in the
    replay's header beside the sandbox's isolation); None on the judge's machine.

    The replay grows in ``replay.jsonl.part`` (so a crash leaves the turns so
    far) and is renamed to ``replay.jsonl`` when the round is over.
    """
    if stop is not None and stop.is_set():
        raise RoundStopped("stopped before the round started")
    out_dir.mkdir(parents=True, exist_ok=True)
    rnd = _Round(cfg, bots, names, sandbox, out_dir, replay_rel, observer, folders, stop, worker)
    result: RoundResult | None = None
    error: str | None = None
    seats: list[Seat] = []
    try:
        for s in (0, 1):
            seats.append(
                sandbox.seat(
                    rnd.folders[s], bots[s].program_dir, keep=STATE_OUT, keep_bytes=STATE_MAX_BYTES
                )
            )
        argvs = [bots[s].argv_for(seats[s].program_dir) for s in (0, 1)]
        with open(rnd.part_path, "w", encoding="utf-8") as f:
            atomic.hold_while_writing(f.fileno())  # a page tells a round in play from one left
            rnd.replay_file = f
            header = rnd.header()
            rnd.write_line(header.to_json())
            if observer is not None:
                observer.start(header)
            rnd.placement(seats, argvs)
            while not rnd.game.ended:
                rnd.moving_turn(seats, argvs)
            f.flush()
            os.fsync(f.fileno())
        os.replace(rnd.part_path, rnd.replay_path)
        result = rnd.result()
        if observer is not None:
            observer.end(result)
        return result
    except RoundAborted as exc:
        error = str(exc)
        raise
    finally:
        rnd.pair.close()
        for seat in seats:
            seat.close()
        rnd.write_logs(result, error)
