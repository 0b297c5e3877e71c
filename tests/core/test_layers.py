"""The package's layers, enforced: every import goes down (maps -> rules -> ... -> commands).

Read from the source (every ``import`` and ``from ... import``, at module
level or inside a function), so a lazy import cannot hide a wrong direction.
A new module must be given a layer here: that is the moment to think about it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "judge"

#: Lowest first.  A module may import its own layer and the layers below it.
LAYERS: list[tuple[str, ...]] = [
    # plain helpers: no game, no processes
    (
        "judge",
        "judge.errors",
        "judge.atomic",
        "judge.stats",
        "judge.names",
        "judge.pentanomial",
        "judge.inputfiles",
        "judge.sqlitefiles",
        "judge.owner",
        "judge.yamlfile",
    ),
    ("judge.settings", "judge.grid", "judge.seeds"),
    ("judge.bundled",),  # where the bundled bots and maps are
    ("judge.maps", "judge.mapgen", "judge.mapstyles"),
    ("judge.rules",),  # pure: no I/O
    ("judge.protocol", "judge.records", "judge.voidwhy"),
    ("judge.sandbox",),  # knows nothing of the game (see below)
    ("judge.programs", "judge.sources", "judge.bots", "judge.isolation"),
    ("judge.referee",),
    ("judge.scheduler", "judge.cluster", "judge.match", "judge.checkbot"),
    ("judge.evaluate", "judge.evalbook"),
    ("judge.tournament", "judge.league"),
    ("judge.arena",),  # the arena: accounts, uploads, checks, tasks (above the league)
    ("judge.views",),  # presentation
    ("judge.web",),  # the pages served (judge serve, judge play)
    ("judge.commands", "judge.cli", "judge.__main__"),
]
#: What the sandbox may import besides itself: nothing of the judge at all (it runs alone,
#: copied with the package's __init__, as a normal user: tests/sandbox/test_sandbox_normal_user.py).
SANDBOX_MAY_IMPORT = ("judge",)
#: The replay views work on a machine that cannot run bots.
REPLAY_VIEWS = (
    "judge.views.replayfile",
    "judge.views.board",
    "judge.views.live",
    "judge.views.html",
)


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {_name(p): p for p in sorted(ROOT.rglob("*.py"))}


@cache
def imports(module: str) -> frozenset[str]:
    """Every module ``module`` imports, by absolute name (``from judge import x`` -> judge.x)."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    package = module if modules()[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            for a in node.names:
                if f"{base}.{a.name}" in modules():
                    found.add(f"{base}.{a.name}")
    return frozenset(found)


def layer(module: str) -> int:
    best, index = "", -1
    for i, names in enumerate(LAYERS):
        for n in names:
            # "judge" is the package's __init__ alone, not everything under it
            inside = module == n or (n != "judge" and module.startswith(n + "."))
            if inside and len(n) > len(best):
                best, index = n, i
    return index


def _ours(names: frozenset[str]) -> list[str]:
    return sorted(n for n in names if n == "judge" or n.startswith("judge."))


def test_every_module_has_a_layer() -> None:
    assert [m for m in modules() if layer(m) < 0] == []


@pytest.mark.parametrize("module", sorted(modules()))
def test_imports_go_down(module: str) -> None:
    up = [d for d in _ours(imports(module)) if layer(d) > layer(module)]
    assert up == [], f"{module} (layer {layer(module)}) imports from above: {up}"


def test_rules_and_maps_import_nothing_above_them() -> None:
    for module in modules():
        if layer(module) in (layer("judge.rules"), layer("judge.maps")):
            allowed = {m for m in modules() if layer(m) <= layer(module)}
            assert set(_ours(imports(module))) <= allowed, module


def test_the_sandbox_imports_nothing_of_the_game() -> None:
    for module in modules():
        if module == "judge.sandbox" or module.startswith("judge.sandbox."):
            game = [
                d
                for d in _ours(imports(module))
                if d not in SANDBOX_MAY_IMPORT and not d.startswith("judge.sandbox")
            ]
            assert game == [], f"{module} imports {game}"


def _closure(module: str) -> set[str]:
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m in seen or m not in modules():
            continue
        seen.add(m)
        todo += _ours(imports(m))
    return seen


@pytest.mark.parametrize("module", REPLAY_VIEWS)
def test_replays_can_be_viewed_without_the_sandbox(module: str) -> None:
    needs = sorted(m for m in _closure(module) if layer(m) >= LAYERS.index(("judge.sandbox",)))
    assert [m for m in needs if not m.startswith("judge.views")] == []


def test_only_views_and_commands_import_rich() -> None:
    users = sorted(
        m
        for m in modules()
        if any(d == "rich" or d.startswith("rich.") for d in imports(m))
        and not m.startswith(("judge.views", "judge.commands"))
    )
    assert users == []


def test_the_checker_sees_lazy_and_relative_imports() -> None:
    """The contracts above could pass by reading nothing: check what they read."""
    assert "judge.views.html" in imports("judge.commands.replay") or "judge.views.html" in imports(
        "judge.commands.league"
    )
    assert "rich.table" in imports("judge.views.board")
    assert "judge.rules" in imports("judge.records.results")
