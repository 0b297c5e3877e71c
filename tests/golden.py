"""Golden files: outputs of the judge kept byte for byte, so a refactoring cannot change them.

A golden test makes an output (eval.json, standings.csv, index.html...) from
in-process bots with fixed seeds, replaces what may differ between two runs
(dates, versions, temporary paths, program hashes) by a placeholder *in the
text* (so every other byte is still compared), and compares it with the file
under ``tests/<area>/golden``.  ``python -m pytest --update-golden`` rewrites
the files instead; the diff is then reviewed like code.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest


def normalise(text: str, volatile: Iterable[tuple[str, str]]) -> str:
    """``text`` with each (value, placeholder) replaced, longest value first."""
    for value, placeholder in sorted(set(volatile), key=lambda vp: -len(vp[0])):
        if value:
            text = text.replace(value, placeholder)
    return text


def check(request: pytest.FixtureRequest, folder: Path, name: str, data: str | bytes) -> None:
    """``data`` must be the golden file ``folder/name``, byte for byte (or rewrite it)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    path = folder / name
    if request.config.getoption("--update-golden"):
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        return
    assert path.is_file(), f"no golden file {path}: run pytest --update-golden and review it"
    want = path.read_bytes()
    if raw != want:
        got_lines = raw.decode("utf-8", "replace").splitlines()
        want_lines = want.decode("utf-8", "replace").splitlines()
        first = next(
            (i for i, (g, w) in enumerate(zip(got_lines, want_lines, strict=False)) if g != w),
            min(len(got_lines), len(want_lines)),
        )
        pytest.fail(
            f"{path.name} differs from its golden file at line {first + 1}:\n"
            f"  golden: {want_lines[first] if first < len(want_lines) else '<end>'!r}\n"
            f"  now:    {got_lines[first] if first < len(got_lines) else '<end>'!r}"
        )
