"""Run one untrusted bot program under the contest limits (rulings R10, R15-R17).

Usage::

    with Sandbox() as sb, sb.seat("alice", Path("bots/alice"), keep="NOTES", keep_bytes=2**20) as seat:
        run = seat.run_turn([str(seat.program_dir / "bot")], {"IN.TXT": data}, ["OUT.TXT"], Limits())
        run.result.verdict, run.outputs["OUT.TXT"], run.discarded

Knows nothing of the game: file names, the keep file and its size cap are the
caller's (the referee passes the protocol's MAP.INP, MOVE.OUT and STATE.OUT).

One run, in order (the steps of :data:`.steps.STEPS`; docs/turn-path.md follows a
turn from the referee to the program's start, function by function):

1. the seat's work folder is emptied except the keep file (if any) and the
   inputs are written (a folder the last run's cleaning emptied, that nothing
   could write in since, is not walked again);
2. the exec helper (``wrapper.c``, compiled once) joins the seat's cgroups
   (made for its first run, emptied and reused after each: :mod:`.seatgroups`),
   becomes a child subreaper, forks; the child enters the seat's namespaces,
   chdirs, sets rlimits, drops to the seat's uid, sets no_new_privs and execs
   the program with an empty stdin and a minimal environment (the seat's
   zygote makes that helper; after a run it makes the next one at once, which
   does all of this but the core and the exec and waits for the next run's go:
   :mod:`.launcher`);
3. the judge drains stdout/stderr (keeping tails), waits for the helper, which
   exits only when every descendant has exited, and at the time limit (or when
   polled memory goes over) tells it to kill them all (:mod:`.supervise`);
4. the requested outputs are read (regular files only, never through links),
   the folder is emptied except a valid keep file, and the verdict is decided.

A turn's two seats run at once, and a run the judge failed is run again by the
sandbox's own policy (:mod:`.pair`).

Decisions:

* A stdout/stderr flood is only truncated (the tails are kept and the message
  says how much was dropped), never OLE: the protocol is files, and the time
  limit bounds the cost.  OLE = killed by SIGXFSZ, or a file left in the seat's
  folders reached ``Limits.file_bytes`` (Python, which ignores SIGXFSZ, dies of
  EFBIG instead).
* A command the seat cannot run raises :class:`ProgramUnreachable` (naming the
  path and the reason) at the first run_turn with that command, or earlier from
  :meth:`Seat.check`; never an RE on every turn.
* R17: the run lasts until the program *and everything it started* exited, so a
  lingering daemon makes the run TLE.  Verdict order when several limits broke:
  IE > MLE > OLE > TLE > RE > OK.
* Memory: with a cgroup, the peak of the group's charge (resident memory plus
  the page cache it caused); MLE when the kernel's OOM killer acted.  Without
  one, the tree's summed RSS polled every 10 ms, plus each process's own peak.
* As root the seats live under ``/var/lib/ocean-judge/sandbox-<pid>-*`` rather
  than /tmp, because each seat's view replaces /tmp with its own private one.
* The fork-storm verdict is whatever the run earns (usually TLE); the message
  says when the process cap was reached.
* Time is fair (the limit is wall-clock time): every run holds one core of the
  sandbox's budget (:mod:`.cores`) and is pinned to it, so no more programs run
  at once than there are cores; as root the program runs at nice -10, ahead of
  ordinary work; its clock starts when the helper's child has set it up, just
  before its exec, not when the judge asks;
  time it is kept waiting for its core anyway (another program, the judge) is
  measured (:mod:`.cpuwait`) and given back, and a run that finished only
  thanks to it is IE (``kept_waiting``: run it again), never TLE; a TLE the
  disk decided (``stalled_on_disk``: its files read from a cold cache) is run
  again up to DISK_RETRIES times, the last try standing.
"""

from judge.sandbox.cores import CoreSpecError
from judge.sandbox.pair import (
    BUSY_PAUSE_S,
    BUSY_RETRIES,
    DISK_RETRIES,
    IE_RETRIES,
    PairRun,
    SeatPair,
    run_retrying,
)
from judge.sandbox.seat import Seat
from judge.sandbox.service import Sandbox
from judge.sandbox.types import (
    Isolation,
    Limits,
    ProgramUnreachable,
    RunResult,
    SandboxError,
    TurnRun,
    Verdict,
)
from judge.sandbox.wine import WineInstall, find_wine, no_wine_reason, refusal, windows_target

__all__ = [
    "BUSY_PAUSE_S",
    "BUSY_RETRIES",
    "DISK_RETRIES",
    "CoreSpecError",
    "IE_RETRIES",
    "Isolation",
    "Limits",
    "PairRun",
    "ProgramUnreachable",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "Seat",
    "SeatPair",
    "TurnRun",
    "Verdict",
    "WineInstall",
    "find_wine",
    "no_wine_reason",
    "refusal",
    "run_retrying",
    "windows_target",
]
