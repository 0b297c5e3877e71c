"""What went wrong for a team, as the results pages and the projector show it (pure: no rich).

Two kinds of trouble leave a boat where it is (ruling R10): a *failed run*
(the program crashed, ran out of time or memory, wrote too much; or the
judge's own failure, run again) and a *void move* (the program ran fine but
its answer did not count: no MOVE.OUT, not two numbers, a cell not next to
the boat...).  Every page names them with the same badges, the same legend
and, for a void move, :mod:`judge.voidwhy`'s sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge import voidwhy
from judge.records import SeatRun, SeatStats

#: The verdicts of a failed run, in the order the pages list them.
FAILED_VERDICTS = ("TLE", "RE", "MLE", "OLE", "IE")
#: The badge of void moves.
VOID = "void"

#: A failed run in a word or two: the projector's caption and the badges' legend.
VERDICT_WORDS = {
    "TLE": "time-out",
    "RE": "crash",
    "MLE": "out of memory",
    "OLE": "file too big",
    "IE": "judge failure",
}

#: The legend under every table of badges.
LEGEND = (
    ("TLE", "time-out: the program ran past its time limit"),
    ("RE", "crash: the program stopped with an error"),
    ("MLE", "out of memory: the program used more than its memory limit"),
    ("OLE", "file too big: a file the program wrote grew past its limit"),
    ("IE", "judge failure: the judge's own failure (not the team's); the run was played again"),
    (VOID, "void move: the program ran, but its move did not count (the boat stayed)"),
)

#: Reasons that are a failed run, not a void answer: counted under the run's verdict.
_RUN_FAILED = {
    voidwhy.Why.TIME,
    voidwhy.Why.MEMORY,
    voidwhy.Why.CRASH,
    voidwhy.Why.FILE_SIZE,
    voidwhy.Why.CRLF,
    voidwhy.Why.RUN_FAILED,
}


#: Void by the rules but no one's mistake: both boats asked for the same start until the
#: re-asks ran out.  Said on the board, never counted against a team.
_NO_ONES_FAULT = {voidwhy.Why.REASKS_EXHAUSTED}


def is_answer_void(why: str) -> bool:
    """A void move whose program ran fine: its answer did not count, by its own mistake."""
    found = voidwhy.parse(why)
    return found is None or found not in _RUN_FAILED | _NO_ONES_FAULT


def reason(why: str) -> str:
    """A void move's reason in :mod:`judge.voidwhy`'s words, up to its dash (what a page
    has room for): ``no MOVE.OUT``, ``the cell is not next to the boat``."""
    return voidwhy.words(why).split(" \u2014 ", 1)[0]


@dataclass
class SeatFailures:
    """A team's failed runs (by verdict) and void moves (by reason) over some rounds."""

    verdicts: dict[str, int] = field(default_factory=dict)
    void: dict[str, int] = field(default_factory=dict)

    @property
    def void_moves(self) -> int:
        return sum(self.void.values())

    def __bool__(self) -> bool:
        return bool(self.verdicts or self.void)

    def add(self, other: SeatFailures) -> None:
        for v, n in other.verdicts.items():
            self.verdicts[v] = self.verdicts.get(v, 0) + n
        for w, n in other.void.items():
            self.void[w] = self.void.get(w, 0) + n

    def void_text(self) -> str:
        """``41 × the cell is not next to the boat; 2 × no MOVE.OUT`` (most first)."""
        ranked = sorted(self.void.items(), key=lambda kv: (-kv[1], kv[0]))
        return "; ".join(f"{n} \u00d7 {reason(w)}" for w, n in ranked)

    def badges(self) -> list[tuple[str, int]]:
        """(kind, count) in the pages' order: the failed runs, then the void moves."""
        out = [(v, self.verdicts[v]) for v in FAILED_VERDICTS if self.verdicts.get(v)]
        if self.void_moves:
            out.append((VOID, self.void_moves))
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "badges": [[k, n] for k, n in self.badges()],
            "void": [[reason(w), n] for w, n in sorted(self.void.items(), key=lambda kv: -kv[1])],
        }


def from_stats(stats: SeatStats) -> SeatFailures:
    """A seat's failures in a round, from the round's result (what the ledger keeps)."""
    verdicts = {v: n for v, n in stats.verdicts.items() if v in FAILED_VERDICTS and n}
    void = {w: n for w, n in stats.why_void.items() if n and is_answer_void(w)}
    return SeatFailures(verdicts, void)


def add_run(into: SeatFailures, run: SeatRun) -> None:
    """One turn's run of a seat, as a replay records it."""
    if run.verdict in FAILED_VERDICTS:
        into.verdicts[run.verdict] = into.verdicts.get(run.verdict, 0) + 1
        return
    why = voidwhy.of_run(run)
    if why is not None and is_answer_void(why.value):
        into.void[why.value] = into.void.get(why.value, 0) + 1


def caption(run: SeatRun | None) -> str | None:
    """Why a boat did not go where its program asked this turn, in a few words, or None:
    ``time-out``, ``crash``, ``void: the cell is not next to the boat``."""
    if run is None:
        return None
    if run.verdict in VERDICT_WORDS:
        return VERDICT_WORDS[run.verdict]
    why = voidwhy.of_run(run)
    if why is None:
        return None
    if why in _NO_ONES_FAULT:
        return reason(why.value)
    if not is_answer_void(why.value):
        return "crash" if why in (voidwhy.Why.CRASH, voidwhy.Why.CRLF) else voidwhy.words(why)
    return f"void: {reason(why.value)}"
