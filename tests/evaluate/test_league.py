"""``judge league``: match choice, OpenSkill ratings in SQLite, joins and replacements, resume.

Most tests play a league of simulated bots of known strength (each round's
result drawn from the Elo model with a fixed seed, no sandbox), which is fast
enough for a dozen bots and hundreds of pairs.  One test plays the real
bundled bots and a weakened variant through the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from judge.bots import BotSpec
from judge.cli import main
from judge.league.config import LeagueBot, LeagueConfig, load_league
from judge.league.ratings import DEFAULT_SIGMA, Entrant, Rater, Rating, choose_pairs, inherited
from judge.league.run import League, LeagueError, PairTask
from judge.league.store import RoundRow
from judge.pentanomial import score_from_elo
from judge.tournament.config import ConfigError
from judge.views.league import write_index
from tests.evaluate.weakbots import BOTS, mixed_bot


def _bot(name: str, version: str = "1", policy: str = "fresh") -> LeagueBot:
    return LeagueBot(name, BotSpec(name, name, None, ("true",)), version, policy)


def _cfg(names: list[str], pairs: int = 40, batch: int = 4) -> LeagueConfig:
    return LeagueConfig(
        Path("league.yaml"), 5, Path("out"), ((5, 5),), (6,), pairs, batch, 2.0, 512, 2,
        tuple(_bot(n) for n in names),
    )  # fmt: skip


class Simulated:
    """Round results from the Elo model: bot 'sNNN' has strength NNN Elo; no draws."""

    def __init__(self, stop_after: int | None = None, stop: threading.Event | None = None):
        self.played = 0
        self.stop_after, self.stop = stop_after, stop

    def __call__(
        self,
        tasks: Sequence[PairTask],
        on_round: Callable[[PairTask, RoundRow], None],
        stop: threading.Event,
    ) -> None:
        for task in tasks:
            sa, sb = (int(n.split("_")[0][1:]) for n in task.names)
            for seat in task.a_seats:
                if self.stop_after is not None and self.played >= self.stop_after:
                    assert self.stop is not None
                    self.stop.set()
                    return
                h = hashlib.sha256(f"{task.pair}:{seat}:{task.names}".encode()).digest()
                u = int.from_bytes(h[:8], "big") / 2**64
                win = u < score_from_elo(sa - sb)
                row = RoundRow(task.pair, seat, "win" if win else "loss", 1, 0, "turns", None)
                on_round(task, row)
                self.played += 1


# ------------------------------------------------------------------ pure parts


def test_openskill_moves_ratings_the_right_way() -> None:
    r = Rater()
    a, b = r.rate(Rating(), Rating(), 1.0)
    assert a.mu > 25 > b.mu and a.sigma < DEFAULT_SIGMA
    c, d = r.rate(Rating(), Rating(), 0.5)
    assert c.mu == pytest.approx(25) and c.sigma < DEFAULT_SIGMA
    assert r.p_win(Rating(30, 2), Rating(20, 2)) > 0.9
    assert inherited(Rating(31, 1)).mu == 31 and inherited(Rating(31, 1)).sigma > 1


def test_match_choice_puts_new_bots_first_and_close_ratings_together() -> None:
    r = Rater()
    old = [Entrant(i, Rating(10 + 5 * i, 2.0), 40) for i in range(6)]
    new = Entrant(99, Rating(), 0)
    pairs = choose_pairs([*old, new], 3, r, random.Random(1))
    assert pairs[0][0] == 99  # the new bot plays first
    # an established bot meets the closest rating
    p = choose_pairs(old, 1, r, random.Random(1))[0]
    assert abs(p[0] - p[1]) == 1
    assert choose_pairs(old, 4, r, random.Random(2)) == choose_pairs(old, 4, r, random.Random(2))
    assert choose_pairs(old[:1], 2, r, random.Random(0)) == []


# ------------------------------------------------------------------ simulated leagues


@pytest.mark.slow
def test_a_dozen_bots_converge_to_their_known_order(tmp_path: Path) -> None:
    names = [f"s{s}" for s in (0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100)]
    cfg = _cfg(names, pairs=360, batch=6)
    lg = League(cfg, tmp_path, Simulated())
    rep = lg.run(resume=False)
    assert rep.pairs == 360 and rep.rounds == 720 and not rep.stopped
    board = lg.write_outputs()
    order = [r.bot for r in board]
    ranks = {n: order.index(n) for n in names}
    # strongest first; neighbours 100 Elo apart may swap, bots 300 apart never do
    assert order[0] in ("s1100", "s1000") and order[-1] in ("s0", "s100")
    for i, n in enumerate(names):
        for m in names[i + 3 :]:
            assert ranks[m] < ranks[n], (m, n, order)
    assert all(r.rounds >= 40 for r in board)  # everyone plays
    assert all(r.uncertainty < DEFAULT_SIGMA / 2 for r in board)
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    assert [r["bot"] for r in data["leaderboard"]] == order
    csv_lines = (tmp_path / "leaderboard.csv").read_text(encoding="utf-8-sig").splitlines()
    assert csv_lines[0].startswith("rank,bot,version,rating,uncertainty") and len(csv_lines) == 13
    page = write_index(tmp_path, board, lg.latest_pairs()).read_text(encoding="utf-8")
    assert re.findall(r'<tr data-rank="\d+"><td>\d+</td><td>([^<]*)</td>', page) == order
    lg.close()


def test_stopped_run_resumes_to_the_same_league_as_an_uninterrupted_one(tmp_path: Path) -> None:
    names = ["s0", "s200", "s400", "s600"]
    cfg = _cfg(names, pairs=30, batch=4)
    whole = League(cfg, tmp_path / "whole", Simulated())
    whole.run(resume=False)
    expect = [(r.name, r.rating, r.rounds) for r in whole.store.bots()]
    stop = threading.Event()
    part = League(cfg, tmp_path / "part", Simulated(stop_after=21, stop=stop))
    rep = part.run(resume=False, stop=stop)
    assert rep.stopped
    part.close()
    again = League(cfg, tmp_path / "part", Simulated())
    with pytest.raises(LeagueError, match="--resume"):
        again.run(resume=False)
    rep2 = again.run(resume=True)
    assert not rep2.stopped
    assert [(r.name, r.rating, r.rounds) for r in again.store.bots()] == expect
    with pytest.raises(LeagueError, match="no stopped run"):
        again.run(resume=True)


def test_bots_join_retire_and_are_replaced_fresh_or_inheriting(tmp_path: Path) -> None:
    cfg = _cfg(["s0", "s500", "s900"], pairs=20)
    lg = League(cfg, tmp_path, Simulated())
    lg.run(resume=False)
    before = {r.name: r for r in lg.store.bots()}
    assert before["s900"].rating.mu > before["s0"].rating.mu
    # s900 is replaced twice over (inherit), s500 (fresh); s0 leaves; s700 joins
    cfg2 = replace(
        cfg,
        pairs=4,
        bots=(_bot("s500", "2", "fresh"), _bot("s900", "2", "inherit"), _bot("s700")),
    )
    lg2 = League(cfg2, tmp_path, Simulated())
    rep = lg2.run(resume=False)
    assert rep.joined == ["s700"] and rep.retired == ["s0"]
    assert sorted(rep.replaced) == ["s500 (version 2, fresh)", "s900 (version 2, inherit)"]
    rows = lg2.store.bots()
    active = {r.name: r for r in rows if r.active}
    assert set(active) == {"s500", "s900", "s700"}
    assert active["s900"].parent == before["s900"].id and active["s900"].version == "2"
    # (4 pairs later) the inheriting version still stands near its old rating
    assert active["s900"].rating.mu > 30
    assert {r.name for r in rows if not r.active} == {"s0", "s500", "s900"}
    assert [r.bot for r in lg2.leaderboard()].count("s900") == 1
    data = lg2.write_outputs()
    assert {r.bot for r in data} == {"s500", "s900", "s700"}
    retired = json.loads((tmp_path / "leaderboard.json").read_text())["retired"]
    assert {r["bot"] for r in retired} == {"s0", "s500", "s900"}


# ------------------------------------------------------------------ the file


def test_league_file_problems_are_all_named(tmp_path: Path) -> None:
    f = tmp_path / "league.yaml"
    f.write_text(
        "seed: x\ncolour: red\nsizes: [6]\nnew_version: maybe\npairs: 0\n"
        "bots:\n  - {name: a, bot: greedy}\n  - {name: a, bot: nowhere}\n  - {bot: greedy}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as exc:
        load_league(f)
    text = str(exc.value)
    for word in ("seed", "colour", "sizes", "new_version", "pairs", "twice", "name"):
        assert word in text, word
    assert "nothing was run" in text


def test_league_file_typos_get_did_you_mean(tmp_path: Path) -> None:
    f = tmp_path / "league.yaml"
    f.write_text(
        "seed: 1\nnew_versoin: inherit\n"
        "bots:\n  - {name: a, bot: greedy, verison: 2}\n  - {name: b, bot: templat}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as exc:
        load_league(f)
    text = str(exc.value)
    assert "unknown key 'new_versoin'; did you mean 'new_version'?" in text
    assert "bots[0]: unknown key 'verison'; did you mean 'version'" in text
    assert "bot 'templat': no such bot; did you mean 'template'" in text
    assert "--bots-dir" not in text  # a league file has no such option: bots_dir is its key


def test_league_bot_names_do_not_depend_on_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name is looked up in the file's bots_dir, then the bundled bots; never in ./bots."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "bots" / "greedy").mkdir(parents=True)
    (elsewhere / "bots" / "greedy" / "bot.yaml").write_text("command: [python3, nope.py]\n")
    monkeypatch.chdir(elsewhere)
    league = tmp_path / "league"
    league.mkdir()
    f = league / "league.yaml"
    f.write_text("seed: 1\nbots:\n  - {name: a, bot: greedy}\n  - {name: b, bot: random}\n")
    cfg = load_league(f)
    assert cfg.bots[0].spec.source == "greedy"
    assert cfg.bots[0].spec.program_dir is not None
    assert (cfg.bots[0].spec.program_dir / "bot.py").is_file()  # the bundled greedy
    (league / "bots" / "greedy").mkdir(parents=True)  # bots_dir (default: bots beside the file)
    (league / "bots" / "greedy" / "bot.yaml").write_text("command: [python3, nope.py]\n")
    with pytest.raises(ConfigError, match="names 'nope.py'"):
        load_league(f)


def test_league_names_may_be_vietnamese_but_need_distinct_folders(tmp_path: Path) -> None:
    """Bot names as written; their folder forms (judge.names) must differ."""
    from judge.league.run import pair_folder

    f = tmp_path / "league.yaml"
    bots = "bots:\n  - {name: Rồng Biển, bot: greedy}\n  - {name: Cá-Mập, bot: random}\n"
    f.write_text(f"seed: 1\n{bots}", encoding="utf-8")
    cfg = load_league(f)
    assert [b.name for b in cfg.bots] == ["Rồng Biển", "Cá-Mập"]
    assert pair_folder(7, "Rồng Biển", "Cá-Mập") == "000007-Rong_Bien-vs-Ca-Map"
    f.write_text(f"seed: 1\n{bots}  - {{name: Rong Bien, bot: greedy}}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="both give the folder name 'Rong_Bien'"):
        load_league(f)


# ------------------------------------------------------------------ real bots


@pytest.mark.slow
def test_real_league_of_bundled_and_weakened_bots_finds_their_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak = mixed_bot(tmp_path / "bots" / "half", 0.5)
    f = tmp_path / "league.yaml"
    f.write_text(
        "seed: 4\noutput: lg\nsizes: [5, 7]\nturns: [10]\npairs: 8\nbatch: 2\njobs: 2\nbots:\n"
        f"  - {{name: greedy, bot: {BOTS / 'greedy'}}}\n"
        f"  - {{name: random, bot: {BOTS / 'random'}}}\n"
        f"  - {{name: half, bot: {weak}}}\n",
        encoding="utf-8",
    )
    assert main(["league", str(f), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "leaderboard" in out and "conservative" in out
    assert "8 pairs (16 rounds) played" in out
    data = json.loads((tmp_path / "lg" / "leaderboard.json").read_text())["leaderboard"]
    assert [r["bot"] for r in data] == ["greedy", "half", "random"]
    assert sum(r["rounds"] for r in data) == 32
    page = (tmp_path / "lg" / "index.html").read_text()
    assert "replay.html" in page and "greedy" in page
    # a second run plays on from the same ratings; a new version of 'half' starts fresh
    (weak / "mix.txt").write_text("0.6\n")
    assert main(["league", str(f), "--pairs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "replaced: half (version" in err
    assert "1 pair (2 rounds) played" in out
    assert main(["league", str(f), "--resume"]) == 2
    assert "no stopped run" in capsys.readouterr().err
