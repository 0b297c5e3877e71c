"""Which workers a tournament refuses for isolation, and how it names them (no cluster needed:
the workers' own descriptions, as they give them when the judge joins)."""

from __future__ import annotations

from typing import Any

from judge.cluster.session import isolation_refusal
from judge.cluster.worker import WorkerInfo, worker_label

ALL_ON = {"separate uid per seat": {"on": True}, "cgroup per seat": {"on": True}}
UID_OFF = {"separate uid per seat": {"on": False}, "cgroup per seat": {"on": True}}


def _info(
    address: str, name: object, isolation: dict[str, Any] | None, error: str | None = None
) -> WorkerInfo:
    label = worker_label(address, name, "node7")
    return WorkerInfo(address, "node7", "v", 2, isolation, error, label)


def test_a_worker_is_named_by_its_address_and_its_dask_name() -> None:
    assert (
        worker_label("tcp://10.0.0.7:4000", "m07", "node7") == "tcp://10.0.0.7:4000 (m07 on node7)"
    )
    assert worker_label("tcp://10.0.0.7:4000", None, "node7") == "tcp://10.0.0.7:4000 (node7)"
    # dask worker without --name is named by its address: said once
    assert worker_label("tcp://h:1", "tcp://h:1", "node7") == "tcp://h:1 (node7)"


def test_only_the_workers_short_of_full_isolation_are_refused_each_by_name() -> None:
    good = _info("tcp://10.0.0.1:4000", "m01", ALL_ON)
    assert isolation_refusal({good.address: good}) is None
    user = _info("tcp://10.0.0.2:4000", "m02", UID_OFF)
    bare = _info("tcp://10.0.0.3:4000", 3, None, "cannot set up the sandbox: no /proc")
    why = isolation_refusal({i.address: i for i in (good, user, bare)})
    assert why is not None
    assert "m01" not in why and "10.0.0.1" not in why
    assert (
        "worker tcp://10.0.0.2:4000 (m02 on node7) cannot fully isolate the bots: 1 of 2 "
        "sandbox protections are OFF (separate uid per seat)"
    ) in why
    assert "worker tcp://10.0.0.3:4000 (3 on node7) has no sandbox (cannot set up" in why
    assert "--unsandboxed" in why and "as root" in why
    # the header says the same of each worker, and what becomes of its rounds
    assert user.describe(True).endswith("its rounds are refused")
    assert user.describe(False).endswith("played anyway (--unsandboxed)")
    assert "NO SANDBOX" in bare.describe(True)


def test_a_root_worker_short_of_a_protection_is_not_told_to_run_as_root() -> None:
    import dataclasses

    user = dataclasses.replace(_info("tcp://10.0.0.2:4000", "m02", UID_OFF), root=False)
    root = dataclasses.replace(_info("tcp://10.0.0.3:4000", "m03", UID_OFF), root=True)
    said_user = isolation_refusal({user.address: user}) or ""
    said_root = isolation_refusal({root.address: root}) or ""
    assert "run such a worker as root on Linux" in said_user
    assert "as root on Linux" not in said_root and "already runs as root" in said_root
    assert "cannot fully isolate the bots: 1 of 2" in said_root and "--unsandboxed" in said_root
    # said on the judge's terminal: the machine short is the worker's, not "this machine"
    assert "this machine" not in said_root and "its machine that does not offer" in said_root
    assert "'judge sandbox-info' on that machine" in said_root
