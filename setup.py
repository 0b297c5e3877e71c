"""Build step: ship the bundled bots and maps inside the package.

``judge match greedy random --map m1`` must work from any folder after a plain
``pip install .``, so the wheel carries the repository's ``bots/`` and
``maps/`` as ``judge/shipped/bots`` and ``judge/shipped/maps`` (found at run
time by :mod:`judge.bundled`).  An editable install needs no copy: it finds
them in the checkout.  Caches and a bot's build output (made on the machine
that runs it) are left out.  Everything else is in pyproject.toml.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ("bots", "maps")


def _build_outputs(bots: Path) -> set[Path]:
    """Each bot's build output (bot.yaml's ``output:``): built where the bot runs.

    Read with a pattern, not a YAML parser, so that building needs nothing but setuptools.
    """
    out = set()
    for spec in bots.glob("*/bot.yaml"):
        try:
            text = spec.read_text(encoding="utf-8")
        except OSError:
            continue
        for m in re.finditer(r"\boutput:\s*['\"]?([^\s,}\]'\"#]+)", text):
            out.add((spec.parent / m.group(1)).resolve())
    return out


class BuildWithBundled(build_py):
    """build_py, plus bots/ and maps/ copied to judge/shipped/ in the build folder."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        skip = _build_outputs(HERE / "bots")
        for name in BUNDLED:
            src = HERE / name
            dst = Path(self.build_lib) / "judge" / "shipped" / name

            def ignore(folder: str, names: list[str]) -> list[str]:
                return [
                    n
                    for n in names
                    if n in ("__pycache__", ".DS_Store")
                    or n.endswith((".pyc", ".pyo"))
                    or (Path(folder) / n).resolve() in skip
                ]

            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=ignore)


setup(cmdclass={"build_py": BuildWithBundled})
