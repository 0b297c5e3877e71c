"""``judge check-bot``'s results as values: counts, the summary line, the limits line, the JSON.

The table and the explanations in colour are :mod:`judge.views.checkreport`'s.
"""

from __future__ import annotations

from judge.bots import BotSpec
from judge.checkbot.diagnose import ADVICE, ERROR, WARNING, patterns
from judge.checkbot.trials import SituationResult, passed
from judge.records import Json
from judge.sandbox import Limits
from judge.sandbox.verdicts import fmt_bytes


def counts(results: list[SituationResult]) -> dict[str, int]:
    out = {ERROR: 0, WARNING: 0, ADVICE: 0}
    for r in results:
        for f in r.findings:
            out[f.level] += 1
    return out


def limit_line(results: list[SituationResult], limits: Limits) -> str:
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


def summary_line(
    bot: BotSpec, results: list[SituationResult], strict: bool, replayed: str | None = None
) -> str:
    """The verdict in one line; ``replayed``: the folder whose failed turns were run again
    (``judge check-bot --from``), which the line names instead of situations."""
    c = counts(results)
    n_bad = sum(1 for r in results if r.level == ERROR)
    extras = ", ".join(
        f"{c[k]} {k}{'s' if c[k] != 1 and k != ADVICE else ''}" for k in (WARNING, ADVICE) if c[k]
    )
    extras = f" ({extras})" if extras else ""
    if replayed is not None:
        where = f"the {len(results)} turn{'s' if len(results) != 1 else ''} it failed in {replayed}"
        if c[ERROR]:
            return f"{bot.name} fails again in {n_bad} of {where}{extras}"
        return f"{bot.name} plays each of {where} without a protocol error now{extras}"
    if c[ERROR]:
        return f"{bot.name} breaks the protocol in {n_bad} of {len(results)} situations{extras}"
    if strict and c[WARNING]:
        return f"{bot.name} follows the protocol but has warnings (--strict){extras}"
    return f"{bot.name} follows the protocol in all {len(results)} situations{extras}"


def as_json(
    bot: BotSpec,
    results: list[SituationResult],
    limits: Limits,
    strict: bool,
    isolation: Json | None = None,
    replayed: str | None = None,
) -> Json:
    c = counts(results)
    return {
        **({"from": replayed} if replayed is not None else {}),
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
        "summary": summary_line(bot, results, strict, replayed),
        "patterns": [
            {"cause": name, "situations": n, "failing": of}
            for name, n, of in patterns([r.findings for r in results])
        ],
        "situations": [r.as_dict() for r in results],
        "isolation": isolation,
    }
