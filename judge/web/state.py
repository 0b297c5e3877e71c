"""A tournament and a round as they are being played, read from the files the judge writes.

Nothing here needs the process that plays them: a tournament's ``schedule.json``
(the rounds it will play), its ledger (opened read-only: the rounds recorded so
far) and each round's ``replay.jsonl.part`` (one line a turn, flushed as the
referee writes it) say everything, so ``judge serve`` follows a tournament
played by another command, or on another day.  Values are plain JSON-ready
data; the pages show every text in them as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.errors import JudgeError
from judge.inputfiles import RECORD_BYTES, InputFileError, parse_json, read_input_text
from judge.records import Json, RecordError, ReplayHeader, RoundResult, TurnRecord
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import SCHEDULE_JSON, STANDINGS_JSON
from judge.tournament.standings import standings
from judge.views.html import _frame

REPLAY = "replay.jsonl"
PART = "replay.jsonl.part"


def _read_json(path: Path) -> Any:
    try:
        return parse_json(read_input_text(path, "a JSON file", RECORD_BYTES))
    except (InputFileError, ValueError):
        return None


def _schedule(folder: Path) -> dict[str, Any] | None:
    data = _read_json(folder / SCHEDULE_JSON)
    if not isinstance(data, dict) or not isinstance(data.get("matches"), list):
        return None
    return data


def round_file(folder: Path) -> tuple[Path | None, bool]:
    """A round folder's replay, and whether the round is still being played (.part)."""
    if (folder / REPLAY).is_file():
        return folder / REPLAY, False
    if (folder / PART).is_file():
        return folder / PART, True
    return None, False


def tournament(folder: Path) -> Json:
    """The tournament in ``folder`` as it stands: standings (best first), crosstable, every
    round in play order (``done`` with its result, ``playing``, or ``to play``), the one in
    flight first among the others, and whether it is over."""
    schedule = _schedule(folder)
    results = []
    problem = ""
    ledger_path = folder / LEDGER_FILE
    if ledger_path.is_file():
        try:
            with Ledger.open(ledger_path, read_only=True) as ledger:
                results = ledger.rounds()
        except JudgeError as exc:
            problem = str(exc)
    recorded = {(lr.match, lr.round): lr.result for lr in results}
    teams: list[str] = list(schedule["teams"]) if schedule else []
    for done in recorded.values():
        for t in done.seats or ():
            if t not in teams:
                teams.append(t)
    rows = standings(teams, list(recorded.values()))
    rounds: list[Json] = []
    order = [tuple(x) for x in schedule.get("play_order", [])] if schedule else sorted(recorded)
    matches = {m["folder"]: m for m in schedule["matches"]} if schedule else {}
    for match, index in order:
        slot = _slot(matches.get(match), index)
        rr: RoundResult | None = recorded.get((match, index))
        rfolder = folder / str(match) / f"round-{index}"
        _, growing = round_file(rfolder)
        entry: Json = {
            "match": match,
            "index": index,
            "seats": slot.get("seats") if slot else (list(rr.seats) if rr and rr.seats else None),
            "map_owner": slot.get("map_owner") if slot else None,
            "path": f"{match}/round-{index}",
        }
        if rr is not None:
            entry["status"] = "done"
            entry["gold"] = list(rr.gold)
            entry["points"] = list(rr.points)
            entry["winner"] = rr.winner
            entry["map"] = Path(rr.map_label).name  # never a path of the judge's machine
        elif growing:
            entry["status"] = "playing"
        else:
            entry["status"] = "to play"
        rounds.append(entry)
    cross: dict[str, dict[str, int]] = {t: {} for t in teams}
    for done in recorded.values():
        if done.seats is None:
            continue
        a, b = done.seats
        cross.setdefault(a, {})[b] = cross.setdefault(a, {}).get(b, 0) + done.points[0]
        cross.setdefault(b, {})[a] = cross.setdefault(b, {}).get(a, 0) + done.points[1]
    return {
        "name": folder.name,
        "teams": teams,
        "standings": [r.to_json() for r in rows],
        "crosstable": cross,
        "rounds": rounds,
        "done": sum(1 for r in rounds if r["status"] == "done"),
        "total": len(rounds),
        "complete": (folder / STANDINGS_JSON).is_file(),
        "problem": problem,
    }


def _slot(match: Any, index: int) -> dict[str, Any] | None:
    if not isinstance(match, dict):
        return None
    for r in match.get("rounds", []):
        if isinstance(r, dict) and r.get("index") == index:
            return r
    return None


def round_frames(path: Path, start: int = 0) -> tuple[Json | None, list[Json], int]:
    """A replay (finished or growing): its header (None until written), the turns from line
    ``start`` on (1 = the first turn), as the live board shows them, and the next ``start``.

    A last line still being written (no newline yet) waits for the next read.
    """
    try:
        text = read_input_text(path, "a replay", RECORD_BYTES)
    except InputFileError:
        return None, [], start
    lines = text.split("\n")
    complete = lines[:-1] if not text.endswith("\n") else lines
    complete = [ln for ln in complete if ln.strip()]
    if not complete:
        return None, [], start
    try:
        header = ReplayHeader.from_json(parse_json(complete[0]))
    except (ValueError, RecordError):
        return None, [], start
    names = list(header.teams)
    head: Json = {
        "teams": names,
        "rows": header.map.rows,
        "cols": header.map.cols,
        "turns": header.turns,
        "seed": header.seed,
        "map": Path(header.map.path).name,  # the map's name: never a path of the judge's machine
    }
    frames: list[Json] = []
    n = max(start, 1)
    for line in complete[n:]:
        try:
            rec = TurnRecord.from_json(parse_json(line), header.map.rows, header.map.cols)
        except (ValueError, RecordError):
            break
        frames.append(_frame(rec, names))
        n += 1
    return head, frames, n
