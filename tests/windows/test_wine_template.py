"""The template prefix's registry, trimmed of what a console program never reads.

Every run's fresh wineserver parses the whole registry before it takes the
program: the COM interface, class and type-library keys
are 60 % of wine's system.reg and are left out of the template.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from judge.sandbox import Limits, Sandbox, Verdict
from judge.sandbox.wine import PRUNE_AFTER_S, TRIMMED_KEYS, trim_registry
from tests.windows.conftest import Exes

REG = """WINE REGISTRY Version 2
;; All keys relative to REGISTRY\\\\Machine

#arch=win64

[Software\\\\Classes\\\\.txt] 1795826336
#time=1dd7ed0d9f30b76
@="txtfile"

[Software\\\\Classes\\\\CLSID\\\\{0000}] 1795826336
#time=1dd7ed0d9f30b76
@="a class"

[Software\\\\Classes\\\\CLSID\\\\{0000}\\\\InprocServer32] 1795826336
"ThreadingModel"="Both"

[Software\\\\Classes\\\\CLSIDX] 1795826336
@="not a class key: kept"

[Software\\\\Classes\\\\Interface] 1795826336

[Software\\\\Classes\\\\Wow6432Node\\\\Typelib\\\\{1111}] 1795826336
@="a type library"

[System\\\\CurrentControlSet\\\\Control\\\\Nls\\\\Codepage] 1795826336
"ACP"="1252"

"""


def test_trim_removes_the_com_keys_and_their_values_and_keeps_the_rest(tmp_path: Path) -> None:
    reg = tmp_path / "system.reg"
    reg.write_text(REG, encoding="utf-8", newline="")
    reg.chmod(0o444)

    assert trim_registry(str(reg)) == 4

    text = reg.read_text(encoding="utf-8")
    assert "CLSID\\\\{0000}" not in text and "ThreadingModel" not in text
    assert "[Software\\\\Classes\\\\Interface]" not in text and "a type library" not in text
    assert text.startswith("WINE REGISTRY Version 2\n;; All keys")
    for kept in ('@="txtfile"', "CLSIDX", '@="not a class key: kept"', '"ACP"="1252"'):
        assert kept in text
    assert reg.stat().st_mode & 0o777 == 0o444  # the template stays read-only
    assert [p.name for p in tmp_path.iterdir()] == ["system.reg"]  # no temporary left
    assert trim_registry(str(reg)) == 0  # trimming twice changes nothing


def test_the_template_registry_has_no_com_keys_and_keeps_the_system_keys(
    wine_sandbox: Sandbox,
) -> None:
    text = (Path(wine_sandbox.wine.template().prefix) / "system.reg").read_text(
        encoding="utf-8", errors="replace"
    )
    for key in TRIMMED_KEYS:
        assert f"[{key}]" not in text and f"[{key}\\\\" not in text
    # what wine's loader and the C runtimes read at start-up is still there
    for key in ("Control\\\\Nls", "Control\\\\Session Manager", "Time Zones"):
        assert key in text


def test_a_seat_made_from_the_template_marks_it_used(wine_sandbox: Sandbox, exes: Exes) -> None:
    """Another judge version prunes a template unused for a day: every seat made from
    it counts as a use, so a judge that runs for days keeps its template."""
    folder = Path(wine_sandbox.wine.template().prefix).parent
    old = time.time() - PRUNE_AFTER_S - 60
    os.utime(folder, (old, old))
    with wine_sandbox.seat("marks", exes.greedy) as seat:
        assert seat.program_dir is not None
        run = seat.run_turn(
            [str(seat.program_dir / "greedy.exe")], {"MAP.INP": b"x"}, [], Limits(time_s=10.0)
        )
        assert run.result.verdict in (Verdict.OK, Verdict.RE), run.result.message
    assert time.time() - folder.stat().st_mtime < 600
