"""A seat's folders: made once, emptied around every run but the keep file, taken away at close.

Layout of a seat (as root; ``U`` = the seat's uid/gid)::

    <root>/seat-<name>-<rand>/   root:U   0750   only this seat can even enter
        rw/                      root:U   0750   a tmpfs of the seat's own (judge.sandbox.memfs)
            work/                U:U      0700   cwd and HOME: inputs, outputs, the keep file
            tmp/                 U:U      0700   the seat's /tmp (in its filesystem view)
            trash/               root     0700   cleaning happens here
        prog/                    root:U   0750   private read-only copy of the bot's folder
        .view/                   root     0700   mount point used to build the view

As a normal user everything is the judge's, 0700, and ``rw`` is a folder of the
seat's own in ``/dev/shm`` where it can be.  What runs write (the work folder,
the private /tmp) and the trash their clean moves folders to (a rename: the same
file system) are in ``rw``.

Steps "folder", "clean" and "roll_back" of a run (:mod:`.steps`).  The keep file
is all a seat carries from run to run: it is saved before each run and put back
after a run the judge discards (IE, run again), so the run that counts starts
exactly as the discarded one did.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from judge.sandbox.folders import (
    Cleaner,
    check_name,
    copy_program,
    read_outputs,
    remove_tree,
    restore_file,
    save_file,
    write_inputs,
)
from judge.sandbox.memfs import mount_tmpfs, remove_own_folder, shm_prefix, unmount
from judge.sandbox.request import RunContext, TurnFailed
from judge.sandbox.types import SandboxError

#: a saved keep file: its bytes and mode (None: there was none)
Saved = tuple[bytes, int] | None


class SeatFolder:
    """The folders of one seat.  ``owner``: the seat's (uid, gid) as root, else None."""

    def __init__(
        self,
        base: str,
        name: str,
        keep: str | None,
        keep_bytes: int,
        owner: tuple[int, int] | None,
        memfs: bool,
        shm: str | None,
    ) -> None:
        self.check_keep(keep, keep_bytes)
        self.name = name
        self.keep = keep
        self.keep_bytes = keep_bytes
        self.owner = owner
        self.base = base
        #: the writable folders are a tmpfs of their own, to take away at close
        self._mounted = False
        #: the writable folders are outside the seat's folder (in /dev/shm), to remove too
        self._rw_apart = False
        self.program_dir: Path | None = None
        #: the folders hold nothing but a valid keep file, and nothing ran since they were
        #: emptied: the next run's folder step need not walk them again
        self.emptied = False
        os.mkdir(base, 0o700)
        try:
            self._make(memfs, shm)
        except BaseException:
            self.close()
            raise
        self.emptied = True  # made just now, empty

    @staticmethod
    def check_keep(keep: str | None, keep_bytes: int) -> None:
        """ValueError unless ``keep`` is a plain file name (or None) and ``keep_bytes`` a
        size in bytes."""
        if keep is not None:
            check_name(keep, "keep file name")
        if not isinstance(keep_bytes, int) or keep_bytes < 0:
            raise ValueError(f"keep_bytes must be a non-negative integer, not {keep_bytes!r}")

    def _make(self, memfs: bool, shm: str | None) -> None:
        gid = self.owner[1] if self.owner is not None else None
        if shm:  # a normal user's (root's are a tmpfs of their own: memfs)
            self.rw = tempfile.mkdtemp(prefix=shm_prefix(), dir=shm)
            self._rw_apart = True
        else:
            self.rw = os.path.join(self.base, "rw")
            os.mkdir(self.rw, 0o700)
        self.workdir = Path(self.rw, "work")
        self.tmpdir = os.path.join(self.rw, "tmp")
        self.trash = os.path.join(self.rw, "trash")
        self.staging = os.path.join(self.base, ".view")
        os.mkdir(self.staging, 0o700)
        if memfs:
            why = mount_tmpfs(self.rw, 0o750 if gid is not None else 0o700, gid)
            if why is not None:
                raise SandboxError(f"seat {self.name!r}: {why}")
            self._mounted = True
        for d in (str(self.workdir), self.tmpdir, self.trash):
            os.mkdir(d, 0o700)
        if self.owner is not None:
            for d in (str(self.workdir), self.tmpdir):
                os.chown(d, *self.owner)
            for d in (self.base, self.rw):
                os.chown(d, 0, self.owner[1])
                os.chmod(d, 0o750)

    @property
    def in_memory(self) -> bool:
        """The folders are a tmpfs charged to the run's memory group (judge.sandbox.memfs)."""
        return self._mounted

    def copy_program(self, src: Path) -> None:
        """A private, read-only copy of the bot's folder (``prog``)."""
        if not src.is_dir():
            raise ValueError(f"program_dir {src} of seat {self.name!r} is not a folder")
        dst = os.path.join(self.base, "prog")
        copy_program(src, dst, self.owner[1] if self.owner is not None else None)
        self.program_dir = Path(dst)

    # ------------------------------------------------------------ around a run
    def prepare(
        self, inputs: Mapping[str, bytes], walk: bool, spare: frozenset[str], ctx: RunContext
    ) -> Saved:
        """Step "folder": empty the work folder but the keep file, save that, write the
        inputs; the keep file as it was, for :meth:`roll_back`.

        The folders were emptied after the last run, and nothing that can write in them
        has run since (the exec helper outlives every process of a run; only the seat's
        uid can write there), so they are walked again only when that clean did not
        finish, when ``walk`` (something of the seat's uid lived on meanwhile: a
        wineserver), or when the seat has no uid of its own (a normal user's judge:
        another seat's program, of the same uid, may have written there meanwhile)."""
        with ctx.timed("folder"):
            try:
                if not self.emptied or walk or self.owner is None:
                    self.clean(keep=True, notes=ctx.notes, spare=spare)
                saved = None
                if self.keep is not None:
                    saved = save_file(str(self.workdir), self.keep, self.keep_bytes)
                write_inputs(
                    str(self.workdir), {k: bytes(v) for k, v in inputs.items()}, self.owner
                )
            except OSError as exc:
                raise TurnFailed(f"cannot prepare the folder of seat {self.name!r}: {exc}") from exc
        return saved

    def collect(
        self, names: list[str], cap: int, spare: frozenset[str], ctx: RunContext
    ) -> tuple[dict[str, bytes | None], tuple[str, int] | None]:
        """Step "clean": the requested outputs read (regular files only, never through a
        link, at most ``cap`` bytes), the folders emptied but a valid keep file; the
        largest file left there (name, size)."""
        with ctx.timed("clean"):
            try:
                self._restore_modes()  # before the outputs: the way to them may be shut
                outputs = read_outputs(str(self.workdir), names, cap, ctx.notes)
                biggest = self.clean(keep=True, notes=ctx.notes, spare=spare, modes=False)
            except OSError as exc:
                raise TurnFailed(f"cannot clean the folder of seat {self.name!r}: {exc}") from exc
        return outputs, biggest

    def roll_back(self, saved: Saved, ctx: RunContext) -> None:
        """Step "roll_back", after a discarded run: the keep file back as it was before it
        (the folder is already emptied of everything else)."""
        if self.keep is None:
            return
        with ctx.timed("roll_back"):
            try:
                restore_file(str(self.workdir), self.keep, saved, self.owner)
            except OSError as exc:
                raise SandboxError(
                    f"seat {self.name!r}: cannot put {self.keep} back as it was before a run "
                    f"the judge discarded: {exc}"
                ) from exc

    def clean(
        self,
        keep: bool,
        notes: list[str] | None,
        spare: frozenset[str] = frozenset(),
        modes: bool = True,
    ) -> tuple[str, int] | None:
        """Empty the folders (but a valid keep file, with ``keep``; each refusal of it goes
        to ``notes``; ``spare``: names in /tmp a seat-long service keeps); the largest file
        seen (name, size)."""
        self.emptied = False  # until the walk below has finished
        cleaner = Cleaner(self.trash)
        if modes:
            self._restore_modes()
        cleaner.clean(self.tmpdir, spare=spare)
        cleaner.clean(str(self.workdir), self.keep if keep else None, self.keep_bytes, notes)
        self.emptied = True
        return cleaner.biggest

    def _restore_modes(self) -> None:
        """The program owns its folders and may have opened them up (or locked the
        judge out when not root): set them back.  Without a uid of its own it owns the
        folders above them too."""
        if self.owner is None:
            os.chmod(self.base, 0o700)
            os.chmod(self.rw, 0o700)
        os.chmod(self.workdir, 0o700)
        os.chmod(self.tmpdir, 0o700)

    # ------------------------------------------------------------ closing
    def release_memory(self) -> None:
        """The writable folders' memory back (their tmpfs unmounted, or their folder in
        /dev/shm removed), whatever modes the seat's program left."""
        if self._mounted:
            unmount(self.rw)
            self._mounted = False
        if self._rw_apart:
            remove_own_folder(self.rw)

    def remove(self) -> None:
        """The seat's folder gone (every process of the seat is)."""
        remove_tree(self.base)

    def close(self) -> None:
        try:
            self.release_memory()
        finally:
            self.remove()
