"""check-bot finds a bot that looks for its own data file in the team folder:
compiled bots that play on without their data, in every language, native and .exe.

Each language's bot is its starter kit (or bots/greedy_c for C) with a data file,
weights.txt, read at the start of every run: "wrong" opens it by its bare name
(the current folder: the team folder, where it is not) and plays on without it;
"right" opens it the way the kit's header and check-bot's hint say.  The wrong
one must fail check-bot with the hint in its language, the right one pass: so
the advice itself is tested to work, on Linux and under wine.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.bots import BotSpec
from judge.checkbot.datafiles import (
    HOW_TO_OPEN,
    Language,
    how_to_open,
    language_of,
    missed_own_files,
    parse_trace,
)
from judge.cli import main
from judge.sandbox.wine import find_wine

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = "weights.txt"

# ----------------------------------------------------------------- the trace, pure

NATIVE = """\
301 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
301 openat(AT_FDCWD, "weights.txt", O_RDONLY) = -1 ENOENT (No such file or directory)
301 openat(AT_FDCWD, "MAP.INP", O_RDONLY) = 3
301 openat(AT_FDCWD, "data/model.bin", O_RDONLY <unfinished ...>
302 openat(AT_FDCWD, "/usr/lib/x.so", O_RDONLY) = -1 ENOENT (No such file or directory)
301 <... openat resumed>) = -1 ENOENT (No such file or directory)
301 openat(3, "book.txt", O_RDONLY) = -1 ENOENT (No such file or directory)
"""

WINE = """\
77 newfstatat(AT_FDCWD, "/s/wine/prefix/dosdevices/z:/s/work/weights.txt", 0x31eee0, 0) = -1 ENOENT (No such file or directory)
77 newfstatat(AT_FDCWD, "/s/wine/prefix/dosdevices/z:/s/work/libgcc_s_seh-1.dll", 0x1, 0) = -1 ENOENT (No such file or directory)
77 newfstatat(AT_FDCWD, "/s/wine/prefix/dosdevices/z:/s/work/\\341\\273\\223ng.txt", 0x1, 0) = -1 ENOENT (No such file or directory)
"""  # noqa: E501


def test_a_native_trace_names_the_own_files_missed_in_the_current_folder() -> None:
    lookups = parse_trace(NATIVE)
    own = {"bot", "weights.txt", "data/model.bin", "book.txt", "x.so"}
    # book.txt was looked up relative to another folder (a descriptor), x.so is no data.
    assert missed_own_files(lookups, own, "/s/work", "/s/prog/bot") == [
        "weights.txt",
        "data/model.bin",
    ]


def test_a_file_found_beside_the_program_after_all_is_no_mistake() -> None:
    trace = NATIVE + '301 openat(AT_FDCWD, "/s/prog/weights.txt", O_RDONLY) = 4\n'
    assert missed_own_files(parse_trace(trace), {"weights.txt"}, "/s/work") == []


def test_a_windows_programs_lookups_are_wines_stat_of_the_same_path() -> None:
    lookups = parse_trace(WINE)
    own = {"bot.exe", "WEIGHTS.TXT", "libgcc_s_seh-1.dll", "ồng.txt"}
    missed = missed_own_files(lookups, own, "/s/work", "/s/prog/bot.exe")
    assert missed == ["weights.txt", "ồng.txt"]  # case-insensitive, octal UTF-8, no DLLs
    assert missed_own_files(lookups, own, "/other/work") == []


def test_the_language_comes_from_the_command_then_the_sources(tmp_path: Path) -> None:
    def bot(files: list[str], command: tuple[str, ...] = ("bot.exe",)) -> BotSpec:
        folder = tmp_path / "-".join([*command, *files])
        folder.mkdir()
        for f in files:
            (folder / f).write_text("")
        return BotSpec("b", "b", folder, command)

    assert language_of(bot([], ("python3", "bot.py"))) is Language.PYTHON
    assert language_of(bot(["bot.cpp"])) is Language.CPP
    assert language_of(bot(["main.c"])) is Language.C
    assert language_of(bot(["Project1.lpr"])) is Language.PASCAL
    assert language_of(bot([])) is Language.UNKNOWN
    unknown = how_to_open(Language.UNKNOWN, WEIGHTS)
    assert "argv[0]" in unknown and "ParamStr(0)" in unknown


@pytest.mark.parametrize(
    ("kit", "language"),
    [
        ("template/bot.py", Language.PYTHON),
        ("template_cpp/bot.cpp", Language.CPP),
        ("template_cpp_exe/bot.cpp", Language.CPP),
        ("template_pas/bot.pas", Language.PASCAL),
    ],
)
def test_each_starter_kit_shows_the_hints_code(kit: str, language: Language) -> None:
    text = (ROOT / "bots" / kit).read_text(encoding="utf-8")
    assert HOW_TO_OPEN[language].format(name=WEIGHTS) in text
    assert "beside your program, NOT in" in text


# ----------------------------------------------------------------- real bots, real runs


def _need(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{tool} is not installed (Debian package {package}; .ci/run installs it)")
        pytest.skip(f"{tool} is not installed (Debian package {package})")


def _read_cpp(right: bool) -> str:
    if right:
        return (
            HOW_TO_OPEN[Language.CPP].format(name=WEIGHTS) + " int weight = 0; in >> weight; "
            "(void)weight;"
        )
    return 'std::ifstream in("weights.txt"); int weight = 0; in >> weight; (void)weight;'


def cpp(src: str, right: bool) -> str:
    main_line = "int main() {"
    assert main_line in src
    return src.replace(
        main_line, f"int main(int argc, char** argv) {{\n    (void)argc;\n    {_read_cpp(right)}"
    )


def c(src: str, right: bool) -> str:
    main_line = "int main(void)\n{"
    assert main_line in src
    read = (
        HOW_TO_OPEN[Language.C].format(name=WEIGHTS)
        if right
        else 'FILE *f = fopen("weights.txt", "r");'
    )
    return src.replace(
        main_line, f"int main(int argc, char **argv)\n{{\n    (void)argc;\n    {{ {read} if (f) fclose(f); }}"
    )  # fmt: skip


def pascal(src: str, right: bool) -> str:
    main_var, main_begin = "var\n  move, target, prev: TCell;", "begin\n  ReadMap;"
    assert main_var in src and main_begin in src
    assign = (
        HOW_TO_OPEN[Language.PASCAL].format(name=WEIGHTS) if right else "Assign(f, 'weights.txt');"
    )
    proc = (
        "procedure LoadWeights;\nvar\n  f: TextFile;\nbegin\n  "
        + assign
        + "\n  {$I-} Reset(f); {$I+}\n  if IOResult = 0 then Close(f);\nend;\n\n"
    )
    src = src.replace(main_var, proc + main_var)
    return src.replace(main_begin, "begin\n  LoadWeights;\n  ReadMap;")


def python(src: str, right: bool) -> str:
    anchor = "from __future__ import annotations  # lets Python 3.8 read the type hints\n"
    assert anchor in src
    opener = HOW_TO_OPEN[Language.PYTHON].format(name=WEIGHTS) if right else 'open("weights.txt")'
    read = f"import os\n\ntry:\n    WEIGHTS = {opener}.read()\nexcept OSError:\n    WEIGHTS = ''\n"
    return src.replace(anchor, anchor + read)


# language, source in bots/, patch, file name, bot.yaml, tools needed
KINDS: dict[str, tuple[Language, str, Callable[[str, bool], str], str, str, list[str]]] = {
    "python": (Language.PYTHON, "template/bot.py", python, "bot.py",
               "command: [python3, bot.py]\n", []),
    "c": (Language.C, "greedy_c/greedy.c", c, "bot.c",
          "command: [./bot]\nbuild: {command: [cc, -O2, -std=c99, -o, bot, bot.c], output: bot}\n",
          ["cc"]),
    "cpp": (Language.CPP, "template_cpp/bot.cpp", cpp, "bot.cpp",
            "command: [./bot]\nbuild: {command: [g++, -std=c++17, -O2, -o, bot, bot.cpp], "
            "output: bot}\n", ["g++"]),
    "pascal": (Language.PASCAL, "template_pas/bot.pas", pascal, "bot.pas",
               "command: [./bot]\nbuild: {command: [fpc, -O2, -obot, bot.pas], output: bot}\n",
               ["fpc"]),
    "c_exe": (Language.C, "greedy_c/greedy.c", c, "bot.c",
              "command: [bot.exe]\nbuild: {command: [x86_64-w64-mingw32-gcc, -O2, -std=c99, "
              "-o, bot.exe, bot.c], output: bot.exe}\n", ["x86_64-w64-mingw32-gcc", "wine"]),
    "cpp_exe": (Language.CPP, "template_cpp_exe/bot.cpp", cpp, "bot.cpp",
                "command: [bot.exe]\nbuild: {command: [x86_64-w64-mingw32-g++, -std=c++17, -O2, "
                "-static, -o, bot.exe, bot.cpp], output: bot.exe}\n",
                ["x86_64-w64-mingw32-g++", "wine"]),
}  # fmt: skip

PACKAGES = {
    "cc": "gcc",
    "g++": "g++",
    "fpc": "fpc",
    "x86_64-w64-mingw32-gcc": "gcc-mingw-w64-x86-64",
    "x86_64-w64-mingw32-g++": "g++-mingw-w64-x86-64",
    "wine": "wine",
}


def make_bot(root: Path, kind: str, right: bool) -> Path:
    _, source, patch, name, yaml_text, tools = KINDS[kind]
    for tool in [*tools, "strace"]:
        _need(tool, PACKAGES.get(tool, tool))
    if "wine" in tools and find_wine() is None:
        pytest.skip("wine cannot run here")
    folder = root / f"{kind}-{'right' if right else 'wrong'}"
    folder.mkdir()
    text = (ROOT / "bots" / source).read_text(encoding="utf-8")
    (folder / name).write_text(patch(text, right), encoding="utf-8")
    (folder / "bot.yaml").write_text(yaml_text, encoding="utf-8")
    (folder / WEIGHTS).write_text("7\n", encoding="utf-8")
    return folder


def check(folder: Path, capsys: Any) -> tuple[int, dict[str, Any]]:
    code = main(["check-bot", str(folder), "--json"])
    said = capsys.readouterr()
    assert said.out, f"check-bot printed no report (exit {code}): {said.err}"
    return code, json.loads(said.out)


def data_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["situations"] for f in s["findings"] if f["tag"] == "data_file_cwd"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_bot_reading_its_data_from_the_team_folder_fails_with_its_languages_hint(
    kind: str, tmp_path: Path, capsys: Any
) -> None:
    language = KINDS[kind][0]
    code, report = check(make_bot(tmp_path, kind, right=False), capsys)
    assert code == 1, report["summary"]
    (found,) = data_findings(report)
    assert found["level"] == "error"
    assert (
        "it looked for 'weights.txt' in the current folder and did not find it" in found["reason"]
    )
    assert "the current folder is the team folder (where MAP.INP is)" in found["cause"]
    assert HOW_TO_OPEN[language].format(name=WEIGHTS) in found["cause"]
    # Nothing else is wrong with it: without the trace it would pass, silently without its data.
    others = [
        f for s in report["situations"] for f in s["findings"]
        if f["level"] == "error" and f["tag"] != "data_file_cwd"
    ]  # fmt: skip
    assert others == []
    assert report["summary"].endswith("breaks the protocol in 1 of 9 situations")


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_the_hints_way_to_open_a_data_file_works_and_passes(
    kind: str, tmp_path: Path, capsys: Any
) -> None:
    code, report = check(make_bot(tmp_path, kind, right=True), capsys)
    assert code == 0, report["summary"]
    # A bot that passes, in every situation (for c_exe: bots/greedy_c as a Windows program
    # under wine, what tests/windows once checked on its own).
    assert report["passed"] is True and report["errors"] == 0
    assert all(s["verdict"] == "OK" for s in report["situations"]), report["situations"]
    assert data_findings(report) == []
    assert not any(f["tag"] == "no_file_trace" for s in report["situations"] for f in s["findings"])
