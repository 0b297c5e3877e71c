"""``judge eval``'s engine: many rounds between two bots on generated maps, and their statistics.

Design decisions (the command's help repeats them for users):

* **Maps.**  Map ``i`` is :func:`judge.mapgen.generate_map` with a seed derived
  from the evaluation seed and ``i``; its size and K come from the same
  derivation, so one ``--seed`` fixes every map.  Sizes are given as ``N``
  (an N x N map) or ``RxC`` (R rows, C columns) and taken in turn, so every
  size gets the same number of maps.  Without ``--turns``, K is drawn per map
  from every even value 2..100; with ``--turns`` the maps go through every
  (size, K) pair in turn.
* **Seats.**  Every map is played twice, BOT_A in seat 0 and then in seat 1,
  with the same placement seed: a map that favours one seat favours both bots
  once.  ``--rounds`` counts rounds, so an odd count is rounded up.
* **Parallelism.**  Rounds are tasks of :mod:`judge.scheduler`: threads that share one
  :class:`~judge.sandbox.Sandbox`.  Inside a round the two programs run one
  after the other (``sequential``): the result is the same (moves are
  simultaneous in the rules, not in time), and ``--jobs J`` then means at most
  J bot processes at once, so with J <= cores each bot's timings are those of
  a bot with a core to itself.
* **Statistics** are from BOT_A's view, and their unit is the *pair* (a
  map's two rounds): pairs are independent, rounds of a pair are not (the
  rules are seat-symmetric, so deterministic bots play the same game
  mirrored).  :mod:`judge.pentanomial` turns the pair scores into the
  pentanomial counts, the score, the Elo difference with a 95 % interval
  from the pair variance, LOS and the SPRT's LLR.  The round win rate keeps
  its 95 % Wilson score interval, labelled as assuming independent rounds.
  :class:`PairTracker` feeds pairs to the SPRT in map order, so a verdict
  never depends on which round finished first.
* **Maps** may also come from a book (:mod:`judge.evalbook`).

Same seed, same bots (deterministic ones) -> the same rounds and results;
only timings differ.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge.bots import BotSpec
from judge.errors import JudgeError
from judge.inputfiles import excerpt
from judge.mapgen import generate_map
from judge.maps import MAX_SIZE, MAX_TURNS, MIN_SIZE, MIN_TURNS, GameMap, load_map
from judge.pentanomial import (
    Pentanomial,
    Sprt,
    SprtVerdict,
    estimate,
    round_points,
)
from judge.records import RoundResult, pos_json
from judge.records.evaluation import (
    AbandonedRound,
    EloInterval,
    EvalBot,
    EvalBotStats,
    EvalRoundLine,
    EvalSummary,
    PairLine,
    PairsReport,
    SprtReport,
    TimeSummary,
    WinDrawLoss,
)
from judge.records.replayread import ReplayError, read_replay
from judge.referee import RoundConfig
from judge.sandbox import Limits, Sandbox
from judge.scheduler import Executor, RoundDone, RoundStatus, RoundTask, ThreadExecutor
from judge.seeds import derive
from judge.stats import percentile

#: z for a two-sided 95 % interval (the 0.975 quantile of the standard normal).
Z95 = 1.959963984540054
#: K values drawn from when --turns is not given: every even value the rules allow.
ALL_TURNS = tuple(range(MIN_TURNS, MAX_TURNS + 1, 2))

Size = tuple[int, int]


class EvalError(JudgeError, ValueError):
    """A bad request (size list, K list, round count), or a round that cannot be played at all.

    The message names the option or the problem; ``exit_code`` is 2 unless the
    judge itself failed (3).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


# --------------------------------------------------------------------------- maths


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Chosen over the normal ("Wald") interval because evaluations are often
    small and lopsided: 10 wins of 10 gives Wald [1, 1], Wilson [0.72, 1].
    With no trials nothing is known: (0, 1).  Counts may be fractional (a
    map's two rounds counted as one trial: see :func:`summarize`).
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return (0.0, 1.0)
    n = trials
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


# ------------------------------------------------------------------ the request


def parse_sizes(text: str) -> list[Size]:
    """``"5,9,7x11"`` -> [(5, 5), (9, 9), (7, 11)]: N is square, RxC is R rows by C columns."""
    sizes: list[Size] = []
    for tok in (t.strip().lower() for t in text.split(",")):
        if not tok:
            continue
        parts = tok.split("x")
        try:
            dims = [int(p) for p in parts]
        except ValueError:
            raise EvalError(f"--sizes: {tok!r} is not N or RxC (e.g. 9 or 7x11)") from None
        if len(dims) == 1:
            dims = dims * 2
        if len(dims) != 2:
            raise EvalError(f"--sizes: {tok!r} is not N or RxC (e.g. 9 or 7x11)")
        for d in dims:
            if not MIN_SIZE <= d <= MAX_SIZE or d % 2 == 0:
                raise EvalError(
                    f"--sizes: {tok!r}: sizes must be odd, from {MIN_SIZE} to {MAX_SIZE}"
                )
        size = (dims[0], dims[1])
        if size not in sizes:
            sizes.append(size)
    if not sizes:
        raise EvalError("--sizes: give at least one size, e.g. 5,9,15")
    return sizes


def parse_turns(text: str) -> list[int]:
    """``"40"`` or ``"10,40,100"``: each an even K from 2 to 100."""
    values: list[int] = []
    for tok in (t.strip() for t in text.split(",")):
        if not tok:
            continue
        try:
            k = int(tok)
        except ValueError:
            raise EvalError(f"--turns: {excerpt(tok)} is not a number") from None
        if not MIN_TURNS <= k <= MAX_TURNS or k % 2:
            raise EvalError(
                f"--turns: {excerpt(tok)}: K must be even, from {MIN_TURNS} to {MAX_TURNS}"
            )
        if k not in values:
            values.append(k)
    if not values:
        raise EvalError("--turns: give at least one K, e.g. 40 or 10,40,100")
    return values


def derive_seed(tag: str, seed: int, index: int) -> int:
    """A 48-bit seed from (purpose, evaluation seed, index): independent streams, one number."""
    return derive(f"ocean-eval-{tag}", seed, index)


@dataclass(frozen=True)
class MapPlan:
    """One map of the book; it is played twice (once per seat order).

    A generated map (``path`` None) is :func:`generate_map` of its size, K and
    ``map_seed``; a map file (from ``--book``) is read from ``path`` with K
    replaced by ``turns``.  Plain data, so a round can be shipped to a worker.
    """

    index: int
    rows: int
    cols: int
    turns: int
    map_seed: int
    round_seed: int
    path: str | None = None  # a map file, absolute
    name: str | None = None  # the file as the book names it

    @property
    def size_label(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def label(self) -> str:
        if self.path is not None:
            return f"{self.name or self.path}-k{self.turns}"
        return f"gen-{self.rows}x{self.cols}-k{self.turns}-s{self.map_seed}"

    def game_map(self) -> GameMap:
        """The sea itself (generated, or read from its file)."""
        if self.path is None:
            return generate_map(
                self.rows, self.cols, self.turns, seed=self.map_seed, name=self.label
            )
        return load_map(self.path).with_turns(self.turns)


def plan_maps(
    n_maps: int, sizes: Sequence[Size], turns: Sequence[int] | None, seed: int
) -> list[MapPlan]:
    """The maps of an evaluation, fully determined by the arguments."""
    if n_maps < 1:
        raise EvalError("--rounds: play at least 2 rounds (one map, both seat orders)")
    return [plan_map(i, sizes, turns, seed) for i in range(n_maps)]


def plan_map(i: int, sizes: Sequence[Size], turns: Sequence[int] | None, seed: int) -> MapPlan:
    """Map ``i`` of the default book: sizes (and K values) in turn, K varied without ``turns``."""
    combos: list[tuple[Size, int | None]]
    if turns:
        combos = [(s, k) for s in sizes for k in turns]
    else:
        combos = [(s, None) for s in sizes]
    (rows, cols), k = combos[i % len(combos)]
    if k is None:
        k = random.Random(derive_seed("turns", seed, i)).choice(ALL_TURNS)
    return MapPlan(i, rows, cols, k, derive_seed("map", seed, i), derive_seed("round", seed, i))


@dataclass(frozen=True)
class RoundSpec:
    """Round ``number`` (1-based): ``plan``'s map with BOT_A in seat ``a_seat``."""

    number: int
    plan: MapPlan
    a_seat: int


def round_specs(plans: Sequence[MapPlan]) -> list[RoundSpec]:
    """Each map twice, BOT_A in seat 0 then in seat 1, in map order."""
    out: list[RoundSpec] = []
    for p in plans:
        for a_seat in (0, 1):
            out.append(RoundSpec(len(out) + 1, p, a_seat))
    return out


# ------------------------------------------------------------------ the playing


@dataclass(frozen=True)
class EvalRound:
    """A played round seen from BOT_A: ``result`` itself stays in seat order."""

    spec: RoundSpec
    result: RoundResult | None  # None when the judge had to abandon the round
    error: str | None = None
    trace: str | None = None  # digest of the game from BOT_A's view (see game_trace)

    @property
    def a(self) -> int:
        return self.spec.a_seat

    @property
    def b(self) -> int:
        return 1 - self.spec.a_seat

    @property
    def outcome(self) -> str | None:
        """ "win", "draw" or "loss" for BOT_A; None for an abandoned round."""
        return self.result.result_for(self.a) if self.result is not None else None


def round_task(
    spec: RoundSpec,
    bots: Sequence[BotSpec],
    names: Sequence[str],
    limits: Limits,
    out_dir: Path,
) -> RoundTask:
    """Round ``spec`` as a scheduler task: its map made (or read), BOT_A in its seat."""
    p = spec.plan
    order = (0, 1) if spec.a_seat == 0 else (1, 0)
    cfg = RoundConfig(
        game_map=p.game_map(), map_label=p.label, seed=p.round_seed, limits=limits, sequential=True
    )
    rel = f"round-{spec.number:04d}"
    return RoundTask(
        key=str(spec.number),
        config=cfg,
        bots=(bots[order[0]], bots[order[1]]),
        names=(names[order[0]], names[order[1]]),
        out_dir=out_dir / rel,
        replay_rel=f"{rel}/replay.jsonl",
    )


def game_trace(replay: Path, a_seat: int) -> str | None:
    """A digest of a round as BOT_A saw it: per turn, both moves and positions, A's first.

    Two rounds of a pair with equal traces are the same game mirrored: every
    bot asked the same moves from the same cells in both seat orders.  None
    when the replay cannot be read.
    """
    order = (a_seat, 1 - a_seat)
    h = hashlib.sha256()
    try:
        records = read_replay(replay).records
    except ReplayError:
        return None
    for rec in records:
        if rec.runs is None:
            return None
        runs = [rec.runs[s] for s in order]
        item = [
            rec.turn,
            [pos_json(r.move) for r in runs],
            [pos_json(rec.boats[s].position) for s in order],
            [r.status.value if r.status is not None else None for r in runs],
        ]
        h.update(json.dumps(item, separators=(",", ":")).encode())
    return h.hexdigest()


def play_rounds(
    bots: Sequence[BotSpec],
    names: Sequence[str],
    specs: Sequence[RoundSpec],
    sandbox: Sandbox | None,
    limits: Limits,
    out_dir: Path,
    jobs: int,
    on_done: Callable[[EvalRound], None] | None = None,
    stop: threading.Event | None = None,
    executor: Executor | None = None,
    no_more: threading.Event | None = None,
) -> list[EvalRound]:
    """Play every round, ``jobs`` at a time (:mod:`judge.scheduler`); results in round order.

    ``on_done`` is called in the calling thread as each round finishes (for a
    progress bar, or the SPRT that sets ``no_more``).  Once ``no_more`` is set no
    new round starts, and the rounds in flight are played to their end.  Once
    ``stop`` is set (a signal) no new round starts either, and the rounds in
    flight stop at their next turn (they are not returned).  A round the judge abandons is recorded and the rest go on; a
    round that cannot be played at all (e.g. a program its seat cannot run)
    stops everything, since every later round would fail the same way: it is
    raised as an :class:`EvalError` with the status to exit with.
    """
    if executor is None and jobs < 1:
        raise EvalError("--jobs must be at least 1")
    by_key = {str(s.number): s for s in specs}
    results: dict[int, EvalRound] = {}
    failures: list[RoundDone] = []
    stop = stop if stop is not None else threading.Event()

    def done(d: RoundDone) -> None:
        spec = by_key[d.task.key]
        if d.status is RoundStatus.FAILED:
            failures.append(d)
            stop.set()
            return
        if d.status is RoundStatus.STOPPED:
            return
        trace = None
        if d.result is not None:
            trace = game_trace(d.task.out_dir.parent / d.result.replay, spec.a_seat)
        r = EvalRound(spec, d.result, d.error, trace)
        results[spec.number] = r
        if on_done is not None:
            on_done(r)

    # Taken one by one as a seat frees up: a task not yet taken when no_more is set never starts.
    tasks = (
        round_task(s, bots, names, limits, out_dir)
        for s in specs
        if no_more is None or not no_more.is_set()
    )
    if executor is None:
        if sandbox is None:
            raise ValueError("play_rounds needs a sandbox or an executor")
        executor = ThreadExecutor(sandbox, jobs)
    executor.play(tasks, stop, done)
    if failures:
        first = failures[0]
        raise EvalError(first.error or "a round could not be played", first.exit_code)
    return [results[n] for n in sorted(results)]


# ------------------------------------------------------------------ the pairs


@dataclass(frozen=True)
class PairResult:
    """A map's two rounds, scored as one pair from BOT_A's view."""

    plan: MapPlan
    score: float | None  # 0, 0.5, 1, 1.5 or 2; None when a round was abandoned
    mirrored: bool | None  # the same game with seats swapped; None when unknown


class PairTracker:
    """Pairs in map order as their rounds come in, and the SPRT on them.

    Rounds finish in any order (``--jobs``), but a pair is counted only when
    every earlier map is done, so the test sees the pairs in book order and
    its verdict does not depend on timing or on the number of jobs.  Once the
    LLR crosses a bound the verdict is fixed: later pairs (rounds that were
    already running) are kept out of every statistic.
    """

    def __init__(self, sprt: Sprt | None = None, max_pairs: int | None = None):
        self.sprt = sprt
        self.max_pairs = max_pairs
        self.pairs: list[PairResult] = []  # counted pairs, in map order
        self.penta = Pentanomial()
        self.llr = 0.0
        self.verdict = SprtVerdict.CONTINUE
        self._waiting: dict[int, dict[int, EvalRound]] = {}

    @property
    def decided(self) -> bool:
        return self.verdict in (SprtVerdict.H1, SprtVerdict.H0)

    def add(self, outcome: EvalRound) -> bool:
        """Take a finished round; True when the SPRT has decided (stop starting rounds)."""
        self._waiting.setdefault(outcome.spec.plan.index, {})[outcome.spec.a_seat] = outcome
        while not self.decided:
            both = self._waiting.get(len(self.pairs))
            if both is None or len(both) < 2:
                break
            del self._waiting[len(self.pairs)]
            self._count(pair_of(both[0], both[1]))
        return self.decided

    def _count(self, pair: PairResult) -> None:
        self.pairs.append(pair)
        if pair.score is None:
            return
        self.penta = self.penta.add(pair.score)
        if self.sprt is not None:
            self.llr = self.sprt.llr(self.penta)
            self.verdict = self.sprt.verdict(self.llr)

    def finish(self) -> None:
        """No more rounds will come: a test still between its bounds is inconclusive."""
        if self.sprt is not None and not self.decided:
            self.verdict = SprtVerdict.INCONCLUSIVE

    def counted_maps(self) -> set[int]:
        return {p.plan.index for p in self.pairs}


def pair_of(first: EvalRound, second: EvalRound) -> PairResult:
    """Score a map's two rounds (BOT_A in seat 0, then in seat 1) as a pair."""
    if first.outcome is None or second.outcome is None:
        return PairResult(first.spec.plan, None, None)
    mirrored = None
    if first.trace is not None and second.trace is not None:
        mirrored = first.trace == second.trace
    score = round_points(first.outcome) + round_points(second.outcome)
    return PairResult(first.spec.plan, score, mirrored)


def pairs_from(outcomes: Sequence[EvalRound]) -> PairTracker:
    """A tracker fed with finished rounds (no test): every complete pair in map order."""
    t = PairTracker()
    for o in sorted(outcomes, key=lambda o: o.spec.number):
        t.add(o)
    return t


def _pairs_report(t: PairTracker) -> PairsReport:
    """The pentanomial report: counts, score, Elo with its 95 % interval, LOS, mirrored pairs."""
    est = estimate(t.penta)
    complete = [p for p in t.pairs if p.score is not None]
    elo = None
    if est is not None:
        elo = EloInterval(
            round(est.elo, 2),
            round(est.elo_lo, 2),
            round(est.elo_hi, 2),
            round(est.elo_pm, 2),
            round(est.los, 4),
        )
    return PairsReport(
        pairs=len(complete),
        incomplete=len(t.pairs) - len(complete),
        pentanomial=t.penta.counts,
        score=None if t.penta.score is None else round(t.penta.score, 4),
        elo=elo,
        mirrored=sum(1 for p in complete if p.mirrored),
        lines=tuple(PairLine(p.plan.index + 1, p.plan.label, p.score, p.mirrored) for p in t.pairs),
    )


def _sprt_report(t: PairTracker, rounds_after: int) -> SprtReport | None:
    if t.sprt is None:
        return None
    s = t.sprt
    return SprtReport(
        elo0=s.elo0,
        elo1=s.elo1,
        alpha=s.alpha,
        beta=s.beta,
        lower=round(s.lower, 4),
        upper=round(s.upper, 4),
        llr=round(t.llr, 4),
        pairs=t.penta.pairs,
        verdict=t.verdict,
        rounds_after_verdict=rounds_after,
    )


# ------------------------------------------------------------------ the summary


def _wdl(outcomes: Sequence[EvalRound]) -> WinDrawLoss:
    """Wins / draws / losses of BOT_A, the decided-round win rate and two 95 % intervals.

    ``wilson95`` treats every round as an independent trial.  But the two
    rounds of a map are not independent: the rules are seat-symmetric and
    MAP.INP is written from each bot's own view, so deterministic bots play the
    very same game in both seat orders (only a random placement differs).
    ``wilson95_per_map`` counts each map's two rounds as one trial (halves
    both counts): exact when the pairs mirror each other, conservative otherwise.
    """
    w = sum(1 for o in outcomes if o.outcome == "win")
    d = sum(1 for o in outcomes if o.outcome == "draw")
    lo = sum(1 for o in outcomes if o.outcome == "loss")
    decided = w + lo
    ci = wilson_interval(w, decided)
    ci_map = wilson_interval(w / 2, decided / 2)
    return WinDrawLoss(
        wins=w,
        draws=d,
        losses=lo,
        win_rate=(w / decided) if decided else None,
        wilson95=(round(ci[0], 4), round(ci[1], 4)),
        wilson95_per_map=(round(ci_map[0], 4), round(ci_map[1], 4)),
    )


def mirrored_maps(outcomes: Sequence[EvalRound]) -> tuple[int, int]:
    """(maps whose two seat orders gave the same result from BOT_A's view, maps with both played)."""
    by_map: dict[int, list[EvalRound]] = {}
    for o in outcomes:
        if o.result is not None:
            by_map.setdefault(o.spec.plan.index, []).append(o)
    both = [pair for pair in by_map.values() if len(pair) == 2]

    def view(o: EvalRound) -> tuple[object, ...]:
        r = o.result
        assert r is not None
        return (o.outcome, r.gold[o.a], r.gold[o.b], r.end_reason, r.turns_played)

    return sum(1 for a, b in both if view(a) == view(b)), len(both)


def _bot_stats(outcomes: Sequence[EvalRound], who: str) -> EvalBotStats:
    walls: list[float] = []
    cpus: list[float] = []
    verdicts: dict[str, int] = {}
    peak = 0.0
    runs = void = 0
    gold = points = 0
    played = 0
    for o in outcomes:
        r = o.result
        if r is None:
            continue
        played += 1
        seat = o.a if who == "a" else o.b
        st = r.stats[seat]
        walls += st.wall_ms
        cpus += st.cpu_ms
        for v, n in st.verdicts.items():
            verdicts[v] = verdicts.get(v, 0) + n
        peak = max(peak, st.peak_mem_mb)
        runs += st.runs
        void += st.void_moves
        gold += r.gold[seat]
        points += r.points[seat]
    walls.sort()
    cpus.sort()
    return EvalBotStats(
        mean_gold=round(gold / played, 2) if played else None,
        mean_points=round(points / played, 2) if played else None,
        runs=runs,
        time_ms=TimeSummary(
            percentile(walls, 50), percentile(walls, 99), walls[-1] if walls else None
        ),
        cpu_ms_max=cpus[-1] if cpus else None,
        peak_mem_mb=round(peak, 1),
        failed_runs={v: n for v, n in sorted(verdicts.items()) if v != "OK"},
        void_moves=void,
    )


def _round_line(o: EvalRound) -> EvalRoundLine:
    """A round as the summary lists it (BOT_A's gold and points first)."""
    p = o.spec.plan
    # a book may hold one map twice: rounds are paired by ``pair``, not by map
    where = (o.spec.number, p.index + 1, p.label, p.size_label, p.turns, p.map_seed, p.round_seed)
    r = o.result
    if r is None:
        return EvalRoundLine(*where, a_seat=o.a, outcome=None, error=o.error)
    return EvalRoundLine(
        *where,
        a_seat=o.a,
        outcome=o.outcome,
        gold=(r.gold[o.a], r.gold[o.b]),
        points=(r.points[o.a], r.points[o.b]),
        end_reason=r.end_reason.value,
        turns_played=r.turns_played,
        replay=r.replay,
    )


def summarize(
    outcomes: Sequence[EvalRound],
    names: Sequence[str],
    sources: Sequence[str],
    seed: int,
    plans: Sequence[MapPlan],
    sizes: Sequence[Size],
    turns: Sequence[int] | None,
    limits: Limits,
    jobs: int,
    out_dir: Path | None,
    tracker: PairTracker | None = None,
    book: str | None = None,
) -> EvalSummary:
    """The evaluation as one record (``judge eval --json`` prints its ``to_json()``).

    Only the rounds of the pairs ``tracker`` counted enter the statistics (all
    of them, unless an SPRT decided while rounds were still running).
    """
    if tracker is None:
        tracker = pairs_from(outcomes)
        tracker.finish()
    counted_maps = tracker.counted_maps()
    after = [o for o in outcomes if o.spec.plan.index not in counted_maps]
    outcomes = [o for o in outcomes if o.spec.plan.index in counted_maps]
    played = [o for o in outcomes if o.result is not None]
    reasons: dict[str, int] = {}
    for o in played:
        assert o.result is not None
        key = o.result.end_reason.value
        reasons[key] = reasons.get(key, 0) + 1
    by_size: dict[str, WinDrawLoss] = {}
    for label in dict.fromkeys(p.size_label for p in plans):
        group = [o for o in played if o.spec.plan.size_label == label]
        if group:
            by_size[label] = _wdl(group)
    return EvalSummary(
        bots=(EvalBot(names[0], sources[0]), EvalBot(names[1], sources[1])),
        seed=seed,
        book=book,
        rounds_planned=2 * len(plans),
        rounds_played=len(played),
        rounds_aborted=tuple(
            AbandonedRound(o.spec.number, o.error) for o in outcomes if o.result is None
        ),
        sizes=tuple(f"{r}x{c}" for r, c in sizes),
        turns=tuple(turns) if turns else None,
        jobs=jobs,
        time_s=limits.time_s,
        memory_mb=limits.memory_bytes // 2**20,
        result=_wdl(played),
        pairs=_pairs_report(tracker),
        sprt=_sprt_report(tracker, len(after)),
        mirrored_maps=mirrored_maps(outcomes),
        by_seat=(_wdl([o for o in played if o.a == 0]), _wdl([o for o in played if o.a == 1])),
        by_size=by_size,
        end_reasons=dict(sorted(reasons.items())),
        a=_bot_stats(played, "a"),
        b=_bot_stats(played, "b"),
        out=str(out_dir) if out_dir is not None else None,
        rounds=tuple(_round_line(o) for o in outcomes),
    )


@dataclass
class EvalRequest:
    """Everything ``judge eval`` (or a benchmark) asks for, checked.

    ``book``: the maps in order (from ``--book``); None plans them from
    ``seed`` over ``sizes``.  ``sprt``: stop as soon as the test decides
    (``rounds`` is then the cap).
    """

    bots: Sequence[BotSpec]
    names: Sequence[str]
    rounds: int
    sizes: Sequence[Size]
    turns: Sequence[int] | None
    seed: int
    jobs: int
    limits: Limits = field(default_factory=Limits)
    book: Sequence[MapPlan] | None = None
    book_name: str | None = None
    sprt: Sprt | None = None

    @property
    def n_maps(self) -> int:
        """Maps to play: each is played twice, so an odd round count is rounded up."""
        n = max(1, (self.rounds + 1) // 2)
        return n if self.book is None else min(n, len(self.book))

    def plans(self) -> list[MapPlan]:
        if self.book is not None:
            return list(self.book[: self.n_maps])
        return plan_maps(self.n_maps, self.sizes, self.turns, self.seed)


def evaluate(
    req: EvalRequest,
    sandbox: Sandbox | None,
    out_dir: Path,
    on_done: Callable[[EvalRound], None] | None = None,
    keep_out: bool = True,
    tracker: PairTracker | None = None,
    stop: threading.Event | None = None,
    executor: Executor | None = None,
) -> EvalSummary:
    """Plan, play and summarise (the one call a benchmark needs).

    ``tracker`` (made here unless given, so a progress display can read the
    LLR) sees every round as it finishes; with an SPRT no round starts once the
    test decides, and the rounds then in flight are played to their end (kept
    out of the statistics, counted in ``rounds_after_verdict``).  ``stop`` (a
    caller's, e.g. set by a signal) stops the play: no new round starts, rounds
    in flight stop at their next turn, and the summary is of the rounds that
    finished.  ``executor``: where the rounds are
    played (default: ``req.jobs`` threads on ``sandbox``; a cluster's,
    :mod:`judge.cluster`).
    """
    plans = req.plans()
    tracker = tracker if tracker is not None else PairTracker(req.sprt)
    stop = stop if stop is not None else threading.Event()
    decided = threading.Event()

    def done(o: EvalRound) -> None:
        if tracker.add(o):
            decided.set()
        if on_done is not None:
            on_done(o)

    outcomes = play_rounds(
        req.bots,
        req.names,
        round_specs(plans),
        sandbox,
        req.limits,
        out_dir,
        req.jobs,
        done,
        stop,
        executor,
        no_more=decided,
    )
    tracker.finish()
    return summarize(
        outcomes,
        req.names,
        [b.source for b in req.bots],
        req.seed,
        plans,
        req.sizes,
        req.turns,
        req.limits,
        req.jobs,
        out_dir if keep_out else None,
        tracker,
        req.book_name,
    )
