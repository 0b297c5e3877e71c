"""Finding the machine's wine, and deciding whether an ``.exe`` can run on it."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from judge.sandbox.winexe import ExeKind, inspect_exe

#: Where wine's 64-bit loader, a 32-bit loader (wine32) and the server may be.
#: Debian's /usr/bin/wine is a script (it prints a wine32 hint on every run): the
#: binaries behind it are used directly.
LOADER64_CANDIDATES = ("/usr/lib/wine/wine64", "/usr/lib64/wine/wine64", "/usr/bin/wine64")

LOADER32_CANDIDATES = ("/usr/lib/wine/wine", "/usr/lib/i386-linux-gnu/wine/wine", "/usr/bin/wine")

SERVER_CANDIDATES = (
    "/usr/lib/wine/wineserver64",
    "/usr/lib/wine/wineserver32",
    "/usr/lib/wine/wineserver",
    "/usr/bin/wineserver",
)


def _elf_class(path: str) -> int | None:
    """1 = 32-bit ELF, 2 = 64-bit ELF, None = not an ELF file (a script, missing)."""
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except OSError:
        return None
    return head[4] if len(head) == 5 and head[:4] == b"\x7fELF" else None


@dataclass(frozen=True)
class WineInstall:
    """The wine binaries the judge runs directly."""

    loader64: str
    loader32: str | None  #: wine32's loader: None when 32-bit programs cannot run
    server: str
    version: str

    def describe(self) -> str:
        bits = (
            "64-bit and 32-bit programs"
            if self.loader32
            else "64-bit programs only (wine32 is not installed)"
        )
        return f"{self.version}, loader {self.loader64}: {bits}"


def find_wine(
    loaders64: tuple[str, ...] = LOADER64_CANDIDATES,
    loaders32: tuple[str, ...] = LOADER32_CANDIDATES,
    servers: tuple[str, ...] = SERVER_CANDIDATES,
) -> WineInstall | None:
    """The machine's wine, or None when it has none that the judge can use."""
    loader64 = next((p for p in loaders64 if _elf_class(p) == 2 and os.access(p, os.X_OK)), None)
    server = next((p for p in servers if _elf_class(p) is not None and os.access(p, os.X_OK)), None)
    if loader64 is None or server is None:
        return None
    loader32 = next((p for p in loaders32 if _elf_class(p) == 1 and os.access(p, os.X_OK)), None)
    try:
        out = subprocess.run(
            [loader64, "--version"],
            capture_output=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = out.stdout.decode("utf-8", "replace").strip()
    if out.returncode != 0 or not version:
        return None
    return WineInstall(loader64, loader32, server, version)


def no_wine_reason(exe: str) -> str:
    """Why an .exe cannot run on a machine without wine, with the fix."""
    return (
        f"{exe} is a Windows program (.exe) and this machine has no wine: install it "
        "(Debian/Ubuntu: apt install wine), or give the bot as a native program or script"
    )


def refusal(exe: str, install: WineInstall | None) -> str | None:
    """Why this machine cannot run ``exe`` (a path to a file named .exe); None: it can."""
    try:
        info = inspect_exe(exe)
    except OSError as exc:
        return f"{exe} cannot be read: {exc.strerror}"
    kind = info.kind
    if kind is ExeKind.NOT_PE:
        return f"{exe} is named .exe but is {info.detail}"
    if kind is ExeKind.DLL:
        return f"{exe} is {info.detail}: build the program itself"
    if kind is ExeKind.DOTNET:
        return (
            f"{exe} is {info.detail}: the judge runs native Windows programs only (wine "
            "without Mono); build it as a native program (C, C++, Pascal, ...)"
        )
    if kind is ExeKind.OTHER_CPU:
        return f"{exe} is {info.detail}: rebuild it for 64-bit x86 (x86-64)"
    if install is None:
        return no_wine_reason(exe)
    if kind is ExeKind.WIN32 and install.loader32 is None:
        return (
            f"{exe} is a 32-bit Windows program (PE32) and this machine's wine runs only "
            "64-bit programs: rebuild it as 64-bit (MinGW-w64: x86_64-w64-mingw32-g++, or "
            "g++ -m64 from a 64-bit MinGW), or install wine32 (Debian/Ubuntu: dpkg "
            "--add-architecture i386 && apt update && apt install wine32:i386)"
        )
    return None


def windows_target(argv: list[str]) -> int | None:
    """Index of the .exe in ``argv`` when it is a Windows command: ``[x.exe, ...]``
    or ``[wine, x.exe, ...]`` (a bot.yaml written for wine); None otherwise."""
    first = os.path.basename(argv[0])
    if first.lower().endswith(".exe"):
        return 0
    if first in ("wine", "wine64", "wine-stable") and len(argv) > 1:
        if argv[1].lower().endswith(".exe"):
            return 1
    return None
