"""Windows programs (``.exe``) run under wine, with every protection a native program gets.

Why this shape (measured on Debian 12 with its wine 8.0): making a wine prefix
takes seconds, starting wine's *system* processes (services, explorer, device
drivers) about a second, and a program started while its prefix's wineserver
already runs about 20 ms.  So:

* **Template, once per machine.**  ``wineboot -i`` builds a prefix in a cache
  folder (``/var/cache/ocean-judge/wine`` as root), keyed by the wine build.
  Its folders for documents and temporary files point to ``/tmp`` (the seat's
  private, per-run emptied /tmp), nothing in it is writable by a seat, and the
  wineserver binary is copied next to it execute-only (see below).
* **A prefix per seat, in milliseconds.**  The template is hard-linked into
  the seat's folder (outside the team folder); only its top folder belongs to
  the seat's uid (wine insists), everything below stays the judge's, read-only.
* **The seat's wineserver**, started before turn 1 inside the seat's sandbox
  (its uid, namespaces and filesystem view, a cgroup of its own) and ended
  with the seat.  It is started from a thread that lives as long as it does
  (the exec helper's parent-death signal is per thread).  It runs from the
  execute-only copy, so the kernel marks it non-dumpable: a bot sharing its
  uid can signal it but not ptrace it or read its memory, hence cannot run
  code in it between turns.
* **No system processes.**  wineboot, winedbg and winemenubuilder are
  disabled for bot runs, so a run starts exactly one process (more only if the
  program itself starts children), all inside the run's own tree and cgroup:
  its memory, CPU and time are the program's, and the per-run kill
  (tree-only, so the seat's wineserver survives it) leaves nothing behind.
* **Hygiene.**  After each run the seat's wine folders are compared with what
  they held before turn 1: anything added is removed; anything the program
  moved or replaced makes the judge rebuild the prefix, outside the program's
  time.
* **A fresh server after every run** (:meth:`WineSeat.refresh`): what a
  program leaves in its wineserver (registry values, global atoms) dies with
  it, so an .exe carries nothing between runs but its keep file, as a native
  program.
* **Wine's failures are the judge's** (:meth:`WineSeat.failure`): a run that
  ended before wine's "Loaded" line for the program, or during which the
  server stopped, is IE.

The package, one job a module: :mod:`.install` (finding wine, refusing what
cannot run), :mod:`.template` (the template, its cache and pruning),
:mod:`.linktree` (the hard-link copier), :mod:`.server` (the wineserver as a
process, armed ahead), :mod:`.seat` (a seat's prefix and server, made afresh),
:mod:`.hygiene` (the folders' snapshot and sweep), :mod:`.words` (wine's stderr
lines, Windows crash wording, wine's own failures).  See docs/windows-backend.md.
"""

from judge.sandbox.wine.install import (
    WineInstall,
    find_wine,
    no_wine_reason,
    refusal,
    windows_target,
)
from judge.sandbox.wine.seat import NPROC_SLACK, WineSeat
from judge.sandbox.wine.server import SERVER_MEMORY, SERVER_PROCS
from judge.sandbox.wine.support import WineSupport
from judge.sandbox.wine.template import PRUNE_AFTER_S, TRIMMED_KEYS, ensure_template, trim_registry
from judge.sandbox.wine.words import EXCEPTION_NAMES, crash_words, names_status

__all__ = [
    "EXCEPTION_NAMES",
    "NPROC_SLACK",
    "PRUNE_AFTER_S",
    "SERVER_MEMORY",
    "SERVER_PROCS",
    "TRIMMED_KEYS",
    "WineInstall",
    "WineSeat",
    "WineSupport",
    "crash_words",
    "ensure_template",
    "find_wine",
    "names_status",
    "no_wine_reason",
    "refusal",
    "trim_registry",
    "windows_target",
]
