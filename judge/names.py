"""Team and bot names: shown as written, stored under a safe derived form.

A team may be called ``Rồng Biển``, ``Đội Hải Âu`` or ``Cá-Mập``: a name is any
printable Unicode text (spaces included), and every place a person reads it
(the terminal, ``standings.json``, ``standings.csv``, the HTML pages, the
replays) shows it exactly as written (in Unicode's composed form, NFC, so a
name typed with combining accents is the same name as one typed without).

Names also name things on disk (match folders ``<A>-vs-<B>``, each team's
``stderr.log`` folder, the sandbox's seat folders), where spaces, accents,
``/`` or ``[...]`` cause trouble on some systems.  There the judge uses the
name's **folder form** (:func:`folder_name`):

* a name that is already plain (ASCII letters, digits, ``_`` and ``-``,
  starting with a letter or digit, at most 32 characters, no ``-vs-``) is its
  own folder form, so tournaments started before Unicode names keep their
  folders and ledgers;
* any other name is spelt in ASCII: accents dropped (NFKD), the letters NFKD
  keeps whole spelt out (``đ`` -> ``d``, ``ß`` -> ``ss``), every run of other
  characters (spaces included) becomes one ``_``, cut to 32 characters;
  ``Rồng Biển`` -> ``Rong_Bien``, ``Cá-Mập`` -> ``Ca-Map``;
* a name with no Latin letter or digit at all (``海龍``) becomes ``team-`` and
  8 hex digits of its SHA-256, so it still has a stable folder;
* ``-vs-`` inside becomes ``_vs_`` (it separates the two teams of a match
  folder), and the device names Windows reserves (``CON``, ``NUL``, ...) get a
  trailing ``_``.

Folder forms are compared without case (Windows and macOS folders ignore it).
A tournament refuses two teams whose names give the same folder form
(``Rồng Biển`` and ``Rong Bien``) with a message naming both; ``judge match``,
whose names come from the bots themselves, adds ``-2`` to the second folder.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

#: Longest name accepted (characters, after NFC) and longest folder form.
MAX_NAME = 40
MAX_FOLDER = 32
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
#: Letters NFKD does not split into a base letter and an accent.
_SPELT = {
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "ø": "o",
    "Ø": "O",
    "ł": "l",
    "Ł": "L",
    "ß": "ss",
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "þ": "th",
    "Þ": "Th",
    "ı": "i",
}
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {
    f"{dev}{n}" for dev in ("COM", "LPT") for n in range(1, 10)
}


def normalise(name: str) -> str:
    """The name as the judge keeps it: NFC, without surrounding white space."""
    return unicodedata.normalize("NFC", name).strip()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a team name (None when it can)."""
    n = normalise(name)
    if not n:
        return "a name needs at least one visible character"
    if len(n) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters (this one has {len(n)})"
    bad = [ch for ch in n if not ch.isprintable()]
    if bad:
        shown = ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(bad))
        return (
            f"a name holds only printable characters (letters, digits, spaces, "
            f"punctuation); this one holds {shown}"
        )
    return None


def is_plain(name: str) -> bool:
    """True for names that are their own folder form (the only names older judges allowed)."""
    return bool(_PLAIN.match(name)) and "-vs-" not in name.lower()


def folder_name(name: str) -> str:
    """The name's folder form (see the module's docstring): ASCII, no spaces, stable."""
    n = normalise(name)
    if is_plain(n):
        form = n
    else:
        spelt = "".join(_SPELT.get(ch, ch) for ch in n)
        ascii_ = unicodedata.normalize("NFKD", spelt).encode("ascii", "ignore").decode("ascii")
        form = re.sub(r"[^A-Za-z0-9_-]+", "_", ascii_)
        form = re.sub(r"-vs-", "_vs_", form, flags=re.IGNORECASE)
        form = form.strip("_-")[:MAX_FOLDER].rstrip("_-")
        if not any(ch.isalnum() for ch in form):
            form = "team-" + hashlib.sha256(n.encode("utf-8")).hexdigest()[:8]
    if form.upper() in _WINDOWS_RESERVED:
        form += "_"
    return form


def same_folder(a: str, b: str) -> bool:
    """Whether two names would share a folder (compared without case)."""
    return folder_name(a).casefold() == folder_name(b).casefold()


def _numbered(bases: Sequence[str]) -> list[str]:
    """Each value made distinct (without case) by adding ``-2``, ``-3``... to later equal ones."""
    taken: set[str] = set()
    out = []
    for base in bases:
        form, n = base, 1
        while form.casefold() in taken:
            n += 1
            form = f"{base}-{n}"
        taken.add(form.casefold())
        out.append(form)
    return out


def distinct_folders(names: Sequence[str]) -> list[str]:
    """Folder forms for names shown together, made distinct with ``-2``, ``-3``...

    For ``judge match`` and ``judge eval``, whose names come from the bots
    (two copies of one bot are a normal thing to play); a tournament refuses
    clashing team names instead.
    """
    return _numbered([folder_name(name) for name in names])


def distinct_names(names: Sequence[str]) -> list[str]:
    """Names shown together made distinct: ``greedy``, ``greedy`` -> ``greedy``, ``greedy-2``."""
    return _numbered([normalise(name) or "bot" for name in names])


def match_folder(first: str, second: str) -> str:
    """The folder of a match between two teams: ``<A>-vs-<B>`` with their folder forms."""
    return f"{folder_name(first)}-vs-{folder_name(second)}"
