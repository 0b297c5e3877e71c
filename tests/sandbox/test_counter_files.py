"""A reused group's counter files are opened once and read again at offset 0.

:class:`~judge.sandbox.cgroups.CounterFiles` must give what a fresh open would:
the file's text now, every time; the whole text of a file longer than its chunk;
OSError for a file that cannot be read; and once closed (the group removed) no
fd of its own is left open and a read opens the file for that read alone.  A
real cgroup's counters, read so from one fd, follow a process's memory.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from judge.sandbox.cgroups import CounterFiles, RunCgroup
from judge.sandbox.cpuwait import PsiMeter, io_stall_us, read_psi_totals


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def rewrite(path: Path, text: str) -> None:
    """The same file (same inode) with new text, as the kernel's counters change."""
    with open(path, "r+", encoding="ascii") as f:
        f.truncate(0)
        f.write(text)


def test_each_read_gives_the_file_as_it_is_now_from_one_fd(tmp_path: Path) -> None:
    counter = tmp_path / "cpu.stat"
    counter.write_text("usage_usec 10\nuser_usec 7\n")
    files = CounterFiles()
    before = open_fds()
    assert files.read(str(counter)) == "usage_usec 10\nuser_usec 7\n"
    opened = open_fds() - before
    assert len(opened) == 1
    rewrite(counter, "usage_usec 12345\n")
    assert files.read(str(counter)) == "usage_usec 12345\n"
    assert open_fds() - before == opened  # read again from the same fd
    files.close()
    assert open_fds() - before == set()


def test_a_file_longer_than_a_chunk_is_read_whole(tmp_path: Path) -> None:
    procs = tmp_path / "cgroup.procs"
    text = "".join(f"{pid}\n" for pid in range(100_000, 100_000 + CounterFiles.CHUNK // 4))
    assert len(text) > CounterFiles.CHUNK
    procs.write_text(text)
    files = CounterFiles()
    assert files.read(str(procs)) == text
    files.close()


def test_a_missing_file_is_an_oserror_and_a_closed_set_still_reads(tmp_path: Path) -> None:
    files = CounterFiles()
    with pytest.raises(OSError):
        files.read(str(tmp_path / "gone"))
    counter = tmp_path / "pids.current"
    counter.write_text("3\n")
    files.close()
    before = open_fds()
    assert files.read(str(counter)) == "3\n"
    assert open_fds() == before  # opened for that read alone


def test_the_pressure_readers_read_through_the_set(tmp_path: Path) -> None:
    (tmp_path / "cpu.pressure").write_text(
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=5000\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    )
    (tmp_path / "cpu.stat").write_text("usage_usec 2000\n")
    (tmp_path / "io.pressure").write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=700\n")
    files = CounterFiles()
    seen: list[str] = []

    def read(path: str) -> str:
        seen.append(os.path.basename(path))
        return files.read(path)

    base = read_psi_totals(str(tmp_path), read)
    assert base == {"some": 5000, "full": 0, "usage_usec": 2000, "io_some": 700}
    assert seen == ["cpu.pressure", "cpu.stat", "io.pressure"]
    rewrite(tmp_path / "cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=95000\n")
    rewrite(tmp_path / "cpu.stat", "usage_usec 52000\n")
    rewrite(tmp_path / "io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=30700\n")
    meter = PsiMeter(str(tmp_path), base, read)
    # 90 ms of "some" pressure, but 50 ms of the 100 ms were CPU: at most 50 ms waited
    assert meter.read(0.1) == pytest.approx(0.05)
    assert meter.cpu_s == pytest.approx(0.05)
    assert io_stall_us(str(tmp_path), read) == 30700
    files.close()


def test_a_real_groups_memory_counters_follow_a_process_through_one_fd() -> None:
    memory = "/sys/fs/cgroup/memory"
    if os.geteuid() != 0 or not os.path.isfile(os.path.join(memory, "memory.usage_in_bytes")):
        pytest.skip("needs root and cgroup v1's memory hierarchy (CI has both)")
    group = os.path.join(memory, f"ocean-judge-test-{os.getpid()}-counters")
    os.mkdir(group)
    cg = RunCgroup(1, {"memory": group}, memory=True, pids=False)
    try:
        before = open_fds()
        idle = cg.current_memory()
        assert idle is not None
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                with open(os.path.join(group, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
                block = bytearray(24 << 20)
                block[::4096] = b"x" * len(block[::4096])
                time.sleep(0.3)
            finally:
                os._exit(0)
        deadline = time.monotonic() + 5
        busy = idle
        while time.monotonic() < deadline and busy < idle + (20 << 20):
            time.sleep(0.01)
            busy = cg.current_memory() or 0
        os.waitpid(pid, 0)
        assert busy >= idle + (20 << 20)
        peak = cg.peak_memory()
        assert peak is not None and peak >= 20 << 20
        assert len(open_fds() - before) == 2  # usage and peak, each opened once
        assert (cg.current_memory() or 0) < busy
    finally:
        removed, _ = cg.destroy()
    assert removed and not os.path.exists(group)
