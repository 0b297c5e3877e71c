"""What every record shares: its error, field checks, and events read back from JSON."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from judge.errors import JudgeError
from judge.inputfiles import excerpt
from judge.rules import Event, EventKind, Pos, SinkCause

_CELL = re.compile(r"^(?:\d+|D|W|S)$")

#: A JSON object as a file holds it (or YAML, read the same way).  The one untyped shape:
#: used only where a file is read or written (``to_json``/``from_json``, a configuration
#: file's document, a page's embedded data); everything between layers is a typed record.
Json = dict[str, Any]


class RecordError(JudgeError, ValueError):
    """A file object that is not the record it should be; the message names the field.

    ``part`` names the part of the object the problem is in (e.g. ``header
    map``), for readers that prefix the file and line.
    """

    def __init__(self, message: str, part: str | None = None):
        super().__init__(message)
        self.part = part


# ------------------------------------------------------------------ checks
def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int_or(value: Any, default: int) -> int:
    return value if is_int(value) else default


def is_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2


def pos_json(p: Pos | None) -> list[int] | None:
    return list(p) if p is not None else None


def read_pos(what: str, p: Any, size: tuple[int, int] | None = None) -> Pos | None:
    """``null`` or ``[row, col]`` (inside ``size`` when given)."""
    if p is None:
        return None
    if not (is_pair(p) and is_int(p[0]) and is_int(p[1])):
        raise RecordError(f"{what} must be null or [row, col], not {excerpt(p)}")
    if size is not None and not (1 <= p[0] <= size[0] and 1 <= p[1] <= size[1]):
        raise RecordError(f"{what} {p} is outside the {size[0]}x{size[1]} map")
    return (p[0], p[1])


def read_grid(grid: Any, rows: int, cols: int, part: str | None = None) -> tuple[str, ...]:
    """Rows of space-separated cell tokens, as replays write the sea."""
    if not isinstance(grid, list) or len(grid) != rows:
        raise RecordError(f"'grid' must be a list of {rows} rows", part)
    for i, row in enumerate(grid, start=1):
        if not isinstance(row, str):
            raise RecordError(f"grid row {i} must be a string of cells", part)
        toks = row.split()
        if len(toks) != cols:
            raise RecordError(f"grid row {i} has {len(toks)} cells, expected {cols}", part)
        for j, tok in enumerate(toks, start=1):
            if not _CELL.match(tok):
                raise RecordError(f"cell ({i},{j}) is {excerpt(tok)}: not a number, D or S", part)
    return tuple(grid)


def pair_of(d: Mapping[str, Any], key: str) -> list[Any]:
    """``d[key]`` as a list of 2 (``[None, None]`` when absent)."""
    if key not in d:
        return [None, None]
    value = d[key]
    if not is_pair(value):
        raise RecordError(f"{key!r} must be a list of 2")
    return list(value)


def read_number(what: str, v: Any) -> float | None:
    if v is None:
        return None
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise RecordError(f"{what} must be a number or null, not {excerpt(v)}")
    return v


def read_text(what: str, v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise RecordError(f"{what} must be text or null, not {excerpt(v)}")
    return v


# ------------------------------------------------------------------ events
@dataclass(frozen=True)
class ForeignEvent:
    """An event this judge does not know (from a newer one): kept and shown as its fields."""

    data: Mapping[str, Any]

    def as_dict(self) -> Json:
        return dict(self.data)

    def describe(self, names: Sequence[str] = ("A", "B")) -> str:
        return " ".join(f"{k}={v}" for k, v in self.data.items())


AnyEvent = Event | ForeignEvent


def event_from_json(d: Mapping[str, Any]) -> AnyEvent:
    """The inverse of :meth:`judge.rules.Event.as_dict`; a :class:`ForeignEvent` if not ours."""

    def pos(v: Any) -> Pos | None:
        return (int(v[0]), int(v[1])) if v is not None else None

    try:
        return Event(
            kind=EventKind(d["kind"]),
            seat=d.get("seat"),
            pos=pos(d.get("pos")),
            value=int(d.get("value", 0)),
            cause=SinkCause(d["cause"]) if d.get("cause") is not None else None,
            other=pos(d.get("from")),
        )
    except (KeyError, ValueError, TypeError, IndexError):
        return ForeignEvent(dict(d))


def read_events(value: Any) -> tuple[AnyEvent, ...]:
    if not isinstance(value, list) or not all(
        isinstance(e, dict) and isinstance(e.get("kind"), str) for e in value
    ):
        raise RecordError("'events' must be a list of objects with a 'kind'")
    return tuple(event_from_json(e) for e in value)


class JsonObject:
    """A JSON object being read: typed getters that name the bad field in their error.

    The records' ``from_json`` read through it, so that a damaged file is a
    :class:`RecordError` naming the field (``eval.json.pairs.elo must be a
    number, not 'x'``), never a ``KeyError`` or ``TypeError``.
    """

    def __init__(self, value: Any, where: str):
        if not isinstance(value, dict):
            raise RecordError(f"{where} must be an object, not {excerpt(value)}")
        self.d: Mapping[str, Any] = value
        self.where = where

    def fail(self, key: str, what: str) -> RecordError:
        """The error for a bad field, naming it (``eval.pairs.elo must be a number, not 'x'``)."""
        return RecordError(f"{self.where}.{key} must be {what}, not {excerpt(self.d.get(key))}")

    def has(self, key: str) -> bool:
        return key in self.d

    def whole(self, key: str) -> int:
        v = self.d.get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.fail(key, "a whole number")
        return v

    def whole_or_none(self, key: str) -> int | None:
        return None if self.d.get(key) is None else self.whole(key)

    def num(self, key: str) -> float:
        v = self.d.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(key, "a number")
        return v

    def num_or_none(self, key: str) -> float | None:
        return None if self.d.get(key) is None else self.num(key)

    def text(self, key: str) -> str:
        v = self.d.get(key)
        if not isinstance(v, str):
            raise self.fail(key, "text")
        return v

    def text_or_none(self, key: str) -> str | None:
        return None if self.d.get(key) is None else self.text(key)

    def obj(self, key: str) -> JsonObject:
        return JsonObject(self.d.get(key), f"{self.where}.{key}")

    def objs(self, key: str) -> list[JsonObject]:
        v = self.d.get(key)
        if not isinstance(v, list):
            raise self.fail(key, "a list")
        return [JsonObject(x, f"{self.where}.{key}[{i}]") for i, x in enumerate(v)]

    def counts(self, key: str) -> dict[str, int]:
        v = self.d.get(key)
        if not isinstance(v, dict) or not all(is_int(n) for n in v.values()):
            raise self.fail(key, "an object of counts")
        return {str(k): int(n) for k, n in v.items()}

    def pair(self, key: str, kind: str = "num") -> tuple[Any, Any]:
        v = self.d.get(key)
        ok = int if kind == "int" else (int, float)
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, ok) for x in v)):
            raise self.fail(key, "a list of 2 numbers")
        return (v[0], v[1])


_Row = TypeVar("_Row")


def read_rows(
    read: Callable[[Any, str], _Row], rows: Sequence[Any], where: str
) -> tuple[_Row, ...]:
    """Each of a file's rows read with ``read``, an error naming its place (``where[2]``)."""
    return tuple(read(r, f"{where}[{i}]") for i, r in enumerate(rows))
