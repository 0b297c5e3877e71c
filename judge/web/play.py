"""A person in one seat against a bot, under the same referee, rules and limits for the bot.

The referee runs seats; a person's seat is a :class:`HumanSeat`, which the
referee uses like any other: ``run_turn`` gets the turn's MAP.INP, hands it to
whoever asks the person (the browser, the terminal) and waits for their move,
which it returns as the seat's MOVE.OUT.  The bot's seat is a real seat of the
sandbox, so the bot meets exactly what it meets in a match.  The round is
recorded like any other: ``result.json``, ``replay.jsonl``, the person's seat
named as such, so ``judge replay`` shows it.

:class:`PlaySession` plays the round in a thread and keeps what happened as a
list of plain-JSON events (the header, every turn as the replay page shows it,
whose move is awaited, the result), which the web page follows as a stream.
:func:`ask_bot` is the position editor's question: one run of the bot on a
given MAP.INP, as ``judge check-bot`` runs it.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import voidwhy
from judge.bots import BotSpec
from judge.checkbot.diagnose import diagnose
from judge.checkbot.replayed import game_before
from judge.checkbot.situations import Situation
from judge.checkbot.trials import OUTPUTS, facts_from
from judge.maps import GameMap
from judge.match import RoundPlan, play_match
from judge.protocol import (
    MAP_INP,
    MOVE_OUT,
    STATE_MAX_BYTES,
    STATE_OUT,
    read_map_inp,
    render_map_inp,
)
from judge.records import Json, ReplayHeader, RoundResult, SeatRun, TurnRecord
from judge.referee import RoundStopped, read_run, run_retrying
from judge.rules import EventKind, Game, MoveStatus, SinkCause
from judge.sandbox import Limits, RunResult, Sandbox, TurnRun, Verdict
from judge.views.html import _frame

HUMAN = BotSpec("human", "a person", None, ("human",), person=True)


class HumanSeat:
    """A seat whose moves a person makes (see the module doc)."""

    program_dir: Path | None = None

    def __init__(self, name: str, session: PlaySession) -> None:
        self.name = name
        self.session = session

    def run_turn(
        self,
        argv: list[str],
        inputs: dict[str, bytes],
        outputs: list[str],
        limits: Limits,
        *,
        starting: Callable[[], None] | None = None,
        discard_stalled: bool = False,
    ) -> TurnRun:
        if starting is not None:
            starting()  # the bot's run goes on while the person thinks
        started = time.monotonic()
        move = self.session.await_move(inputs[MAP_INP].decode("utf-8"))
        result = RunResult(
            Verdict.OK,
            time.monotonic() - started,
            0.0,
            0,
            0,
            None,
            b"",
            b"",
            "moved by a person",
        )
        return TurnRun(result, {MOVE_OUT: move.encode() if move is not None else None})

    def check(self, argv: list[str]) -> None:
        """Nothing to check: a person can always move."""

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass


class MixedSandbox:
    """The sandbox, but the person's seat is theirs."""

    def __init__(self, sandbox: Sandbox, human_folder: str, seat: HumanSeat) -> None:
        self.sandbox, self.human_folder, self.human = sandbox, human_folder, seat
        self.isolation = sandbox.isolation
        self.cores = sandbox.cores

    def seat(self, name: str, program_dir: Path | None, **kw: Any) -> Any:
        if name == self.human_folder:
            return self.human
        return self.sandbox.seat(name, program_dir, **kw)


@dataclass
class PlaySession:
    """One round of a person against a bot, played in a thread; its events for the page."""

    bot: BotSpec
    game_map: GameMap
    map_label: str
    human_seat: int  # 0 or 1
    sandbox: Sandbox
    out: Path
    limits: Limits
    seed: int
    turns: int | None = None
    human_name: str = "You"
    events: list[Json] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    result: RoundResult | None = None
    error: str | None = None
    #: the round's header and turns so far, for the position editor's start
    header: ReplayHeader | None = None
    records: list[TurnRecord] = field(default_factory=list)
    _moves: queue.Queue[str | None] = field(default_factory=queue.Queue)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(init=False)
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self._changed = threading.Condition(self._lock)

    @property
    def names(self) -> tuple[str, str]:
        bot_name = self.bot.name if self.bot.name != self.human_name else f"{self.bot.name} (bot)"
        return (self.human_name, bot_name) if self.human_seat == 0 else (bot_name, self.human_name)

    def bot_map_inp(self) -> str | None:
        """The bot's MAP.INP of the turn being played (its own boat, gold and shield first),
        for the position editor; None before the first turn.  Once the round is over, that
        of its last turn."""
        with self._lock:
            header, records = self.header, list(self.records)
        if header is None or not records:
            return None
        if records[-1].ended:
            records = records[:-1]
        previous = records[-1] if records else None
        return render_map_inp(game_before(header, previous), 1 - self.human_seat)

    def _publish(self, event: Json) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def events_after(self, n: int, timeout: float) -> list[Json]:
        """The events from the n-th on, waiting up to ``timeout`` for one to come."""
        with self._changed:
            if len(self.events) <= n:
                self._changed.wait(timeout)
            return list(self.events[n:])

    # ------------------------------------------------------- the referee's side
    def await_move(self, map_inp: str) -> str | None:
        """The person's move for this MAP.INP (None: the round is being stopped)."""
        placement = map_inp.split("\n")[1].split()[:2] == ["0", "0"]
        self._publish({"kind": "your_turn", "map_inp": map_inp, "placement": placement})
        while not self.stop.is_set():
            try:
                move = self._moves.get(timeout=0.2)
            except queue.Empty:
                continue
            return move
        return None

    def move(self, row: int, col: int) -> None:
        """The person's move (the cell to go to, 1-based; at placement: the start cell)."""
        self._moves.put(f"{row} {col}\n")

    # ------------------------------------------------------- playing
    def start(self) -> None:
        self._thread = threading.Thread(target=self._play, name="play", daemon=True)
        self._thread.start()

    def _play(self) -> None:
        session = self
        seat = HumanSeat("human", self)
        bots = [self.bot, self.bot]
        bots[self.human_seat] = HUMAN
        names = self.names

        class Observer:
            def start(self, header: ReplayHeader) -> None:
                with session._lock:
                    session.header = header
                session._publish(
                    {
                        "kind": "start",
                        "teams": list(names),
                        "human_seat": session.human_seat,
                        "rows": header.map.rows,
                        "cols": header.map.cols,
                        "turns": header.turns,
                        "map": Path(header.map.path).name,
                    }
                )

            def turn(self, record: TurnRecord) -> None:
                with session._lock:
                    session.records.append(record)
                people = (session.human_seat,)
                frame = _frame(record, list(names), people)
                # the page's name for what became of each move: the replay's own sentence
                frame["why_text"] = frame["status_text"]
                session._publish({"kind": "turn", "frame": frame})

            def end(self, result: RoundResult) -> None:
                session.result = result
                session._publish(
                    {
                        "kind": "end",
                        "gold": list(result.gold),
                        "points": list(result.points),
                        "winner": result.winner,
                        "end_reason": result.end_reason.value,
                        "replay": "round-1",
                    }
                )

        # the person's seat folder: the folder form of their seat's name
        from judge.names import distinct_folders

        folders = distinct_folders(list(names))
        seat.name = folders[self.human_seat]
        mixed = MixedSandbox(self.sandbox, folders[self.human_seat], seat)
        try:
            play_match(
                bots,
                names,
                [RoundPlan(self.game_map, self.map_label)],
                self.seed,
                self.out,
                mixed,  # type: ignore[arg-type]
                self.limits,
                turns=self.turns,
                observer_for=lambda _i, _p: Observer(),
                stop=self.stop,
            )
        except RoundStopped:
            self._publish({"kind": "stopped"})
        except Exception as exc:  # noqa: BLE001 - said on the page and the terminal
            self.error = f"{type(exc).__name__}: {exc}"
            self._publish({"kind": "error", "message": str(exc)})

    def close(self) -> None:
        self.stop.set()
        self._moves.put(None)
        if self._thread is not None:
            self._thread.join(10)


def ask_bot(bot: BotSpec, sandbox: Sandbox, map_inp: str, limits: Limits) -> Json:
    """What the bot does here: one run on this MAP.INP in a fresh seat (no STATE.OUT), as
    ``judge check-bot`` runs a situation: its move, what the rules make of it (a void move
    with why, in the match's words), check-bot's findings, time, stderr."""
    try:
        game = read_map_inp(map_inp)
    except ValueError as exc:
        return {"error": f"not a MAP.INP the judge would write: {exc}"}
    seat = sandbox.seat(bot.name, bot.program_dir, keep=STATE_OUT, keep_bytes=STATE_MAX_BYTES)
    try:
        argv = bot.argv_for(seat.program_dir)
        run = run_retrying(seat, argv, {MAP_INP: map_inp.encode()}, list(OUTPUTS), limits)
        facts = facts_from(run, bot, seat.program_dir)
        seat_run = judged(game, read_run(run))
    finally:
        seat.close()
    r = run.result
    situation = Situation("editor", "this position", "the position editor's", game)
    findings = diagnose(situation, facts, limits).findings if r.verdict is not Verdict.IE else []
    return {
        "verdict": r.verdict.value,
        "message": facts.message,
        "move": list(seat_run.move) if seat_run.move else None,
        "raw": seat_run.raw,
        "status": seat_run.status.value if seat_run.status is not None else None,
        "void": voidwhy.of_run(seat_run) is not None,
        "said": what_it_does(game, seat_run),
        "why": voidwhy.status_words(seat_run, voidwhy.Where.of_game(game, 0))
        if seat_run.status is not None
        else None,
        "findings": [
            {"level": f.level, "reason": f.reason, "cause": f.cause, "tag": f.tag} for f in findings
        ],
        "wall_ms": round(r.wall_s * 1000, 1),
        "cpu_ms": round(r.cpu_s * 1000, 1),
        "stderr": facts.stderr.decode("utf-8", "replace")[-4000:],
        "stdout": facts.stdout.decode("utf-8", "replace")[-4000:],
    }


def judged(game: Game, run: SeatRun) -> SeatRun:
    """A run's move as the referee judges it on ``game`` (seat 0's): placed, moved, stayed,
    or void with why (R2, R10)."""
    if run.status is not None or run.move is None:
        return run
    t = run.move
    placement = not game.placed
    if placement:
        status = MoveStatus.PLACED if game.valid_start(t) else MoveStatus.INVALID_START
    else:
        status = game.classify(0, t)
    why = voidwhy.for_cell(game, 0, t, status, placement) if status.void else None
    return dataclasses.replace(run, status=status, why=why.value if why is not None else None)


def what_it_does(game: Game, run: SeatRun) -> str:
    """The answer in one line: ``it moves to (3, 4)``, ``void: ...``, ``it sinks: ...``."""
    said = voidwhy.explain(run, voidwhy.Where.of_game(game, 0))
    if said is not None:
        return f"void: {said}"
    if run.move is None or run.status is None:
        return "no move"
    at = voidwhy.cell(run.move)
    if run.status is MoveStatus.PLACED:
        return f"it starts at {at}"
    if run.status is MoveStatus.STAYED:
        return f"it stays at {at}"
    after = game.copy()
    sank = [e for e in after.step((run.move, None)) if e.kind is EventKind.SINK and e.seat == 0]
    if sank:
        # the bot runs alone here: the other boat is taken to stay where it is
        met = sank[0].cause in (SinkCause.COLLISION, SinkCause.SWAP)
        alone = ", if the other boat stays" if met else ""
        return f"it moves to {at}: {sank[0].describe(('the boat', 'the other boat'))}{alone}"
    return f"it moves to {at}"
