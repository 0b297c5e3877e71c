"""How long this machine kept its ordinary processes off a CPU, whatever a run's own counters say.

A run's waiting for a CPU is read from its own counters (PSI, schedstat), and
given back.  But a program can also be kept from running by the machine in a
way its own counters call sleeping: real-time load on a core (a burst of an
outside ``SCHED_FIFO`` task) starves every ordinary process there for its
length, kernel threads included, and a program that needs one of them, or a lock one
of them holds (a file's write, a page of the disk cache), sleeps until the
burst ends.  Measured here: with such bursts of 0.35 s on both cores, a process
that writes and reads back a small file, on ext4 as on tmpfs, was blocked (not
running, not runnable) for 345-352 ms in one file operation, in 5 of 8 bursts.
The run's counters showed 0.01 s of waiting and 0.34 s "neither"; the run was
judged TLE, and its retry in quieter time OK.

The :class:`Canary` sees it.  A thread of the judge per core, an ordinary
(not real-time) thread held to its core, at nice :data:`CANARY_NICE` where the
judge may set it (root; else at the judge's own), wakes every few milliseconds
and reads how long it was runnable but kept off its CPU (its own schedstat
``run_delay``: time it waited for a lock, the judge's interpreter lock
included, is sleeping, not counted).  A wait of at least :data:`EPISODE_S` in
one wake-up is the machine starving ordinary processes on that core; any
core's counts, for a program can wait on the kernel's workers of another core
than its own (the determinism test's bursts are not on every core at once, and
a run on a free core was still blocked for a whole burst).  No bot can cause
an episode: bots run at BOT_NICE, below the canaries.  (At the judge's own
nice, a busy program at BOT_NICE kept a canary waiting 5-7 ms as a rule, but
now and then 20-23 ms on this machine's kernel: an episode.)  A canary
starved through a whole reading is seen too, silent and runnable
(:meth:`Canary.settle`).  The time of episodes inside a run is given back to
the run like its own waiting (:class:`StarvationMeter`), so a run the machine
stalled is run again, never judged on it.
"""

from __future__ import annotations

import os
import threading
import time

from judge.sandbox.cores import JudgePin
from judge.sandbox.cpuwait import NS, WaitMeter
from judge.sandbox.procfs import has_schedstat, pread_schedstat, task_schedstat_fd, thread_state

#: The canary's period: how late a starvation may be seen (a wake-up of a Python
#: thread costs some 20 µs and a hand-over of the interpreter lock).
PERIOD_S = 0.02
#: Up to this many cores the canaries wake every PERIOD_S; on more, proportionally less
#: often, so that a big machine's judge wakes no more than this many threads that often.
PERIOD_CORES = 8
#: A wait for a CPU this long in one wake-up is the machine starving ordinary processes.
EPISODE_S = 0.02
#: The canaries' nice value where the judge may set it (root): above the bots' BOT_NICE.
CANARY_NICE = -20
#: Episodes older than this are forgotten (a run is at most a few times its limit).
KEEP_S = 120.0


class Canary:
    """The judge's starvation sensor: episodes in which an ordinary thread was kept off a
    CPU for at least :data:`EPISODE_S`.  One thread per core the judge may use, each held
    to its core: a program can be kept waiting by the starvation of another core than
    its own (the kernel's per-core workers run there), so any core's episode counts.
    Thread-safe; started at its first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: (monotonic time the episode ended, its length in seconds), every core's
        self._episodes: list[tuple[float, float]] = []
        #: core -> when its canary last ran (monotonic)
        self._beats: dict[int, float] = {}
        #: core -> its canary thread's id (to read its state while it is silent)
        self._tids: dict[int, int] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._broken = False
        #: how often each canary wakes (PERIOD_S, longer on many cores)
        self.period_s = PERIOD_S

    def start(self) -> bool:
        """Start the threads if they are not running (False: no schedstat here)."""
        with self._lock:
            if self._stop.is_set():
                return False
            if self._threads or self._broken:
                return not self._broken
            if not has_schedstat():
                self._broken = True
                return False
            # Every core the judge may use, not only the judge's own (the judge pins its
            # threads to its cores, and a thread it starts inherits that).
            cores = sorted(JudgePin.before_pinning() or os.sched_getaffinity(0))
            self.period_s = PERIOD_S * max(1.0, len(cores) / PERIOD_CORES)
            now = time.monotonic()
            for core in cores:
                self._beats[core] = now
                thread = threading.Thread(
                    target=self._watch, args=(core,), name=f"starvation-canary-{core}", daemon=True
                )
                self._threads.append(thread)
            for thread in self._threads:
                thread.start()
            return True

    def _watch(self, core: int) -> None:
        try:
            self._loop(core)
        except Exception:  # noqa: BLE001 - a dead canary must not make readings wait
            with self._lock:
                self._beats.pop(core, None)

    def _loop(self, core: int) -> None:
        try:
            os.sched_setaffinity(0, {core})
        except OSError:
            pass
        tid = threading.get_native_id()
        try:
            # Above the bots (BOT_NICE), whose one busy program per core could otherwise
            # keep this thread waiting 20 ms now and then (this kernel's scheduler, a
            # program at nice -10): only real-time load starves it.  A normal user's
            # judge cannot raise it, and keeps the judge's own priority.
            os.setpriority(os.PRIO_PROCESS, tid, CANARY_NICE)
        except OSError:
            pass
        with self._lock:
            self._tids[core] = tid
        fd = task_schedstat_fd(tid)
        try:
            last, _ = _schedstat(fd)
            while not self._stop.wait(self.period_s):
                now = time.monotonic()
                delay, _ = _schedstat(fd)
                waited = (delay - last) * NS
                last = delay
                with self._lock:
                    if waited >= EPISODE_S:
                        self._episodes.append((now, waited))
                        cutoff = now - KEEP_S
                        while self._episodes and self._episodes[0][0] < cutoff:
                            self._episodes.pop(0)
                    self._beats[core] = now
        finally:
            os.close(fd)

    def settle(self, at: float) -> None:
        """Wait (at most four periods and an episode) until every core's canary has run
        after monotonic time ``at``, so an episode that ended before ``at`` is counted: a
        verdict's deadline is read when the judge itself may only just have got a CPU
        back.  A canary still silent then, and runnable, is being starved now: the
        episode it is in so far counts (:meth:`_count_silent`)."""
        if not self._threads or self._broken or self._stop.is_set():
            return
        runs = self._silent_runs(at)
        # From after the counts were read: the wait is what tells a canary kept off
        # its CPU from one waiting for the interpreter lock (its count moves meanwhile).
        deadline = time.monotonic() + 4 * self.period_s + EPISODE_S
        while time.monotonic() < deadline:
            with self._lock:
                if all(beat >= at for beat in self._beats.values()):
                    return
            time.sleep(0.001)
        self._count_silent(at, runs)

    def _silent_runs(self, at: float) -> dict[int, int | None]:
        """core -> how many times its canary has been on a CPU so far, for each canary
        silent since before ``at`` (read as :meth:`settle` starts to wait)."""
        with self._lock:
            silent = [
                (core, self._tids.get(core)) for core, beat in self._beats.items() if beat < at
            ]
        return {core: None if tid is None else _task_runs(tid) for core, tid in silent}

    def _count_silent(self, at: float, runs: dict[int, int | None]) -> None:
        """An episode still going on: a canary silent since before ``at`` that has not been
        on a CPU at all through :meth:`settle`'s wait (its schedstat's count of runs the
        same as in ``runs``, read as the wait began) and is runnable now (state R) is
        being kept off its CPU.  It only reports an episode once it runs again, after a
        burst of real-time load that may outlast the wait (0.35 s bursts did, and a run
        at its deadline was judged on time the machine had taken: TLE).  Its silence
        since its last beat counts as an episode ending now; the one it reports later
        overlaps it and counts once.  A canary kept silent by an interpreter lock the
        judge holds does not count: it wakes every switch interval (5 ms) to ask for
        the lock again, so its count moves through the wait.  (Counted from its last
        beat, not from the wait's start, a canary that had to wait for the lock first,
        the judge's thread holding it while the machine kept that thread off its own
        CPU, is seen all the same: that is what a full-suite run beside two busy
        processes saw, and a starvation of 0.3 s was read as none.)"""
        now = time.monotonic()
        with self._lock:  # those silent as the wait began and still (a dead one has no beat)
            silent = [
                (self._beats[core], self._tids.get(core), before)
                for core, before in runs.items()
                if self._beats.get(core, at) < at
            ]
        for beat, tid, before in silent:
            length = now - beat - self.period_s
            if tid is None or before is None or length < EPISODE_S:
                continue
            # The state first: R seen, then the count unchanged, is runnable and not run
            # (R also means running, which the count read after it would show).
            if thread_state(tid) != "R" or _task_runs(tid) != before:
                continue
            with self._lock:
                self._episodes.append((now, length))

    def starved_s(self, since: float, until: float | None = None) -> float:
        """Seconds between monotonic times ``since`` and ``until`` in which some core was
        in a starvation episode (overlapping episodes of several cores count once)."""
        with self._lock:
            episodes = list(self._episodes)
        spans = sorted(
            (max(end - length, since), end if until is None else min(end, until))
            for end, length in episodes
        )
        total = 0.0
        reach = since
        for lo, hi in spans:
            lo = max(lo, reach)
            if hi > lo:
                total += hi - lo
                reach = hi
        return total

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(1.0)


def _schedstat(fd: int) -> tuple[int, int]:
    """The canary's own time runnable but off a CPU so far (ns), and how many times it
    has been on a CPU (schedstat's second and third fields)."""
    fields = pread_schedstat(fd)
    return fields[1], fields[2]


def _task_runs(tid: int) -> int | None:
    """How many times a thread of this process has been on a CPU (None: unknown)."""
    try:
        fd = task_schedstat_fd(tid)
    except OSError:
        return None
    try:
        return _schedstat(fd)[1]
    except (OSError, ValueError, IndexError):
        return None
    finally:
        os.close(fd)


class StarvationMeter:
    """A run's waiting, or the machine's starvation during it where that is longer: the
    time ordinary processes were kept off a CPU is time the program could not have
    used either, whatever its own counters call it (sleeping or blocked).

    ``time_s``: the run's limit.  A reading near or past it (a deadline, a late exit)
    first lets the canary catch up; one well inside it does not wait."""

    def __init__(self, inner: WaitMeter, canary: Canary, time_s: float) -> None:
        self.inner = inner
        self.canary = canary
        self.time_s = time_s
        self.source = f"{inner.source}, and the machine's starvation of ordinary processes"
        #: read after the run too (the canary's episodes stay; an inner meter that cannot
        #: be read then keeps its last figures)
        self.after_exit = True
        #: when the program's clock started (monotonic), once known: the reading after
        #: the run is made later than the run's end, so its window is not "now - elapsed"
        self.begin: float | None = None
        self._own: float | None = None

    @property
    def cpu_s(self) -> float | None:
        return self.inner.cpu_s

    def read(self, elapsed_s: float) -> float | None:
        if self.begin is None or self.inner.after_exit:
            self._own = self.inner.read(elapsed_s)
        own = self._own  # after the run, an inner meter that cannot be read then: its last
        now = time.monotonic()
        begin = self.begin if self.begin is not None else now - elapsed_s
        if elapsed_s >= self.time_s - EPISODE_S:
            self.canary.settle(min(now, begin + elapsed_s) - self.canary.period_s)
        starved = self.canary.starved_s(begin, begin + elapsed_s)
        if starved <= 0.0:
            return own
        # The time neither the program nor (for an .exe) its wineserver was on a CPU.
        served = getattr(self.inner, "service_cpu_s", 0.0) or 0.0
        idle = elapsed_s - (self.inner.cpu_s or 0.0) - served
        return max(own or 0.0, min(starved, max(0.0, idle)))
