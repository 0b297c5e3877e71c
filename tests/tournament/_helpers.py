"""Shared pieces of the tournament tests: configurations, fake bots and a fake-sandbox runner.

Most tests run the real runner on :class:`tests.referee.fakes.FakeSandbox`
(in-process bots, milliseconds a round); the end-to-end tests run the real
sandbox with the bundled bots and a short K.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from judge.tournament.config import TournamentConfig, load_config
from judge.tournament.ledger import LEDGER_FILE, Ledger
from judge.tournament.play import Runner, RunReport
from judge.tournament.resume import ResumeChoices
from judge.views.tournament import write_index
from tests.referee.fakes import FakeBot, FakeSandbox

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "maps"
BOTS = ROOT / "bots"
TEAM_NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]


def copy_maps(dest: Path, names: Sequence[str] = ("m1", "m2", "m3", "m4", "m5")) -> Path:
    """A private published list (tests that edit maps must not touch the project's)."""
    dest.mkdir(parents=True, exist_ok=True)
    for n in names:
        shutil.copy(MAPS / f"{n}.txt", dest / f"{n}.txt")
    return dest


def config_dict(
    n_teams: int = 3, bots: Sequence[str] | None = None, **overrides: Any
) -> dict[str, Any]:
    """A valid configuration of ``n_teams`` teams on the project's maps and bots."""
    bots = list(bots) if bots is not None else ["greedy", "random"] * n_teams
    data: dict[str, Any] = {
        "seed": 2026,
        "turns": 6,
        "time_limit": 2.0,
        "memory_limit_mb": 256,
        "jobs": 2,
        "output": "out",
        "maps_dir": str(MAPS),
        "bots_dir": str(BOTS),
        "organiser_map": str(MAPS / "organiser" / "final.txt"),
        "teams": [
            {"name": TEAM_NAMES[i], "bot": bots[i], "map": f"m{i + 1}"} for i in range(n_teams)
        ],
    }
    data.update(overrides)
    return data


BURNER = """#!/usr/bin/env python3
\"\"\"Needs its first argument's seconds of CPU a turn, then plays like the bundled random bot.\"\"\"
import os
import runpy
import sys
import time

need = float(sys.argv[1])
start = time.process_time()
while time.process_time() - start < need:
    pass
here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "random_bot.py"), run_name="__main__")
"""


def make_burner(folder: Path, cpu_s: float) -> Path:
    """A bot folder whose program needs ``cpu_s`` seconds of CPU every turn."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(BURNER)
    shutil.copy(BOTS / "random" / "bot.py", folder / "random_bot.py")
    (folder / "bot.yaml").write_text(f"name: burner\ncommand: [python3, bot.py, '{cpu_s}']\n")
    return folder


def write_config(folder: Path, data: Any, name: str = "judge.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
    )
    return path


def make_config(folder: Path, n_teams: int = 3, **overrides: Any) -> TournamentConfig:
    return load_config(write_config(folder, config_dict(n_teams, **overrides)))


# ------------------------------------------------------------------ fake bots
def _parse(
    map_inp: str,
) -> tuple[int, int, tuple[int, int], tuple[int, int], bool, list[list[str]]]:
    lines = [ln.split() for ln in map_inp.splitlines() if ln.strip()]
    m, n, _k = (int(x) for x in lines[0])
    i1, j1, i2, j2 = (int(x) for x in lines[1])
    shield = lines[2][1] == "1"
    return m, n, (i1, j1), (i2, j2), shield, lines[3 : 3 + m]


def fake_greedy(style: int) -> FakeBot:
    """A deterministic in-process bot: greedy for gold, with a per-team style.

    Placement names the ``style``-th empty cell (the next one on each re-ask, the
    count kept in STATE.OUT as a real bot would); moves go to the richest
    neighbour, ties broken in a style-dependent direction order.
    """
    dirs = [(-1, 0), (0, 1), (1, 0), (0, -1)]
    order = dirs[style % 4 :] + dirs[: style % 4]

    def bot(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
        m, n, me, other, shield, grid = _parse(map_inp)
        if me == (0, 0):
            asked = int(state or b"0")
            zeros = [(i + 1, j + 1) for i in range(m) for j in range(n) if grid[i][j] == "0"]
            cell = zeros[(style * 3 + asked) % len(zeros)]
            return f"{cell[0]} {cell[1]}\n".encode(), str(asked + 1).encode(), "OK"
        best: tuple[int, int] | None = None
        best_value = -1
        for di, dj in order:
            i, j = me[0] + di, me[1] + dj
            if not (1 <= i <= m and 1 <= j <= n) or (i, j) == other:
                continue
            tok = grid[i - 1][j - 1]
            if tok == "D" and not shield:
                continue
            value = 3 if tok == "S" else 0 if tok == "D" else int(tok)
            if value > best_value:
                best, best_value = (i, j), value
        target = best or me
        return f"{target[0]} {target[1]}\n".encode(), state, "OK"

    return bot


def fake_bots(names: Sequence[str]) -> dict[str, FakeBot]:
    return {name: fake_greedy(i) for i, name in enumerate(names)}


class StopAfter:
    """Wraps fake bots so that the runner is asked to stop after ``calls`` bot runs."""

    def __init__(self, bots: dict[str, FakeBot], calls: int):
        self.count = 0
        self.calls = calls
        self.lock = threading.Lock()
        self.runner: Runner | None = None
        self.bots = {name: self._wrap(b) for name, b in bots.items()}

    def _wrap(self, bot: FakeBot) -> FakeBot:
        def wrapped(map_inp: str, state: bytes | None) -> tuple[bytes | None, bytes | None, str]:
            with self.lock:
                self.count += 1
                if self.count == self.calls and self.runner is not None:
                    self.runner.request_stop("SIGINT")
            return bot(map_inp, state)

        return wrapped


def run_fake(
    cfg: TournamentConfig,
    out: Path,
    jobs: int = 2,
    resume: bool = False,
    bots: dict[str, FakeBot] | None = None,
    hook: Callable[[Runner], None] | None = None,
    choices: ResumeChoices | None = None,
) -> RunReport:
    """Play the tournament on the fake sandbox (deterministic fake bots)."""
    bots = bots if bots is not None else fake_bots(cfg.team_names)
    runner = Runner(cfg, out, jobs, lambda: FakeSandbox(bots))
    if hook is not None:
        hook(runner)
    report = runner.run(resume=resume, choices=choices)
    if report.complete:  # as `judge tournament` does once the standings are out
        write_index(out, runner.schedule, report.standings, title=cfg.title)
    return report


def ledger_rows(out: Path) -> list[tuple[Any, ...]]:
    """The ledger's rounds without what may differ between two runs (times, run statistics)."""
    with Ledger.open(out / LEDGER_FILE) as ledger:
        rows = []
        for lr in ledger.rounds():
            r = lr.result
            result = {k: v for k, v in r.to_json().items() if k != "stats"}
            rows.append(
                (
                    lr.match,
                    lr.round,
                    r.map_label,
                    r.seed,
                    r.seats,
                    r.gold,
                    r.points,
                    r.winner,
                    r.end_reason,
                    r.turns_played,
                    json.dumps(result, sort_keys=True),
                )
            )
        return rows


def read_standings(out: Path) -> list[dict[str, Any]]:
    """The rows of standings.json (an object: the audit record, then ``standings``)."""
    rows: list[dict[str, Any]] = json.loads((out / "standings.json").read_text())["standings"]
    return rows
