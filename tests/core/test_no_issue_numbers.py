"""No code comment or document points at a numbered issue: a reader of the repository
cannot follow the number, so a comment says its reason in words (commit messages may
name issues: they are where the history lives)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: "issue 35", "Issue 32, item 4", "issues 12 and 16", "issue #7".
NUMBERED = re.compile(r"\bissues?\s*#?\s*\d", re.IGNORECASE)

#: Folders read whole, and the documents at the top of the repository.
FOLDERS = ("judge", "tests", "benchmarks", "bots", "docs", ".ci")
SKIP_PARTS = {"__pycache__", ".venv", "node_modules", ".git", ".mypy_cache", ".ruff_cache"}
BINARY = {".png", ".jpg", ".exe", ".dll", ".so", ".o", ".pyc", ".sqlite", ".gz", ".ppu"}


def _files() -> Iterator[Path]:
    yield from sorted(ROOT.glob("*.md"))
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT)
            if SKIP_PARTS & set(rel.parts) or not path.is_file():
                continue
            if path.suffix.lower() in BINARY or "golden" in rel.parts:
                continue
            if path == Path(__file__).resolve():
                continue  # this file writes the forms out, to test the pattern
            yield path


def _hits() -> dict[str, list[str]]:
    hits: dict[str, list[str]] = {}
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a built program or other binary data
        for number, line in enumerate(text.splitlines(), 1):
            if NUMBERED.search(line):
                rel = path.relative_to(ROOT).as_posix()
                hits.setdefault(rel, []).append(f"{rel}:{number}: {line.strip()[:100]}")
    return hits


def test_the_scan_reads_code_tests_and_documents() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _files()}
    for expected in (
        "README.md",
        "CHANGELOG.md",
        "judge/cli.py",
        "tests/conftest.py",
        "benchmarks/turn_cost.py",
        "bots/reference/brain.py",
        "docs/windows-backend.md",
        ".ci/run",
    ):
        assert expected in names


def test_the_pattern_finds_the_forms_a_number_takes() -> None:
    for text in ("(issue 35)", "Issue 32, item 4", "issues 12 and 16", "issue #7", "issue34"):
        assert NUMBERED.search(text), text
    for text in ("an issue of the disk", "tissue 3", "issued 2 warnings"):
        assert not NUMBERED.search(text), text


def test_no_comment_or_document_names_an_issue_number() -> None:
    found = [line for lines in _hits().values() for line in lines]
    assert not found, "say the reason in words instead:\n" + "\n".join(found)
