"""Reading a .exe's header, refusals in words, and wine's crash lines in Windows words.

Pure: crafted headers and wine's recorded lines, no wine needed.  (Real .exe files
built by MinGW go through the same code in the other tests of this folder.)
"""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest

from judge.sandbox.wine import (
    PRUNE_AFTER_S,
    WineInstall,
    crash_words,
    refusal,
    windows_target,
)
from judge.sandbox.wine.template import prune
from judge.sandbox.wine.words import failure
from judge.sandbox.winexe import ExeKind, inspect_bytes, is_windows_name

WINE64 = WineInstall("/usr/lib/wine/wine64", None, "/usr/lib/wine/wineserver64", "wine-8.0")
WINE_BOTH = WineInstall(
    "/usr/lib/wine/wine64", "/usr/lib/wine/wine", "/usr/lib/wine/wineserver64", "wine-8.0"
)


def pe(
    machine: int = 0x8664,
    magic: int = 0x20B,
    chars: int = 0x0022,
    subsystem: int = 3,
    clr: bool = False,
) -> bytes:
    """A minimal PE header as a linker writes it (no sections: the judge reads no more)."""
    pe_off = 0x80
    head = bytearray(1024)
    head[:2] = b"MZ"
    struct.pack_into("<I", head, 0x3C, pe_off)
    head[pe_off : pe_off + 4] = b"PE\0\0"
    opt_size = 224 if magic == 0x10B else 240
    struct.pack_into("<HHIIIHH", head, pe_off + 4, machine, 0, 0, 0, 0, opt_size, chars)
    opt = pe_off + 24
    struct.pack_into("<H", head, opt, magic)
    struct.pack_into("<H", head, opt + 68, subsystem)
    count_at, dirs_at = (opt + 92, opt + 96) if magic == 0x10B else (opt + 108, opt + 112)
    struct.pack_into("<I", head, count_at, 16)
    if clr:
        struct.pack_into("<II", head, dirs_at + 14 * 8, 0x2000, 0x48)
    return bytes(head)


@pytest.mark.parametrize(
    "head, kind",
    [
        (pe(), ExeKind.WIN64),
        (pe(machine=0x14C, magic=0x10B, chars=0x0102), ExeKind.WIN32),
        (pe(chars=0x2022), ExeKind.DLL),
        (pe(machine=0x14C, magic=0x10B, clr=True), ExeKind.DOTNET),
        (pe(machine=0xAA64), ExeKind.OTHER_CPU),
        (b"#include <stdio.h>\nint main(void) { return 0; }\n", ExeKind.NOT_PE),
        (b"\x7fELF\x02\x01\x01" + bytes(100), ExeKind.NOT_PE),
        (b"", ExeKind.NOT_PE),
        (b"MZ" + bytes(200), ExeKind.NOT_PE),  # a DOS stub with no PE header
        (pe()[:0x90], ExeKind.NOT_PE),  # cut short
    ],
)
def test_header_kinds(head: bytes, kind: ExeKind) -> None:
    assert inspect_bytes(head).kind is kind


def test_gui_programs_are_told_apart() -> None:
    assert inspect_bytes(pe(subsystem=3)).console
    assert not inspect_bytes(pe(subsystem=2)).console


def test_refusals_name_the_file_and_the_fix(tmp_path: Path) -> None:
    def write(name: str, data: bytes) -> str:
        p = tmp_path / name
        p.write_bytes(data)
        return str(p)

    good = write("good.exe", pe())
    old = write("old.exe", pe(machine=0x14C, magic=0x10B, chars=0x0102))
    text = write("text.exe", b"print('hello')\n")
    elf = write("linux.exe", b"\x7fELF\x02\x01\x01" + bytes(100))
    lib = write("lib.exe", pe(chars=0x2022))
    net = write("net.exe", pe(machine=0x14C, magic=0x10B, clr=True))
    arm = write("arm.exe", pe(machine=0xAA64))

    assert refusal(good, WINE64) is None
    assert refusal(old, WINE_BOTH) is None  # wine32 installed: it runs
    why = refusal(old, WINE64) or ""
    assert old in why and "32-bit Windows program" in why
    assert "rebuild it as 64-bit" in why and "wine32" in why
    assert "text file" in (refusal(text, WINE64) or "") and text in (refusal(text, WINE64) or "")
    assert "Linux program" in (refusal(elf, WINE64) or "")
    assert "DLL" in (refusal(lib, WINE64) or "")
    assert ".NET" in (refusal(net, WINE64) or "")
    assert "ARM64" in (refusal(arm, WINE64) or "")
    no_wine = refusal(good, None) or ""
    assert good in no_wine and "no wine" in no_wine and "apt install wine" in no_wine
    missing = refusal(str(tmp_path / "gone.exe"), WINE64) or ""
    assert "gone.exe" in missing and "cannot be read" in missing


def test_windows_commands_are_recognised() -> None:
    assert windows_target(["/x/bot.exe"]) == 0
    assert windows_target(["/x/BOT.EXE", "fast"]) == 0
    assert windows_target(["wine", "bot.exe", "a"]) == 1  # a bot.yaml written for wine
    assert windows_target(["/usr/bin/wine64", "bot.exe"]) == 1
    assert windows_target(["python3", "bot.py"]) is None
    assert windows_target(["wine"]) is None
    assert is_windows_name("a/b/c.Exe") and not is_windows_name("exe")


@pytest.mark.parametrize(
    "line, words",
    [
        (
            b"wine: Unhandled page fault on write access to 0000000000000000 at address "
            b"00000001400016B6 (thread 0054), starting debugger...",
            "Windows exception 0xC0000005 (access violation: page fault on write access to "
            "0000000000000000)",
        ),
        (
            b"wine: Unhandled stack overflow at address 0000000140002A16 (thread 006c), "
            b"starting debugger...",
            "Windows exception 0xC00000FD (stack overflow)",
        ),
        (
            b"wine: Unhandled division by zero at address 000000014000170F (thread 007c), "
            b"starting debugger...",
            "Windows exception 0xC0000094 (integer divide by zero)",
        ),
        (
            b"wine: Unhandled illegal instruction at address 0000000140001000 (thread 0024), "
            b"starting debugger...",
            "Windows exception 0xC000001D (illegal instruction)",
        ),
        (
            b"wine: Unhandled exception 0xc0000409 in thread 24 at address 0000000140001000 "
            b"(thread 0024), starting debugger...",
            "Windows exception 0xC0000409 (stack buffer overrun (fail-fast exit))",
        ),
    ],
)
def test_crash_lines_in_windows_words(line: bytes, words: str) -> None:
    assert crash_words([line]) == words


def test_missing_dlls_are_named() -> None:
    lines = [
        b'0044:err:module:import_dll Library libgcc_s_seh-1.dll (which is needed by L"Z:\\\\w\\\\bot.exe") not found',
        b'0044:err:module:import_dll Library libstdc++-6.dll (which is needed by L"Z:\\\\w\\\\bot.exe") not found',
        b'0044:err:module:LdrInitializeThunk Importing dlls for L"Z:\\\\w\\\\bot.exe" failed, status c0000135',
    ]
    words = crash_words(lines) or ""
    assert words.startswith("Windows status 0xC0000135")
    assert "libgcc_s_seh-1.dll, libstdc++-6.dll" in words and "-static" in words
    assert crash_words([b"0024:fixme:ntdll:something not implemented"]) is None


def test_template_cache_prunes_dead_builds_and_other_wine_versions(tmp_path: Path) -> None:
    """Before a new template is built: half-made builds of dead judges and templates of
    other wine versions unused for a day go (700 MiB each); a live build, a template
    another judge used lately, and anything else stay."""
    live = f".build-{os.getpid()}-aa"
    for name in (".build-999999999-bb", live, "0123456789abcdef", "fedcba9876543210", "notes"):
        (tmp_path / name).mkdir()
    (tmp_path / ".lock").write_text("")
    now = time.time()
    os.utime(tmp_path / "0123456789abcdef", (now, now - PRUNE_AFTER_S - 60))
    os.utime(tmp_path / "fedcba9876543210", (now, now - 60))
    prune(str(tmp_path), now=now)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        live,
        ".lock",
        "fedcba9876543210",
        "notes",
    ]


def test_a_wine_that_gave_up_says_what_it_left_the_exit_code_and_its_servers_words() -> None:
    """The judge's failure is told as wine left it: a wine that found no server starts one,
    and exits 1 without a word of its own when that one would not start."""
    loaded = (
        b'0024:trace:loaddll:build_module Loaded L"Z:\\\\w\\\\bot.exe" at 0000000140000000: native'
    )
    assert failure(loaded + b"\n", b"", died_in_run=False, exit_code=0) is None
    silent = failure(b"", b"", died_in_run=False, exit_code=1) or ""
    assert silent.endswith("(wine said nothing, exit code 1)"), silent
    server = failure(b"wineserver: could not create the lock\n", b"", False, 1) or ""
    assert "wine said: wineserver: could not create the lock" in server, server
    other = failure(b"\npreloader: Warning: failed to reserve range\n", b"", False, 1) or ""
    assert "exit code 1; its stderr began: preloader: Warning: failed to reserve range" in other
    assert "the seat's wineserver stopped" in (failure(loaded, b"", True, 0) or "")
