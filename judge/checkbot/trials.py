"""Running the battery through the real sandbox, one run per situation.

Runs are sequential (one program at a time) so the times are the bot's own.
Each situation gets a fresh seat (empty folder) unless it continues the one
before (the re-ask, the first move after placement), as a round would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from judge.bots import BotSpec
from judge.checkbot import datafiles
from judge.checkbot.diagnose import (
    ADVICE,
    ERROR,
    MISNAMED_MOVE_FILES,
    Finding,
    RunFacts,
    diagnose,
    reef_symbol_finding,
    worst,
)
from judge.checkbot.situations import AVOID_REEF, Situation, battery
from judge.errors import JudgeError
from judge.protocol import MAP_INP, MOVE_OUT, STATE_MAX_BYTES, STATE_OUT
from judge.records import Json, SeatRun
from judge.referee import read_run, run_retrying
from judge.rules import EventKind
from judge.sandbox import Limits, Sandbox, Seat, TurnRun, Verdict


class CheckAborted(JudgeError, RuntimeError):
    """The judge itself could not run the bot (never the bot's fault)."""

    exit_code = 3


@dataclass
class SituationResult:
    """One situation's run (the seat's part of a turn record, as a round would keep it) and what was found."""

    situation: Situation
    map_inp: str
    facts: RunFacts
    run: SeatRun
    findings: list[Finding] = field(default_factory=list)
    #: the STATE.OUT the run was given (``--from``: the one it had in the match; None: none)
    state_in: bytes | None = None

    @property
    def target(self) -> tuple[int, int] | None:
        """The cell the answer names (None: no usable answer)."""
        return self.run.move

    @property
    def raw(self) -> str | None:
        """MOVE.OUT's first line, capped as a replay keeps it."""
        return self.run.raw

    @property
    def level(self) -> str | None:
        return worst(self.findings)

    def as_dict(self) -> Json:
        s, f, r = self.situation, self.facts, self.run
        return {
            "key": s.key,
            "title": s.title,
            "purpose": s.purpose,
            "map_inp": self.map_inp,
            **({"state_in_bytes": len(self.state_in)} if self.state_in is not None else {}),
            "verdict": r.verdict,
            "message": f.message,
            "wall_ms": r.wall_ms,
            "cpu_ms": r.cpu_ms,
            "peak_mem_mb": r.mem_mb,
            "exit_code": f.exit_code,
            "move_out": r.raw,
            "target": list(r.move) if r.move else None,
            "wrote_state": f.wrote_state,
            "stderr_tail": f.stderr.decode("utf-8", "replace")[-2000:],
            "discarded": list(r.discarded),
            "result": self.level or "ok",
            "findings": [
                {"level": x.level, "reason": x.reason, "cause": x.cause, "tag": x.tag}
                for x in self.findings
            ],
        }


def facts_from(
    run: TurnRun, bot: BotSpec | None = None, seat_program_dir: Path | None = None
) -> RunFacts:
    """What the sandbox saw, with the seat's copy of the program named as its author knows it."""
    r = run.result

    def own(text: str) -> str:
        return bot.own_paths(text, seat_program_dir) if bot is not None else text

    misnamed = {
        name: data
        for name, data in run.outputs.items()
        if name in MISNAMED_MOVE_FILES and data is not None
    }
    return RunFacts(
        verdict=r.verdict.value,
        wall_s=r.wall_s,
        cpu_s=r.cpu_s,
        peak_memory_bytes=r.peak_memory_bytes,
        exit_code=r.exit_code,
        signal=r.signal,
        message=own(r.message),
        stdout=r.stdout_tail,
        stderr=own(r.stderr_tail.decode("utf-8", "replace")).encode("utf-8"),
        move_out=run.outputs.get(MOVE_OUT),
        misnamed=misnamed,
        wrote_state=run.outputs.get(STATE_OUT) is not None,
        discarded=run.discarded,
        program_files=bot_files(bot),
        language=datafiles.language_of(bot),
    )


def bot_files(bot: BotSpec | None, given: bool = False) -> frozenset[str]:
    """The bot's own files, relative to its folder (a few hundred at most are looked at);
    ``given``: those of the folder each seat gets a copy of (a lone program's is itself)."""
    if bot is None:
        folder = None
    else:
        folder = bot.program_dir if given else bot.home or bot.program_dir
    if folder is None or not folder.is_dir():
        return frozenset()
    found: list[str] = []
    for p in folder.rglob("*"):
        if len(found) >= 500:
            break
        if p.is_file() and "__pycache__" not in p.parts:
            found.append(p.relative_to(folder).as_posix())
    return frozenset(found)


#: The files a check-bot run reads back: the move, STATE.OUT, and MOVE.OUT misnamed.
OUTPUTS = (MOVE_OUT, STATE_OUT, *MISNAMED_MOVE_FILES)


def run_once(
    seat: Seat, argv: list[str], map_inp: str, limits: Limits, state: bytes | None = None
) -> TurnRun:
    """One check-bot run on ``map_inp`` (and ``state`` as STATE.OUT, given as an input);
    :class:`CheckAborted` when the judge fails."""
    inputs = {MAP_INP: map_inp.encode()}
    if state is not None:
        inputs[STATE_OUT] = state
    run = run_retrying(seat, argv, inputs, list(OUTPUTS), limits)
    if run.result.verdict is Verdict.IE:
        raise CheckAborted(f"the judge could not run the bot: {run.result.message}")
    return run


def _seat(sandbox: Sandbox, bot: BotSpec) -> Seat:
    return sandbox.seat(bot.name, bot.program_dir, keep=STATE_OUT, keep_bytes=STATE_MAX_BYTES)


def check_bot(
    bot: BotSpec,
    sandbox: Sandbox,
    limits: Limits,
    situations: list[Situation] | None = None,
    on_result: Callable[[SituationResult], None] | None = None,
) -> list[SituationResult]:
    """Run every situation once and diagnose it.

    Raises ``ProgramUnreachable`` (a ``ValueError``) when the seat cannot run
    the command at all, and :class:`CheckAborted` when the judge fails.
    """
    results: list[SituationResult] = []
    seat: Seat | None = None
    try:
        for sit in situations if situations is not None else battery():
            prev = results[-1] if results else None
            if sit.follow_up is not None:
                sit = Situation(
                    sit.key,
                    sit.title,
                    sit.purpose,
                    sit.follow_up(prev.target if prev else None),
                    sit.expect,
                    sit.reuse_seat,
                )
            if seat is None or not sit.reuse_seat:
                if seat is not None:
                    seat.close()
                seat = _seat(sandbox, bot)
            argv = bot.argv_for(seat.program_dir)
            text = sit.map_inp()
            turn_run = run_once(seat, argv, text, limits)
            facts = facts_from(turn_run, bot, seat.program_dir)
            d = diagnose(
                sit,
                facts,
                limits,
                previous=prev.target if (prev and sit.reuse_seat) else None,
                previous_wrote_state=bool(prev and prev.facts.wrote_state),
            )
            findings = d.findings
            if AVOID_REEF in sit.expect and any(f.tag == "reef_entered" for f in findings):
                findings = _reef_symbol_check(bot, sandbox, limits, sit, d.target, findings)
            res = SituationResult(sit, text, facts, read_run(turn_run), findings)
            results.append(res)
            if on_result is not None:
                on_result(res)
    finally:
        if seat is not None:
            seat.close()
    _trace_data_files(bot, sandbox, limits, results)
    return results


#: The situations whose MAP.INP is run once more under the file trace: the first
#: placement and the first move (a bot may read its data for only one of them).
TRACED = ("placement", "reef")


def _trace_data_files(
    bot: BotSpec, sandbox: Sandbox, limits: Limits, results: list[SituationResult]
) -> None:
    """One more run of the traced situations with every file lookup logged: a bot's own
    file looked for in the team folder and found nowhere is an error, which a
    compiled bot that plays on without its data would otherwise pass with."""
    own = bot_files(bot)
    if not own or not results:
        return
    targets = [r for r in results if r.situation.key in TRACED] or results[:1]
    strace = datafiles.strace_path()
    if strace is None:
        _add(targets[0], Finding(
            ADVICE,
            "not checked whether it looks for its own files in the team folder: strace "
            "is not installed here",
            "install it (Debian/Ubuntu: apt install strace) and run check-bot again",
            "no_file_trace",
        ))  # fmt: skip
        return
    language = datafiles.language_of(bot)
    given = bot_files(bot, given=True)
    trace_limits = replace(limits, time_s=max(10.0, 5 * limits.time_s) if limits.time_s else None)
    for res in targets:
        with _seat(sandbox, bot) as seat:
            seat.wrapper = datafiles.wrapper(strace)
            argv = bot.argv_for(seat.program_dir)
            run = run_retrying(
                seat, argv, {MAP_INP: res.map_inp.encode()}, [datafiles.TRACE_FILE], trace_limits
            )
            workdir = str(seat.workdir)
            program = datafiles.program_file(argv, seat.program_dir)
        log = run.outputs.get(datafiles.TRACE_FILE)
        if not log:
            why = _last_strace_line(run.result.stderr_tail) or run.result.message
            _add(res, Finding(
                ADVICE,
                "not checked whether it looks for its own files in the team folder: the "
                f"file trace did not work here ({why})",
                "tracing needs ptrace, which some containers forbid",
                "no_file_trace",
            ))  # fmt: skip
            return
        lookups = datafiles.parse_trace(log.decode("utf-8", "replace"))
        missed = datafiles.missed_own_files(lookups, own, workdir, program)
        if missed and not any(f.tag == "data_file_cwd" for f in res.findings):
            _add(res, _missed_finding(missed, language, given))
            return


def _missed_finding(
    missed: list[str], language: datafiles.Language, given: frozenset[str]
) -> Finding:
    names = ", ".join(repr(m) for m in missed)
    first = missed[0].replace("\\", "/").rsplit("/", 1)[-1]
    lone = (
        ""
        if any(g.rsplit("/", 1)[-1].lower() == first.lower() for g in given)
        else (
            f" Also, {first} does not come with the program: a program given alone gets a copy "
            "of itself (and its DLLs) only, so give the judge its folder with a bot.yaml "
            "(e.g. 'command: [bot.exe]') and the files beside it come along."
        )
    )
    return Finding(
        ERROR,
        f"it looked for {names} in the current folder and did not find {'them' if len(missed) > 1 else 'it'} "
        "(seen in a trace of the files it opens): in every round it plays without "
        f"{'them' if len(missed) > 1 else 'it'}",
        f"{first} is one of the bot's own files, but the current folder is the team folder "
        "(where MAP.INP is), not the program's folder: "
        + datafiles.how_to_open(language, first)
        + lone,
        "data_file_cwd",
    )


def _last_strace_line(stderr: bytes) -> str:
    lines = [ln for ln in stderr.decode("utf-8", "replace").splitlines() if "strace" in ln]
    return lines[-1].strip()[:200] if lines else ""


def _add(res: SituationResult, finding: Finding) -> None:
    res.findings.append(finding)


def _reef_symbol_check(
    bot: BotSpec,
    sandbox: Sandbox,
    limits: Limits,
    sit: Situation,
    target: tuple[int, int] | None,
    findings: list[Finding],
) -> list[Finding]:
    """One more run, the same sea written with W: tells 'expects W' from 'ignores reefs'."""
    assert target is not None
    with _seat(sandbox, bot) as seat:
        run = run_once(seat, bot.argv_for(seat.program_dir), sit.map_inp("W"), limits)
    facts = facts_from(run, bot, seat.program_dir)
    d = diagnose(sit, facts, limits)
    w_target = d.target if not any(f.level == ERROR for f in d.findings) else None
    w_sank = False
    if w_target is not None:
        after = sit.game.copy()
        w_sank = any(e.kind is EventKind.SINK and e.seat == 0 for e in after.step((w_target, None)))
    verdict = reef_symbol_finding(target, w_target, w_sank)
    return [verdict if f.tag == "reef_entered" else f for f in findings]


def passed(results: list[SituationResult], strict: bool = False) -> bool:
    """True when no situation has an error (nor, with ``strict``, a warning)."""
    bad = {ERROR, "warning"} if strict else {ERROR}
    return not any(f.level in bad for r in results for f in r.findings)
