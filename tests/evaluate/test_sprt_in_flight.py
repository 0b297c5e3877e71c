"""``judge eval --sprt``: the rounds still running when the test decides are finished, never
left half-written (``replay.jsonl.part``) or lost from the record (README's promise).

In-process bots (``tests/referee/fakes.py``), three rounds at a time.  The rounds of the
map after the one that decides wait, at their second turn, until the test has decided: so
they are in flight then, whatever the machine's speed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from judge.bots import BotSpec
from judge.evaluate import EvalRequest, PairTracker, evaluate
from judge.maps import cell_token
from judge.pentanomial import Sprt, SprtVerdict
from judge.scheduler import ThreadExecutor
from tests.referee.fakes import FakeSandbox
from tests.tournament._helpers import fake_greedy

SPRT = Sprt(0, 400)  # five won pairs in a row decide it


def _request() -> EvalRequest:
    bots = [BotSpec(n, n, None, ("fake",)) for n in ("a", "b")]
    return EvalRequest(bots, ["a", "b"], 40, [(5, 5)], [8], seed=3, jobs=3, sprt=SPRT)


def _decides_at(out: Path) -> int:
    """The pair (0-based map) whose completion decides, played one round at a time."""
    tracker = PairTracker(SPRT)
    sb = FakeSandbox({"a": fake_greedy(0), "b": _stay})
    req = _request()
    req.jobs = 1
    evaluate(req, sb, out, keep_out=False, tracker=tracker)
    assert tracker.verdict is SprtVerdict.H1
    return len(tracker.pairs) - 1


def _stay(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
    tok = map_inp.split()
    m, n = int(tok[0]), int(tok[1])
    if tok[3] == "0":
        f = tok[9 : 9 + m * n].index("0")
        return f"{f // n + 1} {f % n + 1}".encode(), b"x", "OK"
    return f"{tok[3]} {tok[4]}".encode(), state, "OK"


def test_rounds_in_flight_when_the_sprt_decides_are_finished_and_recorded(tmp_path: Path) -> None:
    d = _decides_at(tmp_path / "one-at-a-time")
    out = tmp_path / "three-at-a-time"
    req = _request()
    later = req.plans()[d + 1].game_map()  # the map after the deciding one
    later_rows = [
        " ".join(cell_token(v) for v in later.cells[r * later.cols : (r + 1) * later.cols])
        for r in range(later.rows)
    ]
    decided = threading.Event()
    waited: list[bool] = []

    def waits_on_the_later_map(map_inp: str, state: bytes | None):  # type: ignore[no-untyped-def]
        lines = map_inp.splitlines()
        if lines[1].split() == ["0", "0", "0", "0"]:
            move, _, verdict = _stay(map_inp, state)
            return move, b"wait" if lines[3:] == later_rows else b"x", verdict
        if state == b"wait":  # its second turn: the test decides meanwhile
            waited.append(decided.wait(20))
            state = b"x"
        return _stay(map_inp, state)

    tracker = PairTracker(SPRT)
    sb = FakeSandbox({"a": fake_greedy(0), "b": waits_on_the_later_map})

    def done(_o: object) -> None:
        if tracker.decided:
            decided.set()

    summary = evaluate(req, sb, out, on_done=done, tracker=tracker, executor=ThreadExecutor(sb, 3))
    assert waited and all(waited)  # a round of the later map was in flight at the verdict
    assert summary.sprt is not None and summary.sprt.verdict is SprtVerdict.H1
    assert summary.sprt.pairs == d + 1
    assert summary.sprt.rounds_after_verdict >= 1  # finished, and not counted
    assert summary.rounds_aborted == ()
    assert list(out.rglob("*.part")) == []  # nothing left half-written
    replays = sorted(out.rglob("replay.jsonl"))
    assert len(replays) == 2 * (d + 1) + summary.sprt.rounds_after_verdict
