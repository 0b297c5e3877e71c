"""Run one untrusted bot program under the contest limits (issue 3; rulings R10, R15-R17).

Knows nothing of the game.  Usage::

    with Sandbox() as sb, sb.seat("alice", Path("bots/alice")) as seat:
        run = seat.run_turn([str(seat.program_dir / "bot")], {"MAP.INP": data}, ["MOVE.OUT"], Limits())
        run.result.verdict, run.outputs["MOVE.OUT"], run.discarded

One run, in order:

1. the seat's work folder is emptied except the keep file (STATE.OUT) and the
   inputs are written;
2. the exec helper (``wrapper.c``, compiled once) joins a fresh cgroup,
   becomes a child subreaper, forks; the child enters the seat's namespaces,
   chdirs, sets rlimits, drops to the seat's uid, sets no_new_privs and execs
   the program with an empty stdin and a minimal environment;
3. the judge drains stdout/stderr (keeping tails), waits for the helper, which
   exits only when every descendant has exited, and at the time limit (or when
   polled memory goes over) tells it to kill them all;
4. the requested outputs are read (regular files only, never through links),
   the folder is emptied except a valid keep file, and the verdict is decided.

Decisions: a stdout/stderr flood is only truncated (the tails are kept and the
message says how much was dropped), never OLE: the protocol is files, and the
time limit bounds the cost.  OLE = a file reached ``Limits.file_bytes``.  A
command the seat cannot run raises :class:`ProgramUnreachable` at the first
run_turn (checked once per command) rather than giving RE every turn.
"""

from judge.sandbox.sandbox import Sandbox
from judge.sandbox.seat import Seat
from judge.sandbox.types import (
    Isolation,
    Limits,
    ProgramUnreachable,
    RunResult,
    SandboxError,
    TurnRun,
    Verdict,
)

__all__ = [
    "Isolation",
    "Limits",
    "ProgramUnreachable",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "Seat",
    "TurnRun",
    "Verdict",
]
