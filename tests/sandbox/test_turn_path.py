"""docs/turn-path.md says the turn's path as the code has it: every function it names exists,
its steps are judge.sandbox.steps.STEPS in order, and each step is timed under its name in
exactly the functions the page says (as RULES.md's "Pinned by" names are checked)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from judge.sandbox.steps import STEPS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "turn-path.md"
PYTHON_REF = re.compile(r"`(judge(?:\.\w+)*):([\w.]+)`")
C_REF = re.compile(r"`(judge/[\w/]+\.c):(\w+)`")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _resolves(module: str, qualname: str) -> bool:
    obj: object = importlib.import_module(module)
    for part in qualname.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return callable(obj)


def _rows() -> list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]]:
    """(step, done by, timed in) of each row of the page's steps table."""
    rows = []
    for line in _text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`\w+`", cells[0]):
            rows.append(
                (cells[0].strip("`"), PYTHON_REF.findall(cells[2]), PYTHON_REF.findall(cells[3]))
            )
    return rows


def _timings(
    node: ast.AST, module: str, prefix: str, found: dict[str, set[tuple[str, str]]]
) -> None:
    """Add to ``found`` each function under ``node`` that times a step (``x.timed("step")``
    or ``x.add("step", ...)``)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            _timings(child, module, f"{prefix}{child.name}.", found)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for call in ast.walk(child):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("timed", "add")
                    and call.args
                    and isinstance(call.args[0], ast.Constant)
                    and call.args[0].value in found
                ):
                    found[call.args[0].value].add((module, f"{prefix}{child.name}"))


def _timed_in_code() -> dict[str, set[tuple[str, str]]]:
    """step -> the (module, qualname) of every function of the sandbox that times it."""
    found: dict[str, set[tuple[str, str]]] = {s: set() for s in STEPS}
    for path in sorted((ROOT / "judge" / "sandbox").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        _timings(ast.parse(path.read_text(encoding="utf-8")), module, "", found)
    return found


def test_every_function_the_page_names_exists() -> None:
    text = _text()
    refs = PYTHON_REF.findall(text)
    assert len(refs) > 40
    missing = [f"{m}:{q}" for m, q in refs if not _resolves(m, q)]
    assert missing == [], f"docs/turn-path.md names functions that do not exist: {missing}"
    for path, name in C_REF.findall(text):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^\w[\w\s\*]*\b{name}\(", source, re.M), f"{path}:{name}"


def test_the_steps_are_the_sandboxs_in_its_order() -> None:
    assert [step for step, _, _ in _rows()] == list(STEPS)


def test_each_step_is_timed_where_the_page_says_and_nowhere_else() -> None:
    code = _timed_in_code()
    for step, done_by, timed_in in _rows():
        assert done_by, f"step {step}: the page names no function that does it"
        assert set(timed_in) == code[step], (
            f"step {step!r} is timed in {sorted(code[step])} by the code, "
            f"in {sorted(timed_in)} by docs/turn-path.md"
        )


def test_the_path_goes_from_the_referee_to_the_programs_exec() -> None:
    text = _text()
    path = text[text.index("## From the referee") : text.index("## The steps")]
    firsts = [
        m.start()
        for m in (
            re.search(re.escape(f"`{r}`"), path)
            for r in (
                "judge.referee:play_round",
                "judge.sandbox.pair:SeatPair.run",
                "judge.sandbox.seat:Seat.run_turn",
                "judge.sandbox.launcher:ArmedLauncher.start",
                "judge/sandbox/wrapper.c:child_main",
            )
        )
        if m
    ]
    assert len(firsts) == 5 and firsts == sorted(firsts)
    for step in STEPS:
        assert f"**{step}**" in path, f"the path does not show step {step}"
