"""``judge eval``'s summary: the ``--json`` object and ``eval.json``, as typed records.

:func:`judge.evaluate.summarize` makes an :class:`EvalSummary`; the tables
(:mod:`judge.views.evalreport`) and the command read its fields, and only
``to_json`` and ``from_json`` know the file's keys.  The file is the one
``judge eval`` has always written, key for key and in the same order (the
golden files in ``tests/evaluate/golden`` hold it byte for byte); the parts
added since 0.1.0 (``book``, ``pairs``, ``sprt``, a round's ``pair``) read
back as None from an older file.

Every statistic is from BOT_A's view; pairs (a map's two rounds, seats
swapped) are the unit of the pentanomial report and the SPRT, rounds that of
the win rate and its Wilson interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.pentanomial import SprtVerdict
from judge.records.fields import Json, JsonObject, is_int

#: How the Wilson interval of the win rate should be read; written with it.
WILSON_ASSUMES = "independent rounds (the two rounds of a pair are not)"
#: The pentanomial's cells in order, from BOT_A's view: written with the counts.
PENTANOMIAL_ORDER = ("LL", "LD", "WL+DD", "WD", "WW")


# ------------------------------------------------------------------ parts
@dataclass(frozen=True)
class EvalBot:
    """One of the two bots: its name as shown, and the BOT argument it came from."""

    name: str
    source: str

    def to_json(self) -> Json:
        return {"name": self.name, "source": self.source}

    @classmethod
    def from_json(cls, d: JsonObject) -> EvalBot:
        return cls(d.text("name"), d.text("source"))


@dataclass(frozen=True)
class WinDrawLoss:
    """BOT_A's wins, draws and losses over some rounds, the win rate and its intervals.

    ``wilson95`` treats every round as an independent trial; ``wilson95_per_map``
    counts a map's two rounds as one (see :func:`judge.evaluate.wilson_interval`).
    The bounds are rounded to 4 places, as the file shows them.
    """

    wins: int
    draws: int
    losses: int
    win_rate: float | None  # over the decided rounds; None when none was decided
    wilson95: tuple[float, float]
    wilson95_per_map: tuple[float, float]

    @property
    def decided(self) -> int:
        return self.wins + self.losses

    @property
    def rounds(self) -> int:
        return self.wins + self.draws + self.losses

    def to_json(self) -> Json:
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "decided": self.decided,
            "win_rate": self.win_rate,
            "wilson95": list(self.wilson95),
            "wilson95_per_map": list(self.wilson95_per_map),
        }

    @classmethod
    def from_json(cls, d: JsonObject) -> WinDrawLoss:
        return cls(
            d.whole("wins"),
            d.whole("draws"),
            d.whole("losses"),
            d.num_or_none("win_rate"),
            d.pair("wilson95"),
            d.pair("wilson95_per_map"),
        )


@dataclass(frozen=True)
class PairLine:
    """One map's two rounds as a pair: its score for BOT_A (0 to 2) and whether it mirrored."""

    pair: int  # 1-based, in map order
    map: str
    score: float | None  # None when a round of the pair was abandoned
    mirrored: bool | None  # the same game with seats swapped; None when unknown

    def to_json(self) -> Json:
        return {"pair": self.pair, "map": self.map, "score": self.score, "mirrored": self.mirrored}

    @classmethod
    def from_json(cls, d: JsonObject) -> PairLine:
        mirrored = d.d.get("mirrored")
        if mirrored is not None and not isinstance(mirrored, bool):
            raise d.fail("mirrored", "true, false or null")
        return cls(d.whole("pair"), d.text("map"), d.num_or_none("score"), mirrored)


@dataclass(frozen=True)
class EloInterval:
    """The Elo difference from the pairs, its 95 % interval and the likelihood of superiority."""

    elo: float
    low: float
    high: float
    plus_minus: float
    los: float


@dataclass(frozen=True)
class PairsReport:
    """The pentanomial report: pairs counted by score, BOT_A's score, Elo, LOS, mirrored pairs."""

    pairs: int  # complete pairs (both rounds played)
    incomplete: int  # pairs with an abandoned round
    pentanomial: tuple[int, int, int, int, int]  # LL, LD, WL+DD, WD, WW
    score: float | None  # rounded to 4 places; None without a complete pair
    elo: EloInterval | None  # None without a complete pair
    mirrored: int  # complete pairs that were the same game mirrored
    lines: tuple[PairLine, ...]  # every counted pair, in map order

    def to_json(self) -> Json:
        e = self.elo
        return {
            "pairs": self.pairs,
            "incomplete": self.incomplete,
            "pentanomial": list(self.pentanomial),
            "pentanomial_order": list(PENTANOMIAL_ORDER),
            "score": self.score,
            "elo": e.elo if e else None,
            "elo95": [e.low, e.high] if e else None,
            "elo_pm": e.plus_minus if e else None,
            "los": e.los if e else None,
            "mirrored": self.mirrored,
            "list": [p.to_json() for p in self.lines],
        }

    @classmethod
    def from_json(cls, d: JsonObject) -> PairsReport:
        counts = d.d.get("pentanomial")
        if not (isinstance(counts, list) and len(counts) == 5 and all(map(is_int, counts))):
            raise d.fail("pentanomial", "a list of 5 counts")
        elo = None
        if d.d.get("elo") is not None:
            low, high = d.pair("elo95")
            elo = EloInterval(d.num("elo"), low, high, d.num("elo_pm"), d.num("los"))
        return cls(
            d.whole("pairs"),
            d.whole("incomplete"),
            (counts[0], counts[1], counts[2], counts[3], counts[4]),
            d.num_or_none("score"),
            elo,
            d.whole("mirrored"),
            tuple(PairLine.from_json(p) for p in d.objs("list")),
        )


@dataclass(frozen=True)
class SprtReport:
    """Where the sequential test stands: its hypotheses, bounds, LLR and verdict."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    lower: float  # the bounds and the LLR are rounded to 4 places
    upper: float
    llr: float
    pairs: int  # pairs the test counted
    verdict: SprtVerdict
    rounds_after_verdict: int  # rounds that finished after the verdict (not counted)

    def to_json(self) -> Json:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "lower": self.lower,
            "upper": self.upper,
            "llr": self.llr,
            "pairs": self.pairs,
            "verdict": self.verdict.value,
            "rounds_after_verdict": self.rounds_after_verdict,
        }

    @classmethod
    def from_json(cls, d: JsonObject) -> SprtReport:
        try:
            verdict = SprtVerdict(d.text("verdict"))
        except ValueError:
            raise d.fail("verdict", "H1, H0, continue or inconclusive") from None
        return cls(
            d.num("elo0"),
            d.num("elo1"),
            d.num("alpha"),
            d.num("beta"),
            d.num("lower"),
            d.num("upper"),
            d.num("llr"),
            d.whole("pairs"),
            verdict,
            d.whole("rounds_after_verdict"),
        )


@dataclass(frozen=True)
class TimeSummary:
    """Wall times of a bot's runs, in ms: the 50th and 99th percentiles and the longest."""

    p50: float | None
    p99: float | None
    max: float | None


@dataclass(frozen=True)
class EvalBotStats:
    """One bot's measurements over the played rounds."""

    mean_gold: float | None
    mean_points: float | None
    runs: int
    time_ms: TimeSummary
    cpu_ms_max: float | None
    peak_mem_mb: float
    failed_runs: Mapping[str, int]  # verdict -> runs, without OK
    void_moves: int

    @property
    def failed_total(self) -> int:
        return sum(self.failed_runs.values())

    def to_json(self) -> Json:
        t = self.time_ms
        return {
            "mean_gold": self.mean_gold,
            "mean_points": self.mean_points,
            "runs": self.runs,
            "time_ms": {"p50": t.p50, "p99": t.p99, "max": t.max},
            "cpu_ms_max": self.cpu_ms_max,
            "peak_mem_mb": self.peak_mem_mb,
            "failed_runs": dict(self.failed_runs),
            "failed_total": self.failed_total,
            "void_moves": self.void_moves,
        }

    @classmethod
    def from_json(cls, d: JsonObject) -> EvalBotStats:
        t = d.obj("time_ms")
        return cls(
            d.num_or_none("mean_gold"),
            d.num_or_none("mean_points"),
            d.whole("runs"),
            TimeSummary(t.num_or_none("p50"), t.num_or_none("p99"), t.num_or_none("max")),
            d.num_or_none("cpu_ms_max"),
            d.num("peak_mem_mb"),
            d.counts("failed_runs"),
            d.whole("void_moves"),
        )


@dataclass(frozen=True)
class EvalRoundLine:
    """One round as the summary lists it: its map, BOT_A's seat, and what came of it.

    ``gold`` and ``points`` are (BOT_A, BOT_B).  A round the judge abandoned
    has no ``outcome`` and says why in ``error``; the result fields are then None.
    """

    round: int
    pair: int | None  # the map's place in the book, 1-based (None in files of 0.1.0)
    map: str
    size: str
    turns: int
    map_seed: int
    seed: int
    a_seat: int
    outcome: str | None  # "win", "draw" or "loss" for BOT_A; None: abandoned
    error: str | None = None
    gold: tuple[int, int] | None = None
    points: tuple[int, int] | None = None
    end_reason: str | None = None
    turns_played: int | None = None
    replay: str | None = None

    def to_json(self) -> Json:
        d: Json = {"round": self.round}
        if self.pair is not None:
            d["pair"] = self.pair
        d.update(
            {
                "map": self.map,
                "size": self.size,
                "turns": self.turns,
                "map_seed": self.map_seed,
                "seed": self.seed,
                "a_seat": self.a_seat,
            }
        )
        if self.outcome is None:
            d.update({"outcome": None, "error": self.error})
            return d
        d.update(
            {
                "outcome": self.outcome,
                "gold": list(self.gold) if self.gold is not None else None,
                "points": list(self.points) if self.points is not None else None,
                "end_reason": self.end_reason,
                "turns_played": self.turns_played,
                "replay": self.replay,
            }
        )
        return d

    @classmethod
    def from_json(cls, d: JsonObject) -> EvalRoundLine:
        outcome = d.text_or_none("outcome")
        if outcome not in (None, "win", "draw", "loss"):
            raise d.fail("outcome", "win, draw, loss or null")
        base = (
            d.whole("round"),
            d.whole_or_none("pair"),
            d.text("map"),
            d.text("size"),
            d.whole("turns"),
            d.whole("map_seed"),
            d.whole("seed"),
            d.whole("a_seat"),
            outcome,
        )
        if outcome is None:
            return cls(*base, error=d.text_or_none("error"))
        return cls(
            *base,
            gold=d.pair("gold", "int"),
            points=d.pair("points", "int"),
            end_reason=d.text("end_reason"),
            turns_played=d.whole("turns_played"),
            replay=d.text_or_none("replay"),
        )


@dataclass(frozen=True)
class AbandonedRound:
    """A round the judge abandoned (no one's fault), and why."""

    round: int
    error: str | None

    def to_json(self) -> Json:
        return {"round": self.round, "error": self.error}


# ------------------------------------------------------------------ the summary
@dataclass(frozen=True)
class EvalSummary:
    """A whole evaluation: the request, the counts and statistics, and every round.

    Only the rounds of the pairs that were counted are in it (all of them,
    unless an SPRT decided while other rounds were still running: those are
    in ``sprt.rounds_after_verdict`` alone).
    """

    bots: tuple[EvalBot, EvalBot]  # BOT_A, BOT_B
    seed: int
    book: str | None  # the --book file, when the maps came from one
    rounds_planned: int
    rounds_played: int
    rounds_aborted: tuple[AbandonedRound, ...]
    sizes: tuple[str, ...]  # "RxC"
    turns: tuple[int, ...] | None  # None: K varied per map
    jobs: int | None  # rounds at once; None: a cluster's choice
    time_s: float | None  # the time limit per run (None: lifted)
    memory_mb: int
    result: WinDrawLoss
    pairs: PairsReport | None  # None in files of 0.1.0
    sprt: SprtReport | None  # None without a test
    mirrored_maps: tuple[int, int]  # (maps whose two rounds gave the same result, of maps)
    by_seat: tuple[WinDrawLoss, WinDrawLoss]  # BOT_A in seat 0, in seat 1
    by_size: Mapping[str, WinDrawLoss]  # in the order of the sizes
    end_reasons: Mapping[str, int]  # sorted by reason
    a: EvalBotStats
    b: EvalBotStats
    out: str | None  # the --out folder, when the replays were kept
    rounds: tuple[EvalRoundLine, ...]
    cluster: str | None = None  # the --cluster address the rounds were played on

    @property
    def maps(self) -> int:
        """Maps counted (each is a pair of rounds, complete or not); 0.1.0: maps played."""
        if self.pairs is not None:
            return self.pairs.pairs + self.pairs.incomplete
        return len({r.map for r in self.rounds})

    def distinct_games(self) -> tuple[int, int, int]:
        """BOT_A's games won, drawn and lost, a pair that was one game played twice
        (the same moves in both seat orders) counted once.

        Deterministic bots on a symmetric map replay one game in both seat orders, so
        a book of N maps may hold N games, not 2N: the rounds overstate the sample.  A
        pair not known to be mirrored (a file of 0.1.0, an unreadable replay) counts
        both its rounds.
        """
        mirrored = {p.pair for p in self.pairs.lines if p.mirrored} if self.pairs else set()
        counts = {"win": 0, "draw": 0, "loss": 0}
        seen: set[int] = set()
        for r in self.rounds:
            if r.outcome is None:
                continue
            if r.pair is not None and r.pair in mirrored:
                if r.pair in seen:
                    continue
                seen.add(r.pair)
            counts[r.outcome] += 1
        return counts["win"], counts["draw"], counts["loss"]

    def to_json(self) -> Json:
        d: Json = {
            "bots": {"a": self.bots[0].to_json(), "b": self.bots[1].to_json()},
            "seed": self.seed,
            "book": self.book,
            "rounds_planned": self.rounds_planned,
            "rounds_played": self.rounds_played,
            "rounds_aborted": [r.to_json() for r in self.rounds_aborted],
            "sizes": list(self.sizes),
            "turns": list(self.turns) if self.turns is not None else "varied",
            "jobs": self.jobs,
            "limits": {"time_s": self.time_s, "memory_mb": self.memory_mb},
            "result": self.result.to_json(),
            "wilson95_assumes": WILSON_ASSUMES,
            "pairs": self.pairs.to_json() if self.pairs is not None else None,
            "sprt": self.sprt.to_json() if self.sprt is not None else None,
            "mirrored_maps": {"same_result": self.mirrored_maps[0], "of": self.mirrored_maps[1]},
            "by_seat": {f"a_in_seat_{s}": self.by_seat[s].to_json() for s in (0, 1)},
            "by_size": {k: v.to_json() for k, v in self.by_size.items()},
            "end_reasons": dict(self.end_reasons),
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "out": self.out,
            "rounds": [r.to_json() for r in self.rounds],
        }
        if self.cluster is not None:
            d["cluster"] = self.cluster
        return d

    @classmethod
    def from_json(cls, data: Any) -> EvalSummary:
        """An eval.json (or ``--json`` output) of this judge or an older one."""
        d = JsonObject(data, "eval")
        bots, limits, by_seat = d.obj("bots"), d.obj("limits"), d.obj("by_seat")
        turns = d.d.get("turns")
        if turns != "varied" and not (isinstance(turns, list) and all(map(is_int, turns))):
            raise d.fail("turns", "a list of K values or 'varied'")
        sizes = d.d.get("sizes")
        if not (isinstance(sizes, list) and all(isinstance(s, str) for s in sizes)):
            raise d.fail("sizes", "a list of sizes")
        mirrored = d.obj("mirrored_maps")
        by_size = d.obj("by_size")
        return cls(
            bots=(EvalBot.from_json(bots.obj("a")), EvalBot.from_json(bots.obj("b"))),
            seed=d.whole("seed"),
            book=d.text_or_none("book"),
            rounds_planned=d.whole("rounds_planned"),
            rounds_played=d.whole("rounds_played"),
            rounds_aborted=tuple(
                AbandonedRound(r.whole("round"), r.text_or_none("error"))
                for r in d.objs("rounds_aborted")
            ),
            sizes=tuple(sizes),
            turns=None if turns == "varied" else tuple(turns),
            jobs=d.whole_or_none("jobs"),
            time_s=limits.num_or_none("time_s"),
            memory_mb=limits.whole("memory_mb"),
            result=WinDrawLoss.from_json(d.obj("result")),
            pairs=PairsReport.from_json(d.obj("pairs")) if d.d.get("pairs") else None,
            sprt=SprtReport.from_json(d.obj("sprt")) if d.d.get("sprt") else None,
            mirrored_maps=(mirrored.whole("same_result"), mirrored.whole("of")),
            by_seat=(
                WinDrawLoss.from_json(by_seat.obj("a_in_seat_0")),
                WinDrawLoss.from_json(by_seat.obj("a_in_seat_1")),
            ),
            by_size={k: WinDrawLoss.from_json(by_size.obj(k)) for k in by_size.d},
            end_reasons=d.counts("end_reasons"),
            a=EvalBotStats.from_json(d.obj("a")),
            b=EvalBotStats.from_json(d.obj("b")),
            out=d.text_or_none("out"),
            rounds=tuple(EvalRoundLine.from_json(r) for r in d.objs("rounds")),
            cluster=d.text_or_none("cluster"),
        )
