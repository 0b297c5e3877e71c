"""Fixtures of the sandbox tests: a sandbox and the C fixtures built once."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_support import FIXTURES, find_cc

from judge.sandbox import Sandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """The default sandbox (every protection the machine allows)."""
    with Sandbox() as sb:
        yield sb


@pytest.fixture
def zygote_sandbox(tmp_path: Path) -> Sandbox:
    """A sandbox of the test's own whose judged runs go through the seats' zygotes (the C
    helper); the test is skipped where there is only the Python helper."""
    sb = Sandbox(tmp_path / "seats")
    if sb.machine.helper.kind != "c":
        sb.close()
        pytest.skip("no C helper here: every run starts a one-shot helper")
    return sb


@pytest.fixture(scope="session")
def cbin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C fixtures built with the system compiler (skips C variants when there is none)."""
    cc = find_cc()
    if cc is None:
        pytest.skip("no C compiler: C variants skipped")
    out = tmp_path_factory.mktemp("cbin")
    for src in sorted((FIXTURES / "c").glob("*.c")):
        subprocess.run([cc, "-O1", "-o", str(out / src.stem), str(src)], check=True)
    return out
