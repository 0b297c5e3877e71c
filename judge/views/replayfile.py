"""Read saved rounds back: a match folder, a round folder or a ``replay.jsonl`` file.

Every view (terminal board, ``judge replay``, the HTML page) reads replays
through :func:`load`, so a broken file is reported once, the same way, with
the file and line that is wrong, as a :class:`ReplayError` (a ``ValueError``)
that the command turns into a message and exit status 2 -- never a traceback.

The lines are the typed records of :mod:`judge.records` (a header, then one
:class:`~judge.records.TurnRecord` per turn); this module finds the files,
reads them and says where a problem is.  It does not import the referee
(which needs the sandbox): a replay can be viewed on a machine that cannot
run bots, e.g. a projector laptop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from judge.inputfiles import excerpt, parse_json
from judge.records import MatchResult, RecordError, RoundResult
from judge.records.replay import REPLAY_SCHEMA, ReplayHeader, TurnRecord
from judge.records.replayread import (
    MAX_BYTES,
    PART_SUFFIX,
    REPLAY_NAME,
    ReplayError,
    json_why,
    located,
    read_replay,
    read_text,
    replay_in,
)

__all__ = ["MAX_BYTES", "ReplayError", "load", "load_replay_file", "matches_in"]

#: The replay schema this reader understands (the one :mod:`judge.records` writes).
SUPPORTED_SCHEMA = REPLAY_SCHEMA
RESULT_NAME = "result.json"


@dataclass
class RoundReplay:
    """One round as recorded: the header and the turn records, in order."""

    path: Path
    header: ReplayHeader
    records: list[TurnRecord]
    index: int = 1
    #: The round's result (seat order) from the match's result.json, when there is one.
    result: RoundResult | None = None
    #: True when read from ``replay.jsonl.part``: the round did not finish.
    partial: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return list(self.header.teams)

    @property
    def rows(self) -> int:
        return self.header.map.rows

    @property
    def cols(self) -> int:
        return self.header.map.cols

    @property
    def turns(self) -> int:
        """K of this round (the map's K unless ``--turns`` overrode it)."""
        return self.header.turns

    @property
    def label(self) -> str:
        return self.header.map.path or (self.result.map_label if self.result else "") or "?"

    @property
    def map_name(self) -> str:
        """The map as pages show it: its file's name, never a path of the judge's machine."""
        return Path(self.label.replace("\\", "/")).name or self.label

    @property
    def first_turn(self) -> int:
        return self.records[0].turn if self.records else 0

    @property
    def last_turn(self) -> int:
        return self.records[-1].turn if self.records else 0

    def initial(self) -> TurnRecord:
        """A turn-0 record (before placement) built from the header, for a round with no turns."""
        return TurnRecord.before_placement(self.header)

    def frames(self) -> list[TurnRecord]:
        """The records to show: the turns, or the bare map when no turn was recorded."""
        return self.records if self.records else [self.initial()]

    def record_at(self, turn: int) -> TurnRecord:
        """The record of ``turn``; a ReplayError names the turns there are."""
        for rec in self.frames():
            if rec.turn == turn:
                return rec
        raise ReplayError(
            f"round {self.index} has no turn {turn}: its turns are "
            f"{self.frames()[0].turn}..{self.frames()[-1].turn}"
        )


@dataclass
class MatchReplay:
    """What a path holds: one or more rounds between the same two teams."""

    path: Path
    rounds: list[RoundReplay]
    result: MatchResult | None = None

    @property
    def teams(self) -> list[str]:
        if self.result is not None:
            return list(self.result.teams)
        return self.rounds[0].names

    def round(self, n: int) -> RoundReplay:
        for r in self.rounds:
            if r.index == n:
                return r
        have = ", ".join(str(r.index) for r in self.rounds)
        raise ReplayError(f"{self.path} has no round {n} (rounds: {have})")


def load_replay_file(
    path: Path | str, index: int = 1, result: RoundResult | None = None
) -> RoundReplay:
    """Read and check one replay file (:func:`judge.records.replayread.read_replay`).

    A ``.part`` file (a round still being played, or cut short by a crash) may
    end in a half-written line: that line is dropped with a note instead of
    refusing the whole round.
    """
    got = read_replay(path)
    return RoundReplay(
        got.path,
        got.header,
        got.records,
        index=index,
        result=result,
        partial=got.partial,
        notes=got.notes,
    )


def _round_dirs(folder: Path) -> list[tuple[int, Path]]:
    out = []
    for d in folder.iterdir():
        m = re.fullmatch(r"round-(\d+)", d.name)
        if m and d.is_dir():
            out.append((int(m.group(1)), d))
    return sorted(out)


def load_result(path: Path) -> MatchResult:
    """A match's result.json, checked (a ReplayError names the file and the problem)."""
    text = read_text(path, "a result file")  # refused as it is, not as "not valid JSON"
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise ReplayError(f"{path}: not valid JSON ({json_why(exc)})") from None
    try:
        return MatchResult.from_json(data)
    except RecordError as exc:
        raise located(str(path), exc) from None


def matches_in(folder: Path | str) -> list[tuple[Path, MatchResult | None]]:
    """The match folders directly inside a folder (a tournament's), with their result.json.

    A match whose result.json cannot be read is listed with ``None``: a listing
    must not fail because one match is broken.
    """
    p = Path(folder)
    out: list[tuple[Path, MatchResult | None]] = []
    if not p.is_dir():
        return out
    for d in sorted(p.iterdir()):
        if d.is_dir() and (d / RESULT_NAME).is_file():
            try:
                out.append((d, load_result(d / RESULT_NAME)))
            except ReplayError:
                out.append((d, None))
    return out


def load(path: Path | str) -> MatchReplay:
    """Whatever the user pointed at: a match folder, a round folder, or a replay file.

    Any OS error on the way (a path too long, a folder it may not read) is a
    ReplayError naming the path, never a traceback."""
    try:
        return _load(Path(path))
    except OSError as exc:
        raise ReplayError(
            f"{excerpt(str(path), 200)}: cannot be read: {exc.strerror or type(exc).__name__}"
        ) from None


def _load(p: Path) -> MatchReplay:
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
        result = load_result(result_path)
        rounds: list[RoundReplay] = []
        for idx, entry in enumerate(result.rounds, start=1):
            file = p / entry.replay
            if not file.is_file() and Path(str(file) + PART_SUFFIX).is_file():
                file = Path(str(file) + PART_SUFFIX)
            if not file.is_file():
                raise ReplayError(f"{result_path}: round {idx}'s replay {file} is missing")
            rounds.append(load_replay_file(file, idx, entry))
        # A round still being played (or abandoned) is in its folder but not yet in result.json.
        for n, d in _round_dirs(p):
            if n > len(rounds):
                f = replay_in(d)
                if f is not None:
                    rounds.append(load_replay_file(f, n))
        if not rounds:
            raise ReplayError(f"{result_path}: the match has no rounds yet")
        return MatchReplay(p, rounds, result)
    own = replay_in(p)
    if own is not None:
        return MatchReplay(p, [load_replay_file(own)])
    found = [(n, replay_in(d)) for n, d in _round_dirs(p)]
    rounds = [load_replay_file(f, n) for n, f in found if f is not None]
    if rounds:
        return MatchReplay(p, rounds)
    raise ReplayError(
        f"{p}: not a match folder: it has no {RESULT_NAME}, no round-N/{REPLAY_NAME} "
        f"and no {REPLAY_NAME}"
    )
