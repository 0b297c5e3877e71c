"""Which sandbox protections are off, and the one message that refuses an official run for it.

The sandbox reports its protections as an :class:`~judge.sandbox.Isolation`
(this machine) or as that report's JSON form (``Isolation.as_dict()``: what a
cluster worker sends and every replay records).  Everything that asks "which
are off?" -- the tournament before its first round and after each round played
elsewhere, a cluster's workers, the headers of ``judge match`` and ``judge
tournament`` -- asks here, of either form, and every refusal is said in the same
words: who cannot isolate the bots, which protections are off, and what to do.

What to do depends on who is short.  A judge that is not root lacks what only
root may set up (separate uids, namespaces, cgroups): it is told to run as root.
A judge that already runs as root and still has a protection off is on a machine
that does not offer it (a container without privileges, a kernel without cgroup
controllers or namespaces): telling it to run as root would send the organiser
in a circle, so it is told what each protection lacks instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from judge.sandbox import Isolation

#: The sandbox's report of its protections, either form.
Report = Isolation | Mapping[str, Any]

#: The last words of every refusal: how to play anyway, and what is recorded then.
UNSANDBOXED = (
    "to play anyway (a practice round on a laptop), add --unsandboxed: the ledger, "
    "standings.json and every round's replay then record which protections were off"
)


def _isolation(report: Report) -> Isolation:
    return report if isinstance(report, Isolation) else Isolation.from_dict(report)


def items(report: Report) -> list[tuple[str, bool, str]]:
    """Every protection as (name, on, what provides it or why it is off), in the report's order."""
    return list(_isolation(report).items)


def protections_off(report: Report) -> list[str]:
    """The names of the protections that are off."""
    return _isolation(report).off()


def off_with_reasons(report: Report) -> list[tuple[str, str]]:
    """The protections that are off, each with why (as the sandbox says it)."""
    return [(name, detail) for name, on, detail in items(report) if not on]


def is_root() -> bool:
    """Whether this judge runs as root (only root can set up every protection)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def short_of(who: str, report: Report) -> str:
    """``<who> cannot fully isolate the bots: 2 of 16 sandbox protections are OFF (a, b)``."""
    off = protections_off(report)
    return (
        f"{who} cannot fully isolate the bots: {len(off)} of {len(items(report))} sandbox "
        f"protections are OFF ({', '.join(off)})"
    )


def ways_out(as_root: bool | None, report: Report | None = None, who: str = "the judge") -> str:
    """What an organiser can do about protections that are off.

    ``as_root``: whether ``who`` already runs as root (None: not known, e.g. a worker of
    an older description); ``report``: to name what each protection lacks when root is not
    the answer.
    """
    if as_root:
        reasons = "; ".join(f"{n}: {d}" for n, d in off_with_reasons(report)) if report else ""
        # A worker's machine is not the one this is read on.
        here, there = ("this", "") if who == "the judge" else ("its", " on that machine")
        head = (
            f"an official tournament needs every protection, and {who} already runs as root, "
            f"so it is {here} machine that does not offer them"
        )
        fix = (
            "give the machine what they need (in a container: run it privileged, with cgroups "
            f"delegated; on a host: a kernel with cgroups and namespaces); 'judge sandbox-info'"
            f"{there} says what each needs"
        )
        return (
            f"{head} ({reasons}): {fix}; {UNSANDBOXED}"
            if reasons
            else f"{head}: {fix}; {UNSANDBOXED}"
        )
    if as_root is None:
        return (
            f"an official tournament needs every protection: run {who} as root (or in a "
            f"privileged container) on Linux, or stop it ('judge sandbox-info' there says why "
            f"each is off); {UNSANDBOXED}"
        )
    return (
        f"an official tournament runs untrusted programs, so it needs every protection: run "
        f"{who} as root on Linux ('judge sandbox-info' says what is missing and why); "
        f"{UNSANDBOXED}"
    )


def refusal(who: str, report: Report, as_root: bool | None, whom: str = "the judge") -> str:
    """Why an official run (or round) is not played where ``report`` was made, and the ways out."""
    return f"{short_of(who, report)}; {ways_out(as_root, report, whom)}"


def combined(shortfalls: Sequence[tuple[str, bool | None]], whom: str) -> str:
    """Several places short of isolation (``(what each lacks, whether it is root)``) in one
    refusal: each named, then the ways out once."""
    roots = {root for _, root in shortfalls}
    as_root = roots.pop() if len(roots) == 1 else None
    return f"{'; '.join(s for s, _ in shortfalls)}; {ways_out(as_root, None, whom)}"
