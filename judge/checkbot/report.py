"""``judge check-bot``'s output: a table of situations, then each problem in words, or JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from judge.bots import BotSpec
from judge.checkbot.diagnose import ADVICE, CAUSE_NAMES, ERROR, WARNING, patterns
from judge.checkbot.trials import SituationResult, passed
from judge.sandbox import Limits
from judge.sandbox.verdicts import fmt_bytes
from judge.views.tables import print_table

_STYLE = {ERROR: "bold red", WARNING: "yellow", ADVICE: "cyan", None: "green"}
_MARK = {ERROR: "✗", WARNING: "!", ADVICE: "i"}
_SHIFTS = {"zero_based", "swapped", "zero_based_swapped", "one_too_many"}


def counts(results: list[SituationResult]) -> dict[str, int]:
    out = {ERROR: 0, WARNING: 0, ADVICE: 0}
    for r in results:
        for f in r.findings:
            out[f.level] += 1
    return out


def _limit_line(results: list[SituationResult], limits: Limits) -> str:
    if not results:
        return ""
    slow = max(results, key=lambda r: r.facts.wall_s)
    big = max(results, key=lambda r: r.facts.peak_memory_bytes)
    t = slow.facts.wall_s
    time_part = f"slowest run {t * 1000:.0f} ms ({slow.situation.title})" + (
        f" = {100 * t / limits.time_s:.0f}% of the {limits.time_s:g} s limit"
        if limits.time_s
        else " (no time limit)"
    )
    mem = big.facts.peak_memory_bytes
    mem_part = (
        f"peak memory {fmt_bytes(mem)} = {100 * mem / limits.memory_bytes:.1f}% of "
        f"{fmt_bytes(limits.memory_bytes)}"
    )
    return f"{time_part}; {mem_part}"


def summary_line(bot: BotSpec, results: list[SituationResult], strict: bool) -> str:
    c = counts(results)
    n_bad = sum(1 for r in results if r.level == ERROR)
    extras = ", ".join(
        f"{c[k]} {k}{'s' if c[k] != 1 and k != ADVICE else ''}" for k in (WARNING, ADVICE) if c[k]
    )
    extras = f" ({extras})" if extras else ""
    if c[ERROR]:
        return f"{bot.name} breaks the protocol in {n_bad} of {len(results)} situations{extras}"
    if strict and c[WARNING]:
        return f"{bot.name} follows the protocol but has warnings (--strict){extras}"
    return f"{bot.name} follows the protocol in all {len(results)} situations{extras}"


def print_report(
    console: Console,
    bot: BotSpec,
    results: list[SituationResult],
    limits: Limits,
    strict: bool,
    show_input: bool,
) -> None:
    table = Table(title=Text(f"check-bot {bot.name} ({bot.source})"))
    table.add_column("situation")
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
        console.print(
            f"[bold]most likely:[/] {escape(name)} (fits {n} of the {of} situations with "
            f"errors{escape(also)})",
            highlight=False,
        )
    console.print(_limit_line(results, limits), markup=False)
    ok = passed(results, strict)
    style = "bold green" if ok else "bold red"
    console.print(f"[{style}]{escape(summary_line(bot, results, strict))}[/]", highlight=False)
    if not ok and not show_input:
        console.print(
            "(--show-input prints the MAP.INP of each failing situation, to reproduce it)",
            highlight=False,
        )


def as_json(
    bot: BotSpec,
    results: list[SituationResult],
    limits: Limits,
    strict: bool,
    isolation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    c = counts(results)
    return {
        "bot": {"name": bot.name, "source": bot.source},
        "limits": {"time_s": limits.time_s, "memory_mb": limits.memory_bytes // 2**20},
        "passed": passed(results, strict),
        "strict": strict,
        "errors": c[ERROR],
        "warnings": c[WARNING],
        "advice": c[ADVICE],
        "max_wall_ms": round(max((r.facts.wall_s for r in results), default=0.0) * 1000, 1),
        "peak_mem_mb": round(
            max((r.facts.peak_memory_bytes for r in results), default=0) / 2**20, 1
        ),
        "summary": summary_line(bot, results, strict),
        "patterns": [
            {"cause": name, "situations": n, "failing": of}
            for name, n, of in patterns([r.findings for r in results])
        ],
        "situations": [r.as_dict() for r in results],
        "isolation": isolation,
    }
