"""Self-contained HTML replays, and the index page of a tournament folder.

One HTML file holds everything: CSS and JS inline, the replay embedded as
JSON in ``<script type="application/json" id="replay-data">``.  No fonts,
images or scripts are fetched, and a Content-Security-Policy of
``default-src 'none'`` makes sure nothing can be: the file works from a USB
stick (``file://``) on a projector laptop without network.

Automation hooks (stable; a checker drives and reads the page through them):

* ``#turn`` the turn shown (just the number), ``#turn-total`` the round's K,
  ``#round-select`` (value = round number), ``#board`` with ``data-round``,
  ``data-turn``, ``data-rows``, ``data-cols``; ``body[data-ready="true"]``
  once drawn.
* ``#boat-0`` / ``#boat-1`` (class ``boat``): ``data-seat``, ``data-row``,
  ``data-col`` (1-based, as in the replay), ``data-sunk`` and ``data-shield``
  (``"true"``/``"false"``).
* ``#gold-0`` / ``#gold-1`` (just the number), ``#shield-N``, ``#state-N``
  (afloat/sunk), ``#move-N``, ``#status-N`` (what became of the move, in words:
  ``moved``, ``placed``, ``stayed`` or ``void: <why>``; its ``data-status`` is
  the replay's move_status), ``#verdict-N``,
  ``#time-N``, ``#events`` (one ``li`` per event), ``#result`` (at the last turn).
* every cell ``.cell`` has ``data-row``, ``data-col``, ``data-value`` (the
  replay's token: a number, ``D`` or ``S``) and ``data-treasure="true"`` while
  the treasure lies on it.
* controls ``#first #prev #play #next #last``, ``#slider`` (value = turn),
  ``#speed`` (turns per second); keys: left/right arrows, space, Home/End,
  ``+``/``-`` for speed, PageUp/PageDown for the round.
* ``window.oceanReplay``: ``goto(turn)``, ``setRound(n)``, ``next()``,
  ``prev()``, ``play()``, ``pause()``, ``state()``; a URL fragment
  ``#round=2&turn=15`` opens there.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from judge import atomic, voidwhy
from judge.grid import centre
from judge.records import Json, TurnRecord
from judge.rules import Event, EventKind, score
from judge.views import _assets, failures, palette
from judge.views.replayfile import MatchReplay, ReplayError, RoundReplay, load

#: Where the pages of a match go, inside its folder.
MATCH_HTML = "replay.html"
ROUND_HTML = "replay.html"  # in round-N/
INDEX_HTML = "index.html"

_KEEP = (
    "turn",
    "turns_left",
    "positions",
    "gold",
    "shield",
    "sunk",
    "grid",
    "treasure",
    "ended",
    "end_reason",
    "moves",
    "raw",
    "verdicts",
    "move_status",
    "wall_ms",
    "cpu_ms",
    "mem_mb",
    "messages",
    "discarded",
    "why",
    "events",
    "random_placed",
)


def _frame(rec: TurnRecord, names: Sequence[str], people: Sequence[int] = ()) -> Json:
    """A record as the page needs it, with the events already in words (one wording: rules.py);
    ``people``: the seats a person played (no guess of a coding mistake for them)."""
    data = rec.to_json()
    f = {k: data[k] for k in _KEEP if k in data}
    f["grid"] = rec.cells()
    texts = []
    for att in rec.attempts:
        if att.reask:
            texts += [e.describe(names) for e in att.events]
    texts += [e.describe(names) for e in rec.events]
    f["text"] = texts
    # What became of each move in words (judge.voidwhy): the same sentence as log.txt and the board.
    runs = rec.runs or (None, None)
    f["status_text"] = [
        voidwhy.status_words(r, voidwhy.Where.of_record(rec, s), s in people) or None if r else None
        for s, r in enumerate(runs)
    ]
    # Why a boat stands still, in a few words (the projector's caption): "time-out", "void: ..."
    f["caption"] = [failures.caption(r) for r in runs]
    return f


def _round_data(rnd: RoundReplay) -> Json:
    names = rnd.names
    res = rnd.result
    return {
        "index": rnd.index,
        "label": rnd.map_name,
        "rows": rnd.rows,
        "cols": rnd.cols,
        "turns": rnd.turns,
        "teams": names,
        "seed": rnd.header.seed,
        "partial": rnd.partial,
        "people": list(rnd.header.people),  # the seats a person played (judge play)
        # in seat order, as the page names the teams (the header's order)
        "result": {
            "gold": list(res.gold),
            "points": list(res.points),
            "winner": res.winner,
            "end_reason": res.end_reason.value,
            "turns_played": res.turns_played,
        }
        if res is not None
        else None,
        "frames": _frames(rnd),
    }


def _frames(rnd: RoundReplay) -> list[Json]:
    """The frames, each also saying who has taken the treasure by then (a record alone cannot)."""
    middle = centre(rnd.rows, rnd.cols)
    taker: int | None = None
    out = []
    for rec in rnd.frames():
        f = _frame(rec, rnd.names, rnd.header.people)
        if rec.treasure is not None and taker is None:
            for e in rec.events:
                if isinstance(e, Event) and e.kind is EventKind.COLLECT and e.pos == middle:
                    taker = e.seat
        f["treasure_by"] = taker
        out.append(f)
    return out


def _fill(template: str, **parts: str) -> str:
    """Put the parts into ``{{NAME}}`` slots in one pass (a team named "{{JS}}" stays a name)."""
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], template)


def _json_for_script(data: Any) -> str:
    """JSON that cannot close its <script> tag: '<', '>' and '&' become \\u escapes."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_html(
    rounds: Sequence[RoundReplay],
    title: str | None = None,
    start_round: int | None = None,
    start_turn: int | None = None,
    back_link: str | None = None,
) -> str:
    """The page for ``rounds`` (one or more rounds of one match).

    ``start_round``/``start_turn`` pick what shows first (default: the first
    round at its first turn); ``back_link`` adds a link (e.g. to index.html).
    """
    if not rounds:
        raise ReplayError("no rounds to show")
    teams = rounds[0].names
    title = title or f"{teams[0]} vs {teams[1]}"
    data = {
        "title": title,
        "teams": teams,
        "colours": list(palette.FILL),
        "rounds": [_round_data(r) for r in rounds],
        "start": {"round": start_round, "turn": start_turn},
        "back": quote(back_link) if back_link else None,
    }
    return _fill(
        _assets.PAGE,
        TITLE=html.escape(title),
        CSS=_assets.CSS,
        DATA=_json_for_script(data),
        JS=_assets.JS,
    )


def write_replay_html(
    path: Path | str,
    match: MatchReplay,
    round_index: int | None = None,
    turn: int | None = None,
    back_link: str | None = None,
) -> Path:
    """Write the HTML replay of a match (every round, or only ``round_index``) to ``path``."""
    rounds = [match.round(round_index)] if round_index is not None else match.rounds
    teams = match.teams
    title = f"{teams[0]} vs {teams[1]}"
    if round_index is not None:
        title += f", round {round_index}"
    page = replay_html(rounds, title, start_round=round_index, start_turn=turn, back_link=back_link)
    out = Path(path)
    atomic.write_text(out, page)
    return out


def write_match_html(match_dir: Path | str, back_link: str | None = None) -> list[Path]:
    """``replay.html`` (all rounds) in a match folder and ``round-N/replay.html`` for each round.

    ``back_link`` is relative to the match folder (the round pages get one more ``../``).
    Returns the written paths, the match page first.
    """
    folder = Path(match_dir)
    match = load(folder)
    written = [write_replay_html(folder / MATCH_HTML, match, back_link=back_link)]
    for rnd in match.rounds:
        rdir = rnd.path.parent
        back = None
        if back_link is not None:
            back = os.path.relpath(folder / back_link, rdir).replace(os.sep, "/")
        written.append(
            write_replay_html(rdir / ROUND_HTML, match, round_index=rnd.index, back_link=back)
        )
    return written


#: Column headers people read, for the keys of standings rows (others: '_' becomes a space).
COLUMN_NAMES = {"rounds_won": "rounds won"}


def column_name(key: str) -> str:
    """A standings key as a column header: ``rounds_won`` -> ``rounds won``."""
    return COLUMN_NAMES.get(key, key.replace("_", " "))


def _rel(target: Path, base: Path) -> str:
    """A relative path with '/' (a link that still works when the whole folder is copied)."""
    return os.path.relpath(target, base).replace(os.sep, "/")


def _href(target: Path, base: Path) -> str:
    """A relative link, percent-encoded: folder names may hold spaces, '#' or '?'."""
    return html.escape(quote(_rel(target, base)))


#: The verdicts of a run that failed, as the tournament page counts them per team.
FAILED_VERDICTS = failures.FAILED_VERDICTS
#: Every kind of badge, in the page's order: the failed runs, then the void moves.
BADGE_KINDS = (*FAILED_VERDICTS, failures.VOID)


@dataclass
class _Failure:
    """How often one team's runs ended one way (a verdict, or a void move), and where it
    first happened."""

    count: int
    href: str  # the round's page at the turn of the first one
    where: str  # that place in words (the link's title)
    #: a void move's reasons ({Why value: moves}); empty for a failed run
    why: dict[str, int] = field(default_factory=dict)


def _round_failures(rnd: RoundReplay) -> dict[str, dict[str, tuple[int, int, dict[str, int]]]]:
    """{team: {kind: (runs, first turn, {reason: moves})}} of the failed runs (by verdict) and
    the void moves (kind ``void``, by reason) of a round."""
    out: dict[str, dict[str, tuple[int, int, dict[str, int]]]] = {}
    for rec in rnd.records:
        for seat, run in enumerate(rec.runs or ()):
            if run is None:
                continue
            one = failures.SeatFailures()
            failures.add_run(one, run)
            if not one:
                continue
            kind = next(iter(one.verdicts), failures.VOID)
            team = rnd.names[seat]
            n, first, why = out.setdefault(team, {}).get(kind, (0, rec.turn, {}))
            for w, k in one.void.items():
                why[w] = why.get(w, 0) + k
            out[team][kind] = (n + 1, first, why)
    return out


def _badge(verdict: str, count: int, href: str, title: str) -> str:
    esc = html.escape
    return (
        f'<a class="badge v-{esc(verdict.lower())}" data-verdict="{esc(verdict)}" '
        f'data-count="{count}" href="{href}" title="{esc(title)}">{esc(verdict)} {count}</a>'
    )


def _void_why(why: Mapping[str, int]) -> str:
    """`` (41 × the cell is not next to the boat)``: a void badge's reasons, as text."""
    text = failures.SeatFailures(void=dict(why)).void_text()
    return f' <span class="why-void">({html.escape(text)})</span>' if text else ""


def _legend() -> str:
    esc = html.escape
    items = "".join(
        f'<li><span class="badge v-{esc(k.lower())}">{esc(k)}</span> {esc(words)}</li>'
        for k, words in failures.LEGEND
    )
    return f'<ul class="legend" id="legend">{items}</ul>'


def _round_outcome(rnd: RoundReplay, teams: Sequence[str]) -> tuple[int | None, list[int]] | None:
    """(winner, gold) of a finished round in ``teams`` order: from the match's result.json,
    or, where there is none (a league's pair), from the round's last turn record."""
    if rnd.result is not None:
        res = rnd.result.in_order(teams)
        return res.winner, list(res.gold)
    last = rnd.records[-1] if rnd.records else None
    if last is None or not last.ended or last.end_reason is None:
        return None
    outcome = score(last.gold, last.end_reason)
    by_team = dict(zip(rnd.names, last.gold, strict=True))
    if set(by_team) != set(teams):
        return None
    winner = None if outcome.winner is None else list(teams).index(rnd.names[outcome.winner])
    return winner, [by_team[t] for t in teams]


def write_index_html(
    tournament_dir: Path | str,
    standings: Sequence[Mapping[str, Any]],
    matches: Sequence[Mapping[str, Any]],
    title: str = "Ocean Treasure tournament",
    failed_runs: bool = False,
) -> Path:
    """Write ``index.html`` in a tournament folder, and the HTML replays it links to.

    ``standings``: one mapping per team, already in standings order (R18); the
    columns are the keys of the first mapping, in their order (e.g. ``team``,
    ``points``, ``won``, ``gold``); values are shown as text.

    ``matches``: one mapping per match, with ``"dir"``: the match folder
    (relative to ``tournament_dir`` or absolute; as ``judge match`` writes it)
    and optionally ``"title"`` (default: "A vs B" from its result.json).  For
    each match folder that holds a readable match, this writes
    ``<dir>/replay.html`` (all rounds) and ``<dir>/round-N/replay.html`` (one
    round each), which the index links to.  A match that cannot be read
    (not played yet, or broken) is listed with the reason instead of failing
    the whole page, so the index can be rewritten after every match.

    ``failed_runs`` (a tournament's page): a column of badges, one per kind of
    failed run (TLE, RE, MLE, OLE, IE) of each team (the first mapping's first
    value names it), each linking to the turn of the first one; each round of
    the list names its failed runs too.  What a teacher is asked about first.

    Returns the path of ``index.html``.
    """
    root = Path(tournament_dir)
    root.mkdir(parents=True, exist_ok=True)
    failed_by_team: dict[str, dict[str, _Failure]] = {}
    match_parts = _match_list(root, matches, failed_by_team)
    parts = _standings_table(standings, failed_by_team if failed_runs else None)
    parts.append('<h2>Matches</h2><ol id="matches">')
    parts += match_parts
    parts.append("</ol>")
    esc = html.escape
    page = _fill(_assets.INDEX_PAGE, TITLE=esc(title), CSS=_assets.INDEX_CSS, BODY="\n".join(parts))
    out = root / INDEX_HTML
    atomic.write_text(out, page)
    return out


def _standings_table(
    standings: Sequence[Mapping[str, Any]], failed_by_team: dict[str, dict[str, _Failure]] | None
) -> list[str]:
    """The standings as a table that scrolls inside itself where the page is too narrow."""
    esc = html.escape
    cols = list(standings[0].keys()) if standings else []
    extra = '<th class="failed">failed runs, void moves</th>' if failed_by_team is not None else ""
    parts = [
        '<div class="table-wrap"><table id="standings"><thead><tr><th>#</th>'
        + "".join(f"<th>{esc(column_name(str(c)))}</th>" for c in cols)
        + extra
        + "</tr></thead><tbody>"
    ]
    for rank, row in enumerate(standings, start=1):
        cells = "".join(f"<td>{esc(str(row.get(c, '')))}</td>" for c in cols)
        if failed_by_team is not None:
            own = failed_by_team.get(str(row.get(cols[0], "")), {}) if cols else {}
            badges = " ".join(
                _badge(v, own[v].count, own[v].href, own[v].where) + _void_why(own[v].why)
                for v in BADGE_KINDS
                if v in own
            )
            cells += f'<td class="failed">{badges or _NONE}</td>'
        parts.append(f'<tr data-rank="{rank}"><td>{rank}</td>{cells}</tr>')
    parts.append("</tbody></table></div>")
    if failed_by_team is not None:
        parts.append(_legend())
    return parts


#: A team with nothing failed: said plainly, not drawn as an error.
_NONE = '<span class="none">none</span>'


def _match_list(
    root: Path, matches: Sequence[Mapping[str, Any]], failed_by_team: dict[str, dict[str, _Failure]]
) -> list[str]:
    """The list items of the matches (writing each one's replay pages), adding each
    round's failed runs and void moves to ``failed_by_team``."""
    esc = html.escape
    parts: list[str] = []
    for entry in matches:
        raw = entry.get("dir", entry.get("path"))
        if raw is None:
            continue
        mdir = Path(raw) if Path(raw).is_absolute() else root / raw
        if not mdir.exists():
            label = esc(str(entry.get("title") or Path(raw).name))
            parts.append(
                f'<li class="match missing">{label}: <span class="why">not played yet</span></li>'
            )
            continue
        try:
            match = load(mdir)
            write_match_html(mdir, back_link=_rel(root / INDEX_HTML, mdir))
        except (ReplayError, OSError) as exc:
            label = esc(str(entry.get("title") or Path(raw).name))
            # The page names paths relative to its own folder, never the judge machine's.
            why = str(exc).replace(f"{root}{os.sep}", "")
            parts.append(
                f'<li class="match missing">{label}: <span class="why">{esc(why)}</span></li>'
            )
            continue
        teams = match.teams
        label = str(entry.get("title") or f"{teams[0]} vs {teams[1]}")
        score_text = ""
        if match.result is not None:
            p = match.result.points
            score_text = f' <span class="score">{esc(str(p[0]))}&ndash;{esc(str(p[1]))}</span>'
        parts.append(
            f'<li class="match"><a class="match-link" href="'
            f'{_href(mdir / MATCH_HTML, root)}">{esc(label)}</a>{score_text}<ul>'
        )
        for rnd in match.rounds:
            parts.append(_round_item(root, label, teams, rnd, failed_by_team))
        parts.append("</ul></li>")
    return parts


def _round_item(
    root: Path,
    match_label: str,
    teams: Sequence[str],
    rnd: RoundReplay,
    failed_by_team: dict[str, dict[str, _Failure]],
) -> str:
    esc = html.escape
    what = ""
    outcome = _round_outcome(rnd, teams)
    if outcome is not None:
        w, gold = outcome
        who = "draw" if w is None else f"{teams[w]} wins"
        what = f" &mdash; {esc(who)}, gold {esc(str(gold[0]))}&ndash;{esc(str(gold[1]))}"
    elif rnd.partial:
        what = " &mdash; unfinished"
    href = _href(rnd.path.parent / ROUND_HTML, root)
    failed = []
    for team, kinds in _round_failures(rnd).items():
        badges = []
        for kind in BADGE_KINDS:
            if kind not in kinds:
                continue
            n, turn, why = kinds[kind]
            at = f"{href}#turn={turn}"
            where = f"first at {match_label}, round {rnd.index}, turn {turn}"
            badges.append(_badge(kind, n, at, where) + _void_why(why))
            mine = failed_by_team.setdefault(team, {})
            if kind not in mine:
                mine[kind] = _Failure(0, at, where)
            mine[kind].count += n
            for reason, moves in why.items():
                mine[kind].why[reason] = mine[kind].why.get(reason, 0) + moves
        failed.append(f"{esc(team)} {' '.join(badges)}")
    failed_text = (
        f' <span class="failed">failed runs, void moves: {"; ".join(failed)}</span>'
        if failed
        else ""
    )
    return (
        f'<li><a class="round-link" href="{href}">round {rnd.index}: '
        f"{esc(rnd.map_name)}</a>{what}{failed_text}</li>"
    )
