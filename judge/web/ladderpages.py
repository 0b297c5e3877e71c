"""The ladder's pages (self-contained HTML): the ladder, games, a game, head to head, a team's own.

Every text a team chose or a bot wrote (names, MOVE.OUT, the judge's messages,
MAP.INP) reaches the page as JSON data and is drawn with ``textContent`` only:
shown as text, never run.  Automation hooks (stable; the tests read them):

* ``body[data-page]``: ``ladder``, ``games``, ``game``, ``h2h``, ``team-ladder``;
  ``body[data-ready="true"]`` once drawn (again after every update);
* the ladder: ``#ladder tbody tr[data-team]`` with ``.rating``, ``.mu``, ``.games``;
  ``#phase``; ``#hidden`` when the board is hidden;
* games: ``#games tbody tr[data-game]``; a game: ``#rounds a.replay``;
* a team's page: ``#failures li[data-game]`` with ``pre.map-inp``; ``#map-form``
  (field ``map``), ``#challenge-form`` (fields ``opponent``, ``pairs``).
"""

from __future__ import annotations

import html
from typing import Any

from judge.web.pages import page

NAV = (
    '<p class="muted"><a href="/ladder">ladder</a> &middot; <a href="/games">games</a> &middot; '
    '<a href="/team/ladder">my team</a> &middot; <a href="/team">uploads</a></p>'
)

GAMES_JS = r"""
function result(g){ if(g.state!=='done'){return g.state;} const r=g.result||'-';
  return r + (g.rated ? '' : ' (unrated: ' + (g.unrated||'') + ')'); }
function gameRows(body, games){
  clear(body);
  games.forEach(function(g){
    const tr = el('tr', {'data-game': g.id, 'data-kind': g.kind, 'data-rated': g.rated});
    const a = el('a', {href: g.replay}, '#' + g.id); const td = el('td', {}); td.appendChild(a); tr.appendChild(td);
    tr.appendChild(el('td', {}, g.kind));
    tr.appendChild(el('td', {}, (g.teams[0]||'?') + ' v' + (g.versions[0]||'-')));
    tr.appendChild(el('td', {}, (g.teams[1]||'?') + (g.versions[1] ? ' v' + g.versions[1] : '')));
    tr.appendChild(el('td', {'class':'result'}, result(g)));
    tr.appendChild(el('td', {}, g.map));
    body.appendChild(tr);
  });
}
"""

LADDER_JS = r"""
function show(st){
  document.getElementById('phase').textContent = st.phase;
  const hid = document.getElementById('hidden'); hid.hidden = !st.hidden;
  const body = document.querySelector('#ladder tbody'); clear(body);
  st.standings.forEach(function(s, i){
    const tr = el('tr', {'data-team': s.team, 'data-house': s.house});
    tr.appendChild(el('td', {}, st.hidden ? '' : i + 1));
    const name = el('td', {}); const a = el('a', {href: '/games?team=' + encodeURIComponent(s.team)}, s.team);
    name.appendChild(a); tr.appendChild(name);
    tr.appendChild(el('td', {}, s.version === null ? '' : 'v' + s.version));
    tr.appendChild(el('td', {'class':'rating'}, s.rating === null ? '' : s.rating.toFixed(2)));
    tr.appendChild(el('td', {'class':'mu'}, s.mu === null ? '' : s.mu.toFixed(2) + ' ± ' + s.sigma.toFixed(2)));
    tr.appendChild(el('td', {'class':'games'}, s.games === null ? '' : s.games));
    tr.appendChild(el('td', {'class':'changed'}, s.last_change || ''));
    body.appendChild(tr);
  });
  const fin = document.getElementById('final'); clear(fin);
  if (st.final) {
    fin.appendChild(el('h2', {}, 'The final'));
    const t = el('table', {}); const b = el('tbody', {}); t.appendChild(b); fin.appendChild(t);
    st.final.forEach(function(r){ const tr = el('tr', {'data-team': r.team});
      ['rank','team','points','rounds_won','draws','losses','gold'].forEach(function(k){ tr.appendChild(el('td', {}, r[k])); });
      b.appendChild(tr); });
  }
  document.body.dataset.ready = 'true';
}
show(DATA.state);
if (window.EventSource) { follow('/ladder/events', show); }
"""


def ladder_page(state: dict[str, Any]) -> str:
    body = (
        '<section style="flex-basis:100%">'
        f"{NAV}"
        '<p>Phase: <b id="phase"></b></p>'
        '<p id="hidden" class="why" hidden>The scoreboard is hidden until the organiser '
        "releases the results.</p>"
        '<p class="muted">Sorted by the rating, mu - 3 sigma: a bot climbs as the ladder grows '
        "sure of it, so a new version starts low (a wide sigma) even when its mu is high.</p>"
        '<table id="ladder"><thead><tr><th>#</th><th>team</th><th>version</th><th>rating</th>'
        "<th>mu ± sigma</th><th>games</th><th>last change</th></tr></thead><tbody></tbody></table>"
        '<div id="final"></div></section>'
    )
    return page("ladder", "Arena: the ladder", body, LADDER_JS, {"state": state}, home="/ladder")


def games_page(state: dict[str, Any]) -> str:
    js = (
        GAMES_JS
        + r"""
document.getElementById('hidden').hidden = !DATA.state.hidden;
gameRows(document.querySelector('#games tbody'), DATA.state.games);
document.body.dataset.ready = 'true';
"""
    )
    who = f" of {html.escape(state['team'])}" if state.get("team") else ""
    body = (
        '<section style="flex-basis:100%">'
        f"{NAV}<h2>Games{who}</h2>"
        '<p id="hidden" class="why" hidden>Hidden until the organiser releases the results.</p>'
        '<table id="games"><thead><tr><th>game</th><th>kind</th><th>A</th><th>B</th>'
        "<th>A's result</th><th>map</th></tr></thead><tbody></tbody></table></section>"
    )
    return page("games", "Arena: games", body, js, {"state": state}, home="/ladder")


GAME_JS = r"""
const g = DATA.game;
document.getElementById('title').textContent = 'game ' + g.id + ': ' + (g.teams[0]||'?') + ' v' + (g.versions[0]||'-') + ' against ' + (g.teams[1]||'?') + (g.versions[1] ? ' v' + g.versions[1] : '');
document.getElementById('summary').textContent = g.kind + ' on ' + g.map + '; result for ' + (g.teams[0]||'A') + ': ' + (g.result||g.state) + (g.rated ? ' (rated)' : ' (unrated' + (g.unrated ? ': ' + g.unrated : '') + ')');
const list = document.getElementById('rounds');
(g.rounds||[]).forEach(function(r){
  const li = el('li', {'data-round': r.round});
  li.appendChild(el('span', {}, 'round ' + r.round + ': ' + (r.seats||[]).join(' (seat 0) vs ') + ' (seat 1): ' + (r.result ? r.result + ' for A, gold ' + (r.gold||[]).join('-') + ', ' + r.end_reason : (r.error||'not played')) + ' '));
  if (r.replay) { li.appendChild(el('a', {'class':'replay', href: r.replay}, 'replay')); }
  list.appendChild(li);
});
document.body.dataset.ready = 'true';
"""


def game_page(game: dict[str, Any]) -> str:
    body = (
        f'<section style="flex-basis:100%">{NAV}<h2 id="title"></h2><p id="summary"></p>'
        '<ol id="rounds"></ol></section>'
    )
    return page(
        "game", f"Arena: game {int(game['id'])}", body, GAME_JS, {"game": game}, home="/ladder"
    )


H2H_JS = (
    GAMES_JS
    + r"""
const st = DATA.state;
document.getElementById('title').textContent = (st.teams[0]||'?') + ' against ' + (st.teams[1]||'?');
document.getElementById('hidden').hidden = !st.hidden;
if (st.pairs) { document.getElementById('tally').textContent = 'pairs won ' + st.pairs.win + ', drawn ' + st.pairs.draw + ', lost ' + st.pairs.loss + ' (for ' + st.teams[0] + ')'; }
gameRows(document.querySelector('#games tbody'), st.games);
document.body.dataset.ready = 'true';
"""
)


def h2h_page(state: dict[str, Any]) -> str:
    body = (
        f'<section style="flex-basis:100%">{NAV}<h2 id="title"></h2>'
        '<form method="get" action="/h2h"><input name="a" placeholder="team A"> '
        '<input name="b" placeholder="team B"> <button>compare</button></form>'
        '<p id="hidden" class="why" hidden>Hidden until the organiser releases the results.</p>'
        '<p id="tally"></p><table id="games"><thead><tr><th>game</th><th>kind</th><th>A</th>'
        "<th>B</th><th>A's result</th><th>map</th></tr></thead><tbody></tbody></table></section>"
    )
    return page("h2h", "Arena: head to head", body, H2H_JS, {"state": state}, home="/ladder")


TEAM_JS = (
    GAMES_JS
    + r"""
function show(st){
  const p = st.place;
  document.getElementById('place').textContent = p.rank ? ('#' + p.rank + ' with version ' + p.version + ': rating ' + p.rating.toFixed(2) + ' (mu ' + p.mu.toFixed(2) + ' ± ' + p.sigma.toFixed(2) + ', ' + p.games + ' games)') : 'not on the ladder yet (no version accepted)';
  const fl = document.getElementById('failures'); clear(fl);
  if (!st.failures.length) { fl.appendChild(el('li', {'class':'muted'}, 'no time-out, crash or void move in your latest games')); }
  st.failures.forEach(function(f){
    const li = el('li', {'data-game': f.game, 'data-verdict': f.verdict || ''});
    const a = el('a', {href: f.replay}, 'game ' + f.game + ' round ' + f.round);
    li.appendChild(a);
    li.appendChild(el('span', {}, ', turn ' + f.turn + ', version ' + f.version + ' against ' + f.opponent + ': ' + (f.verdict && f.verdict !== 'OK' ? f.verdict + ' ' : '') + [f.message, f.why].filter(Boolean).join('; ') + (f.move_out !== null && f.move_out !== undefined ? ' (MOVE.OUT: ' + f.move_out + ')' : ' (no MOVE.OUT)')));
    if (f.checkbot) { li.appendChild(el('p', {'class':'checkbot'}, 'check-bot: ' + f.checkbot)); }
    if (f.stderr) { li.appendChild(el('pre', {'class':'stderr'}, f.stderr)); }
    li.appendChild(el('pre', {'class':'map-inp'}, f.map_inp));
    fl.appendChild(li);
  });
  const sel = document.getElementById('map-choice'); const keep = sel.value; clear(sel);
  st.maps.forEach(function(m){ const o = el('option', {value: m.name}, m.name + (m.taken ? ' (taken)' : '')); if (m.taken) { o.disabled = true; } sel.appendChild(o); });
  sel.value = st.map || keep || (st.maps[0] && st.maps[0].name) || '';
  document.getElementById('map-now').textContent = st.map ? st.map : 'none chosen yet (you get the first free map of the list)';
  const opp = document.getElementById('opponent'); const was = opp.value; clear(opp);
  st.opponents.forEach(function(n){ opp.appendChild(el('option', {value: n}, n)); }); if (was) { opp.value = was; }
  document.getElementById('phase').textContent = st.phase;
  gameRows(document.querySelector('#games tbody'), st.games);
  document.body.dataset.ready = 'true';
}
show(DATA.state);
if (window.EventSource) { follow('/team/ladder/events', show); }
"""
)


def _hidden(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{html.escape(csrf, quote=True)}">'


def team_ladder_page(team: str, csrf: str, state: dict[str, Any], notice: str = "") -> str:
    note = f'<p id="notice" class="live">{html.escape(notice)}</p>' if notice else ""
    body = (
        f'<section style="flex-basis:100%">{NAV}{note}'
        '<p>Phase: <b id="phase"></b>. On the ladder: <b id="place"></b></p>'
        "<h2>Your failures, latest games first</h2>"
        '<p class="muted">Each run of your bot that timed out, crashed or made a void move, '
        "with the judge's words and the MAP.INP it was given: save it as MAP.INP and run your bot "
        "on it (or run judge check-bot on your bot).</p>"
        '<ol id="failures"></ol>'
        "<h2>Your map for the final</h2>"
        '<p>Now: <b id="map-now"></b>. By the rules a team plays its map in all its rounds, and no '
        "two teams may choose the same sea: the first to choose it has it.</p>"
        f'<form method="post" action="/team/map" id="map-form">{_hidden(csrf)}'
        '<select name="map" id="map-choice"></select> <button type="submit">Choose</button></form>'
        "<h2>Challenge</h2>"
        '<p class="muted">Unrated pairs against a team of your choice (or the reference), played '
        "ahead of the ladder's round; both teams see the result and the replays.</p>"
        f'<form method="post" action="/team/challenge" id="challenge-form">{_hidden(csrf)}'
        '<select name="opponent" id="opponent"></select> '
        '<input name="pairs" type="number" min="1" value="1" style="width:4em"> pair(s) '
        '<button type="submit">Challenge</button></form>'
        "<h2>Your games</h2>"
        '<table id="games"><thead><tr><th>game</th><th>kind</th><th>A</th><th>B</th>'
        "<th>A's result</th><th>map</th></tr></thead><tbody></tbody></table></section>"
    )
    return page(
        "team-ladder",
        f"Arena: {team} on the ladder",
        body,
        TEAM_JS,
        {"state": state},
        home="/team/ladder",
    )
