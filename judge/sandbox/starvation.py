"""How long this machine kept its ordinary processes off every CPU (issue 32's last hole).

A run's waiting for a CPU is read from its own counters (PSI, schedstat), and
given back.  But a program can also be kept from running by the machine in a
way its own counters call sleeping: real-time load on every core (a burst of
an outside ``SCHED_FIFO`` task) starves every ordinary process for its length,
kernel threads included, and a program that needs one of them, or a lock one
of them holds (a file's write, a page of the disk cache), sleeps until the
burst ends.  Measured here: with such bursts of 0.35 s on both cores, a process
that writes and reads back a small file, on ext4 as on tmpfs, was blocked (not
running, not runnable) for 345-352 ms in one file operation, in 5 of 8 bursts.
The run's counters showed 0.01 s of waiting and 0.34 s "neither"; the run was
judged TLE, and its retry in quieter time OK.

The :class:`Canary` sees it.  A thread of the judge, an ordinary process at
the judge's priority that may run on any core, wakes every few milliseconds and
reads how long it was runnable but kept off a CPU (its own schedstat
``run_delay``: time it waited for a lock, the judge's interpreter lock
included, is sleeping, not counted).  A wait of at least
:data:`EPISODE_S` in one wake-up is the machine starving ordinary processes:
no bot can cause one (bots run at a lower nice on their own cores, and the
canary may take any core; a busy core makes an ordinary task wait a few
milliseconds).  The time of such episodes inside a run is given back to the
run like its own waiting (:class:`StarvationMeter`), so a run the machine
stalled is run again, never judged on it.
"""

from __future__ import annotations

import os
import threading
import time

from judge.sandbox.cores import JudgePin
from judge.sandbox.cpuwait import NS, WaitMeter

#: The canary's period: how late a starvation may be seen (a wake-up of a Python
#: thread costs some 20 µs and a hand-over of the interpreter lock).
PERIOD_S = 0.01
#: A wait for a CPU this long in one wake-up is the machine starving ordinary processes.
EPISODE_S = 0.02
#: Episodes older than this are forgotten (a run is at most a few times its limit).
KEEP_S = 120.0


class Canary:
    """The judge's starvation sensor: episodes in which an ordinary thread was kept off
    every CPU for at least :data:`EPISODE_S`.  Thread-safe; started at its first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: (monotonic time the episode ended, its length in seconds)
        self._episodes: list[tuple[float, float]] = []
        #: when the canary last ran (monotonic)
        self._beat = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._broken = False

    def start(self) -> bool:
        """Start the thread if it is not running (False: this system has no schedstat)."""
        with self._lock:
            if self._stop.is_set():
                return False
            if self._thread is not None or self._broken:
                return not self._broken
            if not os.path.exists(f"/proc/self/task/{threading.get_native_id()}/schedstat"):
                self._broken = True
                return False
            self._beat = time.monotonic()
            self._thread = threading.Thread(
                target=self._watch, name="starvation-canary", daemon=True
            )
            self._thread.start()
            return True

    def _watch(self) -> None:
        try:
            self._loop()
        except Exception:  # noqa: BLE001 - a dead canary must not make readings wait
            self._broken = True

    def _loop(self) -> None:
        # Any core the judge may use, not the judge's own (the judge pins its threads to
        # its cores, and a thread it starts inherits that): "off every CPU".
        free = JudgePin.before_pinning()
        if free:
            try:
                os.sched_setaffinity(0, free)
            except OSError:
                pass
        path = f"/proc/self/task/{threading.get_native_id()}/schedstat"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._broken = True
            return
        try:
            last = _run_delay_ns(fd)
            while not self._stop.wait(PERIOD_S):
                now = time.monotonic()
                delay = _run_delay_ns(fd)
                waited = (delay - last) * NS
                last = delay
                with self._lock:
                    if waited >= EPISODE_S:
                        self._episodes.append((now, waited))
                        cutoff = now - KEEP_S
                        while self._episodes and self._episodes[0][0] < cutoff:
                            self._episodes.pop(0)
                    self._beat = now
        finally:
            os.close(fd)

    def settle(self, at: float, within: float = 4 * PERIOD_S + EPISODE_S) -> None:
        """Wait (at most ``within``) until the canary has run after monotonic time ``at``,
        so an episode that ended before ``at`` is counted: a verdict's deadline is read
        when the judge itself may only just have got a CPU back."""
        if self._thread is None or self._broken or self._stop.is_set():
            return
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self._lock:
                if self._beat >= at:
                    return
            time.sleep(0.001)

    def starved_s(self, since: float, until: float | None = None) -> float:
        """Seconds of starvation episodes between monotonic times ``since`` and ``until``."""
        total = 0.0
        with self._lock:
            episodes = list(self._episodes)
        for end, length in episodes:
            begin = end - length
            hi = end if until is None else min(end, until)
            lo = max(begin, since)
            if hi > lo:
                total += hi - lo
        return total

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(1.0)


def _run_delay_ns(fd: int) -> int:
    """The canary's own time runnable but off a CPU so far (schedstat's second field)."""
    return int(os.pread(fd, 128, 0).split()[1])


class StarvationMeter:
    """A run's waiting, or the machine's starvation during it where that is longer: the
    time ordinary processes were kept off every CPU is time the program could not have
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
            self.canary.settle(min(now, begin + elapsed_s) - PERIOD_S)
        starved = self.canary.starved_s(begin, begin + elapsed_s)
        if starved <= 0.0:
            return own
        # The time neither the program nor (for an .exe) its wineserver was on a CPU.
        served = getattr(self.inner, "service_cpu_s", 0.0) or 0.0
        idle = elapsed_s - (self.inner.cpu_s or 0.0) - served
        return max(own or 0.0, min(starved, max(0.0, idle)))
