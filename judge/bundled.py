"""Where bot and map names are looked up: your folders first, then the bundled ones.

``judge match greedy random --map m1`` must work from any folder, right after
``pip install``: the bundled bots (``bots/``) and maps (``maps/``) ship inside
the package (a wheel holds them under ``judge/shipped/``, copied there by
``setup.py``'s build step; a source checkout or an editable install uses the
repository's own ``bots/`` and ``maps/``).

A name is looked up, in order, in

1. the folders given with ``--bots-dir`` / ``--maps-dir`` (or a configuration's
   ``bots_dir``), in the order given;
2. ``bots/`` / ``maps/`` of the current folder, when there is one (a student's
   project folder);
3. the bundled bots / maps.

The first folder holding the name wins, so a student's own ``bots/greedy``
shadows the bundled one.  When no folder holds it, :func:`suggest` finds the
names that are close ("did you mean").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path

BOTS = "bots"
MAPS = "maps"
_PACKAGE = Path(__file__).resolve().parent
_PROJECT = "ocean-treasure-judge"


def bundled_dir(kind: str) -> Path | None:
    """The bundled ``bots`` or ``maps`` folder, or None in a broken installation."""
    inside = _PACKAGE / "shipped" / kind
    if inside.is_dir():
        return inside
    checkout = _PACKAGE.parent
    pyproject = checkout / "pyproject.toml"
    try:
        ours = pyproject.is_file() and _PROJECT in pyproject.read_text(encoding="utf-8")
    except OSError:
        ours = False
    if ours and (checkout / kind).is_dir():
        return checkout / kind
    return None


def search_path(kind: str, given: Iterable[Path] | Path | None = None) -> list[Path]:
    """The folders to look a name up in, in order, each once (see the module's docstring)."""
    if isinstance(given, Path):
        given = [given]
    out: list[Path] = []
    seen: set[Path] = set()
    local = Path(kind)
    bundled = bundled_dir(kind)
    for folder in [*(given or []), local, *([bundled] if bundled is not None else [])]:
        if not folder.is_dir():
            continue
        key = folder.resolve()
        if key not in seen:
            seen.add(key)
            out.append(folder)
    return out


def describe(folders: Sequence[Path], kind: str) -> str:
    """The folders searched, for a message: ``/a/bots, the bundled bots (/site/judge/...)``."""
    bundled = bundled_dir(kind)
    parts = []
    for f in folders:
        if bundled is not None and f.resolve() == bundled.resolve():
            parts.append(f"the bundled {kind} ({bundled})")
        else:
            parts.append(str(f.resolve()))
    return ", ".join(parts) if parts else f"(no {kind} folder found)"


def suggest(word: str, choices: Iterable[str]) -> list[str]:
    """Names close to a misspelt one, best first (``gredy`` -> ``greedy``)."""
    pool = sorted(set(choices))
    close = difflib.get_close_matches(word, pool, n=3, cutoff=0.6)
    folded = {c.casefold(): c for c in pool}
    if word.casefold() in folded and folded[word.casefold()] not in close:
        close.insert(0, folded[word.casefold()])
    return close


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``did you mean 'greedy'? `` (empty when nothing is close)."""
    close = suggest(word, choices)
    if not close:
        return ""
    return "did you mean " + " or ".join(repr(c) for c in close) + "? "


def nearest_path(typed: str, base: Path) -> str | None:
    """The existing path closest to a mistyped one, written as it was typed (relative to
    ``base`` when it was relative), or None when no path is close.

    Each part that does not exist is replaced by the closest name in its folder
    (``teams/rong-bien/bot.exe`` -> ``teams/rong_bien/bot.exe``); the path must then exist.
    """
    given = Path(typed).expanduser()
    start = Path(given.anchor) if given.is_absolute() else base
    parts = given.parts[1:] if given.is_absolute() else given.parts
    here, changed = start, False
    written: list[str] = []
    for part in parts:
        if part in (".", "..") or (here / part).exists():
            here, written = here / part, [*written, part]
            continue
        try:
            names = [p.name for p in here.iterdir()]
        except OSError:
            return None
        close = suggest(part, names)
        if not close:
            return None
        here, written, changed = here / close[0], [*written, close[0]], True
    if not changed or not here.exists():
        return None
    text = "/".join(written)
    if given.is_absolute():
        return given.anchor + text
    return f"./{text}" if typed.startswith("./") else text


def did_you_mean_path(typed: str, base: Path) -> str:
    """``did you mean 'teams/rong_bien/bot.exe'? `` (empty when no path is close)."""
    near = nearest_path(typed, base)
    return f"did you mean {near!r}? " if near is not None else ""
