"""What runs on a Dask worker: its sandbox, its bundles, and one round at a time per thread.

The judge registers :class:`JudgePlugin` on the cluster; each worker process
then opens one :class:`~judge.sandbox.Sandbox` of its own (so the isolation
of a round is that of the worker that played it) and keeps the bots' bundles
it has unpacked and built, by hash, in its local folder.

A round comes as a :class:`RemoteRound` (plain data: the scheduler's
:class:`~judge.scheduler.RoundTask`, the bots' references, the run's id and
whether it requires full isolation) and goes back as a :class:`RemoteDone`:
the :class:`~judge.scheduler.RoundDone` and the round's folder (replay, logs)
as one archive.  The worker writes nothing the judge keeps: the round is
played in a scratch folder that is removed once packed.

A bundle the worker lacks is fetched once from the cluster (published there
by the judge under its hash, :func:`dataset_name`); if it is gone (the worker
holding it died) the round comes back with ``missing`` set and the judge
publishes it again.  The judge's stop reaches a round through a Dask
:class:`~distributed.Event` looked at every second: the round stops before its
next turn, as it does locally.
"""

from __future__ import annotations

import dataclasses
import shutil
import socket
import tempfile
import threading
import time
import traceback
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import Event, WorkerPlugin, get_client, get_worker
from distributed.comm.core import CommClosedError

from judge import __version__
from judge.bots import BotError, BotSpec
from judge.cluster import judge_code
from judge.cluster.bundles import BotRef, pack_folder, prepare, unpack
from judge.isolation import is_root, refusal, short_of
from judge.isolation import protections_off as off_in
from judge.records import Json
from judge.scheduler import RoundDone, RoundStatus, RoundTask, play_task

PLUGIN_NAME = "ocean-judge"
#: How often a round in flight looks at the judge's stop event (seconds).
STOP_POLL_S = 1.0
#: While a bundle is fetched: how often the worker asks who holds it, and when it gives up.
FETCH_CHECK_S = 2.0
FETCH_TIMEOUT_S = 600.0
#: How often a worker looks whether the scheduler has said a bundle's data is there.
FETCH_POLL_S = 0.05


def dataset_name(digest: str) -> str:
    """The name a bundle is published under on the cluster (never a task's argument)."""
    return f"ocean-bundle-{digest}"


def stop_event_name(run: str) -> str:
    return f"ocean-stop-{run}"


@dataclass(frozen=True)
class RemoteRound:
    """A round as a worker gets it."""

    task: RoundTask  # as the judge made it (its paths are the judge machine's)
    refs: tuple[BotRef, BotRef]
    run: str  # the judge run's id: its stop event
    require_full: bool  # refuse to play unless every sandbox protection is on here
    judge: str = ""  # the judge's version and code hash (judge_code()): a worker's must match


@dataclass(frozen=True)
class RemoteDone:
    """A round as it comes back: the record, the round's files, what the worker had to fetch."""

    done: RoundDone
    files: bytes = b""  # the round's folder as a gzip'd tar (pack_folder)
    fetched: int = 0  # bundle bytes this round fetched from the cluster
    missing: str | None = None  # a bundle hash the worker could not fetch: publish it again


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker says about itself when the judge connects (shown in the header)."""

    address: str
    host: str
    version: str
    threads: int
    isolation: Json | None
    error: str | None  # why it has no sandbox
    #: how messages and replays name it: its address, its Dask name (``--name``) and host
    label: str = ""
    #: whether it runs as root: a root worker short of a protection is told what its machine
    #: lacks, not to run as root (None: it did not say)
    root: bool | None = None

    def describe(self, require_full: bool) -> str:
        where = f"{self.label or self.address}, {self.threads} thread(s)"
        if self.error is not None:
            return f"{where}: NO SANDBOX: {self.error}"
        off = self.protections_off()
        if not off:
            return f"{where}: all protections on"
        verdict = "its rounds are refused" if require_full else "played anyway (--unsandboxed)"
        return f"{where}: {len(off)} protections OFF ({', '.join(off)}): {verdict}"

    def protections_off(self) -> list[str]:
        return off_in(self.isolation or {})

    def shortfall(self) -> str | None:
        """Why this worker cannot play an official round (None: every protection is on)."""
        if self.error is not None:
            return f"worker {self.label or self.address} has no sandbox ({self.error})"
        if not self.protections_off():
            return None
        return short_of(f"worker {self.label or self.address}", self.isolation or {})


class WorkerState:
    """One worker process's sandbox and bundles (made when the plugin is set up)."""

    def __init__(self, address: str, local_dir: Path, threads: int, name: object = None):
        from judge.sandbox import Sandbox

        self.address, self.threads = address, threads
        self.host = socket.gethostname()
        #: how it is named in messages and replays (``name``: its Dask name, ``--name``)
        self.name = worker_label(address, name, self.host)
        self.root = Path(tempfile.mkdtemp(prefix="ocean-judge-", dir=local_dir))
        self.lock = threading.Lock()
        self.bundle_locks: dict[str, threading.Lock] = {}
        #: hash -> the bot's program folder and command here, or why it cannot run here
        self.ready: dict[str, tuple[Path | None, tuple[str, ...]] | str] = {}
        self.fetched_bytes = 0
        self.fetches: dict[str, int] = {}
        self.builds = 0
        self.sandbox: Any = None
        self.error: str | None = None
        try:
            self.sandbox = Sandbox()
        except (OSError, RuntimeError) as exc:
            self.error = f"cannot set up the sandbox: {exc}"

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        shutil.rmtree(self.root, ignore_errors=True)

    def info(self) -> WorkerInfo:
        iso = self.sandbox.isolation.as_dict() if self.sandbox is not None else None
        return WorkerInfo(
            self.address,
            self.host,
            __version__,
            self.threads,
            iso,
            self.error,
            self.name,
            is_root(),
        )

    # ------------------------------------------------------------ bundles
    def _lock_for(self, digest: str) -> threading.Lock:
        with self.lock:
            return self.bundle_locks.setdefault(digest, threading.Lock())

    def bot(self, ref: BotRef) -> tuple[BotSpec, int]:
        """The bot ready to run here, and the bytes fetched for it (0 once it is here).

        Raises :class:`_Missing` when its bundle cannot be fetched and
        :class:`~judge.bots.BotError` when it cannot run here (a failed build).
        """
        if ref.bundle is None:
            return ref.spec, 0
        digest, fetched = ref.bundle, 0
        with self._lock_for(digest):
            if digest not in self.ready:
                data = _fetch(digest)
                fetched = len(data)
                with self.lock:
                    self.fetched_bytes += fetched
                    self.fetches[digest] = self.fetches.get(digest, 0) + 1
                try:
                    folder = unpack(data, digest, self.root / "bundles")
                    spec, built = prepare(ref, folder)
                    self.builds += built
                    self.ready[digest] = (spec.program_dir, spec.command)
                except (BotError, OSError) as exc:
                    self.ready[digest] = str(exc)
        got = self.ready[digest]
        if isinstance(got, str):
            raise BotError(f"{got} (on worker {self.name})")
        program_dir, command = got
        return dataclasses.replace(ref.spec, program_dir=program_dir, command=command), fetched

    # -------------------------------------------------------------- rounds
    def play(self, job: RemoteRound) -> RemoteDone:
        task = job.task
        if self.sandbox is None:
            return RemoteDone(
                RoundDone(
                    task,
                    RoundStatus.FAILED,
                    error=f"worker {self.name}: {self.error}",
                    exit_code=3,
                    worker=self.name,
                )
            )
        if job.judge != judge_code():
            return RemoteDone(
                RoundDone(
                    task,
                    RoundStatus.REFUSED,
                    error=(
                        f"worker {self.name} runs judge {judge_code()}, not the judge's "
                        f"{job.judge or '(an older judge that does not say)'}: every round of a "
                        "run is played by the same judge; install the judge's version on it "
                        "(pip install -e '.[cluster]' in the same checkout) or stop it"
                    ),
                    exit_code=2,
                    worker=self.name,
                )
            )
        report = self.sandbox.isolation.as_dict()
        if job.require_full and off_in(report):
            return RemoteDone(
                RoundDone(
                    task,
                    RoundStatus.REFUSED,
                    error=refusal(f"worker {self.name}", report, is_root(), "such a worker"),
                    exit_code=2,
                    worker=self.name,
                    isolation=report,
                )
            )
        specs: list[BotSpec] = []
        fetched = 0
        for ref in job.refs:
            try:
                spec, n = self.bot(ref)
            except _Missing as exc:
                return RemoteDone(
                    RoundDone(task, RoundStatus.STOPPED, worker=self.name), missing=exc.digest
                )
            except _FetchFailed as exc:  # said as it is, never as "missing"
                return RemoteDone(
                    RoundDone(
                        task,
                        RoundStatus.FAILED,
                        error=(
                            f"worker {self.name} could not fetch bundle {exc.digest[:12]}: "
                            f"{type(exc.cause).__name__}: {exc.cause}"
                        ),
                        exit_code=3,
                        worker=self.name,
                        trace=exc.trace,
                    )
                )
            except BotError as exc:
                return RemoteDone(
                    RoundDone(
                        task, RoundStatus.FAILED, error=str(exc), exit_code=2, worker=self.name
                    )
                )
            specs.append(spec)
            fetched += n
        scratch = Path(tempfile.mkdtemp(prefix="round-", dir=self.root))
        stop = threading.Event()
        finished = threading.Event()
        failure: list[str] = []
        watcher = threading.Thread(
            target=_watch_stop,
            args=(job.run, stop, finished, failure),
            daemon=True,
            name="stop-watch",
        )
        watcher.start()
        try:
            local = dataclasses.replace(task, bots=(specs[0], specs[1]), out_dir=scratch)
            done = play_task(local, self.sandbox, stop, worker=self.name)
            files, _ = pack_folder(scratch)
        finally:
            finished.set()
            shutil.rmtree(scratch, ignore_errors=True)
        if done.status is RoundStatus.STOPPED and failure:
            failed = failure[0]
            done = dataclasses.replace(
                done,
                status=RoundStatus.FAILED,
                error=(
                    f"worker {self.name} lost the judge's stop signal ({failed}), so it "
                    "stopped the round rather than play on unstoppable"
                ),
                exit_code=3,
            )
        return RemoteDone(dataclasses.replace(done, task=task), files, fetched)


def worker_label(address: str, name: object, host: str) -> str:
    """``tcp://10.0.0.7:40331 (m07 on node7)``: the address and, when it has one, the Dask name."""
    if name is None or str(name) in ("", address):
        return f"{address} ({host})"
    return f"{address} ({name} on {host})"


class _Missing(Exception):
    """A bundle no worker holds any more (lost with its worker): the judge publishes it again."""

    def __init__(self, digest: str):
        super().__init__(digest)
        self.digest = digest


class _FetchFailed(Exception):
    """Fetching a bundle failed for another reason: reported as it is, with its traceback."""

    def __init__(self, digest: str, cause: BaseException, trace: str):
        super().__init__(digest)
        self.digest, self.cause, self.trace = digest, cause, trace


#: The Dask failures that mean "the data is gone" (lost with a worker, cancelled, timed out,
#: the connection to its holder closed); any other failure is said as it is.
_LOST = (CancelledError, TimeoutError, ConnectionError, CommClosedError)


def _fetch(digest: str) -> bytes:
    """A bundle's bytes from the cluster, where the judge published them.

    A bundle lost with the worker that held it stays published under its
    name, but no worker holds its data any more, and waiting for it would
    wait for ever (Dask never recomputes scattered data).  So while it
    waits the worker asks the scheduler who holds it, every
    ``FETCH_CHECK_S``: nobody is :class:`_Missing` (the judge publishes it
    again), as is a fetch still unfinished after ``FETCH_TIMEOUT_S``.
    Only the wait is checked that often: the transfer itself (up to
    ``MAX_BUNDLE_BYTES``, seconds on a slow network) has what is left of
    ``FETCH_TIMEOUT_S``; cut every ``FETCH_CHECK_S`` it would start again
    and never end.
    """
    client = get_client()
    try:
        future = client.get_dataset(dataset_name(digest), default=None)
        if future is None:
            raise _Missing(digest)
        deadline = time.monotonic() + FETCH_TIMEOUT_S
        check = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= check:
                if not client.who_has([future]).get(future.key):
                    raise _Missing(digest)
                check = now + FETCH_CHECK_S
            if future.done():  # the scheduler says the data is there (or the future failed)
                break
            if now > deadline:
                raise _Missing(digest)
            time.sleep(FETCH_POLL_S)
        data = future.result(timeout=max(FETCH_CHECK_S, deadline - time.monotonic()))
    except _Missing:
        raise
    except _LOST as exc:  # lost with its worker, cancelled: publish it again
        raise _Missing(digest) from exc
    except Exception as exc:  # noqa: BLE001 - anything else is said as it is
        raise _FetchFailed(digest, exc, traceback.format_exc()) from exc
    if not isinstance(data, bytes):
        raise _FetchFailed(digest, TypeError(f"the bundle is {type(data).__name__}, not bytes"), "")
    return data


def _watch_stop(
    run: str, stop: threading.Event, finished: threading.Event, failure: list[str]
) -> None:
    """Set ``stop`` when the judge sets the run's stop event (until the round is finished).

    A watcher that fails (the scheduler unreachable) stops the round too: a round the
    judge could not stop must not go on; why goes into ``failure``, for the report."""
    try:
        event = Event(stop_event_name(run), client=get_client())
        while not finished.is_set():
            if event.wait(timeout=STOP_POLL_S):
                stop.set()
                return
    except Exception as exc:  # noqa: BLE001 - said in the round's report
        if not finished.is_set():
            failure.append(f"{type(exc).__name__}: {exc}")
            stop.set()


class JudgePlugin(WorkerPlugin):
    """The Dask worker plugin: a :class:`WorkerState` per worker process, closed with it.

    ``idempotent``: a second judge connecting to the same cluster keeps the
    workers' plugins (and the rounds they are playing) as they are.
    """

    idempotent = True
    name = PLUGIN_NAME

    def __init__(self) -> None:
        self.state: WorkerState | None = None

    def setup(self, worker: Any) -> None:
        self.state = WorkerState(
            worker.address, Path(worker.local_directory), worker.state.nthreads, worker.name
        )

    def teardown(self, worker: Any) -> None:
        if self.state is not None:
            self.state.close()
            self.state = None


def _state() -> WorkerState:
    plugin = get_worker().plugins.get(PLUGIN_NAME)
    state = getattr(plugin, "state", None)
    if state is None:
        raise RuntimeError("this Dask worker has no judge plugin (is the judge installed on it?)")
    return state


def play_remote(job: RemoteRound) -> RemoteDone:
    """The task the judge submits for each round (runs on a worker)."""
    return _state().play(job)


def worker_info(dask_worker: Any = None) -> WorkerInfo | None:
    """This worker's :class:`WorkerInfo` (``client.run`` passes the worker as ``dask_worker``)."""
    plugin = dask_worker.plugins.get(PLUGIN_NAME) if dask_worker is not None else None
    state = getattr(plugin, "state", None)
    return state.info() if state is not None else None


def worker_counters(dask_worker: Any = None) -> Json:
    """Bundle bytes fetched, fetches per hash and builds on this worker (tests, benchmark)."""
    plugin = dask_worker.plugins.get(PLUGIN_NAME) if dask_worker is not None else None
    state = getattr(plugin, "state", None)
    if state is None:
        return {}
    return {
        "fetched_bytes": state.fetched_bytes,
        "fetches": dict(state.fetches),
        "builds": state.builds,
    }
