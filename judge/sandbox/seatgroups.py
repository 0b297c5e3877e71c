"""A seat's run cgroups, kept from run to run: steps "cgroup" and "release" of a run (:mod:`.steps`).

Making and removing five groups a run cost more than the rest of the sandbox's own
work, so a seat keeps its run's groups when the run left them empty and readies
them for the next run: counters restarted (:meth:`~.cgroups.RunCgroup.restart`),
the limits and core that changed written again (:meth:`~.cgroups.CgroupBackend.reuse`).
Groups that cannot be reused (a run left something inside; cgroup v2's peak that
cannot be reset) are removed, and the next run gets fresh ones.

A run armed ahead (:class:`~.zygote.Armed`) joined the kept groups right after the
last run, their counters restarted then but for the CPU pressure: at its start only
the pressure and the memory peak are counted afresh, so its set-up and the clean
that followed the last run are none of its figures.
"""

from __future__ import annotations

from collections.abc import Callable

from judge.sandbox.cgroups import CgroupBackend, RunCgroup
from judge.sandbox.types import Limits
from judge.sandbox.zygote import Armed


class SeatGroups:
    """The groups of a seat's runs.  ``evict`` is called before kept groups are removed:
    whatever the seat lent them (its wineserver, in the pressure group) leaves first,
    since their removal kills what is inside."""

    def __init__(self, backend: CgroupBackend | None, tag: str, evict: Callable[[], None]) -> None:
        self.backend = backend
        self._tag = tag
        self._evict = evict
        #: the last run's groups, kept for the next run (None: none kept)
        self.kept: RunCgroup | None = None

    def ready(
        self, limits: Limits, core: int | None, armed: Armed | None
    ) -> tuple[RunCgroup | None, Armed | None]:
        """Step "cgroup": the groups for a run (None: no cgroups here) and the armed run
        still usable in them (called off when it is not).  CgroupError: none could be made."""
        backend = self.backend
        if backend is None:
            return None, armed
        cg, self.kept = self.kept, None
        if cg is not None and armed is not None and self._reuse_armed(cg, limits, core):
            return cg, armed
        if armed is not None:  # not usable in these groups, or armed in none
            armed.call_off()
        if cg is not None:
            if cg.restart() and backend.reuse(cg, limits.memory_bytes, limits.max_procs, core):
                return cg, None
            self._evict()
            cg.destroy()
        return backend.create(self._tag, limits.memory_bytes, limits.max_procs, core), None

    def _reuse_armed(self, cg: RunCgroup, limits: Limits, core: int | None) -> bool:
        """The kept groups, with the armed run inside since their restart: the CPU pressure
        counts from now, the memory from the charge now (the clean after the last run,
        and a discarded run's keep file put back, came after the restart)."""
        if not cg.rebase_psi():
            return False
        cg.rebase_memory()
        assert self.backend is not None
        return self.backend.reuse(cg, limits.memory_bytes, limits.max_procs, core)

    def release(self, cg: RunCgroup | None, kept: bool, notes: list[str]) -> list[int]:
        """Step "release": groups left empty by a run watched to its end (``kept``) are kept
        for the seat's next run; otherwise whatever is still inside is killed and the
        groups removed.  The pids that were still inside."""
        if cg is None:
            return []
        if kept:
            self.kept = cg
            return []
        removed, stragglers = cg.destroy()
        if not removed:
            notes.append(f"note: the run's cgroup {list(cg.dirs.values())} could not be removed")
        return stragglers

    def ready_to_arm(self, limits: Limits, core: int | None) -> bool:
        """Whether the next run may be armed in the kept groups, readied for it now:
        counters restarted but the CPU pressure (counted at its start), limits written.
        True without cgroups (the armed run joins none)."""
        backend, cg = self.backend, self.kept
        if backend is None:
            return True
        if cg is None or not cg.restart(psi=False):
            return False
        return backend.reuse(cg, limits.memory_bytes, limits.max_procs, core)

    def make(self, name: str, memory_bytes: int, max_procs: int) -> RunCgroup | None:
        """A group of the seat's own beside its runs' (its wineserver's; None: no cgroups)."""
        if self.backend is None:
            return None
        return self.backend.create(f"{self._tag}-{name}", memory_bytes, max_procs)

    def close(self) -> None:
        if self.kept is not None:
            self.kept.destroy()
            self.kept = None
