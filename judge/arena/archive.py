"""The organiser's download: every team's current bot, source and report in one ``.zip``.

What the contest asks the organiser to keep, named by team: a folder per team
(its name as written, the few characters no file system takes replaced by
``_``) holding ``<team>.exe`` (or ``<team>.zip``, a zipped bot folder), and the
source archive and the report of that same version when it had them; an index,
``versions.csv``, says which version each is, its SHA-256 and the names the
team's files had.  A team without an accepted version is listed with no files.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from judge.arena.store import Store

INDEX = "versions.csv"
_UNSAFE = set('/\\:*?"<>|') | {chr(c) for c in range(32)}


def safe_name(name: str) -> str:
    cleaned = "".join("_" if ch in _UNSAFE else ch for ch in name).strip(" .")
    return cleaned or "team"


def write_archive(root: Path, store: Store, out: Path) -> int:
    """Write the archive to ``out``; the number of teams with a bot in it."""
    index = io.StringIO()
    w = csv.writer(index, lineterminator="\r\n")
    w.writerow(["team", "version", "sha256", "bot", "source", "report", "uploaded_at"])
    with_bot = 0
    used: set[str] = set()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for team in store.teams():
            folder = safe_name(team.name)
            while folder.casefold() in used:
                folder += "_"
            used.add(folder.casefold())
            v = store.current_version(team.id)
            if v is None:
                w.writerow([team.name, "", "", "", "", "", ""])
                continue
            with_bot += 1
            zf.write(root / v.path, f"{folder}/{folder}.{v.kind}")
            for path, name in ((v.source_path, "source"), (v.report_path, "report")):
                if path:
                    zf.write(root / path, f"{folder}/{name}{Path(path).suffix}")
            w.writerow(
                [
                    team.name,
                    v.number,
                    v.sha256,
                    v.original_name,
                    v.source_name or "",
                    v.report_name or "",
                    v.uploaded_at,
                ]
            )
        zf.writestr(INDEX, "\ufeff" + index.getvalue())
    return with_bot
