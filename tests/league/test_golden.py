"""A league's outputs byte for byte: leaderboard.json, leaderboard.csv, index.html and its table.

Simulated bots of known strength (each round drawn from the Elo model with a
fixed hash, no sandbox) play two runs; between them one bot leaves and two are
replaced by a new version, so the leaderboard has retired rows too; then a bot
joins that has not played (no win rate).  A few pairs have folders (empty: the
page says why they cannot be shown), so the page lists them.  Nothing here
differs between two runs but the temporary folder, replaced by a placeholder.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from judge.bots import BotSpec
from judge.league.config import LeagueBot, LeagueConfig
from judge.league.run import PAIRS_DIR, League, PairTask, RunReport, pair_folder
from judge.league.store import RoundRow
from judge.pentanomial import score_from_elo
from judge.records.leaderboard import Leaderboard
from judge.views.league import leaderboard_table, write_index
from judge.views.tables import print_item
from tests.golden import check, normalise

GOLDEN = Path(__file__).parent / "golden"


def _bot(name: str, version: str = "1", policy: str = "fresh") -> LeagueBot:
    return LeagueBot(name, BotSpec(name, name, None, ("true",)), version, policy)


def _simulated(
    tasks: Sequence[PairTask], on_round: Callable[[PairTask, RoundRow], None], stop: threading.Event
) -> None:
    """Bot 'sNNN...' has strength NNN Elo; a round's result is a fixed hash of it; no draws."""
    for task in tasks:
        sa, sb = (int(n.split("_")[0][1:]) for n in task.names)
        for seat in task.a_seats:
            h = hashlib.sha256(f"{task.pair}:{seat}:{task.names}".encode()).digest()
            win = int.from_bytes(h[:8], "big") / 2**64 < score_from_elo(sa - sb)
            gold = (7, 2) if win else (2, 7)
            on_round(
                task, RoundRow(task.pair, seat, "win" if win else "loss", *gold, "turns", None)
            )


def test_leaderboard_files_page_and_table_are_those_of_the_golden_files(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    names = ["s0", "s300", "s600_Rồng", "s900_[b]x[/b]"]
    cfg = LeagueConfig(
        Path("league.yaml"), 5, Path("out"), ((5, 5),), (6,), 12, 4, 2.0, 512, 2,
        tuple(_bot(n) for n in names),
    )  # fmt: skip
    out = tmp_path / "league"
    first = League(cfg, out, _simulated)
    first.run(resume=False)
    first.close()
    # s0 leaves, s300 comes back as version 2 (fresh), s600_Rồng as version 2 (inherit)
    bots = (_bot("s300", "2"), _bot("s600_Rồng", "2", "inherit"), _bot("s900_[b]x[/b]"))
    second = League(replace(cfg, pairs=6, bots=bots), out, _simulated)
    second.run(resume=False)
    second.close()
    # s450 joins and has not played yet: no win rate
    league = League(replace(cfg, bots=(*bots, _bot("s450"))), out, _simulated)
    league.sync_bots(RunReport())
    board = league.write_outputs()
    names_of = {r.id: r.name for r in league.store.bots()}
    for p in league.store.pairs()[::7]:  # a few pairs have a (broken) folder
        folder = out / PAIRS_DIR / pair_folder(p.id, names_of[p.a], names_of[p.b])
        folder.mkdir(parents=True)
    write_index(out, board, league.latest_pairs())
    console = Console(file=io.StringIO(), width=100, color_system=None)
    print_item(console, leaderboard_table(board, "leaderboard (out)"))
    league.close()

    text = (out / "leaderboard.json").read_text(encoding="utf-8")
    check(request, GOLDEN, "leaderboard.json", text)
    # the file reads back into the same records, which write the same bytes
    again = Leaderboard.from_json(json.loads(text))
    assert again.rows == tuple(board) and {r.bot for r in again.retired} == {
        "s0",
        "s300",
        "s600_Rồng",
    }
    assert json.dumps(again.to_json(), indent=2, ensure_ascii=False) + "\n" == text
    check(request, GOLDEN, "leaderboard.csv", (out / "leaderboard.csv").read_bytes())
    page = (out / "index.html").read_text(encoding="utf-8")
    check(request, GOLDEN, "index.html", normalise(page, [(str(out), "<OUT>")]))
    table = console.file.getvalue()  # type: ignore[attr-defined]
    check(request, GOLDEN, "leaderboard.txt", table)
