"""What the ladder's pages and JSON show, read from the store and the replays (no web here).

Public: the ladder (:func:`standings_json`), a team's games (:func:`games_json`),
a game (:func:`game_json`), two teams head to head (:func:`head_to_head`); all of
them go through :mod:`judge.arena.scoreboard`'s rule, so a hidden board hides
them all.  A challenge is shown only to its two teams and the organiser.

A team's own: its failures first (:func:`failures`): every run of its bot that
timed out, crashed or made a void move in its latest games, with the judge's
words for it and the turn's MAP.INP, to run the bot on at home.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.arena import games as g
from judge.arena.final import FINAL_DIR
from judge.arena.ladder import PairKind
from judge.arena.phases import released
from judge.arena.ratings import Player, Standing, standings
from judge.arena.scoreboard import ScoreboardRules, is_hidden, public_board
from judge.arena.store import Store
from judge.names import folder_name
from judge.records import Json
from judge.voidwhy import of_run, words

#: A team's failures are looked for in this many of its latest games.
FAILURE_GAMES = 30
#: At most this many failures are listed.
FAILURES_SHOWN = 50
#: The end of a failing run's error output shown with it (the team's own output).
STDERR_SHOWN = 2000


@dataclass(frozen=True)
class Viewer:
    """Who asks: nobody (the public), a team, or the organiser."""

    team_id: int | None = None
    organiser: bool = False


def ladder(store: Store) -> list[Standing]:
    """The ladder now: the current players, best first."""
    return standings(
        [
            Player(p.team, p.number, p.rating, p.games, p.house is not None, p.last_change)
            for p in g.players(store, current_only=True)
        ]
    )


def hidden(store: Store, rules: ScoreboardRules) -> bool:
    return is_hidden(store.phase.value, rules, released(store))


def final_standings(root: Path) -> list[Json] | None:
    path = root / FINAL_DIR / "standings.json"
    if not path.is_file():
        return None
    try:
        rows = json.loads(path.read_text(encoding="utf-8")).get("standings")
    except (OSError, ValueError, AttributeError):
        return None
    return rows if isinstance(rows, list) else None


def standings_json(
    root: Path, store: Store, rules: ScoreboardRules, viewer: Viewer = Viewer()
) -> Json:
    """``GET /api/standings`` (the organiser sees through a hidden board)."""
    hide = hidden(store, rules) and not viewer.organiser
    final = final_standings(root) if (released(store) or viewer.organiser) else None
    return public_board(store.phase.value, hide, ladder(store), final)


# ------------------------------------------------------------------- games
def _result(points: float | None) -> str | None:
    return {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(points) if points is not None else None


def game_json(game: g.Game, who: dict[str, g.Player]) -> Json:
    """A game as the API gives it: its teams and versions, A's result, its replays."""
    a, b = who.get(game.a), who.get(game.b)
    rounds = []
    for r in game.rounds or []:
        rounds.append(
            {
                "round": r.get("round"),
                "seats": r.get("seats"),
                "winner": r.get("winner"),
                "gold": r.get("gold"),
                "end_reason": r.get("end_reason"),
                "result": r.get("outcome"),
                "replay": f"/games/{game.id}/replay?round={r.get('round')}"
                if r.get("replay")
                else None,
                "error": r.get("error"),
            }
        )
    return {
        "id": game.id,
        "kind": game.kind.value,
        "state": game.state,
        "teams": [a.team if a else None, b.team if b else None],
        "versions": [a.number if a else None, b.number if b else None],
        "map": game.plan.label,
        "result": _result(game.points_a),
        "rated": game.rated,
        "unrated": game.unrated,
        "ratings": {
            "before": [game.a_before, game.b_before],
            "after": [game.a_after, game.b_after],
        },
        "rounds": rounds,
        "replay": f"/games/{game.id}",
        "finished_at": game.finished_at,
    }


def _keys_of(store: Store, team: str) -> list[str]:
    """Every player of a team (all its versions), or the house bot of that name."""
    return [p.key for p in g.players(store) if p.team == team]


def may_see(game: g.Game, who: dict[str, g.Player], viewer: Viewer) -> bool:
    """Challenges only to their two teams (and the organiser); every other game to anyone."""
    if game.kind is not PairKind.CHALLENGE or viewer.organiser:
        return True
    teams = {who[k].team_id for k in (game.a, game.b) if k in who}
    return viewer.team_id is not None and viewer.team_id in teams


def games_json(
    store: Store, team: str | None, viewer: Viewer, limit: int = 200, done_only: bool = False
) -> list[Json]:
    """The games of ``team`` (every version of it), newest first; all games when None."""
    who = {p.key: p for p in g.players(store)}
    where, params = "WHERE state <> 'dropped'", []
    if done_only:
        where = "WHERE state = 'done'"
    if team is not None:
        keys = _keys_of(store, team)
        if not keys:
            return []
        marks = ", ".join("?" for _ in keys)
        where += f" AND (a IN ({marks}) OR b IN ({marks}))"
        params = [*keys, *keys]
    found = g.games(store, where, params, limit=limit)
    return [game_json(x, who) for x in found if may_see(x, who, viewer)]


def head_to_head(store: Store, a: str, b: str, viewer: Viewer) -> Json:
    """Two teams' games against each other (every version), and their tally from A's view."""
    ka, kb = set(_keys_of(store, a)), set(_keys_of(store, b))
    who = {p.key: p for p in g.players(store)}
    out = []
    tally = {"win": 0, "draw": 0, "loss": 0}
    for x in g.games(store, "WHERE state = 'done'"):
        if not ({x.a, x.b} <= ka | kb and {x.a, x.b} & ka and {x.a, x.b} & kb):
            continue
        if not may_see(x, who, viewer):
            continue
        shown = game_json(x, who)
        result = shown["result"]
        if result is not None:
            mine = result if x.a in ka else {"win": "loss", "loss": "win", "draw": "draw"}[result]
            tally[mine] += 1
        out.append(shown)
    return {"teams": [a, b], "pairs": tally, "games": out}


# ---------------------------------------------------------------- failures
_TURN_HEAD = re.compile(r"^--- turn (\d+): ")


def stderr_by_turn(path: Path) -> dict[int, str]:
    """A seat's ``stderr.log`` (the referee's blocks, one per failing or talking run) by turn."""
    out: dict[int, list[str]] = {}
    turn: int | None = None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    for line in text.splitlines():
        m = _TURN_HEAD.match(line)
        if m is not None:
            turn = int(m.group(1))
            out.setdefault(turn, [])
        elif turn is not None:
            out[turn].append(line)
    return {t: "\n".join(lines).strip() for t, lines in out.items()}


def checkbot_words(run: Any, stderr: str) -> str | None:
    """What ``judge check-bot`` says of a failed run (a time-out, a crash, too much memory):
    its reason and likely cause, from the run's verdict, message and error output."""
    from judge.checkbot.diagnose import RunFacts, diagnose
    from judge.checkbot.situations import Situation, placement_game
    from judge.sandbox import Limits

    facts = RunFacts(
        verdict=str(run.verdict),
        wall_s=(run.wall_ms or 0.0) / 1000,
        cpu_s=(run.cpu_ms or 0.0) / 1000,
        peak_memory_bytes=int((run.mem_mb or 0.0) * 2**20),
        exit_code=None,
        signal=None,
        message=run.message or "",
        stdout=b"",
        stderr=stderr.encode("utf-8", "replace"),
        move_out=None,
    )
    sit = Situation("arena", "a game of the ladder", "", placement_game())
    findings = diagnose(sit, facts, Limits()).findings
    if not findings:
        return None
    f = findings[0]
    return f"{f.reason}; likely: {f.cause}" if f.cause else f.reason


def _replay_failures(path: Path, seat: int, stderr: dict[int, str]) -> list[Json]:
    from judge.checkbot.replayed import game_before
    from judge.protocol import render_map_inp
    from judge.records.replay import ReplayHeader, TurnRecord

    lines = path.read_text(encoding="utf-8").splitlines()
    header = ReplayHeader.from_json(json.loads(lines[0]))
    rows, cols = header.map.rows, header.map.cols
    out: list[Json] = []
    previous: TurnRecord | None = None
    for line in lines[1:]:
        raw = json.loads(line)
        if raw.get("type") == "end" or "turn" not in raw:
            continue
        rec = TurnRecord.from_json(raw, rows, cols)
        if rec.runs is not None:
            run = rec.runs[seat]
            why = of_run(run)
            failed = run.verdict not in (None, "OK")
            if failed or why is not None:
                err = stderr.get(rec.turn, "")
                # the MAP.INP the bot was given, as check-bot --from renders it
                before = game_before(header, previous if rec.turn > 1 else None)
                out.append(
                    {
                        "turn": rec.turn,
                        "verdict": run.verdict,
                        "message": run.message,
                        "why": words(why) if why is not None else None,
                        "checkbot": checkbot_words(run, err) if failed else None,
                        "stderr": err[-STDERR_SHOWN:] or None,
                        "move_out": run.raw,
                        "map_inp": render_map_inp(before, seat),
                    }
                )
        previous = rec
    return out


def failures(root: Path, store: Store, team_id: int) -> list[Json]:
    """The team's failing runs in its latest games, newest game first."""
    keys = [p.key for p in g.players(store) if p.team_id == team_id]
    if not keys:
        return []
    who = {p.key: p for p in g.players(store)}
    marks = ", ".join("?" for _ in keys)
    found = g.games(
        store,
        f"WHERE state = 'done' AND (a IN ({marks}) OR b IN ({marks}))",
        [*keys, *keys],
        FAILURE_GAMES,
    )
    out: list[Json] = []
    for x in found:
        mine = x.a if x.a in keys else x.b
        for r in x.rounds or []:
            if not r.get("replay"):
                continue
            seats: Sequence[str] = r.get("seats") or ()
            seat = 0 if seats and seats[0] == who[mine].label else 1
            path = root / r["replay"]
            if not path.is_file():
                continue
            err = (
                stderr_by_turn(path.parent / folder_name(seats[seat]) / "stderr.log")
                if seats
                else {}
            )
            for f in _replay_failures(path, seat, err):
                out.append(
                    {
                        "game": x.id,
                        "round": r["round"],
                        "version": who[mine].number,
                        "opponent": who[x.b if mine == x.a else x.a].label,
                        "replay": f"/games/{x.id}/replay?round={r['round']}",
                        **f,
                    }
                )
                if len(out) >= FAILURES_SHOWN:
                    return out
    return out


def team_summary(store: Store, team_id: int) -> dict[str, Any]:
    """A team's place on the ladder (its current version); {} when it has none."""
    mine = next((p for p in g.players(store, True) if p.team_id == team_id), None)
    if mine is None:
        return {}
    for i, s in enumerate(ladder(store), start=1):
        if s.team == mine.team and s.version == mine.number:
            return {"rank": i, **s.to_json()}
    return {}


def latest_game(store: Store, team_id: int) -> int:
    """The id of the team's latest finished game (0: none): its failures change with it."""
    row = store.row(
        "SELECT coalesce(max(g.id), 0) FROM games g JOIN players p ON p.key IN (g.a, g.b) "
        "JOIN versions v ON v.id = p.version_id WHERE v.team_id = ? AND g.state = 'done'",
        (team_id,),
    )
    return int(row[0]) if row else 0
