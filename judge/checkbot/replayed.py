"""``judge check-bot BOT --from FOLDER``: the turns a bot failed in a match, run again, explained.

The battery's situations are made up; a student whose bot failed 41 moves of a
match wants those moves.  Every turn where the bot's move was void (a failed
run, no or bad MOVE.OUT, an illegal cell) is rebuilt as the bot saw it:

* MAP.INP from the state before that turn, which the replay holds (the turn
  before's record; the map itself at placement), rendered by the referee's own
  :func:`judge.protocol.render_map_inp`;
* STATE.OUT from the copy the referee kept of it for that turn (the replay's
  ``state_in``); a replay written before the copies were kept has none, and
  the turn is run without one, saying so.

Each is run once in a fresh seat and diagnosed as a check-bot situation whose
purpose line is what happened in the match, in the match's words
(:func:`judge.voidwhy.explain`).  The rounds come from the command, read by the
views' replay reader (this layer is below the views).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge import voidwhy
from judge.bots import BotSpec
from judge.checkbot.diagnose import (
    ADVICE,
    ERROR,
    Finding,
    diagnose,
)
from judge.checkbot.situations import Situation
from judge.checkbot.trials import SituationResult, facts_from, run_once
from judge.maps import map_from_text
from judge.protocol import STATE_MAX_BYTES, render_map_inp
from judge.records import ReplayHeader, SeatRun, TurnRecord
from judge.referee import kept_state_name, read_run
from judge.rules import Game
from judge.sandbox import Limits, Sandbox


@dataclass(frozen=True)
class PlayedRound:
    """One recorded round: its folder (where the kept STATE.OUT files are), its header
    and its turns, and how the report names it (``round 2``, ``A-vs-B round 2``)."""

    folder: Path
    header: ReplayHeader
    records: Sequence[TurnRecord]
    label: str


@dataclass(frozen=True)
class FailedTurn:
    """A turn where a seat's move was void, rebuilt as the seat saw it."""

    played: PlayedRound
    seat: int
    record: TurnRecord
    #: the state the seat was asked in, seen from it (its boat is seat 0, as check-bot's)
    game: Game
    map_inp: str
    state: bytes | None  # the STATE.OUT it started with (None: none, or not known)
    #: why STATE.OUT is not known (None: it is, absent or not)
    state_unknown: str | None

    @property
    def run(self) -> SeatRun:
        assert self.record.runs is not None
        return self.record.runs[self.seat]

    @property
    def why(self) -> voidwhy.Why:
        found = voidwhy.of_run(self.run)
        assert found is not None
        return found

    def in_the_match(self) -> str:
        """What happened in the match, in the match's words (log.txt's)."""
        where = voidwhy.Where.of_record(self.record, self.seat)
        said = voidwhy.explain(self.run, where) or ""
        asked = "" if self.run.move is None or said.startswith("(") else f"asked {self.run.move}, "
        message = f" ({self.run.message})" if self.run.message else ""
        return f"in the match: {asked}{said}{message}"


def game_before(header: ReplayHeader, previous: TurnRecord | None) -> Game:
    """The round's state before a turn: after ``previous`` (None: before placement)."""
    grid = header.map.grid if previous is None else previous.grid
    text = f"{header.map.rows} {header.map.cols} {header.map.turns}\n" + "\n".join(grid) + "\n"
    game = Game(map_from_text(text, header.map.path, allow_invalid=True), header.turns)
    if previous is None:
        return game
    b = game.board
    game.pos = [b.flat(p) if p is not None else -1 for p in previous.positions]
    game.gold = list(previous.gold)
    game.shield = [boat.shield for boat in previous.boats]
    game.sunk = [boat.sunk for boat in previous.boats]
    game.turn = previous.turn
    game.treasure = previous.treasure
    return game


def seen_by(game: Game, seat: int) -> Game:
    """``game`` with ``seat``'s boat as seat 0 (check-bot diagnoses seat 0); MAP.INP is
    written from a seat's own view, so it is the same text."""
    if seat == 0:
        return game
    g = game.copy()
    for values in (g.pos, g.gold, g.shield, g.sunk):
        values.reverse()
    if g.treasure_by is not None:
        g.treasure_by = 1 - g.treasure_by
    return g


def _kept_state(played: PlayedRound, ref: str | None) -> tuple[bytes | None, str | None]:
    """(the STATE.OUT a run started with, why it is not known) from a replay's ``state_in``."""
    if ref is None:
        return None, (
            "this turn's STATE.OUT was not kept (a replay written by an older judge, or "
            "more of them in the round than the judge keeps): run without one"
        )
    if ref == "":
        return None, None
    path = played.folder / ref
    try:
        inside = path.resolve().is_relative_to(played.folder.resolve())
        data = path.read_bytes() if inside and path.is_file() else None
    except OSError:
        data = None
    if data is None or len(data) > STATE_MAX_BYTES or kept_state_name(data) != path.name:
        return None, f"the STATE.OUT kept for this turn ({ref}) cannot be read: run without one"
    return data, None


def failed_turns(played: PlayedRound, seats: Sequence[int]) -> list[FailedTurn]:
    """Every turn of the round where one of ``seats`` ran and its move was void."""
    out: list[FailedTurn] = []
    previous: TurnRecord | None = None
    for rec in played.records:
        if rec.runs is not None:
            for s in seats:
                run = rec.runs[s]
                if run.ran and voidwhy.of_run(run) is not None:
                    game = game_before(played.header, previous if rec.turn > 1 else None)
                    state, unknown = _kept_state(played, run.state_in)
                    text = render_map_inp(game, s)
                    out.append(FailedTurn(played, s, rec, seen_by(game, s), text, state, unknown))
        previous = rec
    return out


def choose(turns: Sequence[FailedTurn], cap: int) -> list[FailedTurn]:
    """At most ``cap`` of the turns, in order: the first of each reason first, so that
    every kind of failure is run again, then the others as they came."""
    chosen: list[FailedTurn] = []
    reasons: set[voidwhy.Why] = set()
    for t in turns:
        if t.why not in reasons and len(chosen) < cap:
            reasons.add(t.why)
            chosen.append(t)
    for t in turns:
        if len(chosen) >= cap:
            break
        if t not in chosen:
            chosen.append(t)
    return [t for t in turns if t in chosen]


def recheck(
    bot: BotSpec,
    sandbox: Sandbox,
    limits: Limits,
    turns: Sequence[FailedTurn],
    on_result: Callable[[SituationResult], None] | None = None,
) -> list[SituationResult]:
    """Run each failed turn once more, in a fresh seat, and diagnose it as check-bot does.

    Raises ``ProgramUnreachable`` (a ``ValueError``) when the seat cannot run the
    command at all, and :class:`CheckAborted` when the judge fails.
    """
    results = []
    for t in turns:
        sit = Situation(
            f"{t.played.label} turn {t.record.turn}",
            f"{t.played.label}, turn {t.record.turn}",
            t.in_the_match(),
            t.game,
        )
        # No keep file: each turn starts from the STATE.OUT it had in the match, an input.
        with sandbox.seat(bot.name, bot.program_dir) as seat:
            run = run_once(seat, bot.argv_for(seat.program_dir), t.map_inp, limits, t.state)
            facts = facts_from(run, bot, seat.program_dir)
        findings = list(diagnose(sit, facts, limits).findings)
        if t.state_unknown is not None:
            findings.append(Finding(ADVICE, t.state_unknown, None, "state_unknown"))
        if t.why is voidwhy.Why.REASKS_EXHAUSTED:
            findings.insert(0, _reasks(t))  # the other boat's answers made it void
        elif not any(f.level == ERROR for f in findings):
            findings.insert(0, _passes_now(t))
        res = SituationResult(sit, t.map_inp, facts, read_run(run), findings, t.state)
        results.append(res)
        if on_result is not None:
            on_result(res)
    return results


def _passes_now(t: FailedTurn) -> Finding:
    """A turn it failed in the match and not now: say what may differ."""
    busy = " or the machine was busier then" if t.why is voidwhy.Why.TIME else ""
    unknown = ", it ran without the STATE.OUT it had then" if t.state_unknown else ""
    return Finding(
        ADVICE,
        f"this time its move is good; in the match it was void: {voidwhy.words(t.why)}",
        f"the program has changed since{unknown}, or it does not do the same every time "
        f"(a random choice, the clock, a variable it never set){busy}",
        "passes_now",
    )


def _reasks(t: FailedTurn) -> Finding:
    """Placed at random after 3 re-asks: the other boat named the same start at each ask,
    which a run alone cannot show; the match's asks (the record's attempts) tell whether
    the bot itself kept naming one cell."""
    named = [a.runs[t.seat].move for a in t.record.attempts] or [t.run.move]
    cells = [c for c in named if c is not None]
    asks = f"each of the {len(named)} asks"
    if cells and all(c == cells[0] for c in cells):
        return Finding(
            ADVICE,
            f"in the match it named {voidwhy.cell(cells[0])} at {asks}, and so did the other "
            "boat: after 3 re-asks both boats are placed at random",
            "a re-ask gets the same MAP.INP with STATE.OUT kept (R12): remember the cell "
            "named and pick another",
            "same_reask",
        )
    return Finding(
        ADVICE,
        f"in the match it named another start at each re-ask ({', '.join(map(voidwhy.cell, cells))})"
        ", and the other boat named the same start each time: after 3 re-asks both boats are "
        "placed at random",
        "nothing to fix in this bot: two bots that choose alike (two copies of one program) "
        "meet at every ask",
        "reask_shared",
    )
