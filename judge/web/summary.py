"""What ``judge serve``'s index says of each result: its teams, its result, and its state.

The state is read from the files, never guessed from their age: a round is
being played while its referee holds its ``replay.jsonl.part`` open
(:func:`judge.atomic.being_written`), so a ``judge play`` stopped with Ctrl-C,
an eval stopped by its SPRT (rounds cut short there leave a ``.part``) and a
killed tournament are not "playing now" for ever.  Each summary is a few lines
of plain text (the page shows them as text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from judge import atomic
from judge.records import EvalSummary, MatchResult, RecordError
from judge.records.leaderboard import Leaderboard
from judge.records.replayread import PART_NAME, ReplayError, read_header, replay_in
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import SCHEDULE_JSON, STANDINGS_JSON
from judge.web.catalog import Entry, Kind
from judge.web.state import read_json as _json

PLAYING = "playing now"
FINISHED = "finished"
STOPPED = "stopped"


@dataclass
class Summary:
    """An entry of the index as people read it."""

    title: str
    state: str  #: PLAYING, FINISHED or STOPPED
    state_text: str  #: the state in words ("stopped after 5 of 9 rounds: ...")
    lines: list[str] = field(default_factory=list)


def _parts(folder: Path, depth: int = 2) -> list[Path]:
    """The ``replay.jsonl.part`` files of a result (its rounds' folders and their matches')."""
    found = list(folder.glob(PART_NAME))
    for d in range(1, depth + 1):
        found += folder.glob("/".join(["*"] * d) + "/" + PART_NAME)
    return found


def playing(folder: Path) -> bool:
    """A round of this result is being played now (its referee holds its .part open)."""
    return any(atomic.being_written(p) for p in _parts(folder))


def summarise(root: Path, entry: Entry) -> Summary:
    folder = root / entry.rel if entry.rel else root
    try:
        return _BY_KIND[entry.kind](folder, entry)
    except (OSError, RecordError, ValueError, KeyError, TypeError) as exc:
        return Summary(entry.name, STOPPED, f"cannot be read: {exc}")


def _tournament(folder: Path, entry: Entry) -> Summary:
    schedule = _json(folder / SCHEDULE_JSON) or {}
    title = schedule.get("title") or entry.name if isinstance(schedule, dict) else entry.name
    total = len(schedule.get("play_order", [])) if isinstance(schedule, dict) else 0
    teams = schedule.get("teams", []) if isinstance(schedule, dict) else []
    done = 0
    if (folder / LEDGER_FILE).is_file():
        with Ledger.open(folder / LEDGER_FILE, read_only=True) as ledger:
            done = len(ledger.done())
    lines = [f"{len(teams)} teams: {', '.join(map(str, teams))}"] if teams else []
    standings = _json(folder / STANDINGS_JSON)
    rows = standings.get("standings") if isinstance(standings, dict) else None
    if isinstance(rows, list) and rows and isinstance(rows[0], dict):
        first = rows[0]
        lines.append(f"winner: {first.get('team')} ({first.get('points')} points)")
        return Summary(str(title), FINISHED, f"finished: {done} rounds", lines)
    if playing(folder):
        return Summary(str(title), PLAYING, f"{PLAYING}: {done} of {total} rounds played", lines)
    return Summary(
        str(title),
        STOPPED,
        f"{STOPPED} after {done} of {total} rounds (judge tournament --resume goes on)",
        lines,
    )


def _match_teams(folder: Path) -> list[str]:
    """The teams from the first round's replay header (a match with no result.json yet)."""
    for round_dir in sorted(folder.glob("round-*")):
        path = replay_in(round_dir)
        try:
            return list(read_header(path).teams) if path is not None else []
        except ReplayError:
            continue
    return []


def _match(folder: Path, entry: Entry) -> Summary:
    data = _json(folder / "result.json")
    result = MatchResult.from_json(data) if data is not None else None
    teams = list(result.teams) if result is not None else _match_teams(folder)
    title = f"{teams[0]} vs {teams[1]}" if len(teams) == 2 else entry.name
    lines = []
    if result is not None and result.rounds:
        p, g = result.points, result.gold
        lines.append(
            f"{len(result.rounds)} round{'s' if len(result.rounds) != 1 else ''}: points "
            f"{p[0]}–{p[1]}, gold {g[0]}–{g[1]}"
        )
    if playing(folder):
        return Summary(title, PLAYING, PLAYING, lines)
    cut = [p for p in _parts(folder, 1) if p.name == PART_NAME]
    if result is not None and result.complete and not cut:
        w = result.winner
        won = "a draw" if w is None else f"{teams[w]} wins"
        return Summary(title, FINISHED, f"{FINISHED}: {won}", lines)
    return Summary(title, STOPPED, f"{STOPPED} before its end (a round was cut short)", lines)


def _eval(folder: Path, entry: Entry) -> Summary:
    data = _json(folder / "eval.json")
    if data is None:
        state = PLAYING if playing(folder) else STOPPED
        return Summary(entry.name, state, state if state == PLAYING else f"{STOPPED}: no eval.json")
    s = EvalSummary.from_json(data)
    a, b = s.bots[0].name, s.bots[1].name
    r = s.result
    lines = [f"{s.rounds_played} rounds: {a} wins {r.wins}, draws {r.draws}, loses {r.losses}"]
    if s.pairs is not None and s.pairs.score is not None:
        lines.append(f"{a} scores {100 * s.pairs.score:.1f}% over {s.pairs.pairs} pairs")
    state = FINISHED
    text = f"{FINISHED}: {s.rounds_played} of {s.rounds_planned} rounds"
    if s.sprt is not None and s.sprt.verdict.value != "continue":
        text = f"{FINISHED}: its SPRT decided ({s.sprt.verdict.value}) after {s.sprt.pairs} pairs"
    return Summary(f"{a} vs {b}", state, text, lines)


def _league(folder: Path, entry: Entry) -> Summary:
    data = _json(folder / "leaderboard.json")
    lines = []
    if data is not None:
        board = Leaderboard.from_json(data)
        if board.rows:
            top = board.rows[0]
            lines.append(f"{len(board.rows)} bots; first: {top.bot} ({top.rounds} rounds)")
    state = PLAYING if playing(folder) else FINISHED
    return Summary(entry.name, state, state, lines)


_BY_KIND = {
    Kind.TOURNAMENT: _tournament,
    Kind.MATCH: _match,
    Kind.EVAL: _eval,
    Kind.LEAGUE: _league,
}

__all__ = ["FINISHED", "PLAYING", "STOPPED", "Summary", "playing", "summarise"]
