"""Finding a bot and the command that runs it.

A bot is either a folder in ``bots/`` holding a ``bot.yaml``, or a path to an
executable file (a script with a shebang, a binary, or a Windows ``.exe``, which
the sandbox runs through wine).  A Windows program that cannot run here (32-bit
without wine32, not a real .exe, no wine at all) is refused now, naming the file,
rather than failing on every turn of the round.  ``bot.yaml``::

    name: greedy                  # optional; defaults to the folder's name
    command: [python3, bot.py]    # list, or a string split like a shell would
    build:                        # optional; run once when `output` is missing or stale
      command: [cc, -O2, -o, greedy, greedy.c]
      output: greedy
      sources: [greedy.c]         # optional; default: every other file of the folder

Command tokens that name a file of the bot's folder are relative to that folder;
the referee rewrites them to the seat's private copy of the folder, because a
bot runs with its team's working folder as its current directory.

A bot name is looked up in ``--bots-dir`` folders, then ``bots/`` of the
current folder, then the bundled bots (:mod:`judge.bundled`), so the bundled
ones work from any folder; a misspelt name gets "did you mean".

Mistakes found here rather than as a crash on every turn: a ``bot.yaml`` that
is not YAML (its message shown whole), a command naming a file the folder does
not have, and a script whose ``#!`` line ends with a Windows line ending
(CRLF), which makes the system look for an interpreter called ``python3\r``.
A single-file bot is copied alone (:func:`judge.programs.stage_file`), never
with its whole parent folder.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import bundled, programs
from judge.errors import JudgeError
from judge.inputfiles import CONFIG_BYTES, InputFileError, excerpt, read_input_text
from judge.names import distinct_names, normalise
from judge.records import Json
from judge.sandbox import find_wine, refusal, windows_target
from judge.sources import needs_building
from judge.yamlfile import YamlSyntaxError, YamlTooDeep, load_yaml

BOT_FILE = "bot.yaml"
BUILD_TIMEOUT_S = 300

_KNOWN_KEYS = {"name", "command", "build", "description"}
#: Command words that look like a file of the bot (checked to exist in its folder).
_FILE_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar", ".class", ".lua", ".php")
_CRLF_MESSAGE = (
    "its first line ends with a Windows line ending (CRLF): save it with LF line endings "
    "(in most editors: line endings 'LF' or 'Unix'; or run 'sed -i \"s/\\r$//\" FILE')"
)
_BUILD_KEYS = {"command", "output", "sources"}

#: How a bot's build command is run: (argv, the bot's folder, timeout in seconds) -> the
#: finished process (stdout and stderr captured), raising subprocess.TimeoutExpired or
#: FileNotFoundError as subprocess.run does.  The arena confines an uploaded bot's build.
BuildRunner = Callable[[list[str], Path, float], "subprocess.CompletedProcess[bytes]"]


def run_build(
    argv: list[str], folder: Path, timeout_s: float
) -> subprocess.CompletedProcess[bytes]:
    """A build command as ``judge match`` runs it: in the bot's folder, as the judge's user."""
    return subprocess.run(
        argv, cwd=folder, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL
    )


class BotError(JudgeError, ValueError):
    """A bot that cannot be run; the message names the bot and the fix."""


@dataclass(frozen=True)
class BotSpec:
    """A runnable bot: where its files are and the command that starts it."""

    name: str
    source: str  # what the user typed
    program_dir: Path | None  # copied privately for each seat; None = nothing to copy
    command: tuple[str, ...]  # tokens; relative ones naming files of program_dir get rewritten
    #: where the bot's files are as its author knows them (messages, tracebacks); None = program_dir
    home: Path | None = None
    #: SHA-256 of the bot's own files (judge.programs.tree_hash), for standings.json
    digest: str = ""
    #: the program's file name when the bot was given as a lone file (``bot.exe``), else None
    file: str | None = None
    #: a person's seat (judge play), not a program: its moves are not coding mistakes
    person: bool = False

    def argv_for(self, seat_program_dir: Path | None) -> list[str]:
        """The command with the bot's own files pointing into the seat's private copy."""
        if self.program_dir is None or seat_program_dir is None:
            return list(self.command)
        out = []
        for tok in self.command:
            if not os.path.isabs(tok) and (self.program_dir / tok).exists():
                out.append(str(seat_program_dir / tok))
            else:
                out.append(tok)
        return out

    def own_paths(self, text: str, seat_program_dir: Path | None) -> str:
        """``text`` (a traceback) with the seat's copy of the program named as the author knows it."""
        home = self.home or self.program_dir
        if seat_program_dir is None or home is None:
            return text
        return text.replace(str(seat_program_dir), str(home))


def looks_like_path(spec: str) -> bool:
    """A BOT argument meant as a path (not a name to look up)."""
    return os.sep in spec or "/" in spec or spec.startswith(".") or os.path.isabs(spec)


def bot_names(folders: list[Path]) -> list[str]:
    """The bot folders (holding a bot.yaml) in the folders searched, sorted, each once."""
    names: set[str] = set()
    for folder in folders:
        try:
            names.update(c.name for c in folder.iterdir() if (c / BOT_FILE).is_file())
        except OSError:
            continue
    return sorted(names)


def resolve_bot(
    spec: str,
    bots_dir: Path | Sequence[Path] | None = None,
    build: bool = True,
    runner: BuildRunner = run_build,
) -> BotSpec:
    """Turn a ``judge match`` BOT argument into a :class:`BotSpec` (building it if needed).

    ``bots_dir``: folder(s) looked in before ``bots/`` of the current folder and the
    bundled bots (:func:`judge.bundled.search_path`); ``runner``: how a build command runs.
    """
    path = Path(spec)
    if path.is_dir() and (path / BOT_FILE).is_file():
        return _from_folder(path, spec, build, runner)
    if path.is_file():
        return _from_executable(path, spec)
    if looks_like_path(spec):
        if path.is_dir():
            raise _no_bot_file(spec, path)
        near = bundled.did_you_mean_path(spec, Path.cwd()).strip()
        raise BotError(
            f"bot {excerpt(spec)}: no such bot: no such file or folder ({path.resolve()})"
            + (f"; {near}" if near else "")
        )
    folders = bundled.search_path(bundled.BOTS, bots_dir)
    for folder in folders:
        cand = folder / spec
        if cand.is_dir() and (cand / BOT_FILE).is_file():
            return _from_folder(cand, spec, build, runner)
        if cand.is_file():
            return _from_executable(cand, spec)
    if path.is_dir():
        # A bare name ("Rồng Biển") of a folder here that is not a bot folder yet:
        # say what it lacks rather than "no such bot".
        raise _no_bot_file(spec, path)
    names = bot_names(folders)
    raise BotError(
        f"bot {excerpt(spec)}: no such bot; {bundled.did_you_mean(spec, names)}"
        f"the bots are: {', '.join(names) or '(none)'} (looked up in "
        f"{bundled.describe(folders, bundled.BOTS)}; add your own folder with --bots-dir); "
        "or give the path of a bot folder or of an executable file"
    )


def config_bot(spec: str, base: Path, bots_dir: Path, build: bool, file: str) -> BotSpec:
    """A bot as a configuration names it: a tournament's team, a league's entry.

    A name is looked up in ``bots_dir`` then among the bundled bots, never in the
    current folder (a configuration means the same from any folder); a path, or a
    name found nowhere, is a path relative to ``base``, the configuration's folder.
    ``source`` stays as written.  ``file``: the configuration, for messages ("the
    league file").  A mistyped name gets the close bot names, a mistyped path the
    closest path.
    """
    folders = [d for d in (bots_dir, bundled.bundled_dir(bundled.BOTS)) if d is not None]
    folders = [d for d in folders if d.is_dir()]
    if not looks_like_path(spec):
        for folder in folders:
            if (folder / spec).exists():
                return dataclasses.replace(
                    resolve_bot(str(folder / spec), build=build), source=spec
                )
    given = Path(os.path.expanduser(spec))
    target = given if given.is_absolute() else base / given
    if target.exists():
        return dataclasses.replace(resolve_bot(str(target), build=build), source=spec)
    if looks_like_path(spec):
        raise BotError(
            f"bot {excerpt(spec)}: no such file or folder ({target}); "
            f"{bundled.did_you_mean_path(spec, base)}a path is read from the folder of "
            f"{file} ({base})"
        )
    names = bot_names(folders)
    raise BotError(
        f"bot {excerpt(spec)}: no such bot; {bundled.did_you_mean(spec, names)}the bots are: "
        f"{', '.join(names) or '(none)'} (looked up in "
        f"{bundled.describe(folders, bundled.BOTS)}, and as the path {target}); give a bot "
        f"folder's name or the path of a bot folder or program, relative to {file}"
    )


def _no_bot_file(spec: str, path: Path) -> BotError:
    """The error for a folder that is no bot folder yet: one message whether it was
    named as a path or by its bare name, so a student learns what to add."""
    return BotError(
        f"bot {excerpt(spec)}: the folder {path.resolve()} has no {BOT_FILE}; add one "
        f"(e.g. 'command: [python3, bot.py]') or give the program file itself"
    )


def _check_line_endings(file: Path, spec: str) -> None:
    """A script whose '#!' line ends in CRLF cannot start: say so instead of 'python3\\r'."""
    try:
        with open(file, "rb") as f:
            head = f.read(512)
    except OSError:
        return
    if head.startswith(b"#!") and b"\r\n" in head.split(b"\n", 1)[0] + b"\n":
        raise BotError(f"bot {excerpt(spec)}: {file} cannot be run: {_CRLF_MESSAGE}")


#: File names (without .exe) that say nothing about whose program it is: compilers' and
#: IDEs' defaults and the names starter kits and teachers use.  Such a program is named
#: after its folder.
GENERIC_STEMS = frozenset(
    {"a", "a.out", "ai", "app", "bot", "code", "main", "player", "prog", "program", "run",
     "solution", "sol", "solve", "solver", "source", "src", "team", "test"}
)  # fmt: skip
_GENERIC_NUMBERED = re.compile(r"^(project|untitled|consoleapplication|console_app|bot)\d*$")
#: Folders that hold a build's output rather than name a team (…/Rồng Biển/bin/Release/bot.exe).
_BUILD_FOLDERS = frozenset(
    {"bin", "build", "debug", "release", "x64", "x86", "out", "output", "dist", "target", "exe"}
)


def is_generic(stem: str) -> bool:
    """Whether a program's file name says nothing of whose it is (``bot``, ``Project1``)."""
    s = stem.casefold()
    return s in GENERIC_STEMS or bool(_GENERIC_NUMBERED.match(s))


def lone_program_name(path: Path) -> str:
    """The name a lone program plays under: its file name, or, when that is generic, the
    folder it is in (above build folders such as bin/Release), written as it is."""
    stem = path.stem if path.suffix.lower() == ".exe" else path.name
    if not is_generic(stem):
        return stem
    folder = path.parent
    while folder.name.casefold() in _BUILD_FOLDERS and folder.parent != folder:
        folder = folder.parent
    return folder.name or stem


def distinct_bot_names(bots: Sequence[BotSpec]) -> list[str]:
    """The bots' names as shown together, never colliding silently.

    Two different bots with one name (two teams' ``solver.exe``) are told apart by
    where each came from: ``solver (Rồng Biển)``, ``solver (Cá Mập)``, or their
    folders' paths when those names do not tell; a bot given as a lone file beside
    a bot folder of the same name (``bots/x/bot.exe`` and ``x``) by its file name:
    ``x`` and ``x (bot.exe)``; the same bot twice (greedy against greedy, a normal
    thing to play) becomes ``greedy``, ``greedy-2``.
    """
    shown = [normalise(b.name) or "bot" for b in bots]
    groups: dict[str, list[int]] = {}
    for i, n in enumerate(shown):
        groups.setdefault(n.casefold(), []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        told = _by_home(bots, shown, members) or _by_file(bots, shown, members)
        for i, label in (told or {}).items():
            shown[i] = f"{shown[i]} ({label})"
    return distinct_names(shown)


def _by_home(bots: Sequence[BotSpec], shown: list[str], members: list[int]) -> dict[int, str]:
    """Each member's label from where it came from (its folder's name, else its path), when
    that tells them all apart; {} when it does not."""
    homes = [bots[i].home or bots[i].program_dir for i in members]
    if any(h is None for h in homes):
        return {}
    for place in (lambda h: h.name, str):
        words = [place(h) for h in homes if h is not None]
        if len({w.casefold() for w in words}) == len(members) and all(
            w.casefold() != shown[members[0]].casefold() for w in words
        ):
            return dict(zip(members, words, strict=True))
    return {}


def _by_file(bots: Sequence[BotSpec], shown: list[str], members: list[int]) -> dict[int, str]:
    """The members given as lone files labelled with their file's name (the one bot of
    another kind keeps its name alone), when that tells them all apart; {} when it does not
    (the same file twice)."""
    labels = {i: f for i in members if (f := bots[i].file) is not None}
    words = [f.casefold() for f in labels.values()]
    if not labels or len(members) - len(labels) > 1 or len(set(words)) != len(words):
        return {}
    return labels


def named(bot: BotSpec, name: str | None) -> BotSpec:
    """``bot`` under the name asked for on the command line (None: its own)."""
    return bot if name is None else dataclasses.replace(bot, name=name)


def _from_executable(path: Path, spec: str) -> BotSpec:
    path = path.resolve()
    windows = path.suffix.lower() == ".exe"
    name = lone_program_name(path)
    source = needs_building(path)
    if source is not None:
        raise BotError(f"bot {excerpt(spec)}: {source}")
    if windows:
        _check_windows(path, spec)
    else:
        if not os.access(path, os.X_OK):
            raise BotError(
                f"bot {excerpt(spec)}: {path} is not executable; make it so with the command "
                f"chmod +x {shlex.quote(str(path))} (and give a script a '#!' line)"
            )
        _check_line_endings(path, spec)
    command: tuple[str, ...] = (path.name,)
    folder = path.parent
    digest = programs.file_hash(path)
    if _is_system_dir(folder):
        return BotSpec(name, spec, None, (str(path),), digest=digest, file=path.name)
    # A single-file program: each seat gets a copy of that file alone, not of its
    # folder (a project folder may hold matches/ with thousands of files).  A Windows
    # program also gets the DLLs that stand beside it (Windows looks there first).
    dlls: list[Path] = []
    if windows:
        try:
            dlls = [p for p in folder.iterdir() if p.suffix.lower() == ".dll" and p.is_file()]
        except OSError as exc:  # a folder one may enter but not list (mode 711)
            raise BotError(
                f"bot {excerpt(spec)}: cannot look for the DLLs beside {path}: {exc}"
            ) from None
    try:
        staged = programs.stage_file(path, dlls)
    except OSError as exc:
        raise BotError(f"bot {excerpt(spec)}: cannot copy {path}: {exc}") from None
    if dlls:
        digest = programs.tree_hash(staged)  # the program is the .exe and its DLLs
    return BotSpec(name, spec, staged, command, home=folder, digest=digest, file=path.name)


def _check_windows(exe: Path, spec: str) -> None:
    """Refuse a Windows program this machine cannot run, before any round."""
    why = refusal(str(exe), find_wine())
    if why is not None:
        raise BotError(f"bot {excerpt(spec)}: {why}")


def _is_system_dir(folder: Path) -> bool:
    return any(str(folder).startswith(p) for p in ("/usr/", "/bin", "/sbin", "/opt/"))


def _load_yaml(file: Path, spec: str) -> Json:
    try:
        data = load_yaml(read_input_text(file, "a bot.yaml", CONFIG_BYTES), str(file))
    except InputFileError as exc:
        raise BotError(f"bot {excerpt(spec)}: cannot read {exc}") from None
    except YamlSyntaxError as exc:
        raise BotError(f"bot {excerpt(spec)}: {file} is not valid YAML:\n{exc}") from None
    except YamlTooDeep as exc:
        raise BotError(f"bot {excerpt(spec)}: {file} is not a bot.yaml: {exc}") from None
    if not isinstance(data, dict):
        raise BotError(f"bot {excerpt(spec)}: {file} must be a mapping with a 'command:' key")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise BotError(
            f"bot {excerpt(spec)}: {file} has unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
            f"known keys: {', '.join(sorted(_KNOWN_KEYS))}"
        )
    return data


def _tokens(value: Any, what: str, spec: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            toks = shlex.split(value)
        except ValueError as exc:
            raise BotError(f"bot {excerpt(spec)}: {what} cannot be split: {exc}") from None
    elif isinstance(value, list) and all(isinstance(t, (str, int, float)) for t in value):
        toks = [str(t) for t in value]
    else:
        raise BotError(f"bot {excerpt(spec)}: {what} must be a list of words or a string")
    if not toks:
        raise BotError(f"bot {excerpt(spec)}: {what} is empty")
    return tuple(toks)


def _from_folder(folder: Path, spec: str, build: bool, runner: BuildRunner) -> BotSpec:
    folder = folder.resolve()
    data = _load_yaml(folder / BOT_FILE, spec)
    if "command" not in data:
        raise BotError(f"bot {excerpt(spec)}: {folder / BOT_FILE} has no 'command:' key")
    command = _tokens(data["command"], "'command'", spec)
    name = str(data.get("name") or folder.name)
    home, program_dir = folder, folder
    output: str | None = None
    if "build" in data:
        cfg = data["build"]
        output = str(cfg["output"]) if isinstance(cfg, dict) and "output" in cfg else None
        if build:
            program_dir = _build(folder, cfg, spec, runner)
    _check_command(program_dir, command, spec, output if not build else None)
    idx = windows_target(list(command))
    if idx is not None:
        exe = command[idx] if os.path.isabs(command[idx]) else str(program_dir / command[idx])
        if build or os.path.exists(exe):
            _check_windows(Path(exe), spec)
    digest = programs.tree_hash(home, skip=[output] if output else [])
    return BotSpec(name, spec, program_dir, command, home=home, digest=digest)


def build_output(folder: Path) -> str | None:
    """The ``build: output`` a bot folder's bot.yaml names, if any: a product, not a source.

    Fingerprints of a bot (its league version, its bundle on a cluster) leave it
    out, so a bot is the same bot built or not, here or on another machine.
    """
    try:
        data = load_yaml(read_input_text(folder / BOT_FILE, "a bot.yaml", CONFIG_BYTES))
    except (InputFileError, YamlSyntaxError, YamlTooDeep):
        return None
    build = data.get("build") if isinstance(data, dict) else None
    if isinstance(build, dict) and "output" in build:
        return str(build["output"])
    return None


def _check_command(folder: Path, command: tuple[str, ...], spec: str, unbuilt: str | None) -> None:
    """The files a command names exist in the folder, and its script can start (no CRLF)."""
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    for i, tok in enumerate(command):
        if os.path.isabs(tok) or tok.startswith("-"):
            continue
        if unbuilt is not None and os.path.normpath(tok) == os.path.normpath(unbuilt):
            continue  # the build's output, made later (on the machine that plays)
        here = folder / tok
        named_file = "/" in tok or tok.lower().endswith(_FILE_SUFFIXES)
        if here.exists():
            source = needs_building(here) if i == 0 and here.is_file() else None
            if source is not None:
                raise BotError(
                    f"bot {excerpt(spec)}: the command in {folder / BOT_FILE} starts with "
                    f"{excerpt(tok)}: {source}; a bot.yaml builds it with a 'build:' step "
                    "and runs what the build makes"
                )
            if i == 0 and here.is_file():
                _check_line_endings(here, spec)
            continue
        if named_file:
            raise BotError(
                f"bot {excerpt(spec)}: the command in {folder / BOT_FILE} names {excerpt(tok)}, which is not "
                f"in the bot's folder {folder}; "
                f"{bundled.did_you_mean(tok, [f for f in files if f != BOT_FILE])}"
                f"the folder holds: {', '.join(files) or '(nothing)'}"
            )
        if i == 0 and shutil.which(tok) is None:
            raise BotError(
                f"bot {excerpt(spec)}: the command in {folder / BOT_FILE} starts {excerpt(tok)}, which is "
                f"neither a file of the bot's folder {folder} nor a program installed on this "
                "machine"
            )


def _build(folder: Path, cfg: Any, spec: str, runner: BuildRunner) -> Path:
    """Run the bot's build step when its output is missing or older than its sources.

    Returns the folder holding the built program: the bot's own, or, when that is
    read-only (the bundled bots of a system-wide install), a copy in the judge's cache.
    """
    if not isinstance(cfg, dict) or "command" not in cfg or "output" not in cfg:
        raise BotError(f"bot {excerpt(spec)}: 'build:' needs 'command:' and 'output:' keys")
    unknown = set(cfg) - _BUILD_KEYS
    if unknown:
        raise BotError(
            f"bot {excerpt(spec)}: 'build:' has unknown key(s) {', '.join(sorted(unknown))}"
        )
    command = _tokens(cfg["command"], "'build: command'", spec)
    output = folder / str(cfg["output"])
    sources_cfg = cfg.get("sources")
    if sources_cfg is None:
        sources = [p for p in folder.iterdir() if p.is_file() and p != output]
    else:
        sources = [folder / str(s) for s in _tokens(sources_cfg, "'build: sources'", spec)]
        missing = [str(s) for s in sources if not s.exists()]
        if missing:
            raise BotError(f"bot {excerpt(spec)}: build sources missing: {', '.join(missing)}")
    if output.exists():
        built = output.stat().st_mtime
        if all(s.stat().st_mtime <= built for s in sources):
            return folder
    if not os.access(folder, os.W_OK):
        try:
            copy = programs.writable_copy(folder, folder.name)
        except OSError as exc:
            raise BotError(
                f"bot {excerpt(spec)}: cannot copy {folder} to build it: {exc}"
            ) from None
        return _build(copy, cfg, spec, runner)
    try:
        proc = runner(list(command), folder, BUILD_TIMEOUT_S)
    except FileNotFoundError:
        raise BotError(
            f"bot {excerpt(spec)}: build command {excerpt(command[0])} not found"
        ) from None
    except subprocess.TimeoutExpired as exc:
        raise BotError(f"bot {excerpt(spec)}: build took over {exc.timeout:g} s") from None
    if proc.returncode != 0 or not output.exists():
        tail = (proc.stderr or proc.stdout).decode("utf-8", "replace")[-1500:]
        raise BotError(
            f"bot {excerpt(spec)}: build failed (exit {proc.returncode}) in {folder}:\n{tail}"
        )
    return folder
