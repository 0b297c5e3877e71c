"""``judge sandbox-info``: which protections the sandbox has on this machine, and why not the others."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from judge.commands.options import add_cores_option, cores_line, open_sandbox

if TYPE_CHECKING:
    from judge.sandbox import Sandbox

HELP = "show which sandbox protections are on or off on this machine"
DESCRIPTION = """\
Probe the machine the way `judge match` does and print every protection of
the sandbox (separate uid per seat, no network, filesystem view, memory limit
by cgroup, process cap, no survivors, ...) as on or OFF, with what provides it
or why it is off.  Run it as the user that will run matches: as root every
protection this machine allows is on; as a normal user most are off.

It also says how many programs run at once and on which cores (--cores
changes it, as for `judge match`): one program per core, so a bot always has
its whole wall-clock limit to itself; time a run is kept waiting for its core
anyway is measured and never counted against it.

The cores are one budget for the whole machine: every judge, cluster worker
and `judge eval` on it leases a core for each run (lease files in
/run/ocean-judge/cores as root).  It lists the leases held right now and by
whom (pid, command, seat).

It also says whether Windows .exe programs can run (through wine, 64-bit only
or 32-bit too).  --self-test also runs a trivial program in a seat and prints
its verdict and timing, to check that the sandbox works end to end.

Exit status: 0 (1 if --self-test did not give OK), 2 for --cores this process cannot
use, 3 if the sandbox cannot be set up."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--self-test", action="store_true", help="also run a trivial program in a seat"
    )
    parser.add_argument(
        "--cgroup",
        choices=["auto", "v1", "v2", "none"],
        default="auto",
        help="which cgroup layout to use (default: auto)",
    )
    parser.add_argument(
        "--helper",
        choices=["auto", "c", "python"],
        default="auto",
        help="exec helper: the compiled C wrapper or the Python fallback (default: auto)",
    )
    parser.add_argument(
        "--no-namespaces", action="store_true", help="do not use network/IPC/mount namespaces"
    )
    add_cores_option(parser)


def _self_test(sb: Sandbox) -> dict[str, object]:
    import time

    from judge.protocol import MAP_INP, MOVE_OUT
    from judge.sandbox import Limits

    with sb.seat("self-test", None) as seat:
        t0 = time.perf_counter()
        run = seat.run_turn(
            ["/bin/sh", "-c", f"echo '1 1' > {MOVE_OUT}"],
            {MAP_INP: b"self test\n"},
            [MOVE_OUT],
            Limits(time_s=10),
        )
        elapsed = time.perf_counter() - t0
    r = run.result
    return {
        "verdict": r.verdict.value,
        "message": r.message,
        "wall_ms": round(r.wall_s * 1000, 2),
        "turn_ms": round(elapsed * 1000, 2),
        "move": (run.outputs.get(MOVE_OUT) or b"").decode(),
    }


def run(args: argparse.Namespace) -> int:
    import json

    from judge.sandbox import Verdict

    sb = open_sandbox(
        cgroup=args.cgroup,
        helper=args.helper,
        namespaces=not args.no_namespaces,
        cores=args.cores,
    )
    with sb:
        test = _self_test(sb) if args.self_test else None
        leases = sb.cores.leases
        held = leases.holders() if leases is not None else []
        if args.json:
            report = {
                "isolation": sb.isolation.as_dict(),
                "cores": sb.cores.as_dict(),
                "core_leases_held": [{"core": h.core, "pid": h.pid, "by": h.who} for h in held],
                "windows_programs": sb.wine.describe(),
                "self_test": test,
            }
            print(json.dumps(report, indent=2))
        else:
            print(sb.isolation.describe())
            print(cores_line(sb))
            if leases is not None:
                print(
                    f"core leases held now ({leases.folder}):"
                    if held
                    else f"core leases held now ({leases.folder}): none"
                )
                for h in held:
                    print(f"  core {h.core}: {h.who}")
            print(sb.wine.describe())
            if test is not None:
                print(
                    f"self-test: {test['verdict']} ({test['message']}); program {test['wall_ms']} ms, "
                    f"whole turn {test['turn_ms']} ms"
                )
    if test is not None and test["verdict"] != Verdict.OK.value:
        return 1
    return 0
