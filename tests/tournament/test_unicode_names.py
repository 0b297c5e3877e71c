"""Vietnamese team names through a whole tournament.

Names are shown as written everywhere a person reads them (standings.json,
standings.csv, index.html, replays, the terminal); folders use the names'
folder forms (judge.names).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console

from judge.names import folder_name
from judge.tournament.config import load_config
from judge.tournament.play import schedule_for
from judge.views.tournament import standings_table

from ._helpers import config_dict, read_standings, run_fake, write_config

NAMES = ["Rồng Biển", "Đội Hải Âu", "Cá-Mập", "[bold]x[/]"]


def test_vietnamese_names_through_a_tournament(tmp_path: Path) -> None:
    data = config_dict(4)
    for team, name in zip(data["teams"], NAMES, strict=True):
        team["name"] = name
    cfg = load_config(write_config(tmp_path / "cfg", data))
    out = tmp_path / "t"
    report = run_fake(cfg, out)
    assert report.complete

    assert sorted(r["team"] for r in read_standings(out)) == sorted(NAMES)
    raw_json = (out / "standings.json").read_text(encoding="utf-8")
    assert "Rồng Biển" in raw_json and "\\u" not in raw_json  # readable as written

    data_csv = (out / "standings.csv").read_bytes()
    assert data_csv.startswith(b"\xef\xbb\xbf")  # spreadsheet programs then read UTF-8
    rows = list(csv.DictReader(io.StringIO(data_csv.decode("utf-8-sig"), newline="")))
    assert sorted(r["team"] for r in rows) == sorted(NAMES)

    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Rồng Biển" in index and "Đội Hải Âu" in index and "[bold]x[/]" in index

    for p in schedule_for(cfg):
        assert p.folder == f"{folder_name(p.teams[0])}-vs-{folder_name(p.teams[1])}"
        assert p.folder.isascii() and " " not in p.folder
        result = json.loads((out / p.folder / "result.json").read_text(encoding="utf-8"))
        assert result["teams"] == list(p.teams)
        header = json.loads(
            (out / p.folder / "round-1" / "replay.jsonl")
            .read_text(encoding="utf-8")
            .splitlines()[0]
        )
        assert header["teams"] == list(p.rounds[0].seats)
        for team in p.teams:
            assert (out / p.folder / "round-1" / folder_name(team) / "stderr.log").is_file()
        html = (out / p.folder / "replay.html").read_text(encoding="utf-8")
        assert json.dumps(p.teams[0], ensure_ascii=True) in html  # the page's data: the name

    # The terminal: names as written, never read as rich markup.
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(standings_table(report.standings))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    for name in NAMES:
        assert name in shown
