"""check-bot's words for a Windows program: its exception by name, a CR line end that is
no mistake, and a move printed to standard output beside an empty MOVE.OUT (pure)."""

from __future__ import annotations

from judge.checkbot import ERROR, RunFacts, battery, diagnose
from judge.sandbox import Limits

LIMITS = Limits(time_s=2.0)


def run(
    move: bytes | None,
    verdict: str = "OK",
    message: str = "exited normally",
    stdout: bytes = b"",
    misnamed: dict[str, bytes] | None = None,
) -> RunFacts:
    return RunFacts(
        verdict, 0.02, 0.02, 1 << 20, 5 if verdict == "RE" else 0, None, message, stdout, b"",
        move, misnamed or {},
    )  # fmt: skip


def findings(f: RunFacts, key: str = "reef") -> list[tuple[str, str, str | None, str]]:
    sit = {s.key: s for s in battery()}[key]
    return [(x.level, x.reason, x.cause, x.tag) for x in diagnose(sit, f, LIMITS).findings]


def test_a_windows_exception_is_named_as_judge_match_names_it() -> None:
    av = (
        "Windows exception 0xC0000005 (access violation: page fault on write access to "
        "0x0000000000000000 at address 0x0000000140001565)"
    )
    ((level, reason, cause, tag),) = findings(run(None, "RE", av))
    assert level == ERROR and tag == "crash" and av in reason
    assert cause is not None and cause.startswith(
        "a Windows access violation (exception 0xC0000005)"
    )
    assert "index out of range" in cause and "non-zero status" not in cause
    div = "Windows exception 0xC0000094 (integer divide by zero)"
    ((_, _, cause, _),) = findings(run(None, "RE", div))
    assert cause is not None and "integer divide by zero" in cause and "divided an integer" in cause
    # a native program that exits 1 without a word keeps its old cause
    ((_, _, cause, _),) = findings(run(None, "RE", "exited with code 1"))
    assert cause is not None and "non-zero status without an error message" in cause


def test_a_cr_at_the_end_of_the_line_is_neither_shown_nor_blamed() -> None:
    ((_, reason, cause, tag),) = findings(run(b"go north please\r\n"))
    assert reason == "MOVE.OUT's first line is 'go north please', not two integers"
    assert "\\" not in reason and "CR" not in (cause or "")
    assert tag == "not_two_integers"
    # a CR inside the line (old Mac line ends) is still the mistake, shown once
    ((_, reason, _, tag),) = findings(run(b"4 10\r5 9\r"))
    assert tag == "bare_cr" and "'4 10\\r5 9'" in reason and "\\\\r" not in reason
    # a file named with a CR (a script saved with CRLF) is shown as Python writes it, once
    ((_, _, cause, tag),) = findings(run(None, misnamed={"MOVE.OUT\r": b"4 10\n"}))
    assert tag == "misnamed" and "'MOVE.OUT\\r'" in (cause or "") and "\\\\r" not in (cause or "")


def test_an_empty_move_out_and_the_move_on_standard_output_is_told_so() -> None:
    ((level, reason, cause, tag),) = findings(run(b"", stdout=b"4 10\n"))
    assert (level, reason, tag) == (ERROR, "MOVE.OUT is empty", "stdout")
    assert cause is not None and cause.startswith(
        "it opened MOVE.OUT but printed the move on standard output ('4 10')"
    )
    ((_, _, cause, tag),) = findings(run(b"", stdout=b"thinking...\n"))
    assert tag == "empty" and "nothing was written" in (cause or "")
