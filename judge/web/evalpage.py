"""``/eval``: an eval's folder as a page -- the verdict, the score, each bot's runs, every round.

What ``judge eval`` prints, from its ``eval.json`` (the same record, so the
two never disagree), with each round linking to its replay.  Every name and
map is escaped: the page is built here as HTML, with no script of its own.
"""

from __future__ import annotations

import html
from urllib.parse import quote

from judge.records import EvalSummary
from judge.records.evaluation import EvalBotStats, WinDrawLoss
from judge.views.evalreport import elo_text, sprt_line
from judge.web.pages import page

CSS = """
body[data-page=eval] main{display:block}body[data-page=eval] section{margin-bottom:18px}
#verdict{font-size:20px;font-weight:bold;color:#ffd166}#rounds-list{columns:2;padding-left:1.4em}
.outcome-win{color:#86efac}.outcome-loss{color:#fca5a5}
"""


def _e(value: object) -> str:
    return html.escape(str(value))


def _wdl(label: str, d: WinDrawLoss) -> str:
    rate = "-" if d.win_rate is None else f"{100 * d.win_rate:.1f}%"
    return (
        f"<tr><th>{_e(label)}</th><td>{d.wins}</td><td>{d.draws}</td><td>{d.losses}</td>"
        f"<td>{rate}</td></tr>"
    )


def _bot_rows(s: EvalSummary) -> str:
    def failed(st: EvalBotStats) -> str:
        return ", ".join(f"{v} {n}" for v, n in st.failed_runs.items()) or "none"

    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    rows = (
        ("mean gold", lambda st: num(st.mean_gold)),
        ("mean points", lambda st: num(st.mean_points)),
        ("time p99 ms", lambda st: num(st.time_ms.p99)),
        ("peak memory MiB", lambda st: num(st.peak_mem_mb)),
        ("failed runs", failed),
        ("void moves", lambda st: str(st.void_moves)),
    )
    return "".join(
        f"<tr><th>{_e(label)}</th><td>{_e(fn(s.a))}</td><td>{_e(fn(s.b))}</td></tr>"
        for label, fn in rows
    )


def _rounds(s: EvalSummary, rel: str) -> str:
    items = []
    for r in s.rounds:
        where = f"round {r.round}: {r.map}, {s.bots[0].name} in seat {r.a_seat + 1}"
        if r.outcome is None:
            items.append(f"<li>{_e(where)}: <span class='why'>{_e(r.error or '')}</span></li>")
            continue
        gold = f"{r.gold[0]}–{r.gold[1]}" if r.gold else ""
        text = f"{_e(where)}: <span class='outcome-{_e(r.outcome)}'>{_e(r.outcome)}</span> {gold}"
        if r.replay:
            folder = r.replay.rsplit("/", 1)[0]
            href = "/replay?p=" + quote("/".join(x for x in (rel, folder) if x))
            text = f"<a href='{_e(href)}'>{text}</a>"
        items.append(f"<li>{text}</li>")
    return "".join(items)


def eval_page(rel: str, s: EvalSummary) -> str:
    a, b = s.bots[0].name, s.bots[1].name
    verdict = sprt_line(s, [a, b])
    parts = [f"<section><h2>{_e(a)} vs {_e(b)}</h2>"]
    if verdict:
        parts.append(f"<p id='verdict'>{_e(verdict)}</p>")
    pr = s.pairs
    if pr is not None and pr.score is not None and pr.elo is not None:
        e = pr.elo
        parts.append(
            f"<p id='score'>{_e(a)} scores {100 * pr.score:.1f}% over {pr.pairs} pairs "
            f"(each map twice, seats swapped): Elo {_e(elo_text(e.elo, e.low, e.high))}</p>"
        )
    parts.append(
        f"<p class='muted'>{s.rounds_played} of {s.rounds_planned} rounds played"
        f"{', ' + str(len(s.rounds_aborted)) + ' abandoned' if s.rounds_aborted else ''}</p>"
    )
    parts.append(
        "<table id='result'><tr><th></th><th>wins</th><th>draws</th><th>losses</th>"
        f"<th>win rate</th></tr>{_wdl(f'{a} (all)', s.result)}"
        f"{_wdl('as seat 1', s.by_seat[0])}{_wdl('as seat 2', s.by_seat[1])}</table></section>"
    )
    parts.append(
        f"<section><h2>Per bot</h2><table id='bots'><tr><th></th><th>{_e(a)}</th>"
        f"<th>{_e(b)}</th></tr>{_bot_rows(s)}</table></section>"
    )
    parts.append(f"<section><h2>Rounds</h2><ol id='rounds-list'>{_rounds(s, rel)}</ol></section>")
    return page(
        "eval",
        f"eval: {a} vs {b}",
        "".join(parts),
        "document.body.dataset.ready='true';",
        {},
        css=CSS,
    )
