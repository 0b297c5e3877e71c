"""Fixtures of the Windows-program tests: every .exe built once per test session.

The .exe files are built from sources during the test run with the MinGW-w64
cross compilers (``.ci/run`` installs them with wine): the hostile set, the
bundled C bot (bots/greedy_c) and the C++ starter kit as 64-bit Windows
programs, the C++ kit once more without ``-static`` (it then needs DLLs the
judge's machine does not have), the hostile program as a 32-bit PE32, and a
text file named ``.exe``.  Each sits alone in a folder, ready to be a seat's
program folder or a ``judge match`` argument.  In CI (``CI`` set) a missing
tool fails the tests with the fix; on a developer machine they are skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge.sandbox import Sandbox
from judge.sandbox.wine import find_wine

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOOLS = {
    "x86_64-w64-mingw32-gcc": "gcc-mingw-w64-x86-64",
    "x86_64-w64-mingw32-g++": "g++-mingw-w64-x86-64",
    "i686-w64-mingw32-gcc": "gcc-mingw-w64-i686",
    "g++": "g++",
    "cc": "gcc",
}


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{why} (.ci/run installs wine and the MinGW-w64 cross compilers)")
    pytest.skip(why)


@dataclass(frozen=True)
class Exes:
    """Folders, each holding one program (the file name is given with it)."""

    hostile: Path  #: hostile.exe (modes: see fixtures/hostile.c)
    greedy: Path  #: greedy.exe, bots/greedy_c built for Windows
    greedy_native: Path  #: greedy, the same source built natively
    cpp: Path  #: bot.exe, the C++ starter kit (static)
    cpp_native: Path  #: bot, the C++ starter kit built natively
    dynamic: Path  #: bot.exe, the C++ kit built without -static
    pe32: Path  #: hostile32.exe, a 32-bit Windows program
    not_pe: Path  #: fake.exe, a text file
    counting: Path  #: counting.exe, tests/fixtures/counting (moves from its run count)
    counting_native: Path  #: counting, the same source built natively


def _build(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"


def _build_all(cmds: list[list[str]]) -> None:
    """The builds side by side, one a core: they are independent (a few seconds each)."""
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        for done in [pool.submit(_build, cmd) for cmd in cmds]:
            done.result()


@pytest.fixture(scope="session")
def exes(tmp_path_factory: pytest.TempPathFactory) -> Exes:
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed (Debian package {package})")
    if find_wine() is None:
        _missing("wine is not installed (Debian package wine)")
    out = tmp_path_factory.mktemp("exes")
    folders = {}
    for name in Exes.__dataclass_fields__:
        folders[name] = out / name
        folders[name].mkdir()
    kit = ROOT / "bots" / "template_cpp" / "bot.cpp"
    greedy = ROOT / "bots" / "greedy_c" / "greedy.c"
    hostile = FIXTURES / "hostile.c"
    mingw, mingwxx = "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-g++"
    counting = ROOT / "tests" / "fixtures" / "counting" / "counting.c"
    _build_all(
        [
            # the static C++ kit first: the longest build
            [
                mingwxx,
                "-std=c++17",
                "-O2",
                "-static",
                "-o",
                str(folders["cpp"] / "bot.exe"),
                str(kit),
            ],
            [mingwxx, "-std=c++17", "-O2", "-o", str(folders["dynamic"] / "bot.exe"), str(kit)],
            ["g++", "-std=c++17", "-O2", "-o", str(folders["cpp_native"] / "bot"), str(kit)],
            [mingw, "-O1", "-o", str(folders["hostile"] / "hostile.exe"), str(hostile)],
            [mingw, "-O2", "-std=c99", "-o", str(folders["greedy"] / "greedy.exe"), str(greedy)],
            ["cc", "-O2", "-std=c99", "-o", str(folders["greedy_native"] / "greedy"), str(greedy)],
            [
                "i686-w64-mingw32-gcc",
                "-O1",
                "-o",
                str(folders["pe32"] / "hostile32.exe"),
                str(hostile),
            ],
            [mingw, "-O2", "-o", str(folders["counting"] / "counting.exe"), str(counting)],
            ["cc", "-O2", "-o", str(folders["counting_native"] / "counting"), str(counting)],
        ]
    )
    (folders["not_pe"] / "fake.exe").write_text(
        "#include <stdio.h>\nint main(void) { return 0; }\n"
    )
    return Exes(**folders)


@pytest.fixture(scope="session")
def hostile_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding hostile.exe alone: for the ``alone`` test, which runs in group
    ``alone`` (tests/conftest.py), maybe in the process that did not build :func:`exes`."""
    tool = "x86_64-w64-mingw32-gcc"
    if shutil.which(tool) is None:
        _missing(f"{tool} is not installed (Debian package {TOOLS[tool]})")
    if find_wine() is None:
        _missing("wine is not installed (Debian package wine)")
    folder = tmp_path_factory.mktemp("hostile-exe")
    _build([tool, "-O1", "-o", str(folder / "hostile.exe"), str(FIXTURES / "hostile.c")])
    return folder


@pytest.fixture(scope="session")
def wine_sandbox(exes: Exes) -> Iterator[Sandbox]:
    """One sandbox for the session: every protection the machine allows, wine ready."""
    with Sandbox() as sb:
        sb.wine.template()  # built once per machine (seconds), then cached
        yield sb
