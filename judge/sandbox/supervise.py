"""Watch one run until it and all it started are gone: step "program" of a run (:mod:`.steps`).

One thread, no helper threads: ``poll()`` waits at once on the helper's exit
(a pidfd), the program's stdout and stderr (drained as they come, so a 100 MB
flood never blocks the program or the judge, and only the tails are kept), and
the next deadline (time limit, memory poll).  The helper itself only exits when
every descendant has exited, so "the helper exited" is exactly R17's "the
program and everything it started exited".  It only observes: the helper was
started by the seat's launcher (:mod:`.launcher`).

At the time limit the run's CPU waiting is measured (:mod:`.cpuwait`): time
the program spent runnable while something else held its core is given back
as extra time (up to a cap) before the run is called a time-out, so a busy
machine or a busy judge never turns into a TLE.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from judge.sandbox.cgroups import RunCgroup
from judge.sandbox.cpuwait import (
    EXTENSION_EXTRA_S,
    EXTENSION_FACTOR,
    PsiMeter,
    ServiceMeter,
    TreeMeter,
    WaitMeter,
    io_stall_us,
    tree_times,
    wait_grace_s,
)
from judge.sandbox.helper import Helper
from judge.sandbox.launcher import OneShotProcess, Spawn, Started, start_one_shot
from judge.sandbox.procfs import children, has_children_files, rss_bytes
from judge.sandbox.record import HelperRecord, RawRun, Tail
from judge.sandbox.starvation import Canary, StarvationMeter
from judge.sandbox.zygote import ZygoteRun

__all__ = ["KILL_GRACE_S", "Bounds", "Meters", "Services", "Spawn", "run", "sweep_uid", "watch"]

READ_CHUNK = 1 << 20
#: How long the helper may take to kill and reap everything after being told to.
KILL_GRACE_S = 2.0
#: How often cgroup OOM counters are checked while a run goes on.
CGROUP_CHECK_S = 0.05
#: How much of the start of stderr is kept besides its tail.
HEAD_BYTES = 16 * 1024
#: How long the exec helper may take to start the program (its first status line says
#: when it forked it: the run's clock starts there, not when the judge asked).
START_GRACE_S = 10.0


def new_raw(output_bytes: int) -> RawRun:
    """A run's observations before it starts (stderr's first lines are kept too: what
    wine writes before the program runs)."""
    return RawRun(None, None, 0.0, 0.0, Tail(output_bytes), Tail(output_bytes, head_cap=HEAD_BYTES))


class TreeWatcher:
    """Polls the resident memory of every descendant of the helper (no-cgroup fallback).

    Walks ``/proc/PID/task/TID/children`` from the helper down: the helper is
    a subreaper, so even double-forked, setsid'd daemons stay in that tree.
    RSS is summed per process (shared pages of forked children count twice:
    this errs towards MLE only for programs that fork big children).
    """

    def __init__(self, root_pid: int) -> None:
        self.root = root_pid
        self.peak = 0
        self.seen: set[int] = set()
        # Kernels without CONFIG_PROC_CHILDREN: let psutil find the tree (slower).
        self._use_psutil = not has_children_files(root_pid)

    def _sample_psutil(self) -> int:
        import psutil

        total = 0
        try:
            procs = psutil.Process(self.root).children(recursive=True)
        except psutil.Error:
            return 0
        for p in procs:
            self.seen.add(p.pid)
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def sample(self) -> int:
        """Current total RSS of the tree in bytes (also updates ``peak``)."""
        if self._use_psutil:
            total = self._sample_psutil()
            self.peak = max(self.peak, total)
            return total
        total = 0
        stack = children(self.root)
        while stack:
            pid = stack.pop()
            self.seen.add(pid)
            rss = rss_bytes(pid)
            if rss is None:
                continue
            total += rss
            stack.extend(children(pid))
        self.peak = max(self.peak, total)
        return total


def _read_available(fd: int, sink: Tail | bytearray | None, limit: int = 1 << 30) -> bool:
    """Read what is there without blocking into ``sink`` (a Tail keeps only the end, a
    bytearray everything); returns True at EOF."""
    got = 0
    while got < limit:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError as exc:
            if exc.errno == errno.EINTR:
                continue
            return True
        if not chunk:
            return True
        got += len(chunk)
        if isinstance(sink, bytearray):
            sink += chunk
        elif sink is not None:
            sink.add(chunk)
    return False


@dataclass(frozen=True)
class Bounds:
    """What a run is watched against: its time limit (None: none), its memory, the group
    that counts it (None: its tree is polled every ``poll_s``), and the uid and gid whose
    every process is swept when its helper does not end when told to."""

    time_s: float | None
    memory_bytes: int
    cg: RunCgroup | None
    poll_s: float
    kill_uid: tuple[int, int] | None = None


def run(
    helper: Helper,
    spawn: Spawn,
    *,
    time_s: float | None,
    memory_bytes: int,
    output_bytes: int,
    cg: RunCgroup | None,
    poll_s: float,
    kill_uid: tuple[int, int] | None = None,
) -> RawRun:
    """A one-shot run, watched to its end, its waiting not measured: a seat's check
    that its uid can run a command, wine's test program.  Never raises for anything the
    program does; judge-side failures are returned as ``internal_error``, and the
    tree is always gone when this returns."""
    raw = new_raw(output_bytes)
    asked = time.monotonic()
    started = start_one_shot(helper, spawn, cg, raw)
    if started is not None:
        watch(helper, started, raw, asked, Bounds(time_s, memory_bytes, cg, poll_s, kill_uid))
    return raw


@dataclass(frozen=True)
class Services:
    """Processes outside a run that work for it (the seat's wineserver): their waiting for
    a CPU during the run is the run's too."""

    pids: tuple[int, ...] = ()
    #: they are in the run's pressure group for the run: its PSI counts them already,
    #: only their CPU is read
    in_group: bool = False

    def base(self) -> tuple[int, int] | None:
        """Their (CPU, waiting) so far, read before the run starts (None: there are none)."""
        return tree_times(self.pids) if self.pids else None


@dataclass
class Meters:
    """How a judged run's waiting for a CPU is measured: ``wait``, given back at the
    limit (its group's PSI, else its tasks' schedstat; plus its services' waiting; and
    the machine's starvation of ordinary processes), and its services' own figures."""

    wait: WaitMeter
    service: ServiceMeter | None

    @classmethod
    def of(
        cls,
        cg: RunCgroup | None,
        pid: int,
        services: Services,
        base: tuple[int, int] | None,
        canary: Canary | None,
        time_s: float | None,
    ) -> Meters:
        psi = cg.psi_dir if cg is not None else None
        meter: WaitMeter = (
            PsiMeter(psi, cg.psi_base, cg.files.read) if psi and cg is not None else TreeMeter(pid)
        )
        service = None
        if base is not None:
            meter = service = ServiceMeter(meter, services.pids, base, counted=services.in_group)
        if canary is not None and time_s is not None and canary.start():
            meter = StarvationMeter(meter, canary, time_s)
        return cls(meter, service)

    def clock_started(self, at: float | None) -> None:
        """The program's clock started at monotonic time ``at``: the window in which the
        machine's starvation counts (the reading after the run is made later than its end)."""
        if isinstance(self.wait, StarvationMeter) and at is not None:
            self.wait.begin = at


def watch(
    helper: Helper,
    started: Started,
    raw: RawRun,
    asked: float,
    bounds: Bounds,
    meters: Meters | None = None,
) -> None:
    """Step "program": watch the run until its helper, and so every process of the run, is
    gone, then read the helper's record into ``raw``.  ``asked``: when the helper was
    asked for (monotonic), for a helper that never starts the program."""
    meter = meters.wait if meters is not None else None
    if meter is not None:
        raw.wait_source = meter.source
    watching = _Watch(started.proc, started.status_r, raw, asked, bounds, meter)
    status_buf = watching.until_gone(helper, bounds.kill_uid)
    _read_record(raw, status_buf, watching)
    if meters is not None:
        meters.clock_started(watching.prog_start)


class _Watch:
    """Steps "program" and "helper": one thread watches the run until the helper is gone.

    ``poll()`` waits at once on the helper's exit (a pidfd), the program's stdout
    and stderr (drained as they come), the status pipe (whose first line starts
    the clock) and the next deadline (time limit, memory poll, OOM check)."""

    def __init__(
        self,
        proc: OneShotProcess | ZygoteRun,
        status_r: int,
        raw: RawRun,
        start: float,
        bounds: Bounds,
        meter: WaitMeter | None,
    ) -> None:
        cg = bounds.cg
        self.proc, self.status_r, self.raw, self.cg = proc, status_r, raw, cg
        self.start, self.time_s, self.memory_bytes, self.poll_s = (
            start,
            bounds.time_s,
            bounds.memory_bytes,
            bounds.poll_s,
        )
        self.meter = meter
        self.watcher = TreeWatcher(proc.pid) if (cg is None or not cg.memory) else None
        self.status_buf = bytearray()
        self.status: int | None = None
        self.rusage: Any = None
        # The clock starts when the helper forks the program (its first status line), so
        # the judge's own delay in starting the helper never counts against the program.
        self.prog_start: float | None = None

    def until_gone(self, helper: Helper, kill_uid: tuple[int, int] | None) -> bytearray:
        """Watch until the helper (and so every process of the run) is gone; the status
        pipe's contents.  Interrupted (KeyboardInterrupt, a bug): never leave the tree
        behind."""
        proc = self.proc
        try:
            try:
                self._loop(proc.pidfd, helper, kill_uid)
            except BaseException:
                _abort(proc, self.cg, helper, kill_uid)
                raise
            finally:
                proc.close()
            _read_available(self.status_r, self.status_buf)
        finally:
            os.close(self.status_r)
        return self.status_buf

    def _loop(self, pidfd: int | None, helper: Helper, kill_uid: tuple[int, int] | None) -> None:
        proc, raw, cg, watcher = self.proc, self.raw, self.cg, self.watcher
        sinks = {proc.stdout_fd: raw.stdout, proc.stderr_fd: raw.stderr}
        poller = select.poll()
        for fd in sinks:
            poller.register(fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        os.set_blocking(self.status_r, False)
        poller.register(self.status_r, select.POLLIN)
        start, time_s = self.start, self.time_s
        deadline = None if time_s is None else start + time_s + START_GRACE_S
        next_mem = start + self.poll_s
        next_cg = start + CGROUP_CHECK_S
        kill_sent: float | None = None
        open_fds = set(sinks)
        exited = False
        while not exited:
            now = time.monotonic()
            wakes = [
                next_mem if watcher is not None else None,
                next_cg if (cg is not None and cg.memory) else None,
                deadline if kill_sent is None else kill_sent + KILL_GRACE_S,
            ]
            if pidfd is None:
                wakes.append(now + 0.005)
            due = min((w for w in wakes if w is not None), default=None)
            timeout_ms = None if due is None else max(0, int((due - now) * 1000) + 1)
            for fd, ev in poller.poll(timeout_ms):
                if fd in sinks and ev & (select.POLLIN | select.POLLHUP | select.POLLERR):
                    if _read_available(fd, sinks[fd], limit=8 * READ_CHUNK):
                        poller.unregister(fd)
                        open_fds.discard(fd)
                elif fd == pidfd:
                    exited = True
                elif fd == self.status_r:
                    if _read_available(self.status_r, self.status_buf):
                        poller.unregister(self.status_r)
                    if self.prog_start is None:
                        self.prog_start = _program_start(self.status_buf)
                        if self.prog_start is not None and time_s is not None:
                            deadline = self.prog_start + time_s
            now = time.monotonic()
            if not exited and pidfd is None:
                exited = proc.exited()
            if exited:
                break
            if kill_sent is None:
                later = None
                if deadline is not None and now >= deadline and self.prog_start is None:
                    raw.internal_error = (
                        f"the exec helper did not start the program within {START_GRACE_S:g} s"
                    )
                    kill_sent = _terminate(proc)
                    continue
                if (
                    deadline is not None
                    and now >= deadline
                    and time_s is not None
                    and self.prog_start is not None
                ):
                    later = _extension(self.meter, self.prog_start, now, time_s, raw)
                if later is not None:
                    deadline = later
                elif deadline is not None and now >= deadline:
                    raw.timed_out = True
                    if cg is not None:
                        current = cg.pids_current()
                        raw.procs_at_kill = (
                            None if current is None else current - 1
                        )  # minus the helper
                    kill_sent = _terminate(proc)
                elif watcher is not None and now >= next_mem:
                    if watcher.sample() > self.memory_bytes:
                        raw.mem_killed = True
                        kill_sent = _terminate(proc)
                    next_mem = now + self.poll_s
                elif cg is not None and cg.memory and now >= next_cg:
                    if (cg.oom_kills() or 0) > 0:
                        kill_sent = _terminate(proc)
                    next_cg = now + CGROUP_CHECK_S
            elif now >= kill_sent + KILL_GRACE_S:
                raw.internal_error = (
                    f"the exec helper did not finish within {KILL_GRACE_S:g} s of "
                    "being told to kill the program; killed it and swept"
                )
                _force_kill(proc, cg, helper, kill_uid)
                break
        self.status, self.rusage = proc.reap()
        end = time.monotonic()
        raw.wall_s = end - (self.prog_start if self.prog_start is not None else start)
        for fd in list(open_fds):
            _read_available(fd, sinks[fd])


def _read_record(raw: RawRun, status_buf: bytearray, watch: _Watch) -> None:
    """Step "helper", after the run: the helper's status record, its clock and the tree's
    CPU and memory as the helper saw them."""
    raw.helper_status = watch.status
    record = raw.record = HelperRecord.parse(bytes(status_buf))
    helper_wall = record.wall_s if record is not None else None
    if helper_wall is not None:  # from the fork to the last descendant reaped, by the helper
        raw.wall_s = helper_wall
    if watch.watcher is not None:
        raw.polled_peak = watch.watcher.peak
    if record is not None:
        raw.cpu_s = record.cpu_s or 0.0
        raw.polled_peak = max(raw.polled_peak, record.maxrss_bytes)
    elif watch.rusage is not None:
        raw.cpu_s = watch.rusage.ru_utime + watch.rusage.ru_stime
    if raw.record is None and raw.internal_error is None:
        raw.internal_error = (
            f"the exec helper ended ({_describe_status(watch.status)}) without its status record"
        )


def read_waits(raw: RawRun, meters: Meters, cg: RunCgroup | None) -> None:
    """Step "waits": the run's counters once it is over: CPU waiting (and its services'
    CPU), the group's memory peak, OOM kills and refused forks."""
    meter, service_meter = meters.wait, meters.service
    if meter is not None and meter.after_exit:
        final = meter.read(raw.wall_s)
        if final is not None:
            raw.wait_s = max(raw.wait_s or 0.0, final)
    if service_meter is not None:
        service_meter.read_service()
        raw.service_cpu_s = service_meter.service_cpu_s
    if cg is not None:
        psi = cg.psi_dir
        io = None if psi is None else io_stall_us(psi, cg.files.read)
        if io is not None:
            raw.io_stall_s = max(0, io - cg.psi_base.get("io_some", 0)) * 1e-6
        raw.cg_peak = cg.peak_memory()
        kills = cg.oom_kills()
        raw.cg_oom_kills = kills or 0
        if kills is None:  # old kernel: the failure counter is the only hint
            raw.cg_failcnt = cg.memory_failures()
        raw.pids_refused = cg.pids_refused()


def _program_start(buf: bytearray) -> float | None:
    """The helper's ``start_ns=`` line (CLOCK_MONOTONIC, as time.monotonic), once complete."""
    for line in bytes(buf).split(b"\n")[:-1]:
        if line.startswith(b"start_ns="):
            try:
                return int(line[9:]) / 1e9
            except ValueError:
                return None
    return None


def _extension(
    meter: WaitMeter | None, start: float, now: float, time_s: float, raw: RawRun
) -> float | None:
    """At a deadline: the later deadline the run has earned by waiting for a CPU, or None.

    A run is owed the time it was kept waiting (beyond :func:`wait_grace_s` of
    noise), up to the cap; at the cap, one that still had less than its limit to
    itself is marked ``starved`` (IE: the machine is too busy to time it).
    """
    if meter is None:
        return None
    elapsed = now - start
    wait = meter.read(elapsed)
    if wait is None:
        return None
    raw.wait_s = max(raw.wait_s or 0.0, wait)
    if elapsed - wait >= time_s - wait_grace_s(time_s):
        return None  # it had its whole limit to itself
    cap = start + EXTENSION_FACTOR * time_s + EXTENSION_EXTRA_S
    if now >= cap:
        raw.starved = True
        return None
    raw.extended = True
    return min(cap, start + time_s + wait)


def _describe_status(status: int | None) -> str:
    if status is None:
        return "status unknown"
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"


def _terminate(proc: OneShotProcess | ZygoteRun) -> float:
    """Ask the helper to kill the whole tree (it is root-owned; bots cannot intercept)."""
    proc.signal(signal.SIGTERM)
    return time.monotonic()


def _force_kill(
    proc: OneShotProcess | ZygoteRun,
    cg: RunCgroup | None,
    helper: Helper,
    kill_uid: tuple[int, int] | None,
) -> None:
    proc.signal(signal.SIGKILL)
    if cg is not None:
        cg.kill_all()
    if kill_uid is not None:
        sweep_uid(helper, *kill_uid)


def _abort(
    proc: OneShotProcess | ZygoteRun,
    cg: RunCgroup | None,
    helper: Helper,
    kill_uid: tuple[int, int] | None,
) -> None:
    if proc.done:
        return
    _terminate(proc)
    if not proc.wait(KILL_GRACE_S):
        _force_kill(proc, cg, helper, kill_uid)
        proc.wait(None)


def sweep_uid(helper: Helper, uid: int, gid: int) -> None:
    """Kill every process of ``uid`` (as that uid, atomically): used when a seat
    gets a uid that a crashed judge may have left processes under."""
    subprocess.run(
        list(helper.argv) + ["killuid", str(uid), str(gid)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=30,
    )
