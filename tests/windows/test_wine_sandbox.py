"""Windows programs in the sandbox: verdicts, Windows words, hygiene and no survivors.

Each hostile .exe (tests/windows/fixtures/hostile.c, one mode per case) runs in
a seat of its own, several seats at once as in a tournament.  After every run
the seat's uid runs exactly one process, its wineserver, whatever the program
did; after the seat closes, none.  Wine's own lines never reach the program's
stderr.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

import judge
from judge.sandbox import Limits, Sandbox, TurnRun, Verdict
from judge.sandbox.pair import run_retrying
from judge.sandbox.wine.words import WINE_LINE
from tests.nobody import leftovers, run_as_nobody

from .conftest import Exes

pytestmark = pytest.mark.slow  # real programs: not in the fast subset

V = Verdict
#: For runs that end by themselves: a busy machine must not turn them into TLE.
ROOMY = Limits(time_s=10.0)
IS_ROOT = os.geteuid() == 0


def procs_of(uid: int | None) -> list[psutil.Process]:
    if uid is None:
        return []
    out = []
    for p in psutil.process_iter(["uids"]):
        try:
            if p.info["uids"] and p.info["uids"].real == uid:
                out.append(p)
        except (psutil.Error, TypeError):
            pass
    return out


def windows_path(path: Path | str) -> str:
    """How a Windows program names a Linux path: through wine's Z: drive."""
    return "Z:" + str(path).replace("/", "\\")


@dataclass(frozen=True)
class Case:
    mode: str
    expect: Verdict
    words: tuple[str, ...] = ()  # in the verdict's message
    time_s: float = 10.0
    program: str = "hostile"  # or "dynamic": the C++ kit built without -static
    #: not in the message (an exit code that only repeats the Windows status)
    not_words: tuple[str, ...] = ()


NOISE = ("exited with code",)

CASES = [
    Case("ok", V.OK, ("exited normally",), 2.0),  # the contest limit, on turn 1
    Case("noisy", V.OK),
    Case("loop", V.TLE, ("time limit 0.5 s exceeded",), 0.5),
    Case("alloc", V.MLE, ("memory limit 256 MiB exceeded",)),
    Case("av", V.RE, ("Windows exception 0xC0000005", "access violation"), not_words=NOISE),
    Case("stack", V.RE, ("Windows exception 0xC00000FD", "stack overflow"), not_words=NOISE),
    Case("div", V.RE, ("Windows exception 0xC0000094", "integer divide by zero"), not_words=NOISE),
    Case("exit3", V.RE, ("exited with code 3",)),
    Case("child", V.TLE, ("processes it started were still running",), 3.0),
    Case(
        "", V.RE, ("0xC0000135", "libstdc++-6.dll", "-static"), program="dynamic", not_words=NOISE
    ),
]


@dataclass
class Outcome:
    run: TurnRun
    during: list[int]  # pids of the seat's uid right after the run
    server: int | None  # pid of the seat's wineserver before the run
    #: the seat's wineserver after the run (a new one: nothing of wine's state carries over)
    fresh: list[int]
    after_close: list[int]
    uid: int | None


def play(sb: Sandbox, exes: Exes, case: Case) -> Outcome:
    folder = exes.dynamic if case.program == "dynamic" else exes.hostile
    exe = "bot.exe" if case.program == "dynamic" else "hostile.exe"
    with sb.seat(f"win-{case.mode or case.program}", folder) as seat:
        assert seat.program_dir is not None
        argv = [str(seat.program_dir / exe)] + ([case.mode] if case.mode else [])
        seat.check(argv)
        servers = [p.pid for p in procs_of(seat.uid)]
        limits = Limits(time_s=case.time_s, memory_bytes=256 * 2**20)
        # as the referee runs a turn: a run wine failed before loading the program (an IE,
        # now and then at wine's start on a busy machine) is run again
        run = run_retrying(seat, argv, {"MAP.INP": b"5 5 10\n"}, ["MOVE.OUT"], limits)
        during = [p.pid for p in procs_of(seat.uid)]
        fresh = seat.wine_server_pids()
        uid = seat.uid
    return Outcome(
        run, during, servers[0] if servers else None, fresh, [p.pid for p in procs_of(uid)], uid
    )


@pytest.fixture(scope="module")
def outcomes(wine_sandbox: Sandbox, exes: Exes) -> dict[str, Outcome]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {c.mode or c.program: pool.submit(play, wine_sandbox, exes, c) for c in CASES}
        return {k: f.result() for k, f in futures.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.mode or c.program for c in CASES])
def test_hostile_exe_gets_its_verdict_and_leaves_only_its_wineserver(
    outcomes: dict[str, Outcome], case: Case
) -> None:
    out = outcomes[case.mode or case.program]
    r = out.run.result
    assert r.verdict is case.expect, r.message
    for w in case.words:
        assert w in r.message, r.message
    for w in case.not_words:
        assert w not in r.message, r.message
    # wine's diagnostics are not the program's: never in its stderr
    for line in r.stderr_tail.splitlines():
        assert not WINE_LINE.match(line), r.stderr_tail
    if IS_ROOT:
        # Nothing left but the seat's wineserver, and that one started after the run.
        assert out.during == out.fresh, "the run left a process behind"
        assert len(out.fresh) == 1 and out.fresh != [out.server]
        assert out.after_close == [], "the seat's close left a process of its uid"


def test_first_turn_of_a_trivial_exe_is_ok_within_the_contest_limit(
    outcomes: dict[str, Outcome],
) -> None:
    """A seat's wine is ready before turn 1, so even turn 1 fits the default 2 s."""
    ok = outcomes["ok"].run
    assert ok.result.verdict is V.OK and ok.outputs["MOVE.OUT"] == b"1 1\r\n"
    noisy = outcomes["noisy"].run.result
    assert noisy.stdout_tail.replace(b"\r", b"") == b"hello from stdout\n"
    assert noisy.stderr_tail.replace(b"\r", b"") == b"hello from stderr\n"


@pytest.mark.root("the filesystem view needs root")
def test_z_drive_shows_only_the_private_view(wine_sandbox: Sandbox, exes: Exes) -> None:
    """Through Z: a program sees the seat's view: it can write its own scratch places
    (removed after the run) and nothing else, not the other seat, not the host's /tmp,
    not the prefix template, not its own program or prefix files."""
    sb = wine_sandbox
    with sb.seat("victim", exes.hostile) as victim, sb.seat("writer", exes.hostile) as seat:
        assert seat.program_dir is not None and victim.program_dir is not None
        victim.run_turn([str(victim.program_dir / "hostile.exe")], {"MAP.INP": b"x"}, [], ROOMY)
        template = sb.wine.template().prefix
        wine_dir = Path(seat.base) / "wine"
        denied = [
            windows_path(victim.workdir / "x.txt"),
            windows_path(Path(victim.base) / "x.txt"),
            windows_path(Path(template) / "x.txt"),
            windows_path(Path(template) / "drive_c" / "x.txt"),
            windows_path(wine_dir / "prefix" / "drive_c" / "x.txt"),
            windows_path(wine_dir / "x.txt"),
            windows_path(seat.program_dir / "x.txt"),
            windows_path(sb.root / "x.txt"),
            "Z:\\etc\\x.txt",
            "Z:\\usr\\x.txt",
            "C:\\x.txt",
            "C:\\windows\\system32\\x.txt",
        ]
        allowed = [
            "Z:\\tmp\\x.txt",
            "C:\\users\\bot\\Temp\\y.txt",
            windows_path(seat.workdir / "z.txt"),
            windows_path(wine_dir / "prefix" / "stash.txt"),
        ]
        targets = "\r\n".join(denied + allowed).encode()
        host_tmp = set(os.listdir("/tmp"))
        run = seat.run_turn(
            [str(seat.program_dir / "hostile.exe"), "write"],
            {"MAP.INP": b"x", "TARGETS.INP": targets},
            ["MOVE.OUT"],
            ROOMY,
        )
        assert run.result.verdict is V.OK, run.result.message
        report = (run.outputs["MOVE.OUT"] or b"").decode().replace("\r", "")
        wrote = {ln[len("WROTE ") :] for ln in report.splitlines() if ln.startswith("WROTE ")}
        assert wrote == set(allowed), report
        # everything it could write is gone, and said so
        assert any("seat's wine folders" in d for d in run.discarded), run.discarded
        assert not (wine_dir / "prefix" / "stash.txt").exists()
        assert os.listdir(seat.tmpdir) == [] and os.listdir(seat.workdir) == []
        for path in (victim.workdir / "x.txt", Path(template) / "x.txt", Path("/etc/x.txt")):
            assert not path.exists()
        assert not {n for n in set(os.listdir("/tmp")) - host_tmp if n.startswith("x.txt")}
        # and the next turn runs as before
        again = seat.run_turn(
            [str(seat.program_dir / "hostile.exe")], {"MAP.INP": b"x"}, ["MOVE.OUT"], ROOMY
        )
        assert again.result.verdict is V.OK and again.discarded == ()


@pytest.mark.root("uids and views need root")
def test_a_tampered_prefix_is_made_afresh_outside_the_programs_time(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    with wine_sandbox.seat("tamper", exes.hostile) as seat:
        assert seat.program_dir is not None
        exe = str(seat.program_dir / "hostile.exe")
        prefix = Path(seat.base) / "wine" / "prefix"
        targets = f"{windows_path(prefix / 'drive_c')}\r\n{windows_path(prefix / 'moved')}\r\n"
        run = seat.run_turn(
            [exe, "rename"],
            {"MAP.INP": b"x", "TARGETS.INP": targets.encode()},
            ["MOVE.OUT"],
            ROOMY,
        )
        assert b"MOVED" in (run.outputs["MOVE.OUT"] or b""), run.outputs
        # made afresh right after the run that tampered with it, before the next one
        assert any("made afresh" in d for d in run.discarded), run.discarded
        assert (prefix / "drive_c").is_dir() and not (prefix / "moved").exists()
        nxt = seat.run_turn([exe, "echo"], {"MAP.INP": b"5 5 9\n"}, ["MOVE.OUT"], ROOMY)
        assert nxt.result.verdict is V.OK, nxt.result.message
        assert nxt.outputs["MOVE.OUT"] == b"5 5 9\n"
        assert nxt.discarded == ()


@pytest.mark.root("uids and views need root")
def test_the_seats_wineserver_outlives_a_kill_and_cannot_be_inspected(
    wine_sandbox: Sandbox, exes: Exes
) -> None:
    """The per-run kill spares the seat's wineserver (it is replaced after the run, not
    killed during it), and the program (same uid) cannot read its memory: it runs from
    an execute-only file, so it is not dumpable."""
    with wine_sandbox.seat("server", exes.hostile) as seat:
        assert seat.program_dir is not None
        exe = str(seat.program_dir / "hostile.exe")
        seat.check([exe])
        loop = seat.run_turn([exe, "loop"], {"MAP.INP": b"x"}, [], Limits(time_s=0.3))
        assert loop.result.verdict is V.TLE
        assert not any("stopped during this run" in d for d in loop.discarded), loop.discarded
        (server,) = procs_of(seat.uid)
        assert [server.pid] == seat.wine_server_pids()
        assert os.stat(f"/proc/{server.pid}/mem").st_uid == 0  # not dumpable
        # its /proc entry is root's now: hidden from the seat, unreadable if it were not
        peek = seat.run_turn(
            ["/bin/sh", "-c", f"cat /proc/{server.pid}/maps"], {"MAP.INP": b"x"}, [], ROOMY
        )
        assert peek.result.verdict is V.RE, peek.result.message
        assert b"No such file" in peek.result.stderr_tail, peek.result.stderr_tail
        assert [p.pid for p in procs_of(seat.uid)] == [server.pid]
        # killed anyway (it shares the uid): started afresh before the next run, on the judge's time
        seat.run_turn(["/bin/sh", "-c", "kill -9 -1"], {"MAP.INP": b"x"}, [], ROOMY)
        deadline = time.monotonic() + 5  # its parent (the server's exec helper) reaps it
        while procs_of(seat.uid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert procs_of(seat.uid) == []
        again = seat.run_turn([exe, "echo"], {"MAP.INP": b"7\n"}, ["MOVE.OUT"], ROOMY)
        assert again.result.verdict is V.OK and again.outputs["MOVE.OUT"] == b"7\n"
        assert any("wineserver had stopped" in d for d in again.discarded), again.discarded
        assert len(procs_of(seat.uid)) == 1


NORMAL_USER_SCRIPT = r"""
import json, sys
from pathlib import Path
from judge.sandbox import Limits, Sandbox
out = {}
with Sandbox() as sb, sb.seat("nobody", Path(sys.argv[1])) as seat:
    exe = str(seat.program_dir / "hostile.exe")
    for mode, time_s in (("ok", 10.0), ("av", 10.0), ("child", 1.0)):
        r = seat.run_turn([exe, mode], {"MAP.INP": b"m"}, ["MOVE.OUT"], Limits(time_s=time_s))
        out[mode] = {"verdict": r.result.verdict.value, "message": r.result.message}
print(json.dumps(out))
"""


@pytest.mark.root("switching to another user needs root")
def test_a_normal_user_runs_exes_with_what_is_available(wine_sandbox: Sandbox, exes: Exes) -> None:
    """As a normal user (no uid, no view) an .exe still gets its verdicts and leaves
    nothing behind; the user reads the root-built template (symlinks, never copies)."""
    work = Path(tempfile.mkdtemp(prefix="oj-nobody-exe-"))
    try:
        _run_as_nobody(work, exes)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_as_nobody(work: Path, exes: Exes) -> None:
    shutil.copytree(Path(judge.__file__).resolve().parent, work / "judge")
    shutil.copytree(Path(psutil.__file__).resolve().parent, work / "psutil")
    shutil.copytree(exes.hostile, work / "prog")
    proc = run_as_nobody(work, NORMAL_USER_SCRIPT, str(work / "prog"))
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    out = json.loads(proc.stdout)
    assert out["ok"]["verdict"] == "OK", out
    assert out["av"]["verdict"] == "RE" and "0xC0000005" in out["av"]["message"], out
    assert out["child"]["verdict"] == "TLE" and "still running" in out["child"]["message"], out
    left = leftovers(work)
    assert left == [], f"processes left behind: {left}"
