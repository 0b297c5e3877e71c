"""Which protections are off: one answer, from the sandbox's Isolation record (Isolation.off),
for the record the sandbox made and for the one read back from a replay or a worker."""

from __future__ import annotations

from judge.sandbox import Isolation

REPORT = Isolation(
    (
        ("exec helper", True, "C helper"),
        ("separate uid per seat", False, "the judge is not root"),
        ("no network", True, "own network namespace"),
        ("memory limit by cgroup", False, "no memory controller"),
    )
)


def test_off_names_the_protections_that_are_off_in_the_reports_order() -> None:
    assert REPORT.off() == ["separate uid per seat", "memory limit by cgroup"]
    assert Isolation((("exec helper", True, ""),)).off() == []
    assert REPORT.describe().startswith("2 of 4 protections OFF")


def test_a_record_read_back_says_the_same_and_a_damaged_entry_is_off() -> None:
    back = Isolation.from_dict(REPORT.as_dict())
    assert back == REPORT and back.off() == REPORT.off()
    damaged = Isolation.from_dict({"exec helper": {"on": True}, "no network": "yes", "ipc": {}})
    assert damaged.off() == ["no network", "ipc"]
