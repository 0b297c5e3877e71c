"""A seat's work folder and /tmp are a tmpfs of its own, as root (judge.sandbox.memfs).

Making and removing files on this machine's disk cost more the more files anything had
just removed, so a judged turn cost up to twice a bare spawn after a test suite; in
memory it costs the same whenever.  What a program writes there is memory: it counts
toward its memory limit, and the folders together are capped.  A judge that dies
leaves its seats' mounts behind, and the next sandbox takes them away.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sandbox_support import needs_root

from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.folders import remove_tree
from judge.sandbox.memfs import (
    INODES,
    SIZE_BYTES,
    mounts,
    remove_stale_shm,
    shm_folder,
    shm_prefix,
    source_name,
    unmount_stale,
    unmount_under,
)
from judge.sandbox.probe import P_SPACE

ROOT = Path(__file__).resolve().parents[2]
MiB = 2**20

pytestmark = [pytest.mark.slow, needs_root]


def _mount_of(path: str) -> tuple[str, str] | None:
    """(file system type, source) of the mount at exactly ``path``, if any."""
    found = [(fstype, source) for point, fstype, source in mounts() if point == path]
    return found[-1] if found else None


def test_a_seats_folders_are_a_tmpfs_of_its_own_and_go_with_it(tmp_path: Path) -> None:
    with Sandbox(tmp_path / "seats") as sb:
        assert sb.isolation.is_on(P_SPACE)
        a, b = sb.seat("a", None), sb.seat("b", None)
        try:
            assert _mount_of(a.rw) == ("tmpfs", source_name())
            assert os.stat(a.rw).st_dev != os.stat(b.rw).st_dev  # one each
            run = a.run_turn(
                ["/bin/sh", "-c", "stat -f -c %T . /tmp > MOVE.OUT; df -k . | tail -1 >> MOVE.OUT"],
                {"MAP.INP": b"1\n"},
                ["MOVE.OUT"],
                Limits(),
            )
            assert run.result.verdict is Verdict.OK, run.result.message
            seen = (run.outputs["MOVE.OUT"] or b"").decode().split("\n")
            assert seen[:2] == ["tmpfs", "tmpfs"]  # as the program sees them, in its view
            assert seen[2].split()[1] == str(SIZE_BYTES // 1024)
        finally:
            a.close()
            b.close()
        assert _mount_of(a.rw) is None and not os.path.exists(a.base)
        assert [p for p, _, _ in mounts() if p.startswith(f"{tmp_path}/")] == []


def test_files_a_program_writes_in_its_folder_count_toward_its_memory(
    sandbox: Sandbox,
) -> None:
    write = "for i in 1 2 3 4 5 6; do head -c 15728640 /dev/zero > f$i || exit 3; done; echo ok > MOVE.OUT"
    with sandbox.seat("writer", None) as seat:
        # 90 MiB of files under a 64 MiB limit: on a disk they would have been written
        # out and dropped from its memory; in its own tmpfs they stay
        over = seat.run_turn(
            ["/bin/sh", "-c", write], {}, ["MOVE.OUT"], Limits(memory_bytes=64 * MiB)
        )
        assert over.result.verdict is Verdict.MLE, over.result.message
        assert "the files it writes in its folders are memory and count toward it" in (
            over.result.message
        )
        assert "(the largest it left: f" in over.result.message, over.result.message
        fits = seat.run_turn(
            ["/bin/sh", "-c", write], {}, ["MOVE.OUT"], Limits(memory_bytes=256 * MiB)
        )
        assert fits.result.verdict is Verdict.OK, fits.result.message
        assert fits.result.peak_memory_bytes >= 90 * MiB
        assert os.listdir(seat.workdir) == []  # and gone after the run, as any file


def test_the_folders_hold_at_most_their_cap(sandbox: Sandbox) -> None:
    assert SIZE_BYTES == 512 * MiB and INODES == 65536
    # A memory limit above the cap: the tmpfs is full before the memory group is.
    fill = (
        "i=0; while [ $i -lt 40 ]; do i=$((i+1)); "
        "head -c 16000000 /dev/zero > f$i || { rm f$i; echo full at $i > MOVE.OUT; exit 0; }; done"
    )
    with sandbox.seat("filler", None) as seat:
        run = seat.run_turn(
            ["/bin/sh", "-c", fill], {}, ["MOVE.OUT"], Limits(memory_bytes=2048 * MiB, time_s=10)
        )
        assert run.result.verdict is Verdict.OK, run.result.message
        assert run.outputs["MOVE.OUT"] == b"full at 34\n"  # 33 files of 16 MB fit in 512 MiB
        assert b"No space left on device" in run.result.stderr_tail


def test_a_dead_judges_mounts_are_taken_away_by_the_next_sandbox(tmp_path: Path) -> None:
    seats = tmp_path / "ghế ngồi"  # a space (escaped in /proc/self/mountinfo) and diacritics
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from judge.sandbox import Sandbox
        seat = Sandbox({str(seats)!r}).seat("a", None)
        print(seat.rw, flush=True)
        sys.stdin.read()  # killed here, never closing its seat
        """
    )
    judge = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert judge.stdout is not None
        rw = judge.stdout.readline().strip()
        assert _mount_of(rw) == ("tmpfs", source_name(judge.pid))
        assert rw not in unmount_stale()  # its judge is alive: left alone
        assert _mount_of(rw) is not None
    finally:
        judge.kill()
        judge.wait()
    with Sandbox(tmp_path / "next"):
        pass
    assert _mount_of(rw) is None
    shutil.rmtree(seats)  # nothing mounted in it any more


def test_a_runs_memory_counts_from_what_the_last_run_left_once_cleaned(sandbox: Sandbox) -> None:
    """The next run is armed before the folder is cleaned, and its memory counted from
    the charge at its start: the files a run left in its tmpfs (freed by the clean)
    do not hide the next run's own memory."""
    script = (
        "if [ -f STATE.OUT ]; then "
        "python3 -c \"b = b'x' * (40 << 20); open('MOVE.OUT', 'w').write('alloc')\"; "
        "else for i in 1 2 3 4 5 6 7; do head -c 15728640 /dev/zero > /tmp/f$i; done; "
        "echo files > MOVE.OUT; fi; "
        "echo 1 > STATE.OUT"
    )
    with sandbox.seat("leaver", None, keep="STATE.OUT", keep_bytes=2**20) as seat:
        first = seat.run_turn(["/bin/sh", "-c", script], {}, ["MOVE.OUT"], Limits())
        second = seat.run_turn(["/bin/sh", "-c", script], {}, ["MOVE.OUT"], Limits())
    assert first.outputs["MOVE.OUT"] == b"files\n" and first.result.peak_memory_bytes >= 100 * MiB
    assert second.outputs["MOVE.OUT"] == b"alloc", second.result.message
    assert second.result.peak_memory_bytes >= 40 * MiB  # before: 0, the 100 MiB its base


def test_only_the_seats_own_mounts_are_taken_away_and_never_through_a_link(
    tmp_path: Path,
) -> None:
    other = tmp_path / "not-ours"
    other.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(other)], check=True)
    try:
        with Sandbox(tmp_path / "seats") as sb, sb.seat("a", None) as seat:
            link = tmp_path / "link"
            link.symlink_to(tmp_path)  # a folder of the judge's that is a link to the seats'
            unmount_under(str(link))
            remove_tree(str(link))
            assert _mount_of(seat.rw) == ("tmpfs", source_name())
            assert _mount_of(str(other)) == ("tmpfs", "tmpfs")
            unmount_under(str(tmp_path))
            assert _mount_of(seat.rw) is None  # the seat's own, under the folder named
            assert _mount_of(str(other)) == ("tmpfs", "tmpfs")  # not a seat's: left alone
    finally:
        subprocess.run(["umount", str(other)], check=False)


def test_a_normal_users_seats_use_dev_shm_only_when_it_is_a_tmpfs_with_room(
    tmp_path: Path,
) -> None:
    assert shm_folder(str(tmp_path))[0] is None  # a folder on disk: not in memory
    assert "is not a tmpfs" in shm_folder(str(tmp_path))[1]
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(small)], check=True)
    try:  # a container's 64 MB /dev/shm: a seat's files could not fit, so on disk
        assert shm_folder(str(small)) == (None, f"{small} has less than 512 MiB free")
        big = small / "big"
        big.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", str(big)], check=True)
        try:
            assert shm_folder(str(big)) == (str(big), "")
        finally:
            subprocess.run(["umount", str(big)], check=False)
    finally:
        subprocess.run(["umount", str(small)], check=False)


def test_a_dead_normal_users_seat_folders_are_removed_by_its_next_sandbox(
    tmp_path: Path,
) -> None:
    dead = subprocess.Popen(["true"])  # a pid that has exited
    dead.wait()
    me = shm_prefix()  # this process: pid and start time
    pid, started = me[len("ocean-judge-seat-") : -1].split(".")
    left = tmp_path / f"ocean-judge-seat-{dead.pid}.1-abc"  # its judge is gone
    reused = tmp_path / f"ocean-judge-seat-{pid}.{int(started) + 1}-abc"  # pid reused since
    live = tmp_path / f"{me}def"
    others = tmp_path / f"ocean-judge-seat-{dead.pid}.1-other"  # another user's
    outside = tmp_path / "outside"
    link = tmp_path / f"ocean-judge-seat-{dead.pid}.1-link"  # a link: never followed
    plain = tmp_path / f"ocean-judge-seat-{dead.pid}.1-file"  # not a folder
    cores = tmp_path / "ocean-judge-cores-65534"  # not a seat's folder
    for d in (left, reused, live, others, outside, cores):
        (d / "work" / "deep").mkdir(parents=True)
    os.chmod(left / "work", 0)  # what a program of the judge's own uid may leave
    os.chmod(left, 0)
    os.chown(others, 65534, 65534)
    link.symlink_to(outside)
    plain.write_text("x")
    gone = remove_stale_shm(str(tmp_path))
    assert sorted(gone) == sorted([str(left), str(reused)])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (live, others, outside, link, plain, cores)
    )
    assert (outside / "work" / "deep").is_dir()
