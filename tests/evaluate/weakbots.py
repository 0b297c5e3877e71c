"""Bots of known relative strength for the SPRT and league tests, made from the bundled ones.

``mixed_bot(folder, p)`` plays like greedy with probability ``p`` per turn and
like random otherwise: p = 1 is greedy, p = 0 is random, and strength grows
with p.  The folder holds copies of the bundled bots' code (so the bundled
bots stay the single source) and ``tests/evaluate/bots/mixed.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
MIXED = Path(__file__).resolve().parent / "bots" / "mixed.py"


def mixed_bot(folder: Path, p: float, name: str | None = None) -> Path:
    """A bot folder playing greedy with probability ``p`` per turn, else random."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(BOTS / "greedy" / "bot.py", folder / "greedy.py")
    shutil.copy(BOTS / "random" / "bot.py", folder / "random_bot.py")
    shutil.copy(MIXED, folder / "bot.py")
    (folder / "mix.txt").write_text(f"{p}\n")
    (folder / "bot.yaml").write_text(
        f"name: {name or folder.name}\ncommand: [python3, bot.py]\n", encoding="utf-8"
    )
    return folder
