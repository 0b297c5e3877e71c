"""A tournament and a round as they are being played, read from the files the judge writes.

Nothing here needs the process that plays them: a tournament's ``schedule.json``
(the rounds it will play), its ledger (opened read-only: the rounds recorded so
far) and each round's ``replay.jsonl.part`` (one line a turn, flushed as the
referee writes it) say everything, so ``judge serve`` follows a tournament
played by another command, or on another day.  Values are plain JSON-ready
data; the pages show every text in them as text.

The sources (:class:`TournamentSource`, :class:`RoundSource`) are what the
web's shared readers (:mod:`judge.web.feeds`) poll: each reads only when its
files changed, and only what changed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judge import atomic
from judge.errors import JudgeError
from judge.inputfiles import RECORD_BYTES, InputFileError, parse_json, read_input_text
from judge.records import Json, ReplayHeader, RoundResult, TurnRecord
from judge.records.replayread import PART_NAME, REPLAY_NAME, ReplayFollower, replay_in
from judge.tournament.ledger import LEDGER_FILE, Ledger, LedgerRound
from judge.tournament.play import SCHEDULE_JSON, STANDINGS_JSON
from judge.tournament.standings import standings
from judge.views import failures
from judge.views.html import _frame
from judge.web.feeds import Poll

PART = PART_NAME
#: However quiet the files look, a tournament is read again this often (a change within
#: the file system's time stamp resolution is then seen late, never missed).
REREAD_S = 5.0


def read_json(path: Path) -> Any:
    """A JSON file the judge wrote, or None when it is absent or cannot be read."""
    try:
        return parse_json(read_input_text(path, "a JSON file", RECORD_BYTES))
    except (InputFileError, ValueError):
        return None


def _schedule(folder: Path) -> dict[str, Any] | None:
    data = read_json(folder / SCHEDULE_JSON)
    if not isinstance(data, dict) or not isinstance(data.get("matches"), list):
        return None
    return data


def round_file(folder: Path) -> tuple[Path | None, bool]:
    """A round folder's replay, and whether the round is still being played (.part)."""
    path = replay_in(folder)
    return path, path is not None and path.name == PART


def _recorded(folder: Path) -> tuple[list[LedgerRound], str, str]:
    """The ledger's rounds, what is wrong with it ("" = nothing), and when it was made."""
    ledger_path = folder / LEDGER_FILE
    if not ledger_path.is_file():
        return [], "", ""
    try:
        with Ledger.open(ledger_path, read_only=True) as ledger:
            return ledger.rounds(), "", ledger.created_at
    except JudgeError as exc:
        return [], str(exc), ""


def tournament(folder: Path) -> Json:
    """The tournament in ``folder`` as it stands: its title, standings (best first),
    crosstable, every round in play order (``done`` with its result and what went wrong
    for each team, ``playing``, ``stopped`` (left unfinished) or ``to play``; each with its
    map), and whether it is over.

    A round names its match's teams in the match's order (``teams``, as index.html
    lists the match) with each team's gold and points in that order; ``seats`` says who
    sat where, and ``gold``/``points`` are in seat order.
    """
    schedule = _schedule(folder)
    results, problem, started = _recorded(folder)
    recorded = {(lr.match, lr.round): lr.result for lr in results}
    teams: list[str] = list(schedule["teams"]) if schedule else []
    for done in recorded.values():
        for t in done.seats or ():
            if t not in teams:
                teams.append(t)
    rows = standings(teams, list(recorded.values()))
    order = [tuple(x) for x in schedule.get("play_order", [])] if schedule else sorted(recorded)
    matches = {m["folder"]: m for m in schedule["matches"]} if schedule else {}
    rounds = [
        _round_entry(folder, match, index, matches.get(match), recorded.get((match, index)))
        for match, index in order
    ]
    cross: dict[str, dict[str, int]] = {t: {} for t in teams}
    for done in recorded.values():
        if done.seats is None:
            continue
        a, b = done.seats
        cross.setdefault(a, {})[b] = cross.setdefault(a, {}).get(b, 0) + done.points[0]
        cross.setdefault(b, {})[a] = cross.setdefault(b, {}).get(a, 0) + done.points[1]
    title = schedule.get("title") if schedule else None
    return {
        "name": folder.name,
        "title": title if isinstance(title, str) and title else folder.name,
        # when its ledger was made: tells this tournament from an earlier one in a folder
        # of the same name (a rehearsal), which a projector must not go on from
        "started": started,
        "teams": teams,
        "standings": [r.to_json() for r in rows],
        "crosstable": cross,
        "rounds": rounds,
        "failures": _team_failures(teams, recorded.values()),
        "done": sum(1 for r in rounds if r["status"] == "done"),
        "total": len(rounds),
        "complete": (folder / STANDINGS_JSON).is_file(),
        "problem": problem,
    }


def _round_entry(
    folder: Path, match: str, index: int, scheduled: Any, rr: RoundResult | None
) -> Json:
    slot = _slot(scheduled, index)
    seats = slot.get("seats") if slot else (list(rr.seats) if rr and rr.seats else None)
    order = scheduled.get("teams") if isinstance(scheduled, dict) else None
    entry: Json = {
        "match": match,
        "index": index,
        "seats": seats,
        "teams": list(order) if order else seats,
        "map_owner": slot.get("map_owner") if slot else None,
        "map": slot.get("map") if slot else None,
        "path": f"{match}/round-{index}",
    }
    if rr is not None:
        entry["status"] = "done"
        entry["gold"] = list(rr.gold)
        entry["points"] = list(rr.points)
        entry["winner"] = rr.winner
        entry["map"] = Path(rr.map_label.replace("\\", "/")).name  # never a judge machine's path
        if rr.seats is not None:
            by_seat = rr.in_order(entry["teams"]) if entry["teams"] else rr
            entry["team_gold"] = list(by_seat.gold)
            entry["team_points"] = list(by_seat.points)
            entry["failures"] = {
                rr.seats[s]: failures.from_stats(rr.stats[s]).to_json()
                for s in (0, 1)
                if failures.from_stats(rr.stats[s])
            }
    else:
        entry["status"] = _unrecorded_status(folder / str(match) / f"round-{index}")
    return entry


def _unrecorded_status(rfolder: Path) -> str:
    """A round not in the ledger: ``playing`` while its referee writes it (and between its
    end and its record), ``stopped`` when a judge that stopped left it unfinished (a resume
    plays it again), else ``to play``."""
    path, growing = round_file(rfolder)
    if path is None:
        return "to play"
    if growing and not atomic.being_written(path):
        return "stopped"
    return "playing"


def _team_failures(teams: list[str], rounds: Iterable[RoundResult]) -> Json:
    """Each team's failed runs and void moves over the rounds recorded (teams with none left
    out)."""
    total = {t: failures.SeatFailures() for t in teams}
    for rr in rounds:
        for s in (0, 1):
            if rr.seats is not None and rr.seats[s] in total:
                total[rr.seats[s]].add(failures.from_stats(rr.stats[s]))
    return {t: f.to_json() | {"void_text": f.void_text()} for t, f in total.items() if f}


def _slot(match: Any, index: int) -> dict[str, Any] | None:
    if not isinstance(match, dict):
        return None
    for r in match.get("rounds", []):
        if isinstance(r, dict) and r.get("index") == index:
            return r
    return None


def standings_after(folder: Path, shown: int) -> Json:
    """The standings of the first ``shown`` rounds in play order that are recorded (what a
    projector that has shown those rounds may tell the room)."""
    schedule = _schedule(folder)
    results, _, _ = _recorded(folder)
    recorded = {(lr.match, lr.round): lr.result for lr in results}
    order = [tuple(x) for x in schedule.get("play_order", [])] if schedule else sorted(recorded)
    teams: list[str] = list(schedule["teams"]) if schedule else []
    counted = [recorded[k] for k in order[: max(0, shown)] if k in recorded]
    for rr in counted:
        for t in rr.seats or ():
            if t not in teams:
                teams.append(t)
    return {"shown": len(counted), "standings": [r.to_json() for r in standings(teams, counted)]}


def ledger_stamp(folder: Path) -> Any:
    """What changes when a round is recorded (the ledger's time stamp and size)."""
    return _stamp(folder / LEDGER_FILE)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """A file as it is now (another file in its place, or one written since, differs)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class TournamentSource:
    """A tournament followed by the web (a snapshot): read again only when one of its files
    changed, by their time stamps -- the ledger, the schedule, the standings, and the folder
    of every round still to be recorded (a round that starts or ends changes it)."""

    snapshot = True

    def __init__(self, folder: Path, reread_s: float = REREAD_S) -> None:
        self.folder = folder
        self.reread_s = reread_s
        self.reads = 0  #: how often the tournament was read (for the tests and benchmarks)
        self._stamps: Any = None
        self._last = ""
        self._read_at = 0.0
        self._open: list[Path] = []  # the rounds not recorded at the last read

    def _fingerprint(self) -> Any:
        f = self.folder
        files = [f / LEDGER_FILE, f / SCHEDULE_JSON, f / STANDINGS_JSON, f]
        return [_stamp(p) for p in files + self._open]

    def poll(self) -> Poll:
        stamps = self._fingerprint()
        now = time.monotonic()
        if stamps == self._stamps and now - self._read_at < self.reread_s:
            return Poll()
        self._stamps, self._read_at = stamps, now
        self.reads += 1
        st = tournament(self.folder)
        self._open = [
            self.folder / r["match"] / f"round-{r['index']}"
            for r in st["rounds"]
            if r["status"] != "done"
        ]
        self._stamps = self._fingerprint()  # after the read: what it saw
        text = json.dumps(st, sort_keys=True)
        if text == self._last:
            return Poll()
        self._last = text
        return Poll([st])


def round_head(header: ReplayHeader) -> Json:
    """A replay's header as the live board needs it, with the board before placement."""
    names = list(header.teams)
    return {
        "teams": names,
        "rows": header.map.rows,
        "cols": header.map.cols,
        "turns": header.turns,
        "seed": header.seed,
        "map": Path(header.map.path.replace("\\", "/")).name,  # never a judge machine's path
        "initial": _frame(TurnRecord.before_placement(header), names),
    }


class RoundSource:
    """A round followed by the web (a log): each message holds the turns written since the
    last one (the header's first), and the last says ``finished``."""

    snapshot = False

    def __init__(self, folder: Path) -> None:
        self.follower = ReplayFollower(folder)
        self.names: list[str] = []
        self.reads = 0  #: how often something new was read

    def stamp(self) -> Any:
        """The finished replay as it is now: a replay written anew (a round played again)
        is another file, so its viewers are not given the old one."""
        return _stamp(self.follower.folder / REPLAY_NAME)

    def poll(self) -> Poll:
        got = self.follower.poll()
        if not got.changed:
            return Poll()
        self.reads += 1
        msg: Json = {"frames": [], "finished": got.finished}
        if got.reset:
            msg["reset"] = True
        if got.header is not None:
            self.names = list(got.header.teams)
            msg["head"] = round_head(got.header)
        msg["frames"] = [_frame(rec, self.names) for rec in got.records]
        if got.problem:
            msg["problem"] = got.problem
        return Poll([msg], last=got.finished or bool(got.problem))
