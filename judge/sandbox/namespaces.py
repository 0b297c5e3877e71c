"""A seat's namespaces, made once per seat and entered by every run with setns().

Why once per seat: a fresh network namespace per run costs about a millisecond
(and its teardown runs later in the kernel), while setns() into one kept open
costs microseconds.  One set per seat (not per sandbox) because abstract Unix
sockets and SysV IPC are per namespace: sharing one would let the two teams talk.

The C helper's ``holder`` mode creates them: network (no interface up, not even
loopback), IPC, UTS and, with the view, a mount namespace whose root shows only
the system folders (read-only), a minimal /dev, a /proc hiding other users'
processes, the seat's private /tmp, and the seat's own folder.  The judge
opens ``/proc/PID/ns/*`` and lets the holder exit; the open fds keep the
namespaces alive until the seat closes.
"""

from __future__ import annotations

import os
import select
import subprocess
from dataclasses import dataclass

from judge.sandbox.helper import Helper
from judge.sandbox.types import SandboxError

HOLDER_TIMEOUT_S = 20.0
#: setns order: mount namespace last (it changes what /proc and paths mean).
NS_KINDS_VIEW = ("net", "ipc", "uts", "mnt")
NS_KINDS_NET = ("net", "ipc", "uts")


@dataclass
class SeatNamespaces:
    """Open namespace fds (passed to every run of the seat)."""

    fds: tuple[int, ...]
    view: bool

    def close(self) -> None:
        """Release the namespaces (the kernel frees them once no process uses them)."""
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = ()


def make_namespaces(
    helper: Helper,
    *,
    view: bool,
    seat_dir: str = "",
    tmp_dir: str = "",
    staging: str = "",
    rw_dir: str = "",
    hostname: str = "seat",
) -> SeatNamespaces:
    """Create a seat's namespaces through the C holder; SandboxError says why not.

    ``rw_dir``: a folder inside ``seat_dir`` shown as it is in the judge's view, as a
    mount of its own (the seat folder is shown without the mounts inside it)."""
    if not helper.can_hold:
        raise SandboxError("namespaces made once per seat need the C helper")
    cmd = list(helper.argv) + ["holder", "-H", hostname]
    if view:
        cmd += ["-V", "-S", seat_dir, "-T", tmp_dir, "-R", staging]
        if rw_dir:
            cmd += ["-W", rw_dir]
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/", env={}
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    fds: list[int] = []
    try:
        ready, _, _ = select.select([proc.stdout], [], [], HOLDER_TIMEOUT_S)
        line = proc.stdout.readline() if ready else b""
        if line.strip() != b"ready":
            proc.stdin.close()
            try:
                proc.wait(HOLDER_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            err = proc.stderr.read().decode(errors="replace").strip()
            raise SandboxError(
                f"cannot create the seat's namespaces: {err or 'the holder did not start'}"
            )
        kinds = NS_KINDS_VIEW if view else NS_KINDS_NET
        for kind in kinds:
            fds.append(os.open(f"/proc/{proc.pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC))
        return SeatNamespaces(tuple(fds), view)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
        try:
            proc.wait(HOLDER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
