"""``judge eval``'s tables: a summary (the ``--json`` object) as rich renderables.

Presentation only: everything shown is in the
:class:`~judge.records.evaluation.EvalSummary` that
:func:`judge.evaluate.summarize` makes and ``--json`` prints, so the two
never disagree.  Names are escaped: table titles, headers and cells are markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from judge.evaluate import EvalRequest, EvalRound, PairTracker
from judge.pentanomial import SprtVerdict
from judge.records.evaluation import EvalBotStats, EvalSummary, WinDrawLoss


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}"


def _wdl_cells(label: str, d: WinDrawLoss) -> tuple[str, ...]:
    """A row of wins, draws, losses, the win rate and its Wilson interval."""
    lo, hi = d.wilson95
    wilson = f"{100 * lo:.1f}% - {100 * hi:.1f}%" if d.decided else "-"
    return (label, str(d.wins), str(d.draws), str(d.losses), _pct(d.win_rate), wilson)


def render(summary: EvalSummary) -> list[RenderableType]:
    """Rich renderables for a summary: the head-to-head table, per-bot measurements, by size."""
    # Names are shown as written: escaped, since table titles, headers and cells are markup.
    a, b = escape(summary.bots[0].name), escape(summary.bots[1].name)
    maps = summary.maps
    where = f"book {summary.book}" if summary.book else f"seed {summary.seed}"
    head = Table(
        title=f"{a} vs {b}: {summary.rounds_played} rounds "
        f"({maps} map{'' if maps == 1 else 's'} x 2 seat orders), {escape(where)}"
    )
    for col in (
        "",
        "wins",
        "draws",
        "losses",
        f"{a} win rate (decided)",
        "95% Wilson (if rounds were independent)",
    ):
        head.add_column(col, justify="right" if col else "left")
    head.add_row(*_wdl_cells(f"{a} (all)", summary.result))
    for s in (0, 1):
        head.add_row(*_wdl_cells(f"  as seat {s}", summary.by_seat[s]))

    bots = Table(title="per bot")
    bots.add_column("")
    bots.add_column(a, justify="right")
    bots.add_column(b, justify="right")

    def num(x: float | None, fmt: str = "{:.1f}") -> str:
        return "-" if x is None else fmt.format(x)

    def failed(st: EvalBotStats) -> str:
        return ", ".join(f"{v} {n}" for v, n in st.failed_runs.items()) or "none"

    rows: tuple[tuple[str, Callable[[EvalBotStats], str]], ...] = (
        ("mean gold", lambda st: num(st.mean_gold)),
        ("mean points", lambda st: num(st.mean_points)),
        ("runs", lambda st: str(st.runs)),
        ("time p50 ms", lambda st: _ms(st.time_ms.p50)),
        ("time p99 ms", lambda st: _ms(st.time_ms.p99)),
        ("time max ms", lambda st: _ms(st.time_ms.max)),
        ("peak memory MiB", lambda st: num(st.peak_mem_mb)),
        ("failed runs", failed),
        ("void moves", lambda st: str(st.void_moves)),
    )
    for label, fn in rows:
        bots.add_row(label, fn(summary.a), fn(summary.b))

    # The end reasons get a line of their own: in a table's title they wrap to the
    # table's width, leaving a lone number on the next line.
    sizes = Table(title=f"by map size ({a}'s view)")
    sizes.add_column("size")
    for col in ("wins", "draws", "losses", "win rate", "95% Wilson"):
        sizes.add_column(col, justify="right")
    for label, d in summary.by_size.items():
        sizes.add_row(*_wdl_cells(label, d))
    out: list[RenderableType] = [head, *pair_lines(summary)]
    reasons = ", ".join(f"{k} {v}" for k, v in summary.end_reasons.items()) or "none"
    out += [bots, sizes, f"end reasons: {reasons}"]
    for ab in summary.rounds_aborted:
        out.append(
            f"[bold red]round {ab.round} abandoned by the judge:[/] {escape(ab.error or '')}"
        )
    return out


def _whole(x: float) -> str:
    """A signed whole number with a true minus sign: +120, −436, 0."""
    n = round(x)
    return "0" if n == 0 else f"+{n}" if n > 0 else f"\u2212{-n}"


def elo_text(elo: float, low: float, high: float) -> str:
    """An Elo difference with its interval as people read it: ``−436 (95 %: −1200 to −264)``.

    Never ``x +- y`` beside the interval: the interval is not symmetric about x
    (the logistic curve is steep near 0 % and 100 %), so a single ± would be wrong.
    """
    return f"{_whole(elo)} (95 %: {_whole(low)} to {_whole(high)})"


def pair_lines(summary: EvalSummary) -> list[str]:
    """The pentanomial report in words (plain text: no user text in it)."""
    pr = summary.pairs
    a = escape(summary.bots[0].name)
    if pr is None or not pr.pairs or pr.score is None or pr.elo is None:
        return ["no complete pair (both seat orders of a map) was played"]
    c, e = pr.pentanomial, pr.elo
    lines = [
        f"pairs (each map twice, seats swapped): {pr.pairs}"
        + (f", {pr.incomplete} incomplete" if pr.incomplete else "")
        + f"; pentanomial LL {c[0]}, LD {c[1]}, WL+DD {c[2]}, WD {c[3]}, WW {c[4]}",
        f"{a} scores {100 * pr.score:.1f}%: Elo {elo_text(e.elo, e.low, e.high)}, "
        f"from the pair variance, LOS {100 * e.los:.1f}%",
    ]
    w, d, lo = summary.distinct_games()
    if pr.mirrored:
        lines.append(
            f"mirrored pairs: {pr.mirrored} of {pr.pairs} (one game played twice: with the seats "
            "swapped, both bots made the very same moves, so such a pair is one game seen from "
            "both sides, not two; the pair figures above count it once, a per-round interval "
            "(Wilson) counts it twice and is too narrow)"
        )
    else:
        lines.append(f"mirrored pairs: none of {pr.pairs}")
    lines.append(
        f"distinct games: {w + d + lo} ({w} won, {d} drawn, {lo} lost by {a})"
        + (", such a pair counted once" if pr.mirrored else "")
    )
    return lines


def _gain(elo: float) -> str:
    """An Elo difference as a hypothesis says it: ``no gain``, ``a gain of 50 Elo``."""
    if elo == 0:
        return "no gain"
    return f"a gain of {elo:g} Elo" if elo > 0 else f"a loss of {-elo:g} Elo"


def sprt_line(summary: EvalSummary, names: Sequence[str]) -> str | None:
    """The SPRT's verdict in one line (printed last, as plain text); None without a test.

    Inconclusive is the round cap's doing when every planned pair was counted;
    otherwise the evaluation was stopped (a signal) before the test decided.
    """
    t = summary.sprt
    if t is None:
        return None
    a, b = names
    where = (
        f"LLR {t.llr:.2f}, bounds {t.lower:.2f} and {t.upper:.2f}, "
        f"{t.pairs} pairs, ELO0 {t.elo0:g} ELO1 {t.elo1:g}"
    )
    # The test weighs two hypotheses against each other (H0: a gain of ELO0, H1: of ELO1):
    # its verdict says which one the results fit, never "by at least" or "at most".
    fit = f"{_gain(t.elo1)} (H1)", f"{_gain(t.elo0)} (H0)"
    if t.verdict is SprtVerdict.H1:
        head = f"{a} is stronger than {b}" if t.elo0 >= 0 else f"{a} is not weaker than {b}"
        return f"SPRT: H1 accepted: {head}: its results fit {fit[0]} far better than {fit[1]} ({where})"
    if t.verdict is SprtVerdict.H0:
        if t.elo1 > 0:
            head = f"no evidence that {a} is {t.elo1:g} Elo better than {b}"
            tail = "; it may still be better, by less"
        else:
            head, tail = f"{a} looks weaker than {b}", ""
        return (
            f"SPRT: H0 accepted: {head}: its results fit {fit[1]} far better than {fit[0]}"
            f"{tail} ({where})"
        )
    if 2 * summary.maps >= summary.rounds_planned:
        return f"SPRT: inconclusive: the round cap came first ({where})"
    return f"SPRT: inconclusive: stopped before the test decided ({where})"


class EvalProgress:
    """The progress bar of ``judge eval`` (on stderr: stdout stays the tables or the JSON).

    A context manager; :meth:`done` is the ``on_done`` of :func:`judge.evaluate.evaluate`.
    With ``show`` false it draws nothing.
    """

    def __init__(
        self,
        err: Console,
        req: EvalRequest,
        tracker: PairTracker,
        show: bool,
        status: Callable[[], str] | None = None,
    ):
        """``status``: what plays the rounds now (a cluster's workers), shown with the pace."""
        self.req, self.tracker = req, tracker
        self.status = status
        self.started = time.monotonic()
        self.played = 0
        self.tally: dict[str | None, int] = {"win": 0, "draw": 0, "loss": 0, None: 0}
        self.name = escape(req.names[0])
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[wdl]}"),
            TextColumn("{task.fields[pace]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=False,
            disable=not show,
        )
        self.task = self.progress.add_task("rounds", total=2 * req.n_maps, wdl="", pace="")

    def __enter__(self) -> EvalProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def done(self, o: EvalRound) -> None:
        t, sprt = self.tally, self.req.sprt
        t[o.outcome] += 1
        wdl = f"{self.name} W {t['win']} D {t['draw']} L {t['loss']}"
        if t[None]:
            wdl += f" [red]abandoned {t[None]}[/]"
        if sprt is not None:
            wdl += (
                f"  LLR {self.tracker.llr:+.2f} in [{sprt.lower:.2f}, {sprt.upper:.2f}]"
                f" after {self.tracker.penta.pairs} pairs"
            )
        self.played += 1
        minutes = max(time.monotonic() - self.started, 1e-3) / 60
        where = self.status() if self.status is not None else ""
        pace = f"{where + ', ' if where else ''}{self.played / minutes:.1f} rounds/min"
        self.progress.update(self.task, advance=1, wdl=wdl, pace=escape(pace))
