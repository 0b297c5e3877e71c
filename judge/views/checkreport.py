"""``judge check-bot``'s report: a table of situations, then each problem in words.

Presentation only (:mod:`judge.checkbot.report` has the values and the
JSON).  Everything a bot wrote is escaped: answers and error output are text.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judge.bots import BotSpec
from judge.checkbot.diagnose import ADVICE, CAUSE_NAMES, ERROR, WARNING, patterns
from judge.checkbot.report import limit_line, summary_line
from judge.checkbot.trials import SituationResult, passed
from judge.sandbox import Limits
from judge.views.tables import print_table

_STYLE = {ERROR: "bold red", WARNING: "yellow", ADVICE: "cyan", None: "green"}
_MARK = {ERROR: "✗", WARNING: "!", ADVICE: "i"}
_SHIFTS = {"zero_based", "swapped", "zero_based_swapped", "one_too_many"}


def print_report(
    console: Console,
    bot: BotSpec,
    results: list[SituationResult],
    limits: Limits,
    strict: bool,
    show_input: bool,
    replayed: str | None = None,
) -> None:
    """``replayed``: the folder whose failed turns were run again (``--from``)."""
    title = f"check-bot {bot.name} ({bot.source})"
    if replayed is not None:
        title += f" on the turns it failed in {replayed}"
    table = Table(title=Text(title))
    table.add_column("turn" if replayed is not None else "situation")
    table.add_column("result")
    table.add_column("answer")
    table.add_column("time ms", justify="right")
    table.add_column("MiB", justify="right")
    for r in results:
        lvl = r.level
        label = lvl or "ok"
        answer = (
            r.raw if r.raw is not None else ("-" if r.facts.verdict == "OK" else r.facts.verdict)
        )
        table.add_row(
            r.situation.title,
            f"[{_STYLE[lvl]}]{label}[/]",
            escape(answer.replace("\r", "\\r")),
            f"{r.facts.wall_s * 1000:.0f}",
            f"{r.facts.peak_memory_bytes / 2**20:.1f}",
        )
    print_table(console, table)
    told: set[tuple[str, str | None]] = set()
    for r in results:
        if not r.findings:
            continue
        console.print(
            f"[bold]{escape(r.situation.title)}[/]: {escape(r.situation.purpose)}", highlight=False
        )
        for f in r.findings:
            console.print(
                f"  [{_STYLE[f.level]}]{_MARK[f.level]} {f.level}:[/] {escape(f.reason)}",
                highlight=False,
            )
            if f.cause:
                label = "hint" if f.level == ADVICE else "likely cause"
                key = (f.tag, f.cause) if f.tag not in CAUSE_NAMES else (f.tag, None)
                if key in told:  # said in full above: a short reminder is enough
                    if f.tag in _SHIFTS:  # keep the evidence, drop the advice
                        short = f.cause.split(". ")[0]
                    else:
                        short = CAUSE_NAMES.get(f.tag, "the same")
                    console.print(f"      {label}: {escape(short)} (as above)", highlight=False)
                else:
                    told.add(key)
                    console.print(f"      {label}: {escape(f.cause)}", highlight=False)
        if show_input and r.level == ERROR:
            console.print("      MAP.INP given:", highlight=False)
            for line in r.map_inp.splitlines():
                console.print(f"        {escape(line)}", highlight=False)
            if r.state_in is not None:
                console.print(
                    f"      STATE.OUT given: {len(r.state_in)} bytes (its first line: "
                    f"{escape(repr(_first_line(r.state_in)))})",
                    highlight=False,
                )
            err = r.facts.stderr.decode("utf-8", "replace").strip()
            if err:
                console.print("      its error output (end):", highlight=False)
                for line in err.splitlines()[-8:]:
                    console.print(f"        {escape(line)}", highlight=False)
    found = patterns([r.findings for r in results])
    if found:
        name, n, of = found[0]
        also = (
            "; also " + ", ".join(f"{x} ({k})" for x, k, _ in found[1:3]) if len(found) > 1 else ""
        )
        what = "turns" if replayed is not None else "situations"
        console.print(
            f"[bold]most likely:[/] {escape(name)} (fits {n} of the {of} {what} with "
            f"errors{escape(also)})",
            highlight=False,
        )
    console.print(limit_line(results, limits), markup=False)
    ok = passed(results, strict)
    style = "bold green" if ok else "bold red"
    line = summary_line(bot, results, strict, replayed)
    console.print(f"[{style}]{escape(line)}[/]", highlight=False)
    if not ok and not show_input:
        what = "turn" if replayed is not None else "situation"
        console.print(
            f"(--show-input prints the MAP.INP of each failing {what}, to reproduce it)",
            highlight=False,
        )


def _first_line(data: bytes) -> str:
    return data.split(b"\n", 1)[0][:60].decode("utf-8", "replace")
