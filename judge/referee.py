"""The referee: one round between two programs, over the file protocol.

It glues the pure rules engine (:mod:`judge.rules`), the protocol text
(:mod:`judge.protocol`) and the sandbox (:mod:`judge.sandbox`), and records
everything: ``replay.jsonl`` (one JSON object per turn), each team's
``stderr.log`` and a ``log.txt`` for people.  The round's result comes back as
a value (:class:`RoundResult`); writing ``result.json`` is the match's job.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judge import atomic, voidwhy
from judge.bots import BotSpec
from judge.maps import GameMap
from judge.names import distinct_folders
from judge.protocol import parse_move_out, render_map_inp
from judge.rules import EndReason, Event, Game, Move, MoveStatus
from judge.sandbox import Limits, Sandbox, TurnRun, Verdict
from judge.voidwhy import Why

REPLAY_SCHEMA = 1
MAP_INP = "MAP.INP"
MOVE_OUT = "MOVE.OUT"
#: A judge failure (IE) is retried this many times before the round is abandoned.
IE_RETRIES = 1
#: A run the machine kept waiting for a CPU (IE, ``kept_waiting``) is retried this many
#: times, after pauses that double from BUSY_PAUSE_S: a burst of load elsewhere passes.
BUSY_RETRIES = 5
BUSY_PAUSE_S = 0.25


class RoundAborted(RuntimeError):
    """The judge itself could not run the round (never the bots' fault)."""


class RoundObserver(Protocol):
    """Live watchers (terminal board, progress) get each record as it is made."""

    def start(self, header: dict[str, Any]) -> None: ...

    def turn(self, record: dict[str, Any]) -> None: ...

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


@dataclass
class SeatStats:
    """Per-seat measurements of a round, for tables and warnings."""

    runs: int = 0
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
        self.runs += 1
        self.verdicts[r.verdict.value] = self.verdicts.get(r.verdict.value, 0) + 1
        self.wall_ms.append(round(r.wall_s * 1000, 1))
        self.cpu_ms.append(round(r.cpu_s * 1000, 1))
        self.peak_mem_mb = max(self.peak_mem_mb, r.peak_memory_bytes / 2**20)

    def failed(self) -> int:
        return self.runs - self.verdicts.get("OK", 0)

    def count_move(self, why: Why | None) -> None:
        """One more move asked for; ``why`` says why it was void (None: it was not)."""
        self.moves += 1
        if why is not None:
            self.why_void[why.value] = self.why_void.get(why.value, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        walls = sorted(self.wall_ms)
        return {
            "runs": self.runs,
            "verdicts": dict(sorted(self.verdicts.items())),
            "wall_ms_p50": walls[len(walls) // 2] if walls else None,
            "wall_ms_max": walls[-1] if walls else None,
            "peak_mem_mb": round(self.peak_mem_mb, 1),
            "void_moves": self.void_moves,
            "moves": self.moves,
            "why_void": dict(sorted(self.why_void.items())),
        }


@dataclass(frozen=True)
class RoundResult:
    """A finished round, as result.json reports it."""

    map_label: str
    turns: int
    turns_played: int
    end_reason: EndReason
    gold: tuple[int, int]
    sunk: tuple[bool, bool]
    shield: tuple[bool, bool]
    positions: tuple[tuple[int, int] | None, tuple[int, int] | None]
    treasure: dict[str, Any] | None
    winner: int | None
    points: tuple[int, int]
    replay: str
    stats: tuple[SeatStats, SeatStats]
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "map": self.map_label,
            "turns": self.turns,
            "turns_played": self.turns_played,
            "end_reason": self.end_reason.value,
            "gold": list(self.gold),
            "sunk": list(self.sunk),
            "shield": list(self.shield),
            "positions": [list(p) if p else None for p in self.positions],
            "treasure": self.treasure,
            "winner": self.winner,
            "points": list(self.points),
            "replay": self.replay,
            "seed": self.seed,
            "stats": [s.as_dict() for s in self.stats],
        }


def _pos(p: tuple[int, int] | None) -> list[int] | None:
    return list(p) if p is not None else None


def _grid_rows(game: Game, reef_symbol: str = "D") -> list[str]:
    from judge.maps import cell_token

    b = game.board
    return [
        " ".join(cell_token(v, reef_symbol) for v in game.grid[r * b.cols : (r + 1) * b.cols])
        for r in range(b.rows)
    ]


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
    ):
        self.cfg, self.bots, self.names = cfg, bots, list(names)
        #: the teams' folder forms (judge.names): their stderr.log folders and seat names
        self.folders = list(folders) if folders else distinct_folders(self.names)
        self.sandbox, self.out_dir, self.observer = sandbox, out_dir, observer
        self.replay_rel = replay_rel
        self.game = Game(cfg.game_map, cfg.k)
        self.rng = random.Random(f"ocean-placement:{cfg.seed}")
        self.stats = (SeatStats(), SeatStats())
        self.stderr: tuple[list[str], list[str]] = ([], [])
        self.log_turns: list[str] = []
        self.replay_path = out_dir / "replay.jsonl"
        self.part_path = out_dir / "replay.jsonl.part"
        self.replay_file: Any = None

    # ------------------------------------------------------------ recording
    def header(self) -> dict[str, Any]:
        gm = self.cfg.game_map
        lim = self.cfg.limits
        return {
            "type": "header",
            "schema": REPLAY_SCHEMA,
            "map": {
                "path": self.cfg.map_label,
                "rows": gm.rows,
                "cols": gm.cols,
                "turns": gm.turns,
                "grid": _grid_rows(self.game),
            },
            "turns": self.cfg.k,
            "seed": self.cfg.seed,
            "teams": self.names,
            "bots": [b.source for b in self.bots],
            "limits": {
                "time_s": lim.time_s,
                "memory_mb": lim.memory_bytes / 2**20,
                "file_mb": lim.file_bytes / 2**20,
                "time_limit_lifted": lim.time_s is None,
            },
            "isolation": self.sandbox.isolation.as_dict(),
        }

    def write_line(self, obj: dict[str, Any]) -> None:
        self.replay_file.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.replay_file.flush()

    def snapshot(self) -> dict[str, Any]:
        g = self.game
        return {
            "positions": [_pos(g.position(0)), _pos(g.position(1))],
            "gold": list(g.gold),
            "shield": list(g.shield),
            "sunk": list(g.sunk),
            "grid": _grid_rows(g),
            "treasure": g.treasure,
            "ended": g.ended,
            "end_reason": g.reason.value if g.reason else None,
        }

    # -------------------------------------------------------------- running
    def run_seats(
        self, seats: Sequence[Any], argvs: Sequence[list[str]], active: Sequence[bool], turn: int
    ) -> list[TurnRun | None]:
        """Run the active seats (both at once unless sequential) on the current state."""
        inputs = [
            {MAP_INP: render_map_inp(self.game, s, self.cfg.reef_symbol).encode()} for s in (0, 1)
        ]

        def one(s: int) -> TurnRun | None:
            if not active[s]:
                return None
            failures, busy, pause = 0, 0, BUSY_PAUSE_S
            while True:
                run = seats[s].run_turn(argvs[s], inputs[s], [MOVE_OUT], self.cfg.limits)
                r = run.result
                if r.verdict is not Verdict.IE:
                    return run
                if r.kept_waiting and busy < BUSY_RETRIES:
                    busy += 1
                    time.sleep(pause)
                    pause *= 2
                elif not r.kept_waiting and failures < IE_RETRIES:
                    failures += 1
                else:
                    raise RoundAborted(
                        f"the judge could not run {self.names[s]} at turn {turn}: {r.message}"
                    )
                # Only the run that counts is recorded; the judge's failures go to the log.
                self.stderr[s].append(f"--- turn {turn}: IE ({r.message}); run again ---")

        if self.cfg.sequential or not all(active):
            runs = [one(0), one(1)]
        else:
            with ThreadPoolExecutor(max_workers=2) as pool:
                futures = [pool.submit(one, s) for s in (0, 1)]
                runs = [f.result() for f in futures]
        for s, run in enumerate(runs):
            if run is not None:
                self.stats[s].add(run)
                err = run.result.stderr_tail.decode("utf-8", "replace")
                if err or run.result.verdict is not Verdict.OK:
                    self.stderr[s].append(
                        f"--- turn {turn}: {run.result.verdict.value} "
                        f"({run.result.message}) ---\n{err}"
                    )
        return runs

    def read_moves(self, runs: Sequence[TurnRun | None]) -> dict[str, list[Any]]:
        """R10: a move counts only from a run that ended OK with two integers."""
        out: dict[str, list[Any]] = {
            "targets": [None, None],
            "status": [None, None],
            "raw": [None, None],
            "verdicts": [None, None],
            "wall_ms": [None, None],
            "cpu_ms": [None, None],
            "wait_ms": [None, None],
            "mem_mb": [None, None],
            "discarded": [[], []],
            "messages": [None, None],
            "why": [None, None],
        }
        for s, run in enumerate(runs):
            if run is None:
                out["status"][s] = MoveStatus.SUNK
                continue
            r = run.result
            out["verdicts"][s] = r.verdict.value
            out["wall_ms"][s] = round(r.wall_s * 1000, 1)
            out["cpu_ms"][s] = round(r.cpu_s * 1000, 1)
            if r.wait_s is not None:  # kept waiting for a CPU by something else (issue 16)
                out["wait_ms"][s] = round(r.wait_s * 1000, 1)
            out["mem_mb"][s] = round(r.peak_memory_bytes / 2**20, 1)
            out["discarded"][s] = list(run.discarded)
            if r.verdict is not Verdict.OK:
                out["messages"][s] = r.message
            parsed = parse_move_out(run.outputs.get(MOVE_OUT))
            out["raw"][s] = parsed.raw
            out["why"][s] = voidwhy.for_run(
                r.verdict.value,
                parsed.status,
                r.stdout_tail,
                r.stderr_tail + b"\n" + r.message.encode("utf-8", "replace"),
            )
            if r.verdict is not Verdict.OK:
                out["status"][s] = MoveStatus.RUN_FAILED
            elif parsed.status is not None:
                out["status"][s] = parsed.status
            else:
                out["targets"][s] = parsed.target
        return out

    def record_common(
        self,
        turn: int,
        k_left: int,
        mv: dict[str, list[Any]],
        statuses: Sequence[MoveStatus | None],
        events: list[Event],
        whys: Sequence[Why | None] = (None, None),
    ) -> dict[str, Any]:
        return {
            "turn": turn,
            "turns_left": k_left,
            "moves": [_pos(t) for t in mv["targets"]],
            "raw": mv["raw"],
            "verdicts": mv["verdicts"],
            "move_status": [s.value if s else None for s in statuses],
            "wall_ms": mv["wall_ms"],
            "cpu_ms": mv["cpu_ms"],
            "wait_ms": mv["wait_ms"],
            "mem_mb": mv["mem_mb"],
            "discarded": mv["discarded"],
            "messages": mv["messages"],
            "why": [w.value if w is not None else None for w in whys],
            "events": [e.as_dict() for e in events],
        }

    def log_block(self, rec: dict[str, Any], events: list[Event]) -> None:
        """The turn in words for log.txt: the same words as the summary and the board."""
        lines = [f"turn {rec['turn']} (K left {rec['turns_left']})"]
        for s in (0, 1):
            status = rec["move_status"][s]
            if status == MoveStatus.SUNK.value:
                lines.append(f"  {self.names[s]}: sunk, not run")
                continue
            asked = rec["moves"][s]
            what = f"asked {tuple(asked)}, " if asked else ""
            extra = f" [{rec['messages'][s]}]" if rec["messages"][s] else ""
            lines.append(
                f"  {self.names[s]}: {what}{voidwhy.status_words(rec, s)}; "
                f"run {rec['verdicts'][s]} in {rec['wall_ms'][s]} ms{extra}"
            )
            for d in rec["discarded"][s]:
                lines.append(f"  {self.names[s]}: {d}")
        for e in events:
            lines.append("  * " + e.describe(self.names))
        self.log_turns.append("\n".join(lines))

    def emit(self, rec: dict[str, Any], events: list[Event]) -> None:
        rec.update(self.snapshot())
        self.write_line(rec)
        self.log_block(rec, events)
        if self.observer is not None:
            self.observer.turn(rec)

    # ----------------------------------------------------------------- turns
    def placement(self, seats: Sequence[Any], argvs: Sequence[list[str]]) -> None:
        attempts: list[dict[str, Any]] = []
        reasks = 0
        k_left = self.game.turns_left
        while True:
            runs = self.run_seats(seats, argvs, (True, True), 1)
            mv = self.read_moves(runs)
            asked: tuple[Move, Move] = (mv["targets"][0], mv["targets"][1])
            decision = self.game.decide_placement(asked, reasks, self.rng)
            statuses = [
                mv["status"][s] if mv["status"][s] is not None else decision.statuses[s]
                for s in (0, 1)
            ]
            whys = [self.why(s, mv, statuses[s], placement=True) for s in (0, 1)]
            attempt = self.record_common(1, k_left, mv, statuses, list(decision.events), whys)
            attempt["reask"] = decision.reask
            attempts.append(attempt)
            if decision.reask:
                reasks += 1
                continue
            assert decision.positions is not None
            for s in (0, 1):
                self.stats[s].count_move(whys[s])
            events = list(decision.events) + self.game.place(decision.positions)
            rec = dict(attempt)
            rec["events"] = [e.as_dict() for e in events]
            rec["attempts"] = attempts
            rec["random_placed"] = list(decision.random_placed)
            self.emit(rec, events)
            return

    def moving_turn(self, seats: Sequence[Any], argvs: Sequence[list[str]]) -> None:
        g = self.game
        turn, k_left = g.turn + 1, g.turns_left
        active = (not g.sunk[0], not g.sunk[1])
        runs = self.run_seats(seats, argvs, active, turn)
        mv = self.read_moves(runs)
        targets: tuple[Move, Move] = (mv["targets"][0], mv["targets"][1])
        statuses: list[MoveStatus | None] = []
        whys: list[Why | None] = []
        for s in (0, 1):
            st: MoveStatus = mv["status"][s] or g.classify(s, targets[s])
            statuses.append(st)
            whys.append(self.why(s, mv, st, placement=False))
            if st is not MoveStatus.SUNK:
                self.stats[s].count_move(whys[s])
                if st.void:
                    self.stats[s].void_moves += 1
        events = g.step(targets)
        self.emit(self.record_common(turn, k_left, mv, statuses, events, whys), events)

    def why(
        self, s: int, mv: dict[str, list[Any]], status: MoveStatus | None, placement: bool
    ) -> Why | None:
        """Why seat ``s``'s move is void (None when it is not): the run's reason, else the cell's."""
        if status is None or not status.void or status is MoveStatus.SUNK:
            return None
        found: Why | None = mv["why"][s]
        if found is not None:
            return found
        target = mv["targets"][s]
        if target is None:
            return voidwhy.for_run("OK", status)
        return voidwhy.for_cell(self.game, s, target, status, placement)

    def result(self) -> RoundResult:
        g = self.game
        outcome = g.outcome()
        assert outcome is not None and g.reason is not None
        treasure = None
        if g.treasure is not None:
            treasure = {"value": g.treasure, "collected_by": g.treasure_by}
        return RoundResult(
            map_label=self.cfg.map_label,
            turns=g.turns,
            turns_played=g.turn,
            end_reason=g.reason,
            gold=(g.gold[0], g.gold[1]),
            sunk=(g.sunk[0], g.sunk[1]),
            shield=(g.shield[0], g.shield[1]),
            positions=(g.position(0), g.position(1)),
            treasure=treasure,
            winner=outcome.winner,
            points=outcome.points,
            replay=self.replay_rel,
            stats=self.stats,
            seed=self.cfg.seed,
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
            reason = {
                EndReason.TURNS: "all turns were played",
                EndReason.BOTH_SUNK: "both boats sank",
                EndReason.GOLD_GAP: "the gold gap at half time was over 20",
            }[result.end_reason]
            head.append(
                f"{result.turns_played} of {result.turns} turns played; ended because {reason}"
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
) -> RoundResult:
    """Play one round and write its replay and logs into ``out_dir``.

    ``names`` are shown as written (replay, log.txt); ``folders`` are their
    folder forms (default :func:`judge.names.distinct_folders` of the names).

    The replay grows in ``replay.jsonl.part`` (so a crash leaves the turns so
    far) and is renamed to ``replay.jsonl`` when the round is over.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    rnd = _Round(cfg, bots, names, sandbox, out_dir, replay_rel, observer, folders)
    result: RoundResult | None = None
    error: str | None = None
    seats: list[Any] = []
    try:
        for s in (0, 1):
            seats.append(sandbox.seat(rnd.folders[s], bots[s].program_dir))
        argvs = [bots[s].argv_for(seats[s].program_dir) for s in (0, 1)]
        with open(rnd.part_path, "w", encoding="utf-8") as f:
            rnd.replay_file = f
            header = rnd.header()
            rnd.write_line(header)
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
        for seat in seats:
            seat.close()
        rnd.write_logs(result, error)
