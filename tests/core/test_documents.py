"""The documents say what is true of the code: every `judge` command they show parses with
the real argument parser, every option they name exists, the Quick start's test command is
the one CI runs, every link leads to a file, and README keeps its readers' order."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [
    README,
    ROOT / "CONTRIBUTING.md",
    ROOT / "RULES.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
#: What may stand before `judge` on a line: a root shell's or a virtual environment's path.
PREFIX = re.compile(r"^(?:sudo\s+)?(?:\S*/)?judge\s")
#: Programs of the repository a document runs with `python`.
SCRIPT = re.compile(r"^python3?\s+((?:benchmarks|tests)/\S+\.py)(.*)$")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _blocks(text: str) -> Iterator[str]:
    """The lines of every fenced code block that is not YAML."""
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        if match.group(1) not in ("yaml", "yml"):
            yield from match.group(2).splitlines()


def _spans(text: str) -> Iterator[str]:
    """Every inline code span outside the code blocks."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    yield from re.findall(r"`([^`\n]+)`", prose)


def _commands(line: str) -> Iterator[str]:
    """Each `&&`-joined part of a shell line, its comment cut."""
    for part in line.split("&&"):
        part = part.split(" # ")[0].strip()
        if part:
            yield part


def _argv(command: str) -> list[str] | None:
    """The arguments after `judge`, or None when the command is not the judge's."""
    if not PREFIX.match(command):
        return None
    return shlex.split(command)[1 if not command.startswith("sudo") else 2 :]


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (none for a command without subcommands)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    commands = _choices(build_parser())
    assert commands, "judge has no commands"
    return commands


def _parses(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str | None:
    """None if argv parses as the judge would parse it, else argparse's complaint."""
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        out = capsys.readouterr()
        if exc.code == 0:  # --help
            return None
        return out.err.strip().splitlines()[-1] if out.err.strip() else f"exit {exc.code}"
    return None


def _lines_of_commands() -> Iterator[tuple[str, str]]:
    for path in DOCUMENTS:
        for line in _blocks(_text(path)):
            for command in _commands(line):
                yield path.name, command


def test_every_judge_command_line_in_the_documents_parses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen, wrong = 0, []
    for name, command in _lines_of_commands():
        argv = _argv(command)
        if argv is None:
            continue
        seen += 1
        why = _parses(argv, capsys)
        if why:
            wrong.append(f"{name}: {command}: {why}")
    assert seen >= 15
    assert not wrong, "\n".join(wrong)


def test_every_judge_command_and_option_named_in_the_text_exists() -> None:
    commands = _subparsers()
    seen, wrong = 0, []
    for path in DOCUMENTS:
        for span in _spans(_text(path)):
            for command in _commands(span):
                argv = _argv(command + " ")
                if not argv or argv[0].startswith("-") or argv[0].rstrip(":").isupper():
                    continue  # `judge --help`, `judge COMMAND --help`: no command named
                seen += 1
                sub = commands.get(argv[0])
                if sub is None:
                    wrong.append(f"{path.name}: `{span}`: no command {argv[0]!r}")
                    continue
                named, rest = argv[0], argv[1:]
                while rest and rest[0] in _choices(sub):  # `judge arena final ...`
                    sub = _choices(sub)[rest[0]]
                    named, rest = f"{named} {rest[0]}", rest[1:]
                for token in rest:
                    option = token.split("=")[0]
                    if option.startswith("--") and option not in sub._option_string_actions:
                        wrong.append(f"{path.name}: `{span}`: judge {named} has no {option}")
    assert seen >= 20
    assert not wrong, "\n".join(wrong)


def test_every_program_the_documents_run_exists_with_its_options() -> None:
    wrong = []
    for path in DOCUMENTS:
        text = _text(path)
        for command in [c for line in _blocks(text) for c in _commands(line)] + list(_spans(text)):
            match = SCRIPT.match(command)
            if not match:
                continue
            script = ROOT / match.group(1)
            if not script.is_file():
                wrong.append(f"{path.name}: {command}: no {match.group(1)}")
                continue
            source = _text(script)
            for option in re.findall(r"(?<!\S)(--[\w-]+)", match.group(2)):
                if f'"{option}"' not in source:
                    wrong.append(f"{path.name}: {command}: {match.group(1)} has no {option}")
    assert not wrong, "\n".join(wrong)


def _quick_start() -> list[str]:
    text = _text(README)
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```", section, re.M | re.S)
    assert block, "README's Quick start has no code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_quick_start_is_two_commands_and_ci_runs_its_test_command() -> None:
    first, test = _quick_start()
    ci = [line.strip() for line in _text(ROOT / ".ci" / "run").splitlines()]
    commands = [line for line in ci if line and not line.startswith("#")]
    # .ci/run's last command is the README's test command, exactly as shown.
    assert commands[-1] == test
    assert test.endswith("python -m pytest")
    assert "judge match greedy random --map m1" in first


def test_readme_keeps_its_readers_order() -> None:
    headings = re.findall(r"^## (.+)$", _text(README), re.M)
    order = [
        "Quick start",
        "The game in short",
        "Writing a bot",
        "Bundled bots",
        "Commands",
        "The organiser's path",
        "The time limit",
    ]
    assert [h for h in headings if h in order] == order


def _table_rows(text: str, first_header: str) -> list[list[str]]:
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith(f"| {first_header} |"):
            inside = True
            continue
        if inside and line.startswith("| ---"):
            continue
        if inside and line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif inside:
            break
    return rows


def test_readme_lists_every_bundled_bot_and_every_command() -> None:
    text = _text(README)
    bots = {p.parent.name for p in (ROOT / "bots").glob("*/bot.yaml")}
    listed = {row[0].strip("`") for row in _table_rows(text, "bot")}
    assert listed == bots
    rows = {row[0].strip("`"): row for row in _table_rows(text, "command")}
    for name, _module in COMMANDS:
        assert f"judge {name}" in rows, f"README's commands table has no judge {name}"
        assert f"`judge {name} --help`" in rows[f"judge {name}"][-1]


def test_no_table_cell_or_paragraph_a_reader_gives_up_on() -> None:
    for path in (README, ROOT / "CONTRIBUTING.md"):
        text = _text(path)
        for line in text.splitlines():
            if line.startswith("|"):
                for cell in line.strip("|").split("|"):
                    assert len(cell.strip()) <= 240, f"{path.name}: a cell of {len(cell)}"
        prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
        prose = re.sub(r"^\|.*$", "", prose, flags=re.M)  # the tables' cells are checked above
        # A paragraph, or one item of a list.
        for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )", prose):
            words = len(paragraph.split())
            assert words <= 130, f"{path.name}: a paragraph of {words} words"


def _links(text: str) -> Iterator[str]:
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if not re.match(r"[a-z]+:", target):
            yield target.split("#")[0]


def test_every_link_of_the_documents_leads_to_a_file() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}: {target}"
        for path in DOCUMENTS
        for target in _links(_text(path))
        if target and not (path.parent / target).exists()
    ]
    assert not wrong, "\n".join(wrong)


def test_the_scans_see_what_they_check() -> None:
    """The patterns above find the forms the documents use (a broken pattern would make
    every other test here pass on nothing)."""
    assert _argv("sudo .venv/bin/judge tournament judge.yaml") == ["tournament", "judge.yaml"]
    assert _argv("judge match a b --map m1") == ["match", "a", "b", "--map", "m1"]
    assert _argv("ruff check judge tests") is None
    lines = dict(_lines_of_commands())
    assert lines
    assert "judge check-bot mybot" in [c for _, c in _lines_of_commands()]
    assert list(_links("[a](docs/x.md#y) [b](https://e.org) `[c](no)`")) == ["docs/x.md"]
