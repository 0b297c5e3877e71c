"""Wine's words on a run's stderr: told apart from the program's, and read for the verdict.

Wine writes its own lines (``wine: ...``, ``0024:err:...``) into the program's
stderr.  They are taken out of what the bot's author sees, a crash they describe
is told as the Windows exception it was, and the loader's "Loaded ... : native"
line for the program's own file tells a run wine gave up on (the judge's failure)
from one the program ran.
"""

from __future__ import annotations

import dataclasses
import re

from judge.sandbox.types import RunResult, Verdict

#: Wine's own lines on stderr: its messages ("wine: ...") and debug channels ("0024:err:...").
WINE_LINE = re.compile(rb"^(wine: |wine client error|[0-9a-f]{4}:(err|fixme|warn|trace):)")
_UNHANDLED = re.compile(
    rb"^wine: Unhandled (?P<what>.+?)(?: in thread [0-9a-fA-F]+)?(?: at address (?P<addr>[0-9A-Fa-fx]+))?"
    rb" \(thread [0-9a-fA-F]+\)"
)

_MISSING_DLL = re.compile(rb":err:module:import_dll Library (?P<dll>\S+) \(which is needed by")

#: Wine's line for a module of the program's own (the .exe first; wine's own are "builtin").
_LOADED_NATIVE = re.compile(rb":trace:loaddll:\w+ Loaded .*: native\r?$", re.M)

#: Wine's own words when it gives up before or around a program's start (not a crash); a
#: wine that found no server starts one of its own, whose words are "wineserver: ...".
_WINE_FAILURE = re.compile(rb"^(wine client error|wineserver: |wine: (?!Unhandled|Call from)).*")

#: Wine's words for an unhandled exception -> (code, name in words).
_WINE_WORDS: tuple[tuple[str, int, str], ...] = (
    ("page fault", 0xC0000005, "access violation"),
    ("stack overflow", 0xC00000FD, "stack overflow"),
    ("division by zero", 0xC0000094, "integer divide by zero"),
    ("array bounds", 0xC000008C, "array bounds exceeded"),
    ("illegal instruction", 0xC000001D, "illegal instruction"),
    ("privileged instruction", 0xC0000096, "privileged instruction"),
    ("alignment", 0x80000002, "data type misalignment"),
    ("overflow", 0xC0000095, "integer overflow"),
    ("^C", 0x40010005, "Ctrl-C"),
)

#: Other well-known codes, for "Unhandled exception 0x..." and exit statuses.
EXCEPTION_NAMES = {
    0xC0000005: "access violation",
    0xC00000FD: "stack overflow",
    0xC0000094: "integer divide by zero",
    0xC0000095: "integer overflow",
    0xC000008C: "array bounds exceeded",
    0xC000001D: "illegal instruction",
    0xC0000096: "privileged instruction",
    0x80000002: "data type misalignment",
    0xC000008E: "floating-point divide by zero",
    0xC0000090: "floating-point invalid operation",
    0xC0000091: "floating-point overflow",
    0xC0000409: "stack buffer overrun (fail-fast exit)",
    0xC0000135: "a DLL the program needs was not found",
    0xE06D7363: "an uncaught C++ exception (Microsoft C++)",
}


def failure(
    stderr_head: bytes, stderr_tail: bytes, died_in_run: bool, exit_code: int | None = None
) -> str | None:
    """Why the last run is wine's failure rather than the program's, in wine's own
    words; None when the program's run stands (the judge's failure is never held
    against the program).

    Wine failed when the seat's wineserver stopped during the run (``died_in_run``),
    or when the run ended without wine's "Loaded ... : native" line (the program's
    own file: wine's system files are "builtin"): wine (its loader, the server, the
    prefix) gave up before any of the program's code ran.  That line is written
    before the program runs, so no program can make a run of its own look like
    wine's failure by its output; and what such a run wrote is wine's alone, so when
    none of it is in wine's usual words its first line and the exit code are told: a
    wine that exits at once with status 1 and says nothing is one whose own server
    would not start.
    """
    said = [
        m.group(0).decode("utf-8", "replace").strip()
        for ln in (stderr_head + b"\n" + stderr_tail).splitlines()
        for m in [_WINE_FAILURE.match(ln)]
        if m
    ]
    words = f" (wine said: {'; '.join(dict.fromkeys(said))[:400]})" if said else ""
    if died_in_run:
        return f"the seat's wineserver stopped during the run{words}"
    if _LOADED_NATIVE.search(stderr_head):
        return None
    return (
        f"wine stopped before it had loaded the program{words or _silence(stderr_head, exit_code)}"
    )


def _silence(stderr_head: bytes, exit_code: int | None) -> str:
    """What a wine that gave up in none of its usual words left: its first line, its code."""
    code = f", exit code {exit_code}" if exit_code is not None else ""
    first = next((ln.strip() for ln in stderr_head.splitlines() if ln.strip()), b"")
    if not first:
        return f" (wine said nothing{code})"
    return f" (wine said nothing in its usual words{code}; its stderr began: {first.decode('utf-8', 'replace')[:200]})"


def explain(result: RunResult) -> RunResult:
    """Wine's own stderr lines out of the program's, and a crash told in Windows words."""
    lines = result.stderr_tail.splitlines(keepends=True)
    wine = [ln for ln in lines if WINE_LINE.match(ln)]
    if not wine:
        return result
    own = b"".join(ln for ln in lines if not WINE_LINE.match(ln))
    message = result.message
    if result.verdict is Verdict.RE:
        words = crash_words(wine)
        if words is not None and names_status(words):
            message = words  # not "...: exited with code 53", which repeats 0xC0000135
        else:
            message = f"{words or 'crashed'}: {message}"
    return dataclasses.replace(result, stderr_tail=own, message=message)


def names_status(words: str) -> bool:
    """Whether ``words`` name the Windows status the program died of.  Its exit code then
    says nothing more: wine ends it with the status's low byte (0xC0000135 -> 53) or,
    for some exceptions (a stack overflow), with 1."""
    return re.search(r"0x[0-9A-Fa-f]{8}", words) is not None


def crash_words(wine_lines: list[bytes]) -> str | None:
    """What wine said about a crash, as a Windows exception code in words."""
    missing = [
        m.group("dll").decode("utf-8", "replace")
        for ln in wine_lines
        for m in [_MISSING_DLL.search(ln)]
        if m
    ]
    if missing:
        dlls = ", ".join(dict.fromkeys(missing))
        return (
            f"Windows status 0xC0000135 (a DLL the program needs was not found: {dlls}; "
            "link it statically, e.g. g++ -static, or put the DLL next to the .exe)"
        )
    for ln in wine_lines:
        m = _UNHANDLED.match(ln)
        if not m:
            continue
        what = m.group("what").decode("utf-8", "replace")
        code = None
        hexcode = re.match(r"exception (0x[0-9a-fA-F]+)", what)
        if hexcode:
            code = int(hexcode.group(1), 16)
            name = EXCEPTION_NAMES.get(code, "an exception")
        else:
            for phrase, c, words in _WINE_WORDS:
                if what.startswith(phrase):
                    code, name = c, words
                    break
        if code is None:
            return f"crashed (wine: unhandled {what})"
        detail = f": {what}" if what.startswith("page fault on") else ""
        return f"Windows exception 0x{code:08X} ({name}{detail})"
    return None
