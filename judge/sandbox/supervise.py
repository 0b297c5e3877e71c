"""Run one program through the exec helper and watch it until it and all it started are gone.

One thread, no helper threads: ``poll()`` waits at once on the helper's exit
(a pidfd), the program's stdout and stderr (drained as they come, so a 100 MB
flood never blocks the program or the judge, and only the tails are kept), and
the next deadline (time limit, memory poll).  The helper itself only exits when
every descendant has exited, so "the helper exited" is exactly R17's "the
program and everything it started exited".

At the time limit the run's CPU waiting is measured (:mod:`.cpuwait`): time
the program spent runnable while something else held its core is given back
as extra time (up to a cap) before the run is called a time-out, so a busy
machine or a busy judge never turns into a TLE.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
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
from judge.sandbox.helper import Helper, HelperProcess
from judge.sandbox.procfs import children
from judge.sandbox.record import HelperRecord, RawRun, Tail
from judge.sandbox.starvation import Canary, StarvationMeter
from judge.sandbox.steps import StepTimes
from judge.sandbox.zygote import (
    FIRST_NS_FD,
    STATUS_FD,
    Armed,
    Zygote,
    ZygoteFailed,
    ZygoteRun,
    ZygoteUnavailable,
)

PAGE = os.sysconf("SC_PAGE_SIZE")
READ_CHUNK = 1 << 20
PIPE_SIZE = 1 << 20
#: How long the helper may take to kill and reap everything after being told to.
KILL_GRACE_S = 2.0
#: How often cgroup OOM counters are checked while a run goes on.
CGROUP_CHECK_S = 0.05
#: How much of the start of stderr is kept besides its tail.
HEAD_BYTES = 16 * 1024
#: How long the exec helper may take to start the program (its first status line says
#: when it forked it: the run's clock starts there, not when the judge asked).
START_GRACE_S = 10.0


@dataclass(frozen=True)
class Spawn:
    """Everything the helper needs for one run (or one reachability check)."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    uid: int | None = None
    gid: int | None = None
    ns_fds: tuple[int, ...] = ()
    unshare: bool = False
    rlimits: tuple[tuple[str, int], ...] = ()
    nproc_extra: int | None = None
    oom_protect: bool = False
    check: bool = False
    argcheck: tuple[int, ...] = ()
    #: kill only the program's own process tree, not every process of its uid: the
    #: seat's uid also runs a seat-long service (wine's server) that must survive
    tree_only_kill: bool = False
    cpu: int | None = None  #: the one core the run is pinned to
    nice: int | None = None  #: the program's nice value (None: the judge's)


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
        self._use_psutil = not os.path.exists(f"/proc/{root_pid}/task/{root_pid}/children")

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
            try:
                with open(f"/proc/{pid}/statm", "rb") as f:
                    total += int(f.read().split()[1]) * PAGE
            except (OSError, ValueError, IndexError):
                continue
            stack.extend(children(pid))
        self.peak = max(self.peak, total)
        return total


def helper_command(
    helper: Helper, spawn: Spawn, status_fd: int, cg: RunCgroup | None, go_fd: int | None = None
) -> list[str]:
    """The command line of a one-shot exec helper for ``spawn`` (``go_fd``: it waits for
    its go on that fd)."""
    return [*helper.argv, "run", *_run_words(spawn, status_fd, cg, spawn.ns_fds, go_fd)]


def _run_words(
    spawn: Spawn,
    status_fd: int,
    cg: RunCgroup | None,
    ns_fds: tuple[int, ...],
    go_fd: int | None = None,
) -> list[str]:
    """The helper's "run" options and the program's argv (the words after "run");
    ``go_fd``: the run is armed, and waits for its go (and core) on that fd."""
    cmd = ["-s", str(status_fd), "-d", spawn.cwd]
    if cg is not None:
        for procs in cg.procs_files:
            cmd += ["-c", procs]
        for procs in cg.child_procs_files:
            cmd += ["-j", procs]
    for fd in ns_fds:
        cmd += ["-n", str(fd)]
    if spawn.uid is not None:
        cmd += ["-u", str(spawn.uid)]
    if spawn.gid is not None:
        cmd += ["-g", str(spawn.gid)]
    for name, value in spawn.rlimits:
        cmd += ["-r", f"{name}={value}"]
    if spawn.nproc_extra is not None:
        cmd += ["-N", str(spawn.nproc_extra)]
    if spawn.oom_protect:
        cmd.append("-o")
    if spawn.unshare:
        cmd.append("-U")
    if spawn.check:
        cmd.append("-C")
    if spawn.tree_only_kill:
        cmd.append("-t")
    for idx in spawn.argcheck:
        cmd += ["-A", str(idx)]
    if spawn.cpu is not None:
        cmd += ["-a", str(spawn.cpu)]
    if spawn.nice is not None:
        cmd += ["-P", str(spawn.nice)]
    if go_fd is not None:
        cmd += ["-W", str(go_fd)]
    cmd.append("--")
    cmd += spawn.argv
    return cmd


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
    measure_wait: bool = False,
    services: tuple[int, ...] = (),
    services_in_group: bool = False,
    steps: StepTimes | None = None,
    zygote: Zygote | None = None,
    armed: Armed | None = None,
    canary: Canary | None = None,
    starting: Callable[[], None] | None = None,
) -> RawRun:
    """Run once, in named steps: start the helper, watch the run until the helper is
    gone, read its record, read the run's waits.  Never raises for anything the
    program does; judge-side failures are returned as ``internal_error`` (an IE
    verdict), and the tree is always gone when this returns.  ``measure_wait``:
    give CPU waiting back at the limit; ``services``: processes outside the run
    that work for it (the seat's wineserver), whose waiting for a CPU during the
    run is the run's too (``services_in_group``: they are in the run's pressure
    group for the run, so its PSI counts them already and only their CPU is
    read).  ``steps``: where the helper's and the program's time and the reading
    of the waits go.  ``zygote``: the seat's persistent helper, which makes the run's
    helper process (the judge's child) instead of a one-shot helper started here
    (:mod:`.zygote`); ``armed``: the seat's run armed ahead of this one, to start with
    its go (:func:`arm`); ``canary``: the machine's starvation of ordinary processes,
    given back like waiting (:mod:`.starvation`); ``starting``: called as the helper
    is about to be started (or the armed run given its go), the judge's work before
    it done (:meth:`Seat.run_turn <judge.sandbox.seat.Seat.run_turn>`)."""
    # stderr's first lines are kept too: what wine writes before the program runs
    raw = RawRun(None, None, 0.0, 0.0, Tail(output_bytes), Tail(output_bytes, head_cap=HEAD_BYTES))
    service_base = tree_times(services) if measure_wait and services else None
    if starting is not None:
        starting()
    start = time.monotonic()
    started = _start_helper(helper, spawn, cg, raw, zygote, armed)
    if started is None:
        return raw
    proc, status_r = started
    meter, service_meter = (
        _wait_meter(cg, proc.pid, services, service_base, services_in_group)
        if measure_wait
        else (None, None)
    )
    if meter is not None and canary is not None and time_s is not None and canary.start():
        meter = StarvationMeter(meter, canary, time_s)
    if meter is not None:
        raw.wait_source = meter.source
    watch = _Watch(proc, status_r, raw, cg, start, time_s, memory_bytes, poll_s, meter)
    status_buf = watch.until_gone(helper, kill_uid)
    _read_record(raw, status_buf, watch)
    if isinstance(meter, StarvationMeter) and watch.prog_start is not None:
        meter.begin = watch.prog_start
    waits_from = time.monotonic()
    _read_waits(raw, meter, service_meter, cg)
    if steps is not None:
        program = (raw.record.wall_s if raw.record is not None else None) or 0.0
        steps.add("program", program)
        steps.add("helper", (waits_from - start) - program)
        steps.add("waits", time.monotonic() - waits_from)
    return raw


class _OneShot(HelperProcess):
    """A one-shot exec helper, the judge's child: watched through a pidfd where there
    are pidfds, reaped here."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.pid = proc.pid
        self.stdout_fd = proc.stdout.fileno()
        self.stderr_fd = proc.stderr.fileno()
        try:
            self.pidfd: int | None = os.pidfd_open(proc.pid)
        except (OSError, AttributeError):
            self.pidfd = None

    @property
    def done(self) -> bool:
        return self.proc.returncode is not None

    def wait(self, timeout: float | None) -> bool:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def reap(self) -> tuple[int | None, Any]:
        _, status, rusage = os.wait4(self.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return status, rusage

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()
        self.proc.stderr.close()


_Proc = _OneShot | ZygoteRun


def _start_helper(
    helper: Helper,
    spawn: Spawn,
    cg: RunCgroup | None,
    raw: RawRun,
    zygote: Zygote | None = None,
    armed: Armed | None = None,
) -> tuple[_Proc, int] | None:
    """Step "helper": start the run's helper with its status pipe: the run armed ahead
    of its turn when there is one (its go), else made by the seat's zygote when there
    is one, else a one-shot helper; None (``raw`` says why) when it cannot be started."""
    if armed is not None:
        try:
            return armed.go(spawn.cpu), armed.status_r
        except (ZygoteUnavailable, ZygoteFailed):
            pass  # called off, nothing ran: the run is made now, as any other
    if zygote is not None:
        try:
            return _start_by_zygote(zygote, spawn, cg)
        except ZygoteFailed as exc:
            raw.internal_error = str(exc)
            return None
        except ZygoteUnavailable:
            pass  # nothing was started: this run starts a one-shot helper
    status_r, status_w = os.pipe2(os.O_CLOEXEC)
    cmd = helper_command(helper, spawn, status_w, cg)
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=spawn.env,
            pass_fds=(status_w, *spawn.ns_fds),
            cwd="/",
            close_fds=True,
        )
    except OSError as exc:
        os.close(status_r)
        os.close(status_w)
        raw.internal_error = f"cannot start the exec helper {cmd[0]}: {exc}"
        return None
    os.close(status_w)
    assert proc.stdout is not None and proc.stderr is not None
    for fd in (proc.stdout.fileno(), proc.stderr.fileno()):
        _ready_output(fd)
    return _OneShot(proc), status_r


def _ready_output(fd: int) -> None:
    """The judge's end of a run's stdout or stderr pipe: read without blocking, with a
    large buffer (where the system allows one) so a chatty program is rarely held up."""
    os.set_blocking(fd, False)
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass


#: a Spawn's fields but its core: what an armed run must match (read field by field,
#: cheaper than a copy of the Spawn each run)
_ARM_KEY_FIELDS = tuple(f.name for f in dataclasses.fields(Spawn) if f.name != "cpu")


def arm_key(spawn: Spawn, cg: RunCgroup | None) -> object:
    """What a run must match to use the run armed for it: everything the helper is told
    but the core (given at the go), and the same groups."""
    return (
        tuple(getattr(spawn, name) for name in _ARM_KEY_FIELDS),
        None if cg is None else (cg.procs_files, cg.child_procs_files),
    )


def arm(zygote: Zygote, spawn: Spawn, cg: RunCgroup | None) -> None:
    """Arm the seat's next run with the zygote (:class:`~.zygote.Armed`): the run as
    ``spawn`` says but its core, which comes with the go.  ZygoteUnavailable: not armed."""
    go_fd = FIRST_NS_FD + len(spawn.ns_fds)  # after the namespaces' fds
    (status_r, out_r, err_r), theirs = _run_pipes()
    go_r, go_w = os.pipe2(os.O_CLOEXEC)
    try:
        zygote.arm(
            arm_key(spawn, cg),
            lambda: _zygote_words(dataclasses.replace(spawn, cpu=None), cg, go_fd),
            spawn.env,
            [*theirs, *spawn.ns_fds, go_r],
            (status_r, out_r, err_r, go_w),
        )
    finally:
        for fd in (*theirs, go_r):
            os.close(fd)


def _start_by_zygote(zygote: Zygote, spawn: Spawn, cg: RunCgroup | None) -> tuple[_Proc, int]:
    """The run's helper process made by the seat's zygote, with the same pipes a
    one-shot helper gets (its stdout and stderr are the program's)."""
    words = _zygote_words(spawn, cg)
    mine, theirs = _run_pipes()
    status_r, out_r, err_r = mine
    try:
        run = zygote.spawn(words, spawn.env, [*theirs, *spawn.ns_fds], out_r, err_r)
    except BaseException:
        for fd in mine:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    return run, status_r


def _zygote_words(spawn: Spawn, cg: RunCgroup | None, go_fd: int | None = None) -> list[str]:
    """A "run" request's words for the zygote, which hands the run its fds in order:
    the status pipe as STATUS_FD, then the namespaces' from FIRST_NS_FD (then the go
    pipe's, ``go_fd``, for an armed run)."""
    ns = tuple(range(FIRST_NS_FD, FIRST_NS_FD + len(spawn.ns_fds)))
    return _run_words(spawn, STATUS_FD, cg, ns, go_fd)


def _run_pipes() -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A run's status, stdout and stderr pipes: the judge's read ends (the outputs
    ready to be drained) and the run's write ends."""
    status_r, status_w = os.pipe2(os.O_CLOEXEC)
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    try:
        for fd in (out_r, err_r):
            _ready_output(fd)
    except BaseException:
        for fd in (status_r, status_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    return (status_r, out_r, err_r), (status_w, out_w, err_w)


def _wait_meter(
    cg: RunCgroup | None,
    pid: int,
    services: tuple[int, ...],
    service_base: tuple[int, int] | None,
    services_in_group: bool,
) -> tuple[WaitMeter, ServiceMeter | None]:
    """How the run's waiting for a CPU is measured: its group's PSI, else its tasks'
    schedstat; plus its services' waiting, when it has any."""
    psi = cg.psi_dir if cg is not None else None
    meter: WaitMeter = (
        PsiMeter(psi, cg.psi_base, cg.files.read) if psi and cg is not None else TreeMeter(pid)
    )
    if service_base is None:
        return meter, None
    service_meter = ServiceMeter(meter, services, service_base, counted=services_in_group)
    return service_meter, service_meter


class _Watch:
    """Steps "program" and "helper": one thread watches the run until the helper is gone.

    ``poll()`` waits at once on the helper's exit (a pidfd), the program's stdout
    and stderr (drained as they come), the status pipe (whose first line starts
    the clock) and the next deadline (time limit, memory poll, OOM check)."""

    def __init__(
        self,
        proc: _Proc,
        status_r: int,
        raw: RawRun,
        cg: RunCgroup | None,
        start: float,
        time_s: float | None,
        memory_bytes: int,
        poll_s: float,
        meter: WaitMeter | None,
    ) -> None:
        self.proc, self.status_r, self.raw, self.cg = proc, status_r, raw, cg
        self.start, self.time_s, self.memory_bytes, self.poll_s = (
            start,
            time_s,
            memory_bytes,
            poll_s,
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


def _read_waits(
    raw: RawRun,
    meter: WaitMeter | None,
    service_meter: ServiceMeter | None,
    cg: RunCgroup | None,
) -> None:
    """Step "waits": the run's counters once it is over: CPU waiting (and its services'
    CPU), the group's memory peak, OOM kills and refused forks."""
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


def _terminate(proc: _Proc) -> float:
    """Ask the helper to kill the whole tree (it is root-owned; bots cannot intercept)."""
    proc.signal(signal.SIGTERM)
    return time.monotonic()


def _force_kill(
    proc: _Proc, cg: RunCgroup | None, helper: Helper, kill_uid: tuple[int, int] | None
) -> None:
    proc.signal(signal.SIGKILL)
    if cg is not None:
        cg.kill_all()
    if kill_uid is not None:
        sweep_uid(helper, *kill_uid)


def _abort(
    proc: _Proc,
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
