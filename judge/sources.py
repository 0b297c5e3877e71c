"""A source file given where a program is expected: what to build it with, as the kits say.

A student's first C++ bot is a ``bot.cpp``; given to the judge as the bot, it
is not "not executable" (``chmod +x`` would not help): it needs building.  The
commands here are those of the starter kits' headers and README's build
tables, with the file's own name, for Linux (to test) and for the team's
Windows ``.exe`` (what is submitted).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Language:
    """How a source of one language becomes a program."""

    name: str
    linux: str  # the command on Linux: {src} the file, {out} the program
    windows: str  # the team's 64-bit .exe, on Windows: {src}, {out}
    cross: str | None  # the same .exe made on Linux, when Debian has the cross compiler
    kit: str  # the bundled bot folder that builds such a source with its bot.yaml


_CPP = Language(
    "C++",
    "g++ -std=c++17 -O2 -o {out} {src}",
    "g++ -std=c++17 -O2 -static -o {out}.exe {src}",
    "x86_64-w64-mingw32-g++ -std=c++17 -O2 -static -o {out}.exe {src}",
    "template_cpp",
)
_C = Language(
    "C",
    "gcc -O2 -o {out} {src}",
    "gcc -O2 -static -o {out}.exe {src}",
    "x86_64-w64-mingw32-gcc -O2 -static -o {out}.exe {src}",
    "greedy_c",
)
_PASCAL = Language(
    "Pascal",
    "fpc -O2 -o{out} {src}",
    "fpc -Px86_64 -Twin64 -O2 {src}",  # the 64-bit compiler: plain fpc makes a 32-bit .exe
    None,
    "template_pas",
)
#: File suffixes (lower case) of sources the judge knows how to have built.
LANGUAGES = {
    ".cpp": _CPP,
    ".cc": _CPP,
    ".cxx": _CPP,
    ".c++": _CPP,
    ".c": _C,
    ".pas": _PASCAL,
    ".pp": _PASCAL,
    ".lpr": _PASCAL,
    ".dpr": _PASCAL,
}


def language_of(path: Path | str) -> Language | None:
    """The language of a source file by its suffix (None: not a source the judge builds)."""
    return LANGUAGES.get(Path(path).suffix.lower())


def needs_building(path: Path) -> str | None:
    """Why ``path`` cannot be run as it is and how to build it (None: not a known source)."""
    lang = language_of(path)
    if lang is None:
        return None
    src, out = shlex.quote(path.name), shlex.quote(path.stem)
    linux = lang.linux.format(src=src, out=out)
    exe = lang.windows.format(src=src, out=out)
    cross = (
        f", or on Linux: {lang.cross.format(src=src, out=out)}" if lang.cross is not None else ""
    )
    return (
        f"{path} is {lang.name} source code, not a program: a source needs building first "
        f"(in its folder). To test it here, on Linux: {linux}, then give the program "
        f"{path.with_name(path.stem)}. The team's Windows program, a 64-bit .exe: on Windows "
        f"{exe}{cross}, then give {path.with_name(path.stem + '.exe')}. Or give a bot folder "
        f"whose bot.yaml builds it, as the bundled {lang.kit} does (copy it, put your source "
        "in it)"
    )
