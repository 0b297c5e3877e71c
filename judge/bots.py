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
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from judge.sandbox.wine import find_wine, refusal, windows_target

BOT_FILE = "bot.yaml"
BUILD_TIMEOUT_S = 300
#: Folders copied for a bot given as a bare executable must stay small.
MAX_COPY_FILES = 2000

_KNOWN_KEYS = {"name", "command", "build", "description"}
_BUILD_KEYS = {"command", "output", "sources"}


class BotError(ValueError):
    """A bot that cannot be run; the message names the bot and the fix."""


@dataclass(frozen=True)
class BotSpec:
    """A runnable bot: where its files are and the command that starts it."""

    name: str
    source: str  # what the user typed
    program_dir: Path | None  # copied privately for each seat; None = nothing to copy
    command: tuple[str, ...]  # tokens; relative ones naming files of program_dir get rewritten

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


def resolve_bot(spec: str, bots_dir: Path = Path("bots"), build: bool = True) -> BotSpec:
    """Turn a ``judge match`` BOT argument into a :class:`BotSpec` (building it if needed)."""
    path = Path(spec)
    candidates = [path] if (os.sep in spec or path.exists()) else []
    candidates.append(bots_dir / spec)
    for cand in candidates:
        if cand.is_dir():
            if (cand / BOT_FILE).is_file():
                return _from_folder(cand, spec, build)
            if cand == path:
                raise BotError(f"bot {spec!r}: the folder {cand} has no {BOT_FILE}")
        elif cand.is_file():
            return _from_executable(cand, spec)
    raise BotError(
        f"bot {spec!r}: no such bot; give a folder name in {bots_dir.resolve()}/ holding a "
        f"{BOT_FILE} (bots/ is looked up from the current folder), or a path to an "
        "executable file"
    )


def _from_executable(path: Path, spec: str) -> BotSpec:
    path = path.resolve()
    windows = path.suffix.lower() == ".exe"
    name = path.stem if windows else path.name
    if windows:
        _check_windows(path, spec)
    elif not os.access(path, os.X_OK):
        raise BotError(
            f"bot {spec!r}: {path} is not executable; run 'chmod +x {path}' "
            "(and give a script a '#!' line)"
        )
    command: tuple[str, ...] = (path.name,)
    folder = path.parent
    if _is_system_dir(folder):
        return BotSpec(name, spec, None, (str(path),))
    count = 0
    for _root, dirs, files in os.walk(folder):
        count += len(files) + len(dirs)
        if count > MAX_COPY_FILES:
            raise BotError(
                f"bot {spec!r}: its folder {folder} holds more than {MAX_COPY_FILES} files; "
                "each seat gets a private copy of it, so put the bot in a folder of its own"
            )
    return BotSpec(name, spec, folder, command)


def _check_windows(exe: Path, spec: str) -> None:
    """Refuse a Windows program this machine cannot run, before any round."""
    why = refusal(str(exe), find_wine())
    if why is not None:
        raise BotError(f"bot {spec!r}: {why}")


def _is_system_dir(folder: Path) -> bool:
    return any(str(folder).startswith(p) for p in ("/usr/", "/bin", "/sbin", "/opt/"))


def _load_yaml(file: Path, spec: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BotError(f"bot {spec!r}: cannot read {file}: {exc}") from None
    except yaml.YAMLError as exc:
        raise BotError(f"bot {spec!r}: {file} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise BotError(f"bot {spec!r}: {file} must be a mapping with a 'command:' key")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise BotError(
            f"bot {spec!r}: {file} has unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
            f"known keys: {', '.join(sorted(_KNOWN_KEYS))}"
        )
    return data


def _tokens(value: Any, what: str, spec: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            toks = shlex.split(value)
        except ValueError as exc:
            raise BotError(f"bot {spec!r}: {what} cannot be split: {exc}") from None
    elif isinstance(value, list) and all(isinstance(t, (str, int, float)) for t in value):
        toks = [str(t) for t in value]
    else:
        raise BotError(f"bot {spec!r}: {what} must be a list of words or a string")
    if not toks:
        raise BotError(f"bot {spec!r}: {what} is empty")
    return tuple(toks)


def _from_folder(folder: Path, spec: str, build: bool) -> BotSpec:
    folder = folder.resolve()
    data = _load_yaml(folder / BOT_FILE, spec)
    if "command" not in data:
        raise BotError(f"bot {spec!r}: {folder / BOT_FILE} has no 'command:' key")
    command = _tokens(data["command"], "'command'", spec)
    name = str(data.get("name") or folder.name)
    if "build" in data and build:
        _build(folder, data["build"], spec)
    idx = windows_target(list(command))
    if idx is not None:
        exe = command[idx] if os.path.isabs(command[idx]) else str(folder / command[idx])
        if build or os.path.exists(exe):
            _check_windows(Path(exe), spec)
    return BotSpec(name, spec, folder, command)


def _build(folder: Path, cfg: Any, spec: str) -> None:
    """Run the bot's build step when its output is missing or older than its sources."""
    if not isinstance(cfg, dict) or "command" not in cfg or "output" not in cfg:
        raise BotError(f"bot {spec!r}: 'build:' needs 'command:' and 'output:' keys")
    unknown = set(cfg) - _BUILD_KEYS
    if unknown:
        raise BotError(f"bot {spec!r}: 'build:' has unknown key(s) {', '.join(sorted(unknown))}")
    command = _tokens(cfg["command"], "'build: command'", spec)
    output = folder / str(cfg["output"])
    sources_cfg = cfg.get("sources")
    if sources_cfg is None:
        sources = [p for p in folder.iterdir() if p.is_file() and p != output]
    else:
        sources = [folder / str(s) for s in _tokens(sources_cfg, "'build: sources'", spec)]
        missing = [str(s) for s in sources if not s.exists()]
        if missing:
            raise BotError(f"bot {spec!r}: build sources missing: {', '.join(missing)}")
    if output.exists():
        built = output.stat().st_mtime
        if all(s.stat().st_mtime <= built for s in sources):
            return
    try:
        proc = subprocess.run(
            list(command),
            cwd=folder,
            capture_output=True,
            timeout=BUILD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise BotError(f"bot {spec!r}: build command {command[0]!r} not found") from None
    except subprocess.TimeoutExpired:
        raise BotError(f"bot {spec!r}: build took over {BUILD_TIMEOUT_S} s") from None
    if proc.returncode != 0 or not output.exists():
        tail = (proc.stderr or proc.stdout).decode("utf-8", "replace")[-1500:]
        raise BotError(f"bot {spec!r}: build failed (exit {proc.returncode}) in {folder}:\n{tail}")
