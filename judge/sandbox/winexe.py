"""What kind of Windows program a ``.exe`` is, read from its PE header (no wine needed).

Why read the header ourselves: wine's own answer to a program it cannot run
(a 32-bit one without wine32, a DLL, a text file named ``.exe``) is a cryptic
loader error on every turn.  Reading a few hundred bytes before the round lets
the judge refuse such a bot once, naming the file and the fix.

Layout read (Microsoft PE/COFF): ``MZ`` at 0, the PE header's offset at 0x3C,
``PE\\0\\0``, the COFF header (machine, characteristics), then the optional
header (magic 0x10B = PE32, 0x20B = PE32+, subsystem, data directories; the
14th directory is the .NET runtime header).
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

#: COFF machine types worth naming.
MACHINES = {
    0x8664: "x86-64",
    0x014C: "i386",
    0xAA64: "ARM64",
    0x01C4: "ARM",
    0x0200: "IA-64",
}
_DLL = 0x2000
_EXECUTABLE = 0x0002
_READ = 4096


class ExeKind(str, enum.Enum):
    """The verdict on a file named ``.exe``."""

    WIN64 = "win64"  #: PE32+ for x86-64: runs with wine's 64-bit loader
    WIN32 = "win32"  #: PE32 for i386: needs wine32
    DOTNET = "dotnet"  #: a .NET program: needs wine-mono, not installed for bots
    OTHER_CPU = "other-cpu"  #: a Windows program for another processor (ARM64, ...)
    DLL = "dll"  #: a library, not a program
    NOT_PE = "not-pe"  #: not a Windows executable at all


@dataclass(frozen=True)
class ExeInfo:
    """What :func:`inspect_exe` found; ``detail`` says it in words."""

    kind: ExeKind
    detail: str
    console: bool = True  #: console subsystem (False: a GUI program)


def inspect_bytes(head: bytes) -> ExeInfo:
    """Classify the first bytes of a file (at least the headers; 4 KiB is plenty)."""
    if len(head) < 0x40 or head[:2] != b"MZ":
        what = _describe_magic(head)
        return ExeInfo(ExeKind.NOT_PE, f"not a Windows executable ({what})")
    (pe_off,) = struct.unpack_from("<I", head, 0x3C)
    if pe_off + 24 > len(head) or head[pe_off : pe_off + 4] != b"PE\0\0":
        return ExeInfo(
            ExeKind.NOT_PE,
            "not a Windows executable (an MZ header without a PE header: a DOS program "
            "or a damaged file)",
        )
    machine, _nsec, _ts, _sym, _nsym, opt_size, chars = struct.unpack_from(
        "<HHIIIHH", head, pe_off + 4
    )
    opt = pe_off + 24
    if opt_size < 72 or opt + 72 > len(head):
        return ExeInfo(ExeKind.NOT_PE, "not a Windows executable (its PE header is cut short)")
    (magic,) = struct.unpack_from("<H", head, opt)
    (subsystem,) = struct.unpack_from("<H", head, opt + 68)
    console = subsystem != 2  # 2 = Windows GUI, 3 = console
    cpu = MACHINES.get(machine, f"machine type 0x{machine:04x}")
    if chars & _DLL or not chars & _EXECUTABLE:
        return ExeInfo(ExeKind.DLL, f"a Windows library (DLL) for {cpu}, not a program")
    if magic not in (0x10B, 0x20B):
        return ExeInfo(
            ExeKind.NOT_PE, f"not a Windows executable (unknown optional header 0x{magic:04x})"
        )
    pe32 = magic == 0x10B
    dirs_at, count_at = (opt + 96, opt + 92) if pe32 else (opt + 112, opt + 108)
    if count_at + 4 <= len(head) and dirs_at + 15 * 8 <= len(head):
        (ndirs,) = struct.unpack_from("<I", head, count_at)
        if ndirs > 14:
            clr_rva, clr_size = struct.unpack_from("<II", head, dirs_at + 14 * 8)
            if clr_rva and clr_size:
                return ExeInfo(ExeKind.DOTNET, f"a .NET program ({'PE32' if pe32 else 'PE32+'})")
    if machine == 0x8664 and not pe32:
        return ExeInfo(ExeKind.WIN64, "a 64-bit Windows program (PE32+, x86-64)", console)
    if machine == 0x014C and pe32:
        return ExeInfo(ExeKind.WIN32, "a 32-bit Windows program (PE32, i386)", console)
    return ExeInfo(
        ExeKind.OTHER_CPU,
        f"a Windows program for {cpu} ({'PE32' if pe32 else 'PE32+'}), not for x86",
        console,
    )


def _describe_magic(head: bytes) -> str:
    if not head:
        return "the file is empty"
    if head.startswith(b"\x7fELF"):
        return "it is a Linux program (ELF): give it without the .exe name"
    if head.startswith(b"#!"):
        return "it is a script"
    if head.startswith(b"PK\x03\x04"):
        return "it is a ZIP archive"
    sample = head[:64]
    if all(32 <= b < 127 or b in (9, 10, 13) for b in sample):
        return "it is a text file"
    return f"it starts with the bytes {head[:4].hex(' ')}, not MZ"


def inspect_exe(path: str) -> ExeInfo:
    """Classify the file at ``path`` (OSError if it cannot be read)."""
    with open(path, "rb") as f:
        return inspect_bytes(f.read(_READ))


def is_windows_name(path: str) -> bool:
    """A file the judge treats as a Windows program: its name ends in ``.exe`` (any case)."""
    return path.lower().endswith(".exe")
