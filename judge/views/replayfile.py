"""Read saved rounds back: a match folder, a round folder or a ``replay.jsonl`` file.

Every view (terminal board, ``judge replay``, the HTML page) reads replays
through :func:`load`, so a broken file is reported once, the same way, with
the file and line that is wrong, as a :class:`ReplayError` (a ``ValueError``)
that the command turns into a message and exit status 2 -- never a traceback.

The shape read here is what :mod:`judge.referee` writes: a header line, then
one JSON object per turn (``record_common`` + ``snapshot``).  This module does
not import the referee (which needs the sandbox): a replay can be viewed on a
machine that cannot run bots, e.g. a projector laptop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.rules import Event, EventKind, SinkCause

#: The replay schema this reader understands (``judge.referee.REPLAY_SCHEMA``).
SUPPORTED_SCHEMA = 1
REPLAY_NAME = "replay.jsonl"
PART_SUFFIX = ".part"
RESULT_NAME = "result.json"
#: Refuse files that cannot be a replay (100 turns of a 15x15 map is well under 1 MB).
MAX_BYTES = 64 * 2**20

_CELL = re.compile(r"^(?:\d+|D|W|S)$")


class ReplayError(ValueError):
    """A path that cannot be shown; the message says which file, which line and why."""


def _seat_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class RoundReplay:
    """One round as recorded: the header and the turn records, in order."""

    path: Path
    header: dict[str, Any]
    records: list[dict[str, Any]]
    index: int = 1
    #: The round's entry in the match's result.json, when there is one.
    result: dict[str, Any] | None = None
    #: True when read from ``replay.jsonl.part``: the round did not finish.
    partial: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [str(t) for t in self.header["teams"]]

    @property
    def rows(self) -> int:
        return int(self.header["map"]["rows"])

    @property
    def cols(self) -> int:
        return int(self.header["map"]["cols"])

    @property
    def turns(self) -> int:
        """K of this round (the map's K unless ``--turns`` overrode it)."""
        return int(self.header["turns"])

    @property
    def label(self) -> str:
        return str(self.header["map"].get("path") or (self.result or {}).get("map") or "?")

    @property
    def first_turn(self) -> int:
        return int(self.records[0]["turn"]) if self.records else 0

    @property
    def last_turn(self) -> int:
        return int(self.records[-1]["turn"]) if self.records else 0

    def initial(self) -> dict[str, Any]:
        """A turn-0 record (before placement) built from the header, for a round with no turns."""
        return {
            "turn": 0,
            "turns_left": self.turns,
            "positions": [None, None],
            "gold": [0, 0],
            "shield": [False, False],
            "sunk": [False, False],
            "grid": list(self.header["map"]["grid"]),
            "treasure": None,
            "ended": False,
            "end_reason": None,
            "events": [],
        }

    def frames(self) -> list[dict[str, Any]]:
        """The records to show: the turns, or the bare map when no turn was recorded."""
        return self.records if self.records else [self.initial()]

    def record_at(self, turn: int) -> dict[str, Any]:
        """The record of ``turn``; a ReplayError names the turns there are."""
        for rec in self.frames():
            if rec["turn"] == turn:
                return rec
        raise ReplayError(
            f"round {self.index} has no turn {turn}: its turns are "
            f"{self.frames()[0]['turn']}..{self.frames()[-1]['turn']}"
        )


@dataclass
class MatchReplay:
    """What a path holds: one or more rounds between the same two teams."""

    path: Path
    rounds: list[RoundReplay]
    result: dict[str, Any] | None = None

    @property
    def teams(self) -> list[str]:
        if self.result and isinstance(self.result.get("teams"), list):
            return [str(t) for t in self.result["teams"]]
        return self.rounds[0].names

    def round(self, n: int) -> RoundReplay:
        for r in self.rounds:
            if r.index == n:
                return r
        have = ", ".join(str(r.index) for r in self.rounds)
        raise ReplayError(f"{self.path} has no round {n} (rounds: {have})")


# --------------------------------------------------------------- validation
def _check_grid(where: str, grid: Any, rows: int, cols: int) -> None:
    if not isinstance(grid, list) or len(grid) != rows:
        raise ReplayError(f"{where}: 'grid' must be a list of {rows} rows")
    for i, row in enumerate(grid, start=1):
        if not isinstance(row, str):
            raise ReplayError(f"{where}: grid row {i} must be a string of cells")
        toks = row.split()
        if len(toks) != cols:
            raise ReplayError(f"{where}: grid row {i} has {len(toks)} cells, expected {cols}")
        for j, tok in enumerate(toks, start=1):
            if not _CELL.match(tok):
                raise ReplayError(f"{where}: cell ({i},{j}) is {tok!r}: not a number, D or S")


def _check_pos(where: str, what: str, p: Any, rows: int, cols: int) -> None:
    if p is None:
        return
    if not (_seat_pair(p) and _is_int(p[0]) and _is_int(p[1])):
        raise ReplayError(f"{where}: {what} must be null or [row, col], not {p!r}")
    if not (1 <= p[0] <= rows and 1 <= p[1] <= cols):
        raise ReplayError(f"{where}: {what} {p} is outside the {rows}x{cols} map")


def check_header(where: str, h: Any) -> dict[str, Any]:
    """The header line, or a ReplayError saying what is missing."""
    if not isinstance(h, dict) or h.get("type") != "header":
        raise ReplayError(
            f"{where}: the first line is not a replay header "
            f'(expected an object with "type": "header")'
        )
    schema: Any = h.get("schema")
    if not _is_int(schema):
        raise ReplayError(f"{where}: the header has no schema number")
    if schema > SUPPORTED_SCHEMA:
        raise ReplayError(
            f"{where}: replay schema {schema} was written by a newer judge; "
            f"this one reads schema {SUPPORTED_SCHEMA}"
        )
    if schema < 1:
        raise ReplayError(f"{where}: unknown replay schema {schema}")
    m: Any = h.get("map")
    if not isinstance(m, dict):
        raise ReplayError(f"{where}: the header has no 'map' object")
    rows: Any = m.get("rows")
    cols: Any = m.get("cols")
    if not (_is_int(rows) and _is_int(cols) and 1 <= rows <= 99 and 1 <= cols <= 99):
        raise ReplayError(f"{where}: the map size {rows}x{cols} is not a size")
    _check_grid(f"{where} (header map)", m.get("grid"), rows, cols)
    teams: Any = h.get("teams")
    if not (_seat_pair(teams) and all(isinstance(t, str) for t in teams)):
        raise ReplayError(f"{where}: 'teams' must be a list of 2 names")
    if not (_is_int(h.get("turns")) and h["turns"] >= 1):
        raise ReplayError(f"{where}: 'turns' must be a positive integer")
    return h


def check_record(where: str, rec: Any, rows: int, cols: int) -> dict[str, Any]:
    """One turn record; only the fields the views draw are required, the rest are typed if present."""
    if not isinstance(rec, dict):
        raise ReplayError(f"{where}: a turn record must be a JSON object")
    if rec.get("type") == "header":
        raise ReplayError(f"{where}: a second header (two replays glued together?)")
    for key in ("turn", "positions", "gold", "shield", "sunk", "grid", "events"):
        if key not in rec:
            raise ReplayError(f"{where}: the turn record has no {key!r}")
    if not (_is_int(rec["turn"]) and rec["turn"] >= 1):
        raise ReplayError(f"{where}: 'turn' must be a positive integer, not {rec['turn']!r}")
    if not _seat_pair(rec["positions"]):
        raise ReplayError(f"{where}: 'positions' must be a list of 2")
    for s in (0, 1):
        _check_pos(where, f"positions[{s}]", rec["positions"][s], rows, cols)
    g = rec["gold"]
    if not (_seat_pair(g) and all(_is_int(x) and x >= 0 for x in g)):
        raise ReplayError(f"{where}: 'gold' must be a list of 2 non-negative integers")
    for key in ("shield", "sunk"):
        v = rec[key]
        if not (_seat_pair(v) and all(isinstance(x, bool) for x in v)):
            raise ReplayError(f"{where}: {key!r} must be a list of 2 true/false values")
    _check_grid(where, rec["grid"], rows, cols)
    t = rec.get("treasure")
    if t is not None and not (_is_int(t) and t >= 0):
        raise ReplayError(f"{where}: 'treasure' must be null or a non-negative integer")
    ev = rec["events"]
    if not isinstance(ev, list) or not all(
        isinstance(e, dict) and isinstance(e.get("kind"), str) for e in ev
    ):
        raise ReplayError(f"{where}: 'events' must be a list of objects with a 'kind'")
    for key in ("moves", "raw", "verdicts", "move_status", "wall_ms", "messages"):
        if key in rec and not _seat_pair(rec[key]):
            raise ReplayError(f"{where}: {key!r} must be a list of 2")
    for s, mv in enumerate(rec.get("moves") or [None, None]):
        if mv is not None and not (_seat_pair(mv) and all(_is_int(x) for x in mv)):
            raise ReplayError(f"{where}: moves[{s}] must be null or [row, col]")
    return rec


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ReplayError(f"{path}: {size} bytes is too big for a replay")
        data = path.read_bytes()
    except IsADirectoryError:
        raise ReplayError(f"{path}: is a folder, not a replay file") from None
    except FileNotFoundError:
        raise ReplayError(f"{path}: no such file") from None
    except OSError as exc:
        raise ReplayError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if b"\0" in data:
        raise ReplayError(f"{path}: a binary file, not a replay")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReplayError(f"{path}: not a text file (not UTF-8), not a replay") from None


def load_replay_file(
    path: Path | str, index: int = 1, result: dict[str, Any] | None = None
) -> RoundReplay:
    """Read and check one replay file.

    A ``.part`` file (a round still being played, or cut short by a crash) may
    end in a half-written line: that line is dropped with a note instead of
    refusing the whole round.
    """
    p = Path(path)
    partial = p.name.endswith(PART_SUFFIX)
    lines = _read_text(p).split("\n")
    numbered = [(n, ln) for n, ln in enumerate(lines, start=1) if ln.strip()]
    if not numbered:
        raise ReplayError(f"{p}: empty file, not a replay")
    notes: list[str] = []
    objs: list[tuple[int, Any]] = []
    for k, (n, ln) in enumerate(numbered):
        try:
            objs.append((n, json.loads(ln)))
        except json.JSONDecodeError as exc:
            if partial and k == len(numbered) - 1 and k > 0:
                notes.append(f"line {n} was cut short (the round did not finish); ignored")
                break
            raise ReplayError(
                f"{p}, line {n}: not valid JSON ({exc.msg} at column {exc.colno})"
            ) from None
    header = check_header(f"{p}, line {objs[0][0]}", objs[0][1])
    rows, cols = header["map"]["rows"], header["map"]["cols"]
    records: list[dict[str, Any]] = []
    for n, obj in objs[1:]:
        rec = check_record(f"{p}, line {n}", obj, rows, cols)
        expected = records[-1]["turn"] + 1 if records else 1
        if rec["turn"] != expected:
            raise ReplayError(
                f"{p}, line {n}: turn {rec['turn']} where turn {expected} was expected"
            )
        records.append(rec)
    if partial:
        notes.insert(0, "this round did not finish: its replay is the unfinished .part file")
    return RoundReplay(p, header, records, index=index, result=result, partial=partial, notes=notes)


def _replay_in(folder: Path) -> Path | None:
    """``replay.jsonl`` in a round folder, else its unfinished ``.part``."""
    for name in (REPLAY_NAME, REPLAY_NAME + PART_SUFFIX):
        if (folder / name).is_file():
            return folder / name
    return None


def _round_dirs(folder: Path) -> list[tuple[int, Path]]:
    out = []
    for d in folder.iterdir():
        m = re.fullmatch(r"round-(\d+)", d.name)
        if m and d.is_dir():
            out.append((int(m.group(1)), d))
    return sorted(out)


def _load_result(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rounds"), list):
        raise ReplayError(f"{path}: not a match result (no 'rounds' list)")
    return data


def matches_in(folder: Path | str) -> list[tuple[Path, dict[str, Any] | None]]:
    """The match folders directly inside a folder (a tournament's), with their result.json.

    A match whose result.json cannot be read is listed with ``None``: a listing
    must not fail because one match is broken.
    """
    p = Path(folder)
    out: list[tuple[Path, dict[str, Any] | None]] = []
    if not p.is_dir():
        return out
    for d in sorted(p.iterdir()):
        if d.is_dir() and (d / RESULT_NAME).is_file():
            try:
                out.append((d, _load_result(d / RESULT_NAME)))
            except ReplayError:
                out.append((d, None))
    return out


def load(path: Path | str) -> MatchReplay:
    """Whatever the user pointed at: a match folder, a round folder, or a replay file."""
    p = Path(path)
    if not p.exists():
        raise ReplayError(f"{p}: no such file or folder")
    if p.is_file():
        if p.name == RESULT_NAME:
            p = p.parent
        else:
            return MatchReplay(p, [load_replay_file(p)])
    if not p.is_dir():
        raise ReplayError(f"{p}: neither a file nor a folder")
    result_path = p / RESULT_NAME
    if result_path.is_file():
        result = _load_result(result_path)
        rounds: list[RoundReplay] = []
        for idx, entry in enumerate(result["rounds"], start=1):
            rel = entry.get("replay") if isinstance(entry, dict) else None
            if not isinstance(rel, str):
                raise ReplayError(f"{result_path}: round {idx} names no replay file")
            file = p / rel
            if not file.is_file() and Path(str(file) + PART_SUFFIX).is_file():
                file = Path(str(file) + PART_SUFFIX)
            if not file.is_file():
                raise ReplayError(f"{result_path}: round {idx}'s replay {file} is missing")
            rounds.append(load_replay_file(file, idx, entry))
        # A round still being played (or abandoned) is in its folder but not yet in result.json.
        for n, d in _round_dirs(p):
            if n > len(rounds):
                f = _replay_in(d)
                if f is not None:
                    rounds.append(load_replay_file(f, n))
        if not rounds:
            raise ReplayError(f"{result_path}: the match has no rounds yet")
        return MatchReplay(p, rounds, result)
    own = _replay_in(p)
    if own is not None:
        return MatchReplay(p, [load_replay_file(own)])
    found = [(n, _replay_in(d)) for n, d in _round_dirs(p)]
    rounds = [load_replay_file(f, n) for n, f in found if f is not None]
    if rounds:
        return MatchReplay(p, rounds)
    raise ReplayError(
        f"{p}: not a match folder: it has no {RESULT_NAME}, no round-N/{REPLAY_NAME} "
        f"and no {REPLAY_NAME}"
    )


# ------------------------------------------------------------------- events
def event_from_dict(d: Mapping[str, Any]) -> Event:
    """The inverse of :meth:`judge.rules.Event.as_dict` (raises ValueError/KeyError if foreign)."""

    def pos(v: Any) -> tuple[int, int] | None:
        return (int(v[0]), int(v[1])) if v is not None else None

    return Event(
        kind=EventKind(d["kind"]),
        seat=d.get("seat"),
        pos=pos(d.get("pos")),
        value=int(d.get("value", 0)),
        cause=SinkCause(d["cause"]) if d.get("cause") is not None else None,
        other=pos(d.get("from")),
    )


def describe_event(d: Mapping[str, Any], names: Sequence[str]) -> str:
    """An event in words, with the rules' own wording (Event.describe)."""
    try:
        return event_from_dict(d).describe(names)
    except (KeyError, ValueError, TypeError, IndexError):
        # An event kind from a newer judge: say what we can rather than fail the view.
        return " ".join(f"{k}={v}" for k, v in d.items())
