"""RULES.md states every ruling, and every core test it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rules_md_states_every_ruling() -> None:
    text = (ROOT / "RULES.md").read_text(encoding="utf-8")
    for n in range(1, 20):
        assert re.search(rf"^\*\*R{n}\. ", text, re.M), f"R{n} missing"
    for section in (
        "## 1.",
        "## 2.",
        "## 3.",
        "## 4.",
        "## 5.",
        "## The file protocol",
        "## Tournament",
    ):
        assert section in text


def test_rules_md_names_only_tests_that_exist() -> None:
    text = (ROOT / "RULES.md").read_text(encoding="utf-8")
    refs = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert len(refs) > 100
    assert not re.findall(r"`tests/[\w/]+\.py`", text), "name the test, not only its file"
    defined: dict[str, set[str]] = {}
    for path, name in refs:
        if path not in defined:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            defined[path] = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in defined[path], f"{path}::{name} named in RULES.md does not exist"
