"""From what one run did to findings in plain words, each with its likely cause.

Pure: no files, no processes.  :class:`RunFacts` is everything the trials
learnt from the sandbox; :func:`diagnose` judges it against the situation.

Levels:

* ``error``: the bot breaks the protocol (a failed run, no or unreadable
  MOVE.OUT, a start that is not a 0-cell, a move that is not a move) or
  misreads it (confirmed: it treats ``D`` as open water).  Any error makes
  ``judge check-bot`` exit non-zero.
* ``warning``: legal but costly: the boat sinks itself, or a run used over
  half of a limit (a slower machine, or a busier one, may break it).
* ``advice``: could be better (same start at a re-ask, rich gold ignored).

Causes are guesses from the evidence, so they say "likely"; each names what
was seen (e.g. "(1, 6), one more in both, is a valid start").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judge import voidwhy
from judge.checkbot.datafiles import Language, how_to_open
from judge.checkbot.situations import AVOID_REEF, AVOID_WRECK, NEW_START, TAKE_GOLD, Situation
from judge.maps import REEF
from judge.protocol import MAP_INP, STATE_OUT, parse_move_out
from judge.rules import EventKind, Game, MoveStatus, Pos, SinkCause
from judge.sandbox import Limits
from judge.sandbox.verdicts import fmt_bytes

ERROR, WARNING, ADVICE = "error", "warning", "advice"
LEVELS = (ERROR, WARNING, ADVICE)
#: Over this share of a limit, a run gets a warning.
LIMIT_SHARE = 0.5

#: Names a bot may write by mistake instead of MOVE.OUT; the trials ask the
#: sandbox for these too (file names are case-sensitive on the judge's machine).
MISNAMED_MOVE_FILES = (
    "move.out",
    "Move.out",
    "Move.Out",
    "MOVE.out",
    "move.OUT",
    "MOVE.OUT.txt",
    "MOVE.OUT\r",
    "MOVE.OUT ",
    "MOVE.TXT",
    "move.txt",
    "MOVE",
    "OUTPUT.TXT",
    "output.txt",
    "MOVE.OUTPUT",
    "MAP.OUT",
    "map.out",
    "OUT.TXT",
)


@dataclass(frozen=True)
class Finding:
    level: str
    reason: str
    cause: str | None = None
    #: machine tag for tests and tools (e.g. "zero_based", "swapped", "stdout")
    tag: str = ""


@dataclass(frozen=True)
class RunFacts:
    """What the sandbox reported about one run (decoupled from its types for testing)."""

    verdict: str
    wall_s: float
    cpu_s: float
    peak_memory_bytes: int
    exit_code: int | None
    signal: int | None
    message: str
    stdout: bytes
    stderr: bytes
    move_out: bytes | None
    misnamed: dict[str, bytes] = field(default_factory=dict)
    wrote_state: bool = False
    discarded: tuple[str, ...] = ()
    #: the bot's own files (paths relative to its folder), to recognise a data file it needs
    program_files: frozenset[str] = frozenset()
    #: what the bot is written in, for the hints that show code
    language: Language = Language.UNKNOWN


@dataclass(frozen=True)
class Diagnosis:
    target: Pos | None
    raw: str | None
    findings: list[Finding]


_p = voidwhy.cell
#: What standard output shows of a move meant for MOVE.OUT (the match decides alike).
_printed_move = voidwhy.printed_move


def _last_line(data: bytes) -> str:
    lines = [ln for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-1].strip()[:200] if lines else ""


# ---------------------------------------------------------------- failed runs


def _crash_cause(facts: RunFacts) -> tuple[str, str]:
    """(tag, likely cause) of a crash, from its error output."""
    err = facts.stderr.decode("utf-8", "replace")
    last = _last_line(facts.stderr)
    if "EOFError" in err or re.search(r"\bstdin\b|\binput\(\)|\bcin\b|\bscanf\b", err):
        return "stdin", (
            "it reads the map from standard input, which is empty: the map is in the "
            "file MAP.INP in the current folder"
        )
    if re.search(r"MAP\.INP|map\.inp", err) and re.search(
        r"No such file|FileNotFound|not found", err
    ):
        return "map_inp_not_found", (
            "it cannot find MAP.INP: open it in the current folder (the "
            "judge runs the program there), by exactly that name"
        )
    missing = _missing_file(err)
    if missing is not None:
        language = facts.language
        if language is Language.UNKNOWN and "Traceback (most recent call last)" in err:
            language = Language.PYTHON
        found = _data_file_cause(missing, facts.program_files, language)
        if found is not None:
            return found
    if "Permission denied" in err or "Read-only file system" in err:
        return "writes_elsewhere", (
            "it writes outside its working folder (its program folder is "
            "read-only): write MOVE.OUT and STATE.OUT in the current folder"
        )
    if "ModuleNotFoundError" in err or "ImportError" in err:
        return "import", (
            f"a module it imports is not installed for the judge's python ({last}); "
            "use the standard library only"
        )
    windows = _windows_cause(facts.message)
    if windows is not None:
        return "crash", windows
    if last:
        return "crash", f"its error output ends with: {last}"
    if facts.signal is not None:
        return (
            "crash",
            "it was killed by a signal (a crash in native code, e.g. an out-of-range index)",
        )
    return "crash", (
        "it exits with a non-zero status without an error message (exit(1) on a path "
        "it did not expect?)"
    )


#: The sandbox's words for a Windows program's crash (as ``judge match`` shows them):
#: "Windows exception 0xC0000005 (access violation: page fault on read access to 0x0...)".
_WINDOWS_CRASH = re.compile(r"Windows (?:exception|status) (0x[0-9A-Fa-f]{8}) \(([^:)]+)")
#: What each usual exception most likely is in a contest bot's code.
_WINDOWS_CAUSES = {
    0xC0000005: "it read or wrote memory it does not own: an array index out of range (a row "
    "or column 0, or past M or N?), a null or freed pointer, or a local array too big",
    0xC0000094: "it divided an integer by zero (a count, a distance or a number of turns that "
    "can be 0?)",
    0xC000008E: "it divided by zero in floating point",
    0xC00000FD: "a recursion too deep, or a big array declared inside a function (make it "
    "global or static)",
    0xC000008C: "an index out of an array's range (a range check caught it)",
    0xC0000409: "the C runtime stopped it (a buffer overrun, or abort())",
    0xE06D7363: "a C++ exception nobody caught (std::out_of_range from .at()? a failed stoi?)",
    0xC0000135: "it needs a DLL the judge's machine does not have: link it statically (e.g. "
    "g++ -static) or put the DLL next to the .exe",
}


def _windows_cause(message: str) -> str | None:
    """The likely cause of a Windows exception the sandbox named (None: none was named)."""
    m = _WINDOWS_CRASH.search(message)
    if m is None:
        return None
    code, name = int(m.group(1), 16), m.group(2).strip()
    likely = _WINDOWS_CAUSES.get(code, "a crash in its native code")
    return f"a Windows {name} (exception {m.group(1)}): {likely}"


#: "No such file or directory: 'weights.txt'" (Python), "weights.txt (No such file ..." (Java),
#: "open weights.txt: no such file or directory" (Go), "cannot open weights.txt" (many).
_MISSING_FILE = (
    re.compile(r"No such file or directory: '([^']+)'"),
    re.compile(r"FileNotFoundException: (\S+) \(No such file"),
    re.compile(r"open (\S+): no such file or directory"),
    re.compile(r"[Cc]annot open (?:file )?'?([^'\s:]+)'?"),
)


def _missing_file(err: str) -> str | None:
    """The file a crash says it could not find, if it says so."""
    for pattern in _MISSING_FILE:
        m = pattern.search(err)
        if m:
            return m.group(1)
    return None


def _data_file_cause(
    name: str, program_files: frozenset[str], language: Language
) -> tuple[str, str] | None:
    """A missing file that is not MAP.INP: the bot looks for its own data in the wrong folder."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if base.upper() == MAP_INP:
        return None
    if base == STATE_OUT:
        return "state_missing", (
            "it reads STATE.OUT, which does not exist on the first run of a round (nor after "
            "one was discarded): check that the file exists before opening it"
        )
    own = {f.rsplit("/", 1)[-1] for f in program_files}
    where = (
        f"{base} is one of the bot's own files, but "
        if base in own
        else f"{base} is not in the current folder: "
    )
    return "data_file_cwd", (
        f"it opens {name!r} by a name relative to the current folder. {where}the current "
        "folder is the team folder (where MAP.INP is), not the program's folder: "
        + how_to_open(language, base)
    )


def _failed_run(sit: Situation, facts: RunFacts, limits: Limits) -> Finding:
    v = facts.verdict
    if v == "TLE":
        big = "largest" in sit.key
        cause = (
            "too slow on the largest map: its work grows with the map or K; "
            "bound the search or stop it on a clock"
            if big
            else "an endless loop, waiting for input that never comes, or a search too deep for "
            "this situation"
        )
        return Finding(ERROR, f"the run did not finish in time: {facts.message}", cause, "tle")
    if v == "MLE":
        return Finding(
            ERROR,
            f"the run used too much memory: {facts.message}",
            "big tables (per cell and per turn, or copied game states); size them from M, N and K",
            "mle",
        )
    if v == "OLE":
        return Finding(
            ERROR,
            f"a file grew too big: {facts.message}",
            "it writes in a loop (STATE.OUT appended forever?)",
            "ole",
        )
    if v == "RE":
        tag, cause = _crash_cause(facts)
        return Finding(ERROR, f"the program crashed: {facts.message}", cause, tag)
    return Finding(ERROR, f"the run failed ({v}): {facts.message}", None, "failed")


# -------------------------------------------------------------- missing/bad MOVE.OUT


def _no_move_out(facts: RunFacts) -> Finding:
    reason = "it wrote no MOVE.OUT (the boat does not move; at placement, it is placed at random)"
    if facts.misnamed:
        name = sorted(facts.misnamed)[0]
        return Finding(
            ERROR,
            reason,
            f"it wrote {name!r} instead: the name must be exactly MOVE.OUT, in capitals "
            "(file names are case-sensitive on the judge's machine)",
            "misnamed",
        )
    first = _printed_move(facts.stdout)
    if first is not None:
        return Finding(
            ERROR,
            reason,
            f"it printed the move on standard output ({first!r}): the judge reads only "
            "the file MOVE.OUT",
            "stdout",
        )
    return Finding(
        ERROR,
        reason,
        "it exits before writing, or writes MOVE.OUT somewhere else than the current "
        "folder (the judge runs the program in its team folder)",
        "no_move_out",
    )


def _bad_move_out(data: bytes, status: MoveStatus, stdout: bytes = b"") -> Finding:
    """MOVE.OUT exists but is not two integers on its first line: say what it holds instead."""
    printed = _printed_move(stdout)
    if voidwhy.for_run("OK", status, stdout, b"", data) is voidwhy.Why.EMPTY_ON_STDOUT:
        return Finding(
            ERROR,
            "MOVE.OUT is empty",
            f"it opened MOVE.OUT but printed the move on standard output ({printed!r}): "
            "write the move into the file it opened (in C++ to the ofstream, not cout; in "
            "Pascal writeln(f, ...), not writeln(...); in Python print(..., file=f))",
            "stdout",
        )
    if not data.strip():
        return Finding(
            ERROR,
            "MOVE.OUT is empty",
            "the file was opened but nothing was written (or not flushed/closed "
            "before the program ended)",
            "empty",
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]:
        return Finding(
            ERROR,
            "MOVE.OUT is UTF-16 text",
            "written by a tool that defaults to UTF-16 (e.g. PowerShell's '>' or "
            "Out-File); write plain ASCII",
            "utf16",
        )
    if status is MoveStatus.UNREADABLE:
        return Finding(
            ERROR,
            "MOVE.OUT is not text (not UTF-8)",
            "binary data written (an int written as bytes?); write the numbers as text",
            "unreadable",
        )
    text = data.decode("utf-8").lstrip("\ufeff")
    first = text.split("\n", 1)[0]
    # A CR before the newline is a Windows program's line end, which R10 accepts: not
    # shown, not blamed.  Any other CR is shown once, as Python writes it ('\r').
    shown = first.rstrip("\r")[:60]
    reason = f"MOVE.OUT's first line is {shown!r}, not two integers"
    if "\r" in first.rstrip("\r"):
        return Finding(
            ERROR,
            reason,
            "lines end with a bare CR (\\r, old Mac style) so everything is one line: "
            "end lines with \\n",
            "bare_cr",
        )
    if not first.strip():
        rest = text.split("\n", 1)[1] if "\n" in text else ""
        return Finding(
            ERROR,
            reason + " (it is empty)",
            "the move must be on line 1; here it starts with an empty line"
            + (f" (the move seems to be below: {rest.strip()[:30]!r})" if rest.strip() else ""),
            "empty_first_line",
        )
    toks = first.split()
    if len(toks) == 1 and re.fullmatch(r"[+-]?\d+", toks[0]):
        return Finding(
            ERROR,
            reason,
            "the two integers are on separate lines: write 'i j' on line 1, separated by a space",
            "two_lines",
        )
    m = re.match(r"\s*([+-]?\d+)\s+([+-]?\d+)(.*)$", first.rstrip("\r"))
    if m and m.group(3).strip():
        extra = m.group(3)
        glued = not extra[:1].isspace()
        return Finding(
            ERROR,
            reason,
            f"text after the two integers ({extra.strip()[:30]!r})"
            + (
                ", glued to the second one: no newline or space after the move"
                if glued
                else ": debug output on the same line?"
            )
            + "; line 1 must hold exactly the two integers, then a newline",
            "trailing",
        )
    if re.search(r"\d\s*[,;]\s*\d", first) or re.search(r"[()\[\]]", first):
        return Finding(
            ERROR,
            reason,
            "separate the two integers with a space: no commas, brackets or tuples "
            "(print(i, j) in Python, not print((i, j)))",
            "punctuation",
        )
    if re.search(r"\d\.\d", first):
        return Finding(ERROR, reason, "write integers, not decimals (3, not 3.0)", "decimals")
    return Finding(
        ERROR,
        reason,
        "line 1 must be exactly two integers, the row then the column",
        "not_two_integers",
    )


# ---------------------------------------------------------------- wrong cells


#: How each slip (:func:`judge.voidwhy.slips`, the judge's one guess of a mistake) is told.
_SLIP_TEXT = {
    "zero_based": "0-based coordinates: {c}, one more in both, would have been {ok}. Rows and "
    "columns are numbered from 1; add 1 to each before writing",
    "swapped": "i and j swapped: {c}, the same two numbers the other way round, would have been "
    "{ok}. Write the row (i) first, then the column (j)",
    "zero_based_swapped": "0-based and swapped: {c} would have been {ok}; add 1 to each and write "
    "the row first",
    "one_too_many": "1 added twice: {c}, one less in both, would have been {ok}",
}


def _likely(game: Game, t: Pos, placement: bool) -> list[tuple[str, str]]:
    """The mistakes that explain ``t`` (the judge's one guess, :func:`voidwhy.slips`), in words."""
    ok = "a valid start" if placement else "a legal move"
    return [
        (s.tag, _SLIP_TEXT[s.tag].format(c=_p(s.meant), ok=ok))
        for s in voidwhy.slips(game, 0, t, placement)
    ]


def _outside_words(game: Game, t: Pos) -> str:
    return voidwhy.outside_words(t, game.board.rows, game.board.cols)


def _bad_start(game: Game, t: Pos) -> list[Finding]:
    reason = voidwhy.start_words(t, voidwhy.Where.of_game(game, 0))
    reason += "; the boat is placed at random"
    causes = _likely(game, t, placement=True)
    if not causes and game.board.inside(t) and game.cell(t) == REEF:
        return [
            Finding(
                ERROR,
                reason,
                "it seems to take D for open water: the judge writes "
                "reefs as D (ruling R1); read both D and W as a reef",
                "expects_w",
            )
        ]
    if not causes:
        return [
            Finding(
                ERROR,
                reason,
                "it does not check the cell: a start must be inside the map "
                "and hold the number 0 (not gold, D or S)",
                "bad_start",
            )
        ]
    return [Finding(ERROR, reason, text, tag) for tag, text in causes]


def _bad_move(game: Game, t: Pos, status: MoveStatus) -> list[Finding]:
    own = game.position(0)
    opp = game.position(1)
    assert own is not None
    if status is MoveStatus.OUTSIDE:
        reason = _outside_words(game, t)
    else:
        reason = voidwhy.not_next_words(t, own)
    reason += ": the boat stays where it is"
    causes = _likely(game, t, placement=False)
    if not causes and abs(t[0] - own[0]) == abs(t[1] - own[1]) == 1:
        causes.append(
            (
                "diagonal",
                f"a diagonal: {_p(t)} shares only a corner with the boat's cell. A move goes "
                "up, down, left or right: (i-1, j), (i+1, j), (i, j-1) or (i, j+1)",
            )
        )
    if not causes and opp is not None and abs(t[0] - opp[0]) + abs(t[1] - opp[1]) <= 1:
        causes.append(
            (
                "own_is_opp",
                f"it moves the other boat: {_p(t)} is next to {_p(opp)}, the second pair on "
                "line 2. Line 2 is own boat (i1 j1) first, then the other boat",
            )
        )
    if not causes and game.board.inside(t) and game.valid_start(t):
        causes.append(
            (
                "placement_again",
                "it answers with a start cell as if this were the placement turn: "
                "placement is only when line 2 reads 0 0 0 0",
            )
        )
    if not causes:
        causes.append(
            (
                "bad_move",
                "a move goes to one of the 4 cells sharing an edge with the "
                "boat's cell (or names the boat's own cell to stay); read the boat's "
                "position from line 2",
            )
        )
    return [Finding(ERROR, reason, text, tag) for tag, text in causes]


# ---------------------------------------------------------------- the whole run


def _limits(facts: RunFacts, limits: Limits) -> list[Finding]:
    out = []
    if limits.time_s is not None and facts.wall_s > LIMIT_SHARE * limits.time_s:
        out.append(
            Finding(
                WARNING,
                f"it took {facts.wall_s:.2f} s, over half of the {limits.time_s:g} s limit",
                "a slower or busier machine may time it out: leave a margin (stop searching on a clock)",
                "slow",
            )
        )
    if facts.peak_memory_bytes > LIMIT_SHARE * limits.memory_bytes:
        out.append(
            Finding(
                WARNING,
                f"it used {fmt_bytes(facts.peak_memory_bytes)} of memory, over half of the "
                f"{fmt_bytes(limits.memory_bytes)} limit",
                "leave a margin: size tables from M, N and K",
                "memory",
            )
        )
    return out


def _semantics(
    sit: Situation, t: Pos, previous: Pos | None, previous_wrote_state: bool
) -> list[Finding]:
    """Legal answers that cost the boat, or leave an obvious gain."""
    g = sit.game
    out: list[Finding] = []
    if sit.placement:
        if NEW_START in sit.expect and previous is not None and t == previous:
            note = (
                ""
                if previous_wrote_state
                else " It wrote no STATE.OUT at placement, so it cannot tell a re-ask from a first ask."
            )
            out.append(
                Finding(
                    ADVICE,
                    f"asked again, it named the same start {_p(t)}",
                    "if the other bot insists too, after 3 re-asks both boats are placed at random. "
                    "A re-ask gets the same MAP.INP with STATE.OUT kept (R12): remember the cell "
                    "named and pick another." + note,
                    "same_reask",
                )
            )
        return out
    after = g.copy()
    events = after.step((t, None))
    sank = [e for e in events if e.kind is EventKind.SINK and e.seat == 0]
    if sank:
        cause = sank[0].cause
        if cause is SinkCause.REEF:
            out.append(
                Finding(
                    WARNING,
                    f"it moved onto the reef at {_p(t)} without a shield (B = 0 "
                    "on line 3): the boat sinks",
                    None,
                    "reef_entered",
                )
            )
        elif cause is SinkCause.WRECK:
            out.append(
                Finding(
                    WARNING,
                    f"it moved onto the other boat's wreck at {_p(t)}: the boat "
                    "sinks (a shield does not help)",
                    "the other boat's cell (line 2, second pair) is never safe to enter: "
                    "a boat there collides, a wreck sinks",
                    "wreck_entered",
                )
            )
        else:
            out.append(
                Finding(
                    WARNING,
                    f"it moved onto the other boat at {_p(t)}: both sink if it stays",
                    None,
                    "collision",
                )
            )
        return out
    if TAKE_GOLD in sit.expect:
        own = g.position(0)
        assert own is not None
        got = sum(e.value for e in events if e.kind is EventKind.COLLECT and e.seat == 0)
        best = max((g.grid[n] for n in g.board.neighbours[g.board.flat(own)]), default=0)
        if got < best:
            what = "the treasure" if g.treasure and best == g.treasure else "gold"
            out.append(
                Finding(
                    ADVICE,
                    f"{what} worth {best} was next to the boat and it took {got}",
                    "does it read multi-digit cells (the treasure can be over 9)?"
                    if what == "the treasure"
                    else "on the last turn, only what is next to the boat can still be won",
                    "missed_gold",
                )
            )
    return out


def diagnose(
    sit: Situation,
    facts: RunFacts,
    limits: Limits,
    previous: Pos | None = None,
    previous_wrote_state: bool = False,
) -> Diagnosis:
    """Everything wrong (or worth saying) about one run in one situation."""
    parsed = parse_move_out(facts.move_out)
    if facts.verdict != "OK":
        # A TLE or MLE is the limit itself: no "over half of it" warning besides.
        return Diagnosis(None, parsed.raw, [_failed_run(sit, facts, limits)])
    findings = _limits(facts, limits)
    if facts.move_out is None:
        findings.insert(0, _no_move_out(facts))
        return Diagnosis(None, None, findings)
    if parsed.target is None:
        assert parsed.status is not None
        findings.insert(0, _bad_move_out(facts.move_out, parsed.status, facts.stdout))
        return Diagnosis(None, parsed.raw, findings)
    t = parsed.target
    g = sit.game
    if sit.placement:
        if not g.valid_start(t):
            return Diagnosis(t, parsed.raw, _bad_start(g, t) + findings)
    else:
        status = g.classify(0, t)
        if status not in (MoveStatus.MOVED, MoveStatus.STAYED):
            return Diagnosis(t, parsed.raw, _bad_move(g, t, status) + findings)
    return Diagnosis(t, parsed.raw, _semantics(sit, t, previous, previous_wrote_state) + findings)


def reef_symbol_finding(d_target: Pos, w_target: Pos | None, w_sank: bool) -> Finding:
    """The reef situation's verdict once the same sea has been shown with ``W`` for reefs.

    Avoiding a W-reef but entering a D-reef means the bot reads D as open
    water: a misreading of MAP.INP, hence an error.  Entering both is a
    strategy problem (a warning).
    """
    if w_target is not None and not w_sank:
        return Finding(
            ERROR,
            f"it moved onto the reef at {_p(d_target)} without a shield: the boat "
            "sinks. It reads D as open water",
            "it expects W for reefs (as the original example writes): with the same sea "
            f"written with W it kept off the reef (answered {_p(w_target)}). MAP.INP "
            "writes reefs as D (ruling R1); read both D and W as a reef",
            "expects_w",
        )
    return Finding(
        WARNING,
        f"it moved onto the reef at {_p(d_target)} without a shield (B = 0 on "
        "line 3): the boat sinks",
        "it does not keep off reefs: the same sea written with W gave the same move, so "
        "it is not the symbol. Without a shield, never enter a D cell",
        "reef_entered",
    )


#: Short names of the error causes, for the one-line pattern across situations.
CAUSE_NAMES = {
    "zero_based": "0-based coordinates",
    "swapped": "i and j swapped",
    "zero_based_swapped": "0-based and swapped coordinates",
    "one_too_many": "1 added twice",
    "own_is_opp": "the other boat taken for its own",
    "diagonal": "diagonal moves",
    "placement_again": "answering as at placement",
    "stdout": "the move on standard output instead of MOVE.OUT",
    "misnamed": "a misnamed MOVE.OUT",
    "expects_w": "W expected instead of D",
    "trailing": "trailing text after the move",
    "bare_cr": "bare CR line ends",
    "two_lines": "the two integers on two lines",
    "punctuation": "commas or brackets in MOVE.OUT",
    "stdin": "reading standard input instead of MAP.INP",
    "data_file_cwd": "its own data file opened from the current folder",
    "state_missing": "STATE.OUT read before it exists",
    "tle": "too slow",
    "mle": "too much memory",
    "crash": "a crash",
}


def patterns(per_situation: list[list[Finding]]) -> list[tuple[str, int, int]]:
    """Error causes across situations, most frequent first: (name, situations it fits, failing ones).

    One situation can be ambiguous (an answer that fits both 0-based and swapped);
    across the battery the real mistake usually stands out.
    """
    failing = [fs for fs in per_situation if any(f.level == ERROR for f in fs)]
    tally: dict[str, int] = {}
    for fs in failing:
        for tag in {f.tag for f in fs if f.level == ERROR and f.tag in CAUSE_NAMES}:
            tally[tag] = tally.get(tag, 0) + 1
    ranked = sorted(tally.items(), key=lambda kv: (-kv[1], list(CAUSE_NAMES).index(kv[0])))
    return [(CAUSE_NAMES[tag], n, len(failing)) for tag, n in ranked]


def worst(findings: list[Finding]) -> str | None:
    for level in LEVELS:
        if any(f.level == level for f in findings):
            return level
    return None


__all__ = [
    "ADVICE",
    "AVOID_REEF",
    "AVOID_WRECK",
    "CAUSE_NAMES",
    "Diagnosis",
    "ERROR",
    "Finding",
    "MISNAMED_MOVE_FILES",
    "RunFacts",
    "WARNING",
    "diagnose",
    "patterns",
    "reef_symbol_finding",
    "worst",
]
