"""Wine for one Sandbox: found once, its template built once, shared by the seats."""

from __future__ import annotations

import threading

from judge.sandbox.types import SandboxError
from judge.sandbox.wine.install import WineInstall, find_wine
from judge.sandbox.wine.template import Template, ensure_template


class WineSupport:
    """Wine for one Sandbox: found once, its template built once, shared by the seats.

    ``mode``: ``"auto"`` (use the machine's wine if there is one) or ``"none"``
    (behave as a machine without wine).  Thread-safe.
    """

    def __init__(self, mode: str = "auto", cache: str | None = None) -> None:
        if mode not in ("auto", "none"):
            raise ValueError(f"wine must be 'auto' or 'none', not {mode!r}")
        self.mode = mode
        self.cache = cache
        self._lock = threading.Lock()
        self._install: WineInstall | None = None
        self._looked = False
        self._template: Template | None = None

    @property
    def install(self) -> WineInstall | None:
        with self._lock:
            if not self._looked:
                self._install = find_wine() if self.mode == "auto" else None
                self._looked = True
            return self._install

    def template(self) -> Template:
        install = self.install
        if install is None:
            raise SandboxError("no wine on this machine")
        with self._lock:
            if self._template is None:
                self._template = ensure_template(install, self.cache)
            return self._template

    def describe(self) -> str:
        """For ``judge sandbox-info``: whether .exe bots can run, and how."""
        install = self.install
        if install is None:
            return "Windows programs (.exe): OFF, no wine found (apt install wine)"
        return f"Windows programs (.exe): through wine, {install.describe()}"
