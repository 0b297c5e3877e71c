"""Turning what a run did into one verdict with a plain-words reason.

Order when several limits were broken: IE (the judge failed: never the bot's
fault) > MLE > OLE > TLE > RE > OK.  Memory and file caps are broken at one
moment and what follows (a hang after EFBIG, a kill after OOM) is a
consequence, so they name the cause; a timeout beats the kill signal it causes.

Time is the program's own: a run that was kept waiting for a CPU (measured by
:mod:`.cpuwait`) got that time back before it was called a time-out.  One that
then finished only in that extra time, or still had less than its limit to
itself when the extension ran out, is the judge's failure (IE, "kept waiting"),
never TLE: the referee runs it again.

A time-out the disk decided is not given the stall back (a program could stall
itself on purpose, reading a large file past the cache), but it is marked
``stalled_on_disk`` and run again a few times (:mod:`.pair`), the last run
standing: a program's own folders are in memory, so what it waits for on the
disk is its interpreter, its libraries and its program file, read once from a
cold cache while the machine's disk is busy (measured: a wine run blocked 0.45 s
of its 0.5 s on the disk while other judges and wine prefixes were being built),
and read from the cache when it runs again.
"""

from __future__ import annotations

import os
import signal as _signal

from judge.sandbox.cpuwait import wait_grace_s
from judge.sandbox.record import RawRun
from judge.sandbox.types import Limits, RunResult, Verdict


def fmt_bytes(n: int) -> str:
    """Human sizes: 512 MiB, 1.5 KiB, 700 B."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} B"


def signal_name(sig: int) -> str:
    try:
        return _signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


#: an MLE names the largest file left in the seats' folders from this size on
_FILES_NOTE_BYTES = 2**20


def disk_decided(raw: RawRun, limits: Limits) -> bool:
    """Whether a time-out was the disk's doing: without the time its group was stalled on
    the disk (and the waiting for a CPU given back), the program had time left, and it did
    not spend its limit on a CPU either."""
    if limits.time_s is None or not raw.io_stall_s:
        return False
    wait = raw.wait_s or 0.0
    own = limits.time_s - wait_grace_s(limits.time_s)
    return raw.wall_s - wait - raw.io_stall_s < own and raw.cpu_s + wait < own


def decide(
    raw: RawRun,
    limits: Limits,
    biggest_file: tuple[str, int] | None,
    memory_by_cgroup: bool,
    files_in_memory: bool = False,
) -> RunResult:
    """The verdict of one run.  ``biggest_file``: largest regular file left in the
    seat's folders (name, size), found while cleaning them.  ``files_in_memory``: the
    folders are a tmpfs charged to the run's memory group (judge.sandbox.memfs), so an
    MLE says so when the run left a file of a MiB or more there."""
    files_note = ""
    if files_in_memory and biggest_file is not None and biggest_file[1] >= _FILES_NOTE_BYTES:
        files_note = (
            "; the files it writes in its folders are memory and count toward it (the "
            f"largest it left: {biggest_file[0]}, {fmt_bytes(biggest_file[1])})"
        )
    st = raw.main_status
    exit_code = os.WEXITSTATUS(st) if st is not None and os.WIFEXITED(st) else None
    sig = os.WTERMSIG(st) if st is not None and os.WIFSIGNALED(st) else None
    peak = raw.cg_peak if raw.cg_peak is not None else raw.polled_peak
    if memory_by_cgroup and raw.cg_peak is not None:
        peak = raw.cg_peak

    def result(verdict: Verdict, message: str, kept_waiting: bool = False) -> RunResult:
        stalled = verdict is Verdict.TLE and disk_decided(raw, limits)
        notes = _notes(raw, limits)
        if notes:
            message = f"{message}; {'; '.join(notes)}"
        return RunResult(
            verdict=verdict,
            wall_s=raw.wall_s,
            cpu_s=raw.cpu_s,
            peak_memory_bytes=peak,
            exit_code=exit_code,
            signal=sig,
            stdout_tail=raw.stdout.data,
            stderr_tail=raw.stderr.data,
            message=message,
            wait_s=raw.wait_s,
            kept_waiting=kept_waiting,
            service_cpu_s=raw.service_cpu_s,
            stalled_on_disk=stalled,
        )

    rec = raw.record
    if rec is None and raw.cg_oom_kills > 0:
        # The OOM killer took the helper too (it could not protect itself): still the bot's MLE.
        return result(
            Verdict.MLE,
            f"memory limit {fmt_bytes(limits.memory_bytes)} exceeded: the kernel "
            f"stopped the program at a peak of {fmt_bytes(peak)} for the whole "
            f"process tree{files_note}",
        )
    if raw.internal_error:
        return result(Verdict.IE, f"judge internal error: {raw.internal_error}")
    if rec is not None and rec.setup is not None:
        return result(
            Verdict.IE,
            f"judge internal error: the exec helper could not set up the run "
            f"({rec.setup.stage}: {rec.setup.error})",
        )
    if rec is not None and rec.child is not None:
        return result(
            Verdict.IE,
            f"judge internal error: the program's process could not be prepared "
            f"({rec.child.stage}: {rec.child.error})",
        )
    if st is None:
        return result(Verdict.IE, "judge internal error: the exec helper reported no exit status")

    limit = limits.memory_bytes
    oom = raw.cg_oom_kills > 0
    if (
        not oom
        and memory_by_cgroup
        and raw.cg_failcnt > 0
        and sig == _signal.SIGKILL
        and not raw.timed_out
    ):
        oom = True  # old kernels without an oom_kill counter
    if oom:
        return result(
            Verdict.MLE,
            f"memory limit {fmt_bytes(limit)} exceeded: the kernel stopped the "
            f"program at a peak of {fmt_bytes(peak)} for the whole process tree{files_note}",
        )
    if raw.mem_killed or (not memory_by_cgroup and peak > limit):
        how = "killed when polling saw it" if raw.mem_killed else "measured after it exited"
        return result(
            Verdict.MLE,
            f"memory limit {fmt_bytes(limit)} exceeded: peak resident memory "
            f"{fmt_bytes(peak)} for the whole process tree ({how})",
        )
    if sig == _signal.SIGXFSZ:
        return result(
            Verdict.OLE,
            f"file size limit {fmt_bytes(limits.file_bytes)} exceeded: killed by "
            "SIGXFSZ while writing a file",
        )
    if biggest_file is not None and biggest_file[1] >= limits.file_bytes:
        return result(
            Verdict.OLE,
            f"file size limit {fmt_bytes(limits.file_bytes)} reached: "
            f"{biggest_file[0]} was {fmt_bytes(biggest_file[1])}",
        )
    wait = raw.wait_s or 0.0
    if raw.timed_out and raw.starved:
        assert limits.time_s is not None
        return result(
            Verdict.IE,
            f"judge internal error: the program was kept waiting {wait:.3f} s for a CPU "
            f"that something else held, so in {raw.wall_s:.3f} s it had only "
            f"{raw.wall_s - wait:.3f} s of its {limits.time_s:g} s limit to itself; "
            "the machine is too busy to time it fairly (not the program's fault)",
            kept_waiting=True,
        )
    if raw.timed_out:
        main_exit = raw.main_exit_s
        assert limits.time_s is not None
        # Waiting given back as extra time is said, so the wall time shown adds up.
        waited = f"not counting {wait:.3f} s it was kept waiting for a CPU" if raw.extended else ""
        if main_exit is not None and main_exit < limits.time_s + wait and sig is None:
            return result(
                Verdict.TLE,
                f"time limit {limits.time_s:g} s exceeded{f' ({waited})' if waited else ''}: "
                f"the program exited after {main_exit:.3f} s, but processes it started "
                f"were still running at the limit; all were killed ({time_spent(raw)})",
            )
        return result(
            Verdict.TLE,
            f"time limit {limits.time_s:g} s exceeded (wall clock{f', {waited}' if waited else ''}); "
            f"killed after {raw.wall_s:.3f} s: {time_spent(raw)}",
        )
    if sig is not None:
        return result(Verdict.RE, f"killed by signal {sig} ({signal_name(sig)})")
    if exit_code:
        return result(Verdict.RE, f"exited with code {exit_code}")
    late = _late_exit(raw, limits)
    if late is not None:
        return result(late[0], late[1], kept_waiting=late[0] is Verdict.IE)
    if raw.extended:
        assert limits.time_s is not None
        return result(
            Verdict.IE,
            f"judge internal error: the run took {raw.wall_s:.3f} s, over the "
            f"{limits.time_s:g} s limit, but it was kept waiting {wait:.3f} s for a CPU "
            "that something else held (the machine or the judge was busy); it exited "
            "normally within its own time, so it is run again (not the program's fault)",
            kept_waiting=True,
        )
    return result(Verdict.OK, "exited normally")


#: How far past the limit an exit the judge did not stop in time may be and still count
#: as in time (the helper's clock runs until the last process is reaped).
LATE_TOLERANCE_S = 0.01


def _late_exit(raw: RawRun, limits: Limits) -> tuple[Verdict, str] | None:
    """A program that exited past its limit before the judge got round to stopping it
    (a busy judge notices the deadline late): still judged on its own time."""
    if raw.timed_out or raw.extended or limits.time_s is None:
        return None
    if raw.wall_s <= limits.time_s + LATE_TOLERANCE_S:
        return None
    wait = raw.wait_s or 0.0
    if raw.wall_s - wait > limits.time_s + LATE_TOLERANCE_S:
        return (
            Verdict.TLE,
            f"time limit {limits.time_s:g} s exceeded (wall clock): the program ran "
            f"{raw.wall_s:.3f} s before it exited: {time_spent(raw)}",
        )
    return (
        Verdict.IE,
        f"judge internal error: the run took {raw.wall_s:.3f} s, over the "
        f"{limits.time_s:g} s limit, but it was kept waiting {wait:.3f} s for a CPU that "
        "something else held (the machine or the judge was busy), so it is run again "
        "(not the program's fault)",
    )


def time_spent(raw: RawRun) -> str:
    """Where a run's wall time went, so a time-out explains itself: the program's CPU,
    the waiting for a CPU the judge counted (and gave back), and the rest, in which
    the program neither ran nor was kept waiting (it slept, or waited for a file or
    for its wineserver, whose own CPU for it is said; how long it was stalled on the
    disk, where the run's group says it, is said too: the machine's doing or its own)."""
    wait = raw.wait_s or 0.0
    rest = max(0.0, raw.wall_s - raw.cpu_s - wait)
    counted = (
        f"{wait:.2f} s waiting for a CPU" if raw.wait_s is not None else "waiting not measured"
    )
    served = ""
    if raw.service_cpu_s:
        served = f", {raw.service_cpu_s:.2f} s of it while the seat's wineserver worked for it"
    if raw.io_stall_s is not None and raw.io_stall_s >= 0.005:
        served += f", {min(raw.io_stall_s, rest):.2f} s of it stalled on the disk"
    return f"{raw.cpu_s:.2f} s CPU, {counted}, {rest:.2f} s neither: sleeping or blocked{served}"


def _notes(raw: RawRun, limits: Limits) -> list[str]:
    notes = []
    for name, tail in (("stdout", raw.stdout), ("stderr", raw.stderr)):
        if tail.truncated:
            notes.append(
                f"{name} truncated: kept the last {fmt_bytes(len(tail.data))} of "
                f"{fmt_bytes(tail.total)}"
            )
    if raw.pids_refused:
        notes.append(f"process cap {limits.max_procs} reached: {raw.pids_refused} forks refused")
    elif raw.procs_at_kill is not None and raw.procs_at_kill >= limits.max_procs:
        notes.append(
            f"process cap {limits.max_procs} reached: {raw.procs_at_kill} processes and "
            "threads were running when it was killed"
        )
    if raw.survivors:
        notes.append(
            f"{len(raw.survivors)} processes were still in the run's cgroup after the helper "
            "exited and were killed"
        )
    return notes
