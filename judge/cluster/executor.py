"""The judge's side of a cluster run: :class:`DaskExecutor`, the scheduler's Executor on Dask.

It takes the same :class:`~judge.scheduler.RoundTask` values as
:class:`~judge.scheduler.ThreadExecutor` and reports each as a
:class:`~judge.scheduler.RoundDone`, in the calling thread, as it ends.

Why it is built this way:

* **Bundles once per worker.**  Each bot's files are published on the cluster
  once, by hash (two bots with the same files: one bundle); a round carries
  only the hash, and a worker fetches a bundle the first time it needs it and
  keeps it (:mod:`.worker`).  A bundle lost with the worker that held it is
  published again when a round says it is missing (and no worker holds it),
  and that round resubmitted (a few times at most: then it is a failure).
* **Only the judge writes.**  A round's files come back with its record; they
  are written into the round's folder here, before ``on_done`` (which commits
  the ledger), so a round in the ledger always has its files.
* **Nothing counted twice.**  A worker killed mid-round: Dask plays the task
  again on another worker (its own rescheduling of a lost task, not
  ``retries``, which would replay a round that *failed*: a failure is
  reported).  Whatever Dask does, each task key is reported at most once
  (``_reported``), and the tournament's ledger refuses a second row for a
  round anyway.
* **A bounded window.**  At most ``jobs`` rounds (default: the cluster's
  threads, looked at as workers come and go) are submitted at once, so a stop
  cancels little and a worker that joins gets work at once.
* **Stopping** sets a Dask Event the rounds in flight look at every second
  (they stop before their next turn, as locally) and cancels the rest; each is
  reported STOPPED.
* **The scheduler lost** is a :class:`~judge.cluster.ClusterError` (exit 3):
  the rounds already reported are kept by the caller.
"""

from __future__ import annotations

import itertools
import pickle
import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from typing import Any

from distributed import Client, Event, Future, KilledWorker

from judge.bots import BotError, BotSpec
from judge.cluster import ClusterError, judge_code
from judge.cluster.bundles import BotRef, Bundle, make_bundle, unpack_folder
from judge.cluster.worker import (
    RemoteDone,
    RemoteRound,
    dataset_name,
    play_remote,
    stop_event_name,
)
from judge.records import Json
from judge.scheduler import POLL_S, RoundDone, RoundStatus, RoundTask, keep_evidence

#: How long the count of workers' threads is trusted before asking the scheduler again.
CAPACITY_TTL_S = 2.0
#: How many times a round is resubmitted because its worker could not fetch a bundle.
MAX_REFETCHES = 5


@dataclass
class Traffic:
    """Bytes that crossed between the judge and the cluster (measured by serialising them)."""

    rounds: int = 0  #: rounds submitted (resubmissions included)
    task_bytes: int = 0  #: the rounds as sent (pickled RemoteRound)
    result_bytes: int = 0  #: the rounds' files as they came back (gzip'd tar)
    bundles_published: int = 0  #: bundles sent to the cluster (republished ones included)
    bundle_bytes: int = 0  #: their bytes
    fetched_bytes: int = 0  #: bundle bytes the workers fetched (each worker, each bundle once)
    fetches: int = 0  #: rounds that had to fetch a bundle first
    per_hash: dict[str, int] = field(default_factory=dict)  #: bundle hash -> times published

    def as_dict(self) -> Json:
        return {k: v for k, v in self.__dict__.items() if k != "per_hash"}


class DaskExecutor:
    """Rounds on the Dask cluster of ``client``; an :class:`~judge.scheduler.Executor`."""

    def __init__(
        self,
        client: Client,
        jobs: int | None = None,
        require_full: bool = False,
        poll_s: float = POLL_S,
    ):
        if jobs is not None and jobs < 1:
            raise ValueError(f"jobs must be at least 1, not {jobs}")
        self.client, self.jobs, self.require_full, self.poll_s = client, jobs, require_full, poll_s
        self.run = uuid.uuid4().hex[:16]
        self.address = str(client.scheduler.address) if client.scheduler is not None else "?"
        self.traffic = Traffic()
        self._refs: dict[tuple[Any, ...], BotRef] = {}
        self._bundles: dict[str, Bundle] = {}
        self._published: dict[str, Future[Any]] = {}
        self._reported: set[str] = set()
        self._refetches: dict[str, int] = {}  # round key -> times its bundle could not be fetched
        self._seq = itertools.count()
        self._threads = (0.0, 0)
        self._lock = threading.Lock()

    # ------------------------------------------------------------ capacity
    def threads(self) -> int:
        """The cluster's worker threads now (asked at most every CAPACITY_TTL_S)."""
        when, n = self._threads
        if time.monotonic() - when > CAPACITY_TTL_S:
            try:
                n = sum(self.client.nthreads().values())
            except Exception:  # noqa: BLE001 - the scheduler is away: keep the last count
                return n
            self._threads = (time.monotonic(), n)
        return n

    def workers(self) -> int:
        try:
            return len(self.client.nthreads())
        except Exception:  # noqa: BLE001 - shown in a progress bar only
            return 0

    def capacity(self) -> int:
        """Rounds submitted at once: ``jobs``, else one per worker thread (at least one)."""
        return self.jobs if self.jobs is not None else max(1, self.threads())

    # ------------------------------------------------------------- bundles
    def ref(self, bot: BotSpec) -> BotRef:
        """The bot's reference; its bundle is made and published the first time it is seen."""
        key = (bot.name, bot.source, bot.program_dir, bot.command, bot.digest, bot.home)
        ref = self._refs.get(key)
        if ref is None:
            ref, bundle = make_bundle(bot)
            if bundle is not None and bundle.digest not in self._bundles:
                self._bundles[bundle.digest] = bundle
                self._publish(bundle.digest)
            self._refs[key] = ref
        return ref

    def _publish(self, digest: str, again: bool = False) -> None:
        """Put a bundle on the cluster under its hash (``again``: it was lost, replace it)."""
        bundle = self._bundles[digest]
        old = self._published.pop(digest, None)
        if old is not None:
            old.release()
        try:
            future = self.client.scatter(bundle.data, hash=False)
            try:
                self.client.publish_dataset(future, name=dataset_name(digest), override=again)
            except KeyError:  # another judge published the same files: theirs serve as well
                future.release()
                return
        except (OSError, CancelledError, TimeoutError) as exc:  # Dask's comms gave up
            raise self._lost(exc) from None
        self._published[digest] = future
        self.traffic.bundles_published += 1
        self.traffic.bundle_bytes += len(bundle.data)
        self.traffic.per_hash[digest] = self.traffic.per_hash.get(digest, 0) + 1

    def close(self) -> None:
        """Take this run's bundles off the cluster (workers keep the ones they unpacked)."""
        for digest, future in list(self._published.items()):
            try:
                self.client.unpublish_dataset(dataset_name(digest))
            except Exception:  # noqa: BLE001, S110 - already gone with the scheduler
                pass
            future.release()
        self._published.clear()

    # -------------------------------------------------------------- rounds
    def _job(self, task: RoundTask) -> RemoteRound:
        refs = (self.ref(task.bots[0]), self.ref(task.bots[1]))
        return RemoteRound(task, refs, self.run, self.require_full, judge_code())

    def _submit(
        self, job: RemoteRound, ended: queue.SimpleQueue[Future[RemoteDone]]
    ) -> Future[RemoteDone]:
        """Submit a round; when it ends (in a client thread) it is put on ``ended``."""
        key = f"ocean-round-{self.run}-{next(self._seq)}"
        self.traffic.rounds += 1
        self.traffic.task_bytes += len(pickle.dumps(job))
        try:
            fut = self.client.submit(play_remote, job, key=key, pure=False, retries=0)
        except (OSError, CancelledError, TimeoutError) as exc:  # Dask's comms gave up
            raise self._lost(exc) from None
        fut.add_done_callback(ended.put)
        return fut

    def _lost(self, exc: BaseException) -> ClusterError:
        return ClusterError(
            f"lost contact with the Dask cluster at {self.address} ({type(exc).__name__}: "
            f"{exc}); the rounds already finished are kept: start the scheduler and workers "
            "again if they stopped, then run the same command with --resume",
            3,
        )

    def play(
        self,
        tasks: Iterable[RoundTask],
        stop: threading.Event,
        on_done: Callable[[RoundDone], None],
    ) -> None:
        """Play ``tasks`` on the cluster, at most :meth:`capacity` at once (see the module)."""
        pending = iter(tasks)
        in_flight: dict[Future[RemoteDone], RemoteRound] = {}
        ended: queue.SimpleQueue[Future[RemoteDone]] = queue.SimpleQueue()
        try:
            while True:
                while len(in_flight) < self.capacity() and not stop.is_set():
                    task = next(pending, None)
                    if task is None:
                        break
                    try:
                        job = self._job(task)
                    except BotError as exc:  # a bot that cannot be shipped (too large)
                        self._reported.add(task.key)
                        on_done(RoundDone(task, RoundStatus.FAILED, error=str(exc), exit_code=2))
                        continue
                    in_flight[self._submit(job, ended)] = job
                if not in_flight:
                    return
                if stop.is_set():
                    self._halt(in_flight, on_done)
                    return
                try:
                    fut = ended.get(timeout=self.poll_s)
                except queue.Empty:
                    self._check_connected()
                    continue
                job_ = in_flight.pop(fut, None)
                if job_ is None:  # cancelled here already
                    continue
                done = self._receive(fut, job_)
                if done is None:  # its bundle was lost: published again, resubmitted
                    in_flight[self._submit(job_, ended)] = job_
                else:
                    if done.task.key not in self._reported:
                        self._reported.add(done.task.key)
                        on_done(keep_evidence(done))
        except BaseException:
            self._halt(in_flight, None)
            raise

    def _receive(self, fut: Future[RemoteDone], job: RemoteRound) -> RoundDone | None:
        """A finished future as a RoundDone (its files written); None to resubmit it."""
        task = job.task
        try:
            if fut.status == "finished":
                try:
                    remote: RemoteDone = fut.result()
                except (OSError, CancelledError, TimeoutError) as exc:  # gone with the scheduler
                    self._check_connected(reconnecting=False)
                    raise self._lost(exc) from None
                if remote.missing is not None:
                    return self._missing(job, remote)
                self.traffic.result_bytes += len(remote.files)
                if remote.fetched:
                    self.traffic.fetched_bytes += remote.fetched
                    self.traffic.fetches += 1
                if remote.files:
                    try:
                        unpack_folder(remote.files, task.out_dir)
                    except Exception as exc:  # noqa: BLE001 - a disk problem here: say which
                        return RoundDone(
                            task,
                            RoundStatus.FAILED,
                            error=f"cannot write the round's files into {task.out_dir}: {exc}",
                            exit_code=3,
                        )
                return remote.done
            if fut.status == "error":
                error = fut.exception()
                if isinstance(error, KilledWorker):
                    why = (
                        "the workers playing it died again and again, so Dask gave up on it "
                        f"(KilledWorker: {error}); look at the workers' logs"
                    )
                else:
                    why = f"it failed on its worker: {type(error).__name__}: {error}"
                return RoundDone(
                    task, RoundStatus.FAILED, error=why, exit_code=3, trace=_remote_trace(fut)
                )
            # Cancelled: the client gave up on the scheduler (or someone cancelled it there).
            self._check_connected(reconnecting=False)
            raise ClusterError(
                f"the cluster dropped round {task.key} ({fut.status}); "
                "finished rounds are kept: run the same command with --resume",
                3,
            )
        finally:
            fut.release()

    def _missing(self, job: RemoteRound, remote: RemoteDone) -> RoundDone | None:
        """A round whose worker could not fetch a bundle: publish it again if it is lost
        (its worker died), and have the round resubmitted (None), a few times at most."""
        digest = remote.missing
        assert digest is not None
        tries = self._refetches[job.task.key] = self._refetches.get(job.task.key, 0) + 1
        if tries > MAX_REFETCHES:
            return RoundDone(
                job.task,
                RoundStatus.FAILED,
                error=(
                    f"worker {remote.done.worker} could not fetch bundle {digest[:12]} "
                    f"(the files of {self._bot_of(job, digest)}) {MAX_REFETCHES} times: "
                    "look at the workers' logs and their network"
                ),
                exit_code=3,
                worker=remote.done.worker,
            )
        if not self._available(digest):
            self._publish(digest, again=True)
        return None

    def _available(self, digest: str) -> bool:
        """Whether a bundle is published and some worker holds its data (else: lost).

        Lost, the judge's client already knows it (the scheduler told it the
        data was forgotten): the published future comes back cancelled.
        """
        try:
            future = self.client.get_dataset(dataset_name(digest), default=None)
        except (OSError, TimeoutError) as exc:  # Dask's comms gave up
            raise self._lost(exc) from None
        if future is None:
            return False
        try:
            if future.status != "finished":
                return False
            return bool(self.client.who_has([future]).get(future.key))
        except CancelledError:  # forgotten meanwhile
            return False
        except (OSError, TimeoutError) as exc:
            raise self._lost(exc) from None
        finally:
            future.release()

    @staticmethod
    def _bot_of(job: RemoteRound, digest: str) -> str:
        return " and ".join(sorted({r.spec.name for r in job.refs if r.bundle == digest}))

    def _check_connected(self, reconnecting: bool = True) -> None:
        """Raise ClusterError when the scheduler is gone (``reconnecting``: still trying is fine)."""
        ok = ("running", "connecting", "newly-created") if reconnecting else ("running",)
        if self.client.status not in ok:
            raise ClusterError(
                f"lost the Dask scheduler at {self.address} ({self.client.status}); the rounds "
                "already finished are kept: start the scheduler and workers again, then run "
                "the same command with --resume",
                3,
            )

    def _halt(
        self,
        in_flight: dict[Future[RemoteDone], RemoteRound],
        on_done: Callable[[RoundDone], None] | None,
    ) -> None:
        """Stop the rounds in flight (they stop before their next turn) and drop the others."""
        try:
            Event(stop_event_name(self.run), client=self.client).set()
        except Exception:  # noqa: BLE001, S110 - no scheduler: its rounds are gone with it
            pass
        for fut, job in list(in_flight.items()):
            fut.cancel()
            del in_flight[fut]
            if on_done is not None and job.task.key not in self._reported:
                self._reported.add(job.task.key)
                on_done(RoundDone(job.task, RoundStatus.STOPPED))


def _remote_trace(fut: Future[RemoteDone]) -> str | None:
    """The traceback of a task that raised on its worker, as text (None if Dask has none)."""
    try:
        tb = fut.traceback()
    except Exception:  # noqa: BLE001 - no traceback to keep
        return None
    return "".join(traceback.format_tb(tb)) if tb is not None else None
