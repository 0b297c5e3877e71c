"""What one run was seen to do: the exec helper's status record and the watch's figures.

The exec helper (``wrapper.c``, or ``pyhelper.py``) writes ``key=value`` lines to
its status pipe: ``start_ns`` as it forks the program (the run's clock starts
there), then, once every process of the run is gone, its record, ended by
``end=1``.  The record is parsed once, here, into a :class:`HelperRecord`;
everything that reads it (the watch, the verdict, the seat's reachability check,
wine's probe) reads those fields, never the text.  A :class:`RawRun` holds the
record and what the judge itself measured; :mod:`.verdicts` turns it into a
:class:`~judge.sandbox.types.RunResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


class Tail:
    """Keeps the last ``cap`` bytes of a stream and counts all of them (and, with
    ``head_cap``, keeps its first bytes too: what was written before anything else)."""

    def __init__(self, cap: int, head_cap: int = 0) -> None:
        self.cap = cap
        self.total = 0
        self._buf = bytearray()
        self.head_cap = head_cap
        self._head = bytearray()

    @property
    def head(self) -> bytes:
        """The first ``head_cap`` bytes of the stream."""
        return bytes(self._head)

    def add(self, data: bytes) -> None:
        if len(self._head) < self.head_cap:
            self._head += data[: self.head_cap - len(self._head)]
        self.total += len(data)
        if len(data) >= self.cap:
            self._buf = bytearray(data[-self.cap :])
            return
        self._buf += data
        extra = len(self._buf) - self.cap
        if extra > 0:
            del self._buf[:extra]

    @property
    def data(self) -> bytes:
        return bytes(self._buf)

    @property
    def truncated(self) -> bool:
        return self.total > len(self._buf)


@dataclass(frozen=True)
class StageFailure:
    """A step of a run's set-up that failed: the helper's own (joining the groups, the
    pipes) or the program's process's (namespaces, folder, limits, uid, the exec)."""

    stage: str  #: the helper's name for the step ("exec", "check", "setns", ...)
    errno: int  #: the error number (0: none given)
    error: str  #: the helper's words


def _int(fields: Mapping[str, str], key: str) -> int | None:
    try:
        return int(fields[key])
    except (KeyError, ValueError):
        return None


def _failure(fields: Mapping[str, str], prefix: str) -> StageFailure | None:
    stage = fields.get(f"{prefix}_stage")
    if stage is None:
        return None
    return StageFailure(
        stage, _int(fields, f"{prefix}_errno") or 0, fields.get(f"{prefix}_error", "")
    )


@dataclass(frozen=True)
class HelperRecord:
    """The exec helper's status record, parsed once (:meth:`parse`)."""

    #: raw wait status of the program's main process (None: it never ran)
    main_status: int | None = None
    #: CLOCK_MONOTONIC ns: the fork, the main process's exit, the last process reaped
    start_ns: int | None = None
    main_end_ns: int | None = None
    end_ns: int | None = None
    #: the main process exited by itself before the helper killed anything
    main_before_kill: bool = False
    #: user + system CPU of the whole tree, by the helper's rusage (None: not given)
    cpu_s: float | None = None
    #: the largest resident set of any process of the tree (0: not given)
    maxrss_bytes: int = 0
    #: the helper's own set-up failed (the program never ran)
    setup: StageFailure | None = None
    #: the program's process could not be prepared, or its exec failed
    child: StageFailure | None = None

    @classmethod
    def parse(cls, data: bytes) -> HelperRecord | None:
        """The record in the status pipe's bytes (None: none, or not complete)."""
        fields: dict[str, str] = {}
        for line in data.decode("utf-8", "replace").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                fields[key] = value
        return cls.of(fields) if fields.get("end") == "1" else None

    @classmethod
    def of(cls, fields: Mapping[str, str]) -> HelperRecord:
        """The record from its ``key=value`` fields (a later key wins, as in the pipe)."""
        status = _int(fields, "main_status")
        utime, stime = _int(fields, "utime_us"), _int(fields, "stime_us")
        return cls(
            main_status=None if status is None or status < 0 else status,
            start_ns=_int(fields, "start_ns"),
            main_end_ns=_int(fields, "main_end_ns"),
            end_ns=_int(fields, "end_ns"),
            main_before_kill=fields.get("main_before_kill") == "1",
            cpu_s=None if utime is None or stime is None else (utime + stime) / 1e6,
            maxrss_bytes=(_int(fields, "maxrss_kb") or 0) * 1024,
            setup=_failure(fields, "setup"),
            child=_failure(fields, "child"),
        )

    @property
    def wall_s(self) -> float | None:
        """The run's wall time by the helper's clock: from the fork to the last process
        reaped (None: not given)."""
        start, end = self.start_ns, self.end_ns
        if start is None or end is None or not end >= start > 0:
            return None
        return (end - start) / 1e9

    @property
    def main_exit_s(self) -> float | None:
        """Seconds from the program's start to its main process's exit, when it exited by
        itself before any kill (None otherwise)."""
        start, end = self.start_ns, self.main_end_ns
        if not self.main_before_kill or start is None or end is None or end <= 0:
            return None
        return (end - start) / 1e9


@dataclass
class RawRun:
    """What was observed; :mod:`judge.sandbox.verdicts` turns it into a RunResult."""

    record: HelperRecord | None
    helper_status: int | None
    wall_s: float
    cpu_s: float
    stdout: Tail
    stderr: Tail
    timed_out: bool = False
    mem_killed: bool = False  # killed by the judge because polled memory went over
    polled_peak: int = 0
    cg_peak: int | None = None
    cg_oom_kills: int = 0
    cg_failcnt: int = 0
    pids_refused: int = 0
    procs_at_kill: int | None = None  # the program's processes+threads when it was killed
    internal_error: str | None = None
    survivors: list[int] = field(default_factory=list)
    #: seconds the run was runnable but kept off its core by something else (None: not measured)
    wait_s: float | None = None
    #: seconds some process of the run was stalled on I/O (its group's PSI; None: not read)
    io_stall_s: float | None = None
    wait_source: str = ""
    #: still running at the limit, and given its waiting back as extra time
    extended: bool = False
    #: killed at the extension cap having had less than its limit to itself
    starved: bool = False
    #: CPU the run's services (the seat's wineserver) spent during it (None: none watched)
    service_cpu_s: float | None = None

    @property
    def main_status(self) -> int | None:
        """Raw wait status of the program's main process (None: it never ran)."""
        return self.record.main_status if self.record is not None else None

    @property
    def main_exit_s(self) -> float | None:
        """Seconds from the program's start to its main process's exit, when it exited by
        itself before any kill (None otherwise)."""
        return self.record.main_exit_s if self.record is not None else None
