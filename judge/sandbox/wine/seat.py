"""A seat's wine: its prefix (linked from the template), its wineserver, kept clean.

The prefix is the template hard-linked into the seat's folder (outside the team
folder); only its top folder belongs to the seat's uid (wine insists), everything
below stays the judge's, read-only.  The seat's wineserver is started before
turn 1 inside the seat's sandbox, and made afresh after every run
(:meth:`WineSeat.refresh`): what a program leaves in its wineserver (registry
values, global atoms) dies with it, so an .exe carries nothing between runs but
its keep file, as a native program.  After each run the seat's wine folders are
compared with what they held before turn 1 (:mod:`.hygiene`).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from judge.sandbox.cgroups import move_procs
from judge.sandbox.cores import BOT_NICE, pin_tree
from judge.sandbox.folders import remove_tree
from judge.sandbox.helper import HelperKind
from judge.sandbox.launcher import Spawn
from judge.sandbox.procfs import children, running
from judge.sandbox.types import SandboxError
from judge.sandbox.wine.hygiene import Snapshot, sweep
from judge.sandbox.wine.install import windows_target
from judge.sandbox.wine.linktree import link_or_copy, link_tree
from judge.sandbox.wine.server import (
    SERVER_START_S,
    Server,
    ServerArming,
    find_socket,
    wait_accepting,
)
from judge.sandbox.wine.support import WineSupport
from judge.sandbox.wine.template import REGISTRY_FILES, USER_NAME, mark_used
from judge.sandbox.wine.words import failure
from judge.sandbox.winexe import ExeKind, inspect_exe

if TYPE_CHECKING:
    from judge.sandbox.cgroups import RunCgroup
    from judge.sandbox.helper import Helper

#: At run time wineboot, the crash debugger (which would print a dump and linger) and the
#: desktop menu builder are off.
RUN_OVERRIDES = "wineboot.exe,winedbg.exe,winemenubuilder.exe,mscoree,mshtml=d"
#: Wine's messages off, except the loader's: "Library X.dll ... not found", and the
#: "Loaded ..." line of each module: the program's own line proves wine got as far as
#: loading it, before any of its code ran (a failure before that is wine's, not the program's).
RUN_DEBUG = "-all,err+module,+loaddll"
#: RLIMIT_NPROC counts every task of the seat's uid, the wineserver's included.
NPROC_SLACK = 8
#: Files wine itself rewrites in the prefix's top folder.
_VOLATILE_TOP = frozenset({*REGISTRY_FILES, "wineserver"})


class WineSeat:
    """One seat's prefix and wineserver: made ready, kept clean, made afresh after each run."""

    def __init__(
        self,
        support: WineSupport,
        base: str,
        uid: int | None,
        gid: int | None,
        tmpdir: str,
        view: bool,
    ) -> None:
        install = support.install
        if install is None:
            raise SandboxError("no wine on this machine")
        self.install = install
        self.support = support
        self.uid, self.gid = uid, gid
        self.dir = os.path.join(base, "wine")
        self.prefix = os.path.join(self.dir, "prefix")
        self.run_dir = os.path.join(self.dir, "run")
        self.server_exe = os.path.join(self.dir, "wineserver")
        self.log = os.path.join(self.dir, "server.log")
        self._tmpdir = tmpdir
        self._view = view
        self._server: Server | None = None
        #: the next server, being armed or armed (:class:`ServerArming`), or None
        self._next: ServerArming | None = None
        #: the server and the run pressure group it is in (:meth:`lend_server`), or None
        self._lent: tuple[Server, str] | None = None
        self._top: Snapshot | None = None
        self._run_snap: Snapshot | None = None
        self._needs_reset = False
        self._needs_restart = False
        #: the seat's wineserver stopped during the last run (the judge did not stop it)
        self.died_in_run = False
        self._kinds: dict[str, ExeKind] = {}
        self._server_home: str | None = None

    def pin_server(self, core: int) -> None:
        """Keep the seat's wineserver on the core of the run it serves (a run's time is
        its core's): on any other core it would take time from another seat's program."""
        if self._server is not None and self._server.proc is not None:
            pin_tree(self._server.proc.pid, {core}, BOT_NICE)

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """The environment of every run of this seat (and of its server)."""
        env = dict(base)
        env.update(
            {
                "USER": USER_NAME,
                "WINEPREFIX": self.prefix,
                "WINEDEBUG": RUN_DEBUG,
                "WINEDLLOVERRIDES": RUN_OVERRIDES,
                "TMPDIR": self.run_dir,
            }
        )
        return env

    def argv(self, argv: list[str]) -> list[str]:
        """``[x.exe, args]`` or ``[wine, x.exe, args]`` -> the loader's command line."""
        idx = windows_target(argv)
        assert idx is not None
        exe = argv[idx]
        kind = self._kinds.get(exe)
        if kind is None:
            kind = self._kinds[exe] = inspect_exe(exe).kind
        loader = self.install.loader32 if kind is ExeKind.WIN32 else self.install.loader64
        assert loader is not None
        return [loader, exe, *argv[idx + 1 :]]

    def tmp_spare(self) -> frozenset[str]:
        """Names in the seat's /tmp the per-run cleaning must leave alone: upstream
        wine keeps its server's socket in a fixed ``/tmp/.wine-UID`` (Debian's wine
        uses ``$TMPDIR`` instead, and then nothing is spared)."""
        if self._server_home is not None and os.path.dirname(self._server_home) == self._tmpdir:
            return frozenset({os.path.basename(self._server_home)})
        return frozenset()

    def _make_prefix(self) -> None:
        template = self.support.template()
        mark_used(os.path.dirname(template.prefix))  # a judge of another version keeps it
        if os.path.lexists(self.prefix):
            remove_tree(self.prefix)
        link_tree(template.prefix, self.prefix, symlinks=not self._view)
        os.chmod(self.prefix, 0o700)
        if not os.path.lexists(self.server_exe):
            try:
                os.link(template.server, self.server_exe)
            except OSError:  # another filesystem, or a normal user and root's template
                shutil.copyfile(self.install.server, self.server_exe)
                os.chmod(self.server_exe, 0o711)
        if self.uid is not None and self.gid is not None:
            os.chown(self.prefix, self.uid, self.gid)

    def prepare(self) -> None:
        """Folders of the seat's wine (no process yet)."""
        os.mkdir(self.dir, 0o750 if self.gid is not None else 0o700)
        os.mkdir(self.run_dir, 0o700)
        if self.uid is not None and self.gid is not None:
            os.chown(self.dir, 0, self.gid)
            os.chown(self.run_dir, self.uid, self.gid)
        self._make_prefix()

    def start(
        self,
        helper: Helper,
        spawn_for: Callable[[list[str]], Spawn],
        make_cgroup: Callable[[], RunCgroup | None],
        core: int | None = None,
        following: ServerArming | None = None,
    ) -> None:
        """Start the seat's wineserver (the one armed at the last start, if there is one)
        and wait until it accepts programs.  The next one is then ``following``'s, armed
        meanwhile by the caller, or armed now."""
        spawn = spawn_for([self.server_exe, "-f", "-p"])
        server = self._take_armed(core)
        if server is None:
            server = Server.start(helper, spawn, make_cgroup(), self._spare_log(following))
        self._server = server
        began = time.monotonic()
        deadline = began + SERVER_START_S
        while (found := self._socket_path()) is None:
            if not server.alive():
                raise SandboxError(
                    f"wine's server for this seat exited at start: {server.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"wine's server for this seat did not start within {SERVER_START_S:g} s: "
                    f"{server.log_tail()}"
                )
            # A server started from an armed helper makes its socket in 2-3 ms: look
            # often at first (each look is a glob and a stat, some 70 µs).
            time.sleep(0.0005 if time.monotonic() - began < 0.05 else 0.002)
        wait_accepting(found, deadline, server.log_tail)
        # Not waited for: it is the next refresh's, tens of milliseconds away.
        self._next = following if following else self._arming(helper, spawn, make_cgroup)

    def _arm(
        self,
        helper: Helper,
        spawn: Spawn,
        make_cgroup: Callable[[], RunCgroup | None],
        log: str,
    ) -> Server | None:
        """A server's helper started now, idle until its :meth:`_take_armed`: it joins its
        groups and readies the server's process ahead of its turn.  A cgroup v1 join waits
        for an RCU grace period (about 10 ms here) when no task moved for a while, as at
        the end of a run: that wait was half of the refresh after every run.
        None: not armed (nothing lost: the start makes its server then); never for a
        normal user's seat, whose process cap counts the uid's tasks when the helper
        starts (the old server's among them), nor with the Python fallback helper, which
        has no go pipe."""
        if spawn.nproc_extra is not None or helper.kind is not HelperKind.C:
            return None
        try:
            return Server.start(helper, spawn, make_cgroup(), log, armed=True)
        except (OSError, SandboxError):
            return None

    def _arming(
        self, helper: Helper, spawn: Spawn, make_cgroup: Callable[[], RunCgroup | None]
    ) -> ServerArming:
        """The next server, being armed on a thread (:meth:`_arm`) to a spare log."""
        return ServerArming(
            self._spare_log(), lambda log: self._arm(helper, spawn, make_cgroup, log)
        )

    def _take_armed(self, core: int | None) -> Server | None:
        """The armed server, started now on ``core`` (None: none armed, or its helper is gone)."""
        arming, self._next = self._next, None
        server = arming.result() if arming is not None else None
        if server is None:
            return None
        try:
            server.go(core)
        except OSError:
            server.stop()
            return None
        return server

    def _discard_armed(self) -> None:
        if self._next is not None:
            self._next.discard()
            self._next = None

    def _spare_log(self, also: ServerArming | None = None) -> str:
        """A log file no live server writes (an armed one starts while others live)."""
        live = {self._server.log} if self._server is not None else set()
        if self._next is not None:
            live.add(self._next.log)
        if also is not None:
            live.add(also.log)
        return next(
            log for log in (self.log, self.log + ".next", self.log + ".2") if log not in live
        )

    def refresh(
        self,
        helper: Helper,
        spawn_for: Callable[[list[str]], Spawn],
        make_cgroup: Callable[[], RunCgroup | None],
        report: list[str],
        core: int | None = None,
    ) -> None:
        """After every run: a new server on the template's registry.

        A program can keep data in its wineserver (registry values, global atoms,
        permanent named objects), not only in files; a fresh server, loading the
        registry files as the template has them, keeps a Windows program to what a
        native one may carry between runs: its keep file.  The old server is killed,
        not stopped, so it writes nothing back.  The new one is the server armed at the
        last start (a process that has not run a single instruction of wine yet), on
        ``core``.
        """
        # The server after the new one, armed first, on a thread: its groups' join waits
        # for the kernel (see _arm) while the old server is killed and the new one
        # starts, and is over before the next run moves the new server into its
        # pressure group.
        following: ServerArming | None = self._arming(
            helper, spawn_for([self.server_exe, "-f", "-p"]), make_cgroup
        )
        try:
            self._stop_current()
            if self._needs_reset:
                report.append(
                    "wine: the program changed the seat's wine folder; it was made afresh"
                )
                self._discard_armed()  # both readied for the prefix as it was
                if following is not None:
                    following.discard()
                following = None
            self.reset_if_needed()
            self._restore_registry()
            self.start(helper, spawn_for, make_cgroup, core, following)
        except BaseException:
            if following is not None and self._next is not following:
                following.discard()
            raise
        self.snapshot()

    def _restore_registry(self) -> None:
        """The registry files back to the template's (a server may have saved its own)."""
        template = self.support.template().prefix
        for name in REGISTRY_FILES:
            mine, theirs = os.path.join(self.prefix, name), os.path.join(template, name)
            try:
                if os.path.samestat(os.lstat(mine), os.stat(theirs)):
                    continue
                os.unlink(mine)
            except FileNotFoundError:
                pass
            link_or_copy(theirs, mine, symlinks=not self._view)

    def snapshot(self) -> None:
        """Remember the seat's wine folders as they are, ready, before turn 1."""
        self._top = Snapshot.of(self.prefix, 1)
        assert self._server_home is not None
        self._run_snap = Snapshot.of(self._server_home, 8)
        self._needs_reset = self._needs_restart = False

    def _socket_path(self) -> str | None:
        """This prefix's server socket, once it exists (sets ``_server_home``, the
        seat-private folder that holds it: :func:`~.server.find_socket`)."""
        found, home = find_socket(self.prefix, self.run_dir, self._tmpdir, self.uid, self._view)
        if home is not None:
            self._server_home = home
        return found

    @property
    def alive(self) -> bool:
        return self._server is not None and self._server.alive()

    def lend_server(self, pressure_dir: str) -> bool:
        """The seat's wineserver joins a run's pressure group (PSI only, no limits)
        for the run: the time neither it nor the program could get the CPU is then
        counted as one.  False if it could not (its waiting is then added instead)."""
        if self._server is not None and self._lent == (self._server, pressure_dir):
            return True  # lent already, since the refresh
        pids = self.server_pids()
        if not pids or not move_procs(pids, pressure_dir):
            self.take_server_back()
            return False
        self._lent = (self._server, pressure_dir) if self._server is not None else None
        return True

    @property
    def lent(self) -> bool:
        """Whether the server is in a run's pressure group now."""
        return self._lent is not None

    def take_server_back(self) -> None:
        """Back to the server's own group (before the run's group is removed)."""
        self._lent = None
        cg = self._server.cg if self._server is not None else None
        home = cg.psi_dir if cg is not None else None
        if home is not None:
            move_procs(self.server_pids(), home)

    def _server_running(self) -> bool:
        """Whether the seat's wineserver itself runs: its exec helper outlives it by the
        moment it takes to notice, so a server just killed is looked for as a process."""
        return self.alive and any(running(pid) for pid in self.server_pids())

    def server_pids(self) -> list[int]:
        """The seat's wineserver (the processes under its exec helper), for the wait meter."""
        if self._server is None or self._server.proc is None:
            return []
        return children(self._server.proc.pid)

    def needs_restart(self) -> bool:
        """Whether the server must be started afresh (after :meth:`reset_if_needed`)
        before the next run: it stopped, or the program tampered with the prefix."""
        return self._needs_reset or self._needs_restart or not self._server_running()

    def restart_note(self) -> str:
        """Why the seat's wine is made afresh before this run (for the turn's report)."""
        if self._needs_reset:
            why = "the program changed the seat's wine folder"
        else:
            why = "the seat's wineserver had stopped"
        return f"wine: {why}; it was made afresh before this run"

    def reset_if_needed(self) -> None:
        """With the server stopped: a fresh prefix if it was tampered with, and no
        leftovers where the server keeps its socket.  :meth:`start` follows."""
        if self._needs_reset:
            self._make_prefix()
        for home in (self.run_dir, self._server_home):
            if home is not None and os.path.isdir(home):
                for name in os.listdir(home):
                    remove_tree(os.path.join(home, name))
        self._server_home = None

    def after_run(self, report: list[str]) -> None:
        """Remove what the run added to the seat's wine folders; note any tampering."""
        self.died_in_run = False
        if self._top is None or self._run_snap is None:
            return
        if not self._server_running():
            self._needs_restart = self.died_in_run = True
            report.append("wine: the seat's wineserver stopped during this run")
        added = self._sweep(self.prefix, self._top, depth=1, volatile=_VOLATILE_TOP)
        if self._server_home is not None:
            added += self._sweep(self._server_home, self._run_snap, depth=8, volatile=frozenset())
        if added:
            report.append(
                f"wine: removed {added} file(s) the program left in the seat's wine folders"
            )

    def _sweep(self, root: str, snap: Snapshot, depth: int, volatile: frozenset[str]) -> int:
        added, tampered = sweep(root, snap, depth, volatile)
        if tampered:
            self._needs_reset = True
        return added

    def failure(
        self, stderr_head: bytes, stderr_tail: bytes, exit_code: int | None = None
    ) -> str | None:
        """Why the last run is wine's failure rather than the program's, in wine's own
        words; None when the program's run stands (:func:`~.words.failure`)."""
        return failure(stderr_head, stderr_tail, self.died_in_run, exit_code)

    def stop(self) -> None:
        """Stop the server, and discard the armed one (a restart makes both afresh)."""
        self._stop_current()
        self._discard_armed()

    def _stop_current(self) -> None:
        self._lent = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    def close(self) -> None:
        self.stop()
