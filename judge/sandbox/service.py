"""The Sandbox: probes the machine once, then hands out seats."""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
from pathlib import Path

from judge.sandbox.cores import CoreBudget, JudgePin, plan_cores, usable_cores
from judge.sandbox.folders import remove_tree
from judge.sandbox.launcher import LauncherKind
from judge.sandbox.leases import CoreLeases
from judge.sandbox.memfs import remove_stale_shm, unmount_stale, unmount_under
from judge.sandbox.probe import Machine, NsMode, isolation, probe
from judge.sandbox.procfs import pid_alive
from judge.sandbox.seat import Seat
from judge.sandbox.starvation import Canary
from judge.sandbox.types import Isolation, SandboxError
from judge.sandbox.uids import DEFAULT_LOCK_DIR, DEFAULT_RANGE
from judge.sandbox.wine import WineSupport

#: As root the default seat root lives here, not under /tmp: a seat's view
#: replaces /tmp with its own private one, which is impossible for a seat that
#: itself lives in /tmp.
ROOT_BASE = "/var/lib/ocean-judge"
_STALE = re.compile(r"^sandbox-(\d+)-[0-9a-z_]+$")


def _default_root() -> str:
    if os.geteuid() == 0:
        os.makedirs(ROOT_BASE, mode=0o711, exist_ok=True)
        st = os.lstat(ROOT_BASE)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
            raise SandboxError(f"{ROOT_BASE} must be a root-owned folder not writable by others")
        if st.st_mode & 0o111 != 0o111:
            # makedirs' mode is masked by the umask (077 makes it 0700), and the seats'
            # uids must be able to pass through to their own folders.
            os.chmod(ROOT_BASE, 0o711)
        for name in os.listdir(ROOT_BASE):  # left by judges that died
            mt = _STALE.match(name)
            if mt and not pid_alive(int(mt.group(1))):
                stale = os.path.join(ROOT_BASE, name)
                unmount_under(stale)  # its seats' tmpfs, if its judge was killed
                remove_tree(stale)
        path = tempfile.mkdtemp(prefix=f"sandbox-{os.getpid()}-", dir=ROOT_BASE)
    else:
        path = tempfile.mkdtemp(prefix=f"ocean-judge-sandbox-{os.getpid()}-")
    os.chmod(path, 0o711)
    return path


class Sandbox:
    """Runs untrusted programs, one seat per team and round.

    ``Sandbox()`` probes the machine (about 0.1 s the first time, when the C
    helper is compiled) and states in :attr:`isolation` what is on and off.
    Thread-safe: seats may be created, run and closed from several threads.

    Keyword options (tests and unusual machines): ``cgroup`` = auto|v1|v2|none,
    ``helper`` = auto|c|python, ``namespaces`` = False to skip them,
    ``uid_range``, ``uid_lock_dir``, ``poll_interval_s`` (memory polling without
    cgroup), ``helper_cache`` (folder for the compiled helper), ``wine`` = auto|none
    (Windows programs through the machine's wine, or refused as on a machine
    without it), ``wine_cache`` (folder for the wine prefix template).

    ``cores`` (see :mod:`judge.sandbox.cores`): None/"auto" = the cores this
    process may use, a number N = that many of them, or a list like "0,2-3".
    Every run of every seat holds one of these cores while it runs, so no more
    programs run at once than there are cores for them (:attr:`cores` says
    which); cores left over are the judge's own, and its threads are pinned
    there until :meth:`close`.

    ``core_leases`` (see :mod:`judge.sandbox.leases`): None = the machine-wide
    lease folder (as a normal user, a folder of the user's own unless root's
    exists), a folder path = that folder (tests), False = no leases at all (the
    budget is this sandbox's alone; the isolation report says so).

    ``launcher`` (see :mod:`judge.sandbox.launcher`): how the seats' runs start their
    exec helpers, ``"armed"`` (the default: the next run made ready right after each),
    ``"zygote"`` (made on the run's turn) or ``"oneshot"`` (a new helper process each
    run); for benchmarks and bisecting.
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        cgroup: str = "auto",
        helper: str = "auto",
        namespaces: bool = True,
        uid_range: tuple[int, int] = DEFAULT_RANGE,
        uid_lock_dir: str = DEFAULT_LOCK_DIR,
        poll_interval_s: float = 0.01,
        helper_cache: str | None = None,
        wine: str = "auto",
        wine_cache: str | None = None,
        cores: str | int | None = None,
        core_leases: str | bool | None = None,
        launcher: str = "armed",
    ) -> None:
        if not poll_interval_s > 0:
            raise ValueError(f"poll_interval_s must be positive, not {poll_interval_s!r}")
        try:
            self.launcher = LauncherKind(launcher)
        except ValueError:
            kinds = ", ".join(k.value for k in LauncherKind)
            raise ValueError(f"launcher must be one of {kinds}, not {launcher!r}") from None
        plan = plan_cores(cores, *usable_cores())
        leases: CoreLeases | None = None
        #: why the cores are not leased machine-wide ("" when they are, or were not asked to be)
        self.leases_note = ""
        if core_leases is not False:
            try:
                leases = CoreLeases(
                    plan.bots, core_leases if isinstance(core_leases, str) else None
                )
            except OSError as exc:
                self.leases_note = f"cannot use a lease folder: {exc}"
        #: the bots' cores, shared by every seat (CoreSpecError, a ValueError, if unusable)
        #: and, through the lease files, with every judge on the machine
        self.cores = CoreBudget(plan, leases)
        #: how long the machine kept ordinary processes off a CPU (a thread per core,
        #: started at the first measured run; see judge/sandbox/starvation.py)
        self.canary = Canary()
        #: Windows programs: wine is looked for (and its template built) on first use
        self.wine = WineSupport(wine, wine_cache)
        if os.geteuid() == 0:
            unmount_stale()  # seats' tmpfs mounts of judges killed before they closed them
        else:
            remove_stale_shm()  # this user's seats' folders in /dev/shm, likewise
        self._own_root = root is None
        if root is None:
            self.root = Path(_default_root())
        else:
            self.root = Path(root).absolute()
            self.root.mkdir(parents=True, exist_ok=True)
            if os.geteuid() == 0:
                os.chmod(self.root, 0o711)
        self._lock = threading.Lock()
        self._seats: set[Seat] = set()
        self._closed = False
        try:
            self.machine: Machine = probe(
                str(self.root),
                cgroup=cgroup,
                helper=helper,
                namespaces=namespaces,
                uid_range=uid_range,
                uid_lock_dir=uid_lock_dir,
                poll_interval_s=poll_interval_s,
                helper_cache=helper_cache,
            )
        except BaseException:
            self.cores.close()
            if self._own_root:
                remove_tree(str(self.root))
            raise
        self.isolation: Isolation = isolation(self.machine, self.cores, self.leases_note)
        if self.machine.uid_pool is not None and self.machine.ns_mode is not NsMode.VIEW:
            self._check_reachable_root()
        self._pin = JudgePin(self.cores.plan.judge)

    def _check_reachable_root(self) -> None:
        """Without a filesystem view, seat uids must be able to walk down to the seat root."""
        p = self.root
        for d in [p, *p.parents]:
            st = os.stat(d)
            if not st.st_mode & stat.S_IXOTH:
                self.close()
                raise SandboxError(
                    f"seat folders under {self.root} are unreachable for the seats' "
                    f"uids: {d} has mode {oct(st.st_mode & 0o777)} (needs o+x); "
                    "choose another root"
                )

    def seat(
        self,
        name: str,
        program_dir: Path | None,
        keep: str | None = None,
        keep_bytes: int = 0,
    ) -> Seat:
        """A new seat: own uid (as root), own folders, private copy of ``program_dir``.

        ``keep`` names the one file the program may leave in its folder between
        runs (at most ``keep_bytes``); without it the folder is emptied after
        every run.  The caller decides: the sandbox knows nothing of the game's files.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox is closed")
        s = Seat(
            self.machine,
            str(self.root),
            name,
            program_dir,
            keep,
            keep_bytes,
            self._forget,
            wine=self.wine,
            cores=self.cores,
            canary=self.canary,
            launcher=self.launcher,
        )
        with self._lock:
            if self._closed:
                closed = True
            else:
                closed = False
                self._seats.add(s)
        if closed:
            s.close()
            raise RuntimeError("the sandbox was closed while the seat was being made")
        return s

    def _forget(self, s: Seat) -> None:
        with self._lock:
            self._seats.discard(s)

    def close(self) -> None:
        """Close every seat still open, remove our cgroups and (if we made it) the root."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            seats = list(self._seats)
        for s in seats:
            s.close()
        pin = getattr(self, "_pin", None)
        if pin is not None:
            pin.restore()
        if self.machine.cgroup is not None:
            self.machine.cgroup.close()
        self.cores.close()
        self.canary.close()
        if self._own_root:
            unmount_under(str(self.root))  # a seat whose close failed part-way
            remove_tree(str(self.root))

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
