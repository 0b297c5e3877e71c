"""A bot that looks for its own data file in the team folder: found by tracing its lookups.

In a round the current folder is the team folder (MAP.INP, STATE.OUT), not the
program's folder, so ``fopen("weights.txt")`` finds nothing there.  A Python
bot usually crashes with a message check-bot recognises, but a compiled bot
typically plays on without its data, silently, and passes every situation.
So check-bot runs the program once more under ``strace`` (the
file system calls of every process of the run, wine's included: a Windows
program's lookups are the Linux-side ``stat`` of the same path) and looks for
a lookup, relative to the current folder, of one of the bot's own files that
failed, with no successful lookup of that file anywhere else in the run (a
program that tries the current folder first and then its own is fine).

The hint says how to reach a file beside the program in the bot's language,
in the words of the starter kits (each kit's header shows the same code,
which the tests run).
"""

from __future__ import annotations

import enum
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from judge.bots import BotSpec
from judge.protocol import MAP_INP, MOVE_OUT, STATE_OUT

#: Where the trace is written, in the run's folder (a name no bot uses).
TRACE_FILE = "check-bot-file-trace.txt"


class Language(enum.Enum):
    """What the bot is written in, as far as its files tell (for the hint's code)."""

    PYTHON = "Python"
    C = "C"
    CPP = "C++"
    PASCAL = "Pascal"
    UNKNOWN = "a compiled language"


#: How to open a file beside the program, per language: the code the starter kits show.
HOW_TO_OPEN: dict[Language, str] = {
    Language.PYTHON: ("open(os.path.join(os.path.dirname(os.path.abspath(__file__)), {name!r}))"),
    Language.C: (
        "size_t n = strlen(argv[0]); while (n > 0 && argv[0][n - 1] != '/' && "
        "argv[0][n - 1] != '\\\\') n--; char path[4096]; snprintf(path, sizeof path, "
        '"%.*s%s", (int)n, argv[0], "{name}"); FILE *f = fopen(path, "r");'
    ),
    Language.CPP: (
        'std::string dir = argv[0]; dir.erase(dir.find_last_of("/\\\\") + 1); '
        'std::ifstream in(dir + "{name}");'
    ),
    Language.PASCAL: "Assign(f, ExtractFilePath(ParamStr(0)) + '{name}');",
}

#: What each way is called, for the sentence around the code.
THROUGH: dict[Language, str] = {
    Language.PYTHON: "__file__, the path of the script",
    Language.C: "argv[0], the program's own path (on Linux and under wine alike; "
    "GetModuleFileName(NULL, ...) gives it too on Windows)",
    Language.CPP: "argv[0], the program's own path (on Linux and under wine alike; "
    "GetModuleFileName(NULL, ...) gives it too on Windows)",
    Language.PASCAL: "ParamStr(0), the program's own path",
}

_SOURCES = {
    ".py": Language.PYTHON,
    ".c": Language.C,
    ".cpp": Language.CPP,
    ".cc": Language.CPP,
    ".cxx": Language.CPP,
    ".pas": Language.PASCAL,
    ".pp": Language.PASCAL,
    ".lpr": Language.PASCAL,
    ".dpr": Language.PASCAL,
}


def language_of(bot: BotSpec | None) -> Language:
    """The bot's language: its command first (a script), then its source files."""
    if bot is None:
        return Language.UNKNOWN
    for tok in bot.command:
        base = os.path.basename(tok).lower()
        if base.endswith(".py") or base.startswith("python"):
            return Language.PYTHON
    folder = bot.home or bot.program_dir
    found: set[Language] = set()
    if folder is not None:
        try:
            for p in folder.iterdir():
                lang = _SOURCES.get(p.suffix.lower())
                if lang is not None and p.is_file():
                    found.add(lang)
        except OSError:
            pass
    for lang in (Language.CPP, Language.C, Language.PASCAL, Language.PYTHON):
        if lang in found:
            return lang
    return Language.UNKNOWN


def how_to_open(language: Language, name: str) -> str:
    """The sentence that tells a bot author how to open ``name`` beside the program."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if language is Language.UNKNOWN:
        ways = "; ".join(
            f"in {lang.value} through {THROUGH[lang].split(',')[0]}: "
            + HOW_TO_OPEN[lang].format(name=base)
            for lang in (Language.C, Language.CPP, Language.PASCAL)
        )
        return f"open your own files through the program's own path ({ways})"
    return (
        f"open your own files through {THROUGH[language]}, as the starter kit shows: "
        + HOW_TO_OPEN[language].format(name=base)
    )


def strace_path() -> str | None:
    """strace, if this machine has it (the Debian package ``strace``)."""
    return shutil.which("strace") or next(
        (p for p in ("/usr/bin/strace", "/bin/strace") if os.access(p, os.X_OK)), None
    )


def wrapper(strace: str) -> tuple[str, ...]:
    """The command put in front of the program: every file system call of every process,
    paths in full, into :data:`TRACE_FILE` in the run's folder."""
    return (strace, "-f", "-qq", "--seccomp-bpf", "-s", "256", "-e", "trace=%file",
            "-o", TRACE_FILE, "--")  # fmt: skip


@dataclass(frozen=True)
class Lookup:
    """One file system call on a path: which path, whether it succeeded, and whether the
    path was relative to the current folder."""

    path: str
    ok: bool
    from_cwd: bool


_LINE = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(.*)$")
_CALL = re.compile(r"^([a-z_0-9]+)\((.*)$")
_RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$")
_RESULT = re.compile(r"\)\s+=\s+(-?\d+|\?)")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unescape(text: str) -> str:
    """strace's quoting back to the path (octal and hex escapes are bytes, UTF-8 text)."""
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, '"': 34, "\\": 92}
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if nxt == "x" and re.match(r"[0-9a-fA-F]{2}", text[i + 2 : i + 4]):
                out.append(int(text[i + 2 : i + 4], 16))
                i += 4
                continue
            m = re.match(r"[0-7]{1,3}", text[i + 1 : i + 4])
            if m:
                out.append(int(m.group(0), 8) & 0xFF)
                i += 1 + len(m.group(0))
                continue
        out.extend(ch.encode("utf-8"))
        i += 1
    return out.decode("utf-8", "replace")


def _lookup(call: str, args: str, result: str | None) -> Lookup | None:
    m = _QUOTED.search(args)
    if m is None or result is None or result == "?":
        return None
    path = _unescape(m.group(1))
    before = args[: m.start()]
    # The path is relative to the current folder when it is not absolute and the call
    # takes no folder descriptor, or takes AT_FDCWD.
    relative = not path.startswith("/") and (before.strip() == "" or "AT_FDCWD" in before)
    return Lookup(path, int(result) >= 0, relative)


def parse_trace(text: str) -> list[Lookup]:
    """Every file lookup of a ``strace -f -e trace=%file`` log, in order (calls cut in two
    by another process's line are joined again)."""
    out: list[Lookup] = []
    pending: dict[str, tuple[str, str]] = {}
    for raw in text.splitlines():
        m = _LINE.match(raw.strip())
        if m is None:
            continue
        pid, rest = m.groups()
        resumed = _RESUMED.match(rest)
        if resumed is not None:
            call_args = pending.pop(pid, None)
            if call_args is None:
                continue
            call, args = call_args
            res = _RESULT.search(resumed.group(2))
            found = _lookup(call, args, res.group(1) if res else None)
        else:
            c = _CALL.match(rest)
            if c is None:
                continue
            call, args = c.groups()
            if args.endswith("<unfinished ...>"):
                pending[pid] = (call, args)
                continue
            res = _RESULT.search(args)
            found = _lookup(call, args, res.group(1) if res else None)
        if found is not None:
            out.append(found)
    return out


def _in_folder(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` when it lies in it, also as wine names it
    (``…/dosdevices/z:/folder/…``); None otherwise."""
    norm = folder.rstrip("/") + "/"
    for prefix in (norm, f"z:{norm}", f"Z:{norm}"):
        at = path.find(prefix)
        if at == 0 or (at > 0 and prefix[0] in "zZ" and path[at - 1] == "/"):
            return path[at + len(prefix) :]
    return None


#: Names a bot may look for in its folder that are not its data (protocol files, its
#: runtime's own lookups).
_NOT_DATA = {MAP_INP.lower(), MOVE_OUT.lower(), STATE_OUT.lower(), TRACE_FILE}
_NOT_DATA_SUFFIXES = (".dll", ".exe", ".so", ".pyc", ".pyd", ".pth")


def missed_own_files(
    lookups: Iterable[Lookup],
    own_files: Iterable[str],
    workdir: str,
    program: str | None = None,
) -> list[str]:
    """The bot's own files it looked for in the current folder (the team folder) and
    found nowhere in the run, in the order first looked for.

    ``own_files`` are paths relative to the bot's folder; a lookup matches one by
    its last component (case-insensitively: a Windows program's names are).
    ``program`` is the program file itself, which is no data file.
    """
    own = {p.replace("\\", "/").rsplit("/", 1)[-1].lower() for p in own_files}
    if program:
        own.discard(os.path.basename(program).lower())
    own -= _NOT_DATA
    own = {n for n in own if not n.endswith(_NOT_DATA_SUFFIXES) and n != "bot.yaml"}
    missed: dict[str, str] = {}
    found: set[str] = set()
    for lk in lookups:
        rel = lk.path if lk.from_cwd else _in_folder(lk.path, workdir)
        base = lk.path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
        if base not in own:
            continue
        if lk.ok:
            if rel is None:  # found outside the team folder: the program reaches its data
                found.add(base)
            continue
        if rel is not None and base not in missed:
            missed[base] = rel[2:] if rel.startswith("./") else rel
    return [rel for base, rel in missed.items() if base not in found]


def program_file(argv: list[str], seat_program_dir: Path | None) -> str | None:
    """The program's own file in the command (the script, or the executable)."""
    if seat_program_dir is None:
        return None
    for tok in argv:
        if tok.startswith(str(seat_program_dir)):
            return tok
    return None
