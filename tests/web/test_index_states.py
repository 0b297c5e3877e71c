"""``judge serve``'s index: each result with its teams, its result and its true state.

A round is "playing now" only while its referee holds its replay open: an eval
stopped by its SPRT (a round cut short there leaves a ``.part``) is finished, a
``judge play`` stopped with Ctrl-C is stopped, a tournament is playing while a
round of it is being written and stopped once nothing writes it any more.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx2  # noqa: F401
import starlette  # noqa: F401  (the web extra: a broken install must fail)
from starlette.testclient import TestClient  # noqa: E402

from judge import atomic
from judge.web.app import Site  # noqa: E402
from tests.tournament._helpers import fake_bots, make_config, run_fake
from tests.views._replays import eventful_round, write_replay

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "v0.1.0"
SPRT = {
    "elo0": 0,
    "elo1": 50,
    "alpha": 0.05,
    "beta": 0.05,
    "lower": -2.9444,
    "upper": 2.9444,
    "llr": 3.1,
    "pairs": 2,
    "verdict": "H1",
    "rounds_after_verdict": 0,
}


def _entries(root: Path) -> dict[str, dict[str, Any]]:
    page = TestClient(Site(root).app()).get("/").text
    data = json.loads(page.split('id="page-data">', 1)[1].split("</script>", 1)[0])
    return {e["rel"]: e for e in data["entries"]}


def _eval_stopped_by_its_sprt(folder: Path) -> None:
    data = json.loads((FIXTURES / "eval" / "eval.json").read_text(encoding="utf-8"))
    data["sprt"] = SPRT
    folder.mkdir(parents=True)
    (folder / "eval.json").write_text(json.dumps(data), encoding="utf-8")
    write_replay(folder / "round-0005" / "replay.jsonl.part", eventful_round()[:4])  # cut short


def _play_stopped_with_ctrl_c(folder: Path) -> None:
    lines = eventful_round()[:5]
    lines[0]["teams"] = ["You", "greedy"]
    write_replay(folder / "round-1" / "replay.jsonl.part", lines)


def test_a_finished_eval_and_a_stopped_play_are_not_playing(tmp_path: Path) -> None:
    _eval_stopped_by_its_sprt(tmp_path / "eval-1")
    _play_stopped_with_ctrl_c(tmp_path / "20260101-play-greedy")
    got = _entries(tmp_path)
    ev, play = got["eval-1"], got["20260101-play-greedy"]
    assert ev["kind"] == "eval" and ev["state"] == "finished" and not ev["live"]
    assert "SPRT" in ev["state_text"] and "H1" in ev["state_text"]
    # listed as "eval: greedy vs random" (the kind, then the title: never the kind twice)
    assert ev["title"] == "greedy vs random" and ev["href"] == "/eval?p=eval-1"
    assert any("rounds" in line and "greedy wins" in line for line in ev["lines"])
    assert play["kind"] == "match" and play["state"] == "stopped" and not play["live"]
    assert play["title"] == "You vs greedy"


def test_an_eval_opens_as_a_page(tmp_path: Path) -> None:
    _eval_stopped_by_its_sprt(tmp_path / "eval-1")
    r = TestClient(Site(tmp_path).app()).get("/eval", params={"p": "eval-1"})
    assert r.status_code == 200 and 'data-page="eval"' in r.text
    assert "SPRT: H1 accepted" in r.text and "greedy vs random" in r.text
    assert "/replay?p=eval-1/round-" in r.text  # each round links to its replay
    assert TestClient(Site(tmp_path).app()).get("/eval", params={"p": "nope"}).status_code == 404


def test_a_round_held_open_by_its_referee_is_playing_now(tmp_path: Path) -> None:
    part = tmp_path / "m" / "round-1" / "replay.jsonl.part"
    write_replay(part, eventful_round()[:3])
    with open(part, "a", encoding="utf-8") as f:
        atomic.hold_while_writing(f.fileno())
        assert atomic.being_written(part)
        assert _entries(tmp_path)["m"]["state"] == "playing now"
    assert not atomic.being_written(part)
    assert _entries(tmp_path)["m"]["state"] == "stopped"


def test_the_referee_holds_the_replay_of_a_round_in_play(tmp_path: Path) -> None:
    """A real (fake-sandbox) tournament: while a bot runs its round's replay is held, and
    the index says the tournament is playing; once it is over, finished, with its winner."""
    teams = [{"name": n, "bot": "greedy", "map": f"m{i + 1}"} for i, n in enumerate("AB")]
    cfg = make_config(tmp_path / "cfg", n_teams=2, teams=teams, turns=4, title="Lớp 10A")
    out = tmp_path / "served" / "final"
    bots = fake_bots(cfg.team_names)
    seen: list[str] = []

    def watching(map_inp: str, state: bytes | None) -> Any:
        if not seen:
            seen.append(_entries(tmp_path / "served")["final"]["state_text"])
        return bots["A"](map_inp, state)

    assert run_fake(cfg, out, jobs=1, bots={"A": watching, "B": bots["B"]}).complete
    assert seen and seen[0].startswith("playing now: 0 of 3 rounds")
    final = _entries(tmp_path / "served")["final"]
    assert final["state"] == "finished" and final["title"] == "Lớp 10A"
    assert any(line.startswith("winner: ") for line in final["lines"])
    assert any(line == "2 teams: A, B" for line in final["lines"])


def test_a_stopped_tournament_says_how_far_it_got(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "tournament", tmp_path / "t")
    (tmp_path / "t" / "standings.json").unlink()
    got = _entries(tmp_path)["t"]
    assert got["state"] == "stopped" and "--resume" in got["state_text"]


def test_a_round_left_unfinished_by_a_stopped_tournament_is_stopped(tmp_path: Path) -> None:
    from tests.tournament._helpers import StopAfter

    teams = [{"name": n, "bot": "greedy", "map": f"m{i + 1}"} for i, n in enumerate("ABC")]
    cfg = make_config(tmp_path / "cfg", teams=teams, turns=20)
    stopper = StopAfter(fake_bots(cfg.team_names), calls=30)
    report = run_fake(
        cfg, tmp_path / "t", jobs=1, bots=stopper.bots, hook=lambda r: setattr(stopper, "runner", r)
    )
    assert not report.complete
    st = TestClient(Site(tmp_path).app()).get("/api/tournament", params={"p": "t"}).json()
    statuses = [r["status"] for r in st["rounds"]]
    assert "stopped" in statuses and "playing" not in statuses, statuses
    assert _entries(tmp_path)["t"]["state"] == "stopped"
