"""One scheduler for rounds: plain-data tasks in, typed records out.

``judge eval`` and ``judge tournament`` both play many rounds at once; both do
it here.  A :class:`RoundTask` is plain data (a map, two bot specs, limits,
where to write), so it can be sent to another process or machine; what comes
back is a :class:`RoundDone` holding the round's
:class:`~judge.records.RoundResult`, or why there is none.

An :class:`Executor` plays an iterable of tasks ``jobs`` at a time and calls
``on_done`` in the caller's thread as each round ends, in the order they end.
:class:`ThreadExecutor` is the local one (threads sharing one sandbox: bots
run as separate processes, so threads only wait); a cluster executor
(judge/cluster) implements the same :meth:`Executor.play` with one sandbox per
worker and :func:`play_task` on each.

Stopping is cooperative and needs no wrapper around the sandbox: once
``stop`` is set no new task starts, and each round in flight sees it before
its next turn (:func:`judge.referee.play_round` checks it) and comes back
:attr:`RoundStatus.STOPPED`.  Every task that was started is reported exactly
once.  An exception in the caller (a second Ctrl-C) sets ``stop`` too and
waits for the rounds in flight, which end at their next turn.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from judge import __version__
from judge.atomic import write_bytes
from judge.bots import BotSpec
from judge.errors import JudgeError
from judge.records import RoundResult
from judge.referee import RoundAborted, RoundConfig, RoundStopped, play_round
from judge.sandbox import ProgramUnreachable, Sandbox

#: How often the calling thread wakes up to look at ``stop`` while rounds are in flight.
POLL_S = 0.2


@dataclass(frozen=True)
class RoundTask:
    """One round to play, as plain data: what decides it, who plays, where it is written."""

    key: str  # unique among the tasks of one run: how the caller knows the round again
    config: RoundConfig
    bots: tuple[BotSpec, BotSpec]  # seat 0, seat 1
    names: tuple[str, str]
    out_dir: Path  # the round's folder (replay.jsonl, logs)
    replay_rel: str  # the replay's path as result.json names it
    folders: tuple[str, str] | None = None  # the teams' folder forms (default: from the names)


class RoundStatus(str, enum.Enum):
    """How a task ended."""

    PLAYED = "played"  #: the round ended; ``result`` holds it
    ABORTED = "aborted"  #: the judge could not run a program (never the bots' fault)
    STOPPED = "stopped"  #: ``stop`` was set before the round ended (nothing to record)
    FAILED = "failed"  #: the round could not be played at all (e.g. a program its seat cannot run)
    #: not played: the worker it went to isolates bots less than the run requires (no bot ran)
    REFUSED = "refused"


@dataclass(frozen=True)
class RoundDone:
    """A task and what came of it (a typed record, or why there is none)."""

    task: RoundTask
    status: RoundStatus
    result: RoundResult | None = None
    error: str | None = None
    #: for ABORTED, FAILED and REFUSED: the exit status the command gives (2: an input, 3: the judge)
    exit_code: int = 0
    #: the cluster worker that played (or refused) it; None = this machine
    worker: str | None = None
    #: the sandbox protections in force where it was played (``Isolation.as_dict()``)
    isolation: Mapping[str, Any] | None = None
    #: for an unexpected failure: its whole traceback, kept (see :func:`keep_evidence`)
    trace: str | None = None


#: A round's unexpected failure is written beside its folder (``internal-error-round-N.log``
#: in the match folder): a resumed tournament clears the round's own folder to play it again.
INTERNAL_ERROR_LOG = "internal-error-{round}.log"


def keep_evidence(done: RoundDone) -> RoundDone:
    """A failure with a traceback: the traceback written to ``internal-error-round-N.log``
    beside the round's folder (with the worker that played it), and the message pointing
    at it.

    Called by every executor before it reports the round, on the judge's machine,
    so the evidence of a bug is never lost with a worker or a one-line message.
    """
    if done.trace is None:
        return done
    path = done.task.out_dir.parent / INTERNAL_ERROR_LOG.format(round=done.task.out_dir.name)
    where = f"worker {done.worker}" if done.worker else "this machine"
    text = (
        f"judge {__version__}, round {done.task.key}, played on {where}\n"
        f"{done.error}\n\n{done.trace}"
    )
    try:
        write_bytes(path, text.encode("utf-8", "replace"))
    except OSError as exc:
        return dataclasses.replace(
            done, error=f"{done.error} (its traceback could not be written to {path}: {exc})"
        )
    return dataclasses.replace(done, error=f"{done.error} (the traceback is in {path})")


@dataclass
class Venue:
    """Where one run's rounds are played, opened: an executor and what to say about it.

    Locally it is this machine's sandbox with threads; on a cluster
    (:mod:`judge.cluster`) the workers' sandboxes, and ``sandbox`` is None: no
    bot runs on the judge's machine.
    """

    executor: Executor
    #: the protections in force, described (one per worker on a cluster)
    isolation: str
    #: this machine's sandbox when rounds are played here (to check the programs first)
    sandbox: Sandbox | None = None
    #: what plays the rounds now, for a progress bar ("2 rounds at a time", "3 workers")
    status: Callable[[], str] = lambda: ""
    #: protections off where the rounds are played (a cluster: its workers', when allowed)
    protections_off: tuple[str, ...] = ()
    #: how many programs run at once and on which cores (this machine's core budget)
    programs: str = ""
    #: the cluster's address or local:N; None = this machine
    cluster: str | None = None


class Executor(Protocol):
    """Plays round tasks; a local thread pool here, a cluster elsewhere."""

    def play(
        self,
        tasks: Iterable[RoundTask],
        stop: threading.Event,
        on_done: Callable[[RoundDone], None],
    ) -> None:
        """Play ``tasks`` (taken lazily, in order) until done or ``stop`` is set.

        ``on_done`` is called in the calling thread once per started task, as
        each ends; it may set ``stop``.
        """
        ...


def play_task(
    task: RoundTask,
    sandbox: Sandbox,
    stop: threading.Event | None = None,
    worker: str | None = None,
) -> RoundDone:
    """Play one task on ``sandbox``; never raises for a round that goes wrong (it says so).

    ``worker`` names the cluster worker playing it (None: this machine); it is
    recorded in the replay's header and, with the sandbox's isolation, in the
    :class:`RoundDone`.
    """
    done = _play(task, sandbox, stop, worker)
    return dataclasses.replace(done, worker=worker, isolation=sandbox.isolation.as_dict())


def _play(
    task: RoundTask, sandbox: Sandbox, stop: threading.Event | None, worker: str | None
) -> RoundDone:
    try:
        result = play_round(
            task.config,
            task.bots,
            task.names,
            sandbox,
            task.out_dir,
            replay_rel=task.replay_rel,
            folders=task.folders,
            stop=stop,
            worker=worker,
        )
    except RoundStopped:
        return RoundDone(task, RoundStatus.STOPPED)
    except RoundAborted as exc:
        return RoundDone(task, RoundStatus.ABORTED, error=str(exc), exit_code=exc.exit_code)
    except JudgeError as exc:  # a bad input: a map without room to start on, a bot
        return RoundDone(task, RoundStatus.FAILED, error=str(exc), exit_code=exc.exit_code)
    except ProgramUnreachable as exc:  # the sandbox's own error (it imports nothing of ours)
        return RoundDone(task, RoundStatus.FAILED, error=str(exc), exit_code=2)
    except Exception as exc:  # noqa: BLE001 - reported with its traceback; the caller stops
        return RoundDone(
            task,
            RoundStatus.FAILED,
            error=f"an internal error of the judge: {type(exc).__name__}: {exc}",
            exit_code=3,
            trace=traceback.format_exc(),
        )
    return RoundDone(task, RoundStatus.PLAYED, result=result)


class ThreadExecutor:
    """Rounds in threads of this process, ``jobs`` at a time, sharing one sandbox."""

    def __init__(self, sandbox: Sandbox, jobs: int, poll_s: float = POLL_S):
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, not {jobs}")
        self.sandbox, self.jobs, self.poll_s = sandbox, jobs, poll_s

    def play(
        self,
        tasks: Iterable[RoundTask],
        stop: threading.Event,
        on_done: Callable[[RoundDone], None],
    ) -> None:
        pending = iter(tasks)
        in_flight: dict[Future[RoundDone], RoundTask] = {}
        with ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="round") as pool:
            try:
                while True:
                    while len(in_flight) < self.jobs and not stop.is_set():
                        task = next(pending, None)
                        if task is None:
                            break
                        in_flight[pool.submit(play_task, task, self.sandbox, stop)] = task
                    if not in_flight:
                        return
                    finished, _ = wait(list(in_flight), self.poll_s, FIRST_COMPLETED)
                    for fut in finished:
                        del in_flight[fut]
                        on_done(keep_evidence(fut.result()))
            except BaseException:
                stop.set()  # the rounds in flight end at their next turn; the pool waits for them
                for fut in in_flight:
                    fut.cancel()
                raise
