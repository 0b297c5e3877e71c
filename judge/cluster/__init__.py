"""Rounds on a Dask cluster (``--cluster ADDRESS`` or ``--cluster local:N``).

When one machine is outgrown, ``judge tournament``, ``judge eval`` and
``judge league`` play their rounds on Dask distributed, an existing engine,
rather than a home-made worker loop.  The rounds are the same
:class:`~judge.scheduler.RoundTask` values as locally; only the executor
differs (:class:`~judge.cluster.executor.DaskExecutor`).

* :mod:`.bundles` -- a bot as content-addressed data (stdlib only);
* :mod:`.worker` -- what runs on a worker: its sandbox, bundles, one round;
* :mod:`.executor` -- the judge's side: publish bundles, submit rounds, write
  what comes back, report each round once;
* :mod:`.session` -- connect (or start ``local:N``), say what the workers are.

Dask is an optional extra (``pip install "ocean-treasure-judge[cluster]"``),
imported only when ``--cluster`` is given; this package's ``__init__`` and
:mod:`.bundles` import nothing of it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from judge import __version__
from judge.errors import JudgeError

#: What to install for --cluster (the error without it says so).
INSTALL_HINT = (
    "pip install 'ocean-treasure-judge[cluster]' (in a checkout of the judge: "
    "pip install -e '.[cluster]')"
)


class ClusterError(JudgeError, RuntimeError):
    """The cluster cannot be used or was lost; the message says what to do.

    ``exit_code`` 2: nothing was played (no Dask, a bad address, an
    unreachable scheduler, a worker of another judge version); 3: the cluster
    failed during the run (the scheduler was lost), finished rounds are kept.
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


@functools.cache
def judge_code() -> str:
    """``0.1.0+3f2a9c1b0d4e``: the judge's version and a hash of its code (every module of
    the package, by path and content).  Every round a worker plays carries the judge's,
    and a worker whose own differs refuses it: the rounds of one run are all played by
    the same judge, whenever a worker joined and whatever its version string says."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:12]}"


__all__ = ["INSTALL_HINT", "ClusterError", "judge_code"]
