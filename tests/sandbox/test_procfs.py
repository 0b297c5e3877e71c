"""One reader of /proc for the sandbox (judge.sandbox.procfs): what the cores' CPU quota,
the cgroups' mounts and the seats' tmpfs mounts are read from.

The kernel writes a space, tab, newline or backslash in a mountinfo path as ``\\ooo``
(octal).  Each module used to parse the file its own way, and each unescaped a
different subset: a CPU quota under a mount point with a space was not found, a cgroup
mount point with a tab was a path that does not exist.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.sandbox import procfs
from judge.sandbox.cgroups import read_mounts
from judge.sandbox.cores import cpu_quota


def _escaped(path: Path) -> str:
    """``path`` as mountinfo writes it."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in str(path))


def test_a_cpu_quota_under_a_mount_point_with_a_space_is_found(tmp_path: Path) -> None:
    root = tmp_path / "cgroup v2"
    (root / "job").mkdir(parents=True)
    (root / "job" / "cpu.max").write_text("150000 100000\n")
    mountinfo = f"30 1 0:26 / {_escaped(root)} rw - cgroup2 cgroup2 rw\n"
    assert cpu_quota(mountinfo, "0::/job\n") == 1.5


def test_every_escape_is_undone_in_mount_points_roots_and_sources() -> None:
    info = (
        "35 31 0:32 /a\\011b /sys/fs/cgroup/mem\\134ory rw,relatime - cgroup cg\\040x rw,memory\n"
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    )
    (cg,) = read_mounts(info)
    assert (cg.mountpoint, cg.root, cg.source) == ("/sys/fs/cgroup/mem\\ory", "/a\tb", "cg x")
    assert {"memory", "relatime"} <= cg.options
    assert [m.fstype for m in procfs.mounts(info)] == ["cgroup", "ext4"]


def test_a_groups_folders_are_itself_and_its_ancestors_below_the_mounts_root() -> None:
    mount = procfs.Mount("/mnt/cg", "cgroup", "cgroup", "/sub", frozenset({"cpu"}))
    assert procfs.host_path(mount, "/sub/job/run") == "/mnt/cg/job/run"
    assert procfs.group_dirs(mount, "/sub/job/run") == [
        "/mnt/cg/job/run",
        "/mnt/cg/job",
        "/mnt/cg",
    ]


def test_this_process_is_seen_alive_and_its_threads_listed() -> None:
    assert procfs.pid_alive(os.getpid()) and procfs.running(os.getpid())
    assert os.getpid() in procfs.threads()
    assert procfs.start_time(os.getpid()) is not None
    assert procfs.thread_state(os.getpid()) == "R"  # reading its own stat: on a CPU


def test_a_process_memory_counters_and_command_line_are_read_here(tmp_path: Path) -> None:
    me = os.getpid()
    rss = procfs.rss_bytes(me)
    assert rss is not None and rss > 1 << 20
    counters = procfs.schedstat(me)
    assert counters is not None and counters[0] > 0 and len(counters) == 3
    words = procfs.cmdline(me)
    assert words is not None and os.path.basename(words[0].decode()).startswith("python")
    assert procfs.rss_bytes(2**22 + 7) is None and procfs.cmdline(2**22 + 7) is None


def test_a_lock_held_here_is_found_with_its_holder(tmp_path: Path) -> None:
    import fcntl

    path = tmp_path / "lease"
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        st = os.fstat(f.fileno())
        key = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
        assert procfs.flock_holders().get(key) == os.getpid()
    assert key not in procfs.flock_holders()
