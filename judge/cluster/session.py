"""Connecting to a cluster (or starting ``local:N``), and what its workers are.

``--cluster ADDRESS`` connects to a running Dask scheduler (``tcp://host:8786``
or ``host:8786``); ``--cluster local:N`` starts a cluster of N worker
processes on this machine for the run (one round at a time each), and stops
it at the end.  Either way the judge's plugin is registered on the workers
(each opens its own sandbox), the workers are asked what they are (their
judge version and isolation, shown in the header), and a worker running
another version of the judge is refused: the rounds must be played by the
same rules everywhere.  A run that requires full isolation (a tournament
without ``--unsandboxed``) refuses, by name, the workers that lack it, before
any round is played.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from judge import __version__
from judge.cluster import INSTALL_HINT, ClusterError
from judge.isolation import combined
from judge.scheduler import Venue

#: How long to wait for the scheduler, and for a first worker.
CONNECT_TIMEOUT_S = 20.0
WORKERS_TIMEOUT_S = 60.0
_LOCAL = re.compile(r"^local:(\d+)$")
MAX_LOCAL_WORKERS = 64


def distributed_module() -> ModuleType:
    """Dask distributed, or a :class:`ClusterError` saying what to install."""
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(
            f"--cluster needs Dask distributed, which is not installed here ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from None
    return distributed


def parse_cluster(text: str) -> tuple[str | None, int]:
    """``"local:4"`` -> (None, 4); ``"host:8786"`` -> ("tcp://host:8786", 0)."""
    text = text.strip()
    m = _LOCAL.match(text)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= MAX_LOCAL_WORKERS:
            raise ClusterError(f"--cluster {text}: give 1 to {MAX_LOCAL_WORKERS} local workers")
        return None, n
    if text.startswith("local"):
        raise ClusterError(f"--cluster {text!r}: write local:N, e.g. local:4")
    if not text or any(c.isspace() for c in text):
        raise ClusterError(
            f"--cluster {text!r}: give the Dask scheduler's address (e.g. tcp://10.0.0.1:8786) "
            "or local:N"
        )
    return (text if "://" in text else f"tcp://{text}"), 0


class ClusterSession:
    """A connected client (and the local cluster it started), with its workers' description."""

    def __init__(self, spec: str):
        address, local = parse_cluster(spec)
        dist = distributed_module()
        from judge.cluster.worker import JudgePlugin, worker_info

        self.spec = spec
        self.cluster: Any = None
        if local:
            try:
                self.cluster = dist.LocalCluster(
                    n_workers=local,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                    memory_limit=0,
                )
            except Exception as exc:  # noqa: BLE001 - any failure to start is the same message
                raise ClusterError(f"cannot start a local Dask cluster: {exc}", 3) from None
            address = self.cluster.scheduler_address
        assert address is not None
        self.address = address
        try:
            self.client = dist.Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError, ...: one message
            self._close_cluster()
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address}: {exc}; start it with "
                f"'dask scheduler' on that machine and workers with 'dask worker {address}', "
                "or use --cluster local:N"
            ) from None
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            self.client.register_plugin(JudgePlugin(), name=JudgePlugin.name)
            infos = self.client.run(worker_info)
        except ClusterError:
            raise
        except Exception as exc:  # noqa: BLE001 - no worker came, or they cannot load the judge
            self.close()
            raise ClusterError(
                f"the Dask cluster at {address} cannot play rounds: {type(exc).__name__}: {exc}; "
                f"start workers with 'dask worker {address}' on machines where the judge is "
                "installed"
            ) from None
        self.infos = {a: i for a, i in infos.items() if i is not None}
        other = sorted(
            f"{a} (judge {i.version})" for a, i in self.infos.items() if i.version != __version__
        )
        if other:
            self.close()
            raise ClusterError(
                f"workers running another version of the judge than this one ({__version__}): "
                f"{', '.join(other)}; install the same version on every worker"
            )
        self.executors: list[Any] = []

    def describe(self, require_full: bool) -> str:
        """The cluster and each worker's isolation, one line each (for the header)."""
        where = f"local cluster ({self.address})" if self.cluster is not None else self.address
        lines = [f"cluster {where}: {len(self.infos)} worker(s)"]
        lines += [f"  {info.describe(require_full)}" for _, info in sorted(self.infos.items())]
        return "\n".join(lines)

    def check_isolation(self) -> None:
        """Refuse, naming them, the workers that cannot play an official round.

        Asked when the cluster is joined, before any round is played: a worker
        with a protection off (not root) or no sandbox.  A worker that joins
        later refuses such rounds itself, naming itself (:mod:`.worker`).
        """
        why = isolation_refusal(self.infos)
        if why is not None:
            raise ClusterError(why)

    def protections_off(self) -> tuple[str, ...]:
        """Every protection some worker has off (what rounds may be played without)."""
        off: set[str] = set()
        for info in self.infos.values():
            off.update(info.protections_off())
        return tuple(sorted(off))

    def executor(self, jobs: int | None, require_full: bool) -> Any:
        """A :class:`~judge.cluster.executor.DaskExecutor` on this cluster (closed with it)."""
        from judge.cluster.executor import DaskExecutor

        ex = DaskExecutor(self.client, jobs, require_full)
        self.executors.append(ex)
        return ex

    def status(self) -> str:
        """Workers and threads now, for a progress bar."""
        try:
            nthreads = self.client.nthreads()
        except Exception:  # noqa: BLE001 - the scheduler is away
            return "no scheduler"
        return f"{len(nthreads)} workers, {sum(nthreads.values())} threads"

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
            self.cluster = None

    def close(self) -> None:
        for ex in getattr(self, "executors", []):
            with contextlib.suppress(Exception):
                ex.close()
        with contextlib.suppress(Exception):
            self.client.close()
        self._close_cluster()


def isolation_refusal(infos: Mapping[str, Any]) -> str | None:
    """Why these workers (address -> WorkerInfo) cannot play an official run, naming each
    one short of full isolation; None when every one has every protection on."""
    short = [
        (why, getattr(i, "root", None))
        for _, i in sorted(infos.items())
        if (why := i.shortfall()) is not None
    ]
    return combined(short, "such a worker") if short else None


@contextlib.contextmanager
def open_cluster(spec: str) -> Iterator[ClusterSession]:
    """A :class:`ClusterSession` for the length of a run; Dask's own log silenced.

    What goes wrong is said by the judge (ClusterError), once, in its words;
    Dask's log lines and tracebacks about reconnecting would bury it.
    """
    distributed_module()  # its loggers exist once it is imported
    names = [
        "distributed",
        *(n for n in logging.root.manager.loggerDict if n.startswith("distributed.")),
    ]
    levels = {n: logging.getLogger(n).level for n in names}
    for n in names:  # Dask gives some of its loggers their own level: each is set
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)
    try:
        session = ClusterSession(spec)
        try:
            yield session
        finally:
            session.close()
    finally:
        for n, level in levels.items():
            logging.getLogger(n).setLevel(level)


@contextlib.contextmanager
def cluster_venue(spec: str, jobs: int | None, require_full: bool) -> Iterator[Venue]:
    """The cluster as a :class:`~judge.scheduler.Venue` for one run (a tournament's rounds)."""
    with open_cluster(spec) as session:
        if require_full:
            session.check_isolation()
        yield Venue(
            session.executor(jobs, require_full),
            session.describe(require_full),
            None,
            session.status,
            () if require_full else session.protections_off(),
            cluster=spec,
        )
