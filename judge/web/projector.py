"""``/live``: the projector's broadcast of a tournament, at a pace a room can follow.

The real play may be far ahead (quick bots play twenty turns a second, several
rounds at once).  The projector shows the rounds one after the other in play
order, each turn for ``1/pace`` seconds, behind the play if need be (as a
chess broadcast does), and holds each round's end on the board before the next.
Its standings count only the rounds it has shown, so the room is never told a
result before it sees it; the tournament page stays real-time.

On a reload the projector goes on where it was (the browser keeps its place);
``?from=N`` starts at the N-th round of the play order, ``?pace=T`` sets the
pace for this screen and ``?hold=S`` how long a round's end stays on it.  The page fits the screen it is on (1280x720 and
1024x768 projectors alike): the board and the standings are sized from the
window, names are cut to two lines, the score line to one, the
captions under the board take three lines (a long name gives way, never the reason),
who plays next two.

Automation hooks (stable): ``#stage[data-round]`` (the round on the board,
``match/round-N``), ``#stage[data-index]`` (its place in the play order,
1-based), ``#board[data-turn]``, ``#board .cell``, ``#boat-0``/``#boat-1``,
``#team-0``/``#team-1``, ``#gold-0``/``#gold-1``, ``#turn``, ``#captions li``
(``data-seat``), ``#next``, ``#standings tbody tr`` (``data-team``,
``data-points``), ``body[data-counted]`` (the rounds the standings count),
``body[data-pace]``.
"""

from __future__ import annotations

from typing import Any

from judge.web import DEFAULT_PACE, MAX_PACE
from judge.web.pages import page

__all__ = ["DEFAULT_PACE", "MAX_PACE", "hold_or_default", "pace_or_default", "projector_page"]

#: How long a round's end stays on the board before the next round (``?hold=`` seconds).
HOLD_MS = 4000
#: The longest hold an address may ask for.
MAX_HOLD_S = 600.0

CSS = """
body[data-page=projector]{height:100vh;overflow:hidden;display:flex;flex-direction:column}
body[data-page=projector] header{padding:0.6vh 1.2vw;column-gap:1.6vw;row-gap:0;flex:none;flex-wrap:wrap;white-space:nowrap;overflow:hidden}
body[data-page=projector] header h1{font-size:clamp(18px,min(4.4vh,3.4vw),44px);overflow:hidden;text-overflow:ellipsis;min-width:0;flex:0 1 auto}
#round-title{font-size:clamp(14px,min(3.2vh,2.6vw),30px);font-weight:bold;flex:none;margin-left:auto;color:#ffd166}
body[data-page=projector] header a,body[data-page=projector] header #progress{display:none}
#scorebar{display:flex;align-items:baseline;gap:2vw;padding:0.4vh 1.2vw;font-size:clamp(16px,4.6vh,40px);
white-space:nowrap;overflow:hidden;flex:none}
#scorebar .team{display:flex;align-items:baseline;gap:0.5em;min-width:0;max-width:40%}
#scorebar .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}
#scorebar .dot{display:inline-block;width:0.7em;height:0.7em;border-radius:50%;border:2px solid #fff;flex:none;align-self:center}
#scorebar .gold{font-weight:bold;color:#ffe08a}#scorebar .turn{margin-left:auto;flex:none}
body[data-page=projector] main{flex:1;min-height:0;display:flex;gap:2vw;padding:0.8vh 1.2vw 1vh;flex-wrap:nowrap}
#stage{flex:0 0 auto;display:flex;flex-direction:column;min-height:0;width:60%;min-width:0}
#board-box{flex:1;min-height:0;display:flex;align-items:flex-start;justify-content:center}
#stage #board{display:grid;gap:2px;background:#06121e;padding:3px;border-radius:6px}
#stage #board .cell{position:relative;background:#13466e;display:flex;align-items:center;justify-content:center;
color:#ffe08a;font-weight:bold;border-radius:3px}
#stage #board .cell[data-value=D]{background:repeating-linear-gradient(45deg,#4b4f58,#4b4f58 4px,#5d626c 4px,#5d626c 8px);color:#d6d3d1}
#stage #board .cell[data-value=S]{background:#1f6f5a;color:#b8ffe6}
#stage #board .cell[data-treasure=true]{background:#ff9800;color:#1c1917}
#stage #board .boat{position:absolute;inset:10%;border-radius:50%;border:3px solid #fff;box-shadow:0 0 4px #000}
#stage #board .boat.shield{outline:3px solid #4ade80;outline-offset:1px}
#stage #board .boat.sunk{opacity:.45;border-style:dashed}
#stage #board .boat.stuck{border-color:#fbbf24;border-style:dotted}
#captions{list-style:none;margin:0.6vh 0 0;padding:0;flex:none;height:calc(3 * 1.3em);overflow:hidden;
font-size:clamp(13px,2.8vh,26px);line-height:1.3}
#captions li{display:flex;white-space:nowrap;overflow:hidden}
#captions li .who{overflow:hidden;text-overflow:ellipsis;min-width:2em;flex:0 1 auto}
#captions li .what{flex:none;white-space:pre}
#captions li.why{color:#ffb3b3}#captions li.result{color:#fbbf24;font-weight:bold}
#side{flex:1;min-width:0;display:flex;flex-direction:column;min-height:0;overflow:hidden}
#next{margin:0 0 0.8vh;font-size:clamp(13px,2.6vh,24px);line-height:1.25;max-height:calc(2 * 1.25em);
overflow:hidden;overflow-wrap:anywhere;flex:none}
#table-box{flex:1;min-height:0;overflow:hidden}
body[data-page=projector] #standings{width:100%;table-layout:auto}
body[data-page=projector] #standings th,body[data-page=projector] #standings td{padding:0.2em 0.4em;white-space:nowrap}
body[data-page=projector] #standings td.team{white-space:normal;width:100%}
#standings td.team span{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere;line-height:1.2}
#standings .more td{color:#8aa4ba;text-align:left}
#shown-note{flex:none;margin:0.6vh 0 0;font-size:clamp(11px,2vh,18px)}
"""

JS = r"""
const PACE = DATA.pace, HOLD_MS = DATA.hold_ms, COLS = DATA.colours;
const stage = document.getElementById('stage'), boardBox = document.getElementById('board-box');
let st = DATA.state, cur = -1, counted = 0, head = null, frames = [], finished = false;
let shown = -1, es = null, holdUntil = 0, standingsFor = -1, problem = '';
// Where this screen is, kept by the browser for a reload: per tournament, a rehearsal's
// place never taken for the final's (same folder, a ledger made later).
function placeKey(){ return 'ocean-live:' + DATA.rel + ':' + st.name + ':' + st.total + ':' + (st.started || ''); }
function roundPath(r){ return (DATA.rel ? DATA.rel + '/' : '') + r.path; }
function startAt(){
  const q = new URLSearchParams(location.search), from = parseInt(q.get('from'), 10);
  if(from >= 1){ return Math.min(from - 1, st.rounds.length - 1); }
  try { const saved = JSON.parse(localStorage.getItem(placeKey()) || 'null');
    if(saved && saved.cur >= 0 && saved.cur < st.rounds.length){ return saved.cur; } } catch(e) {}
  const i = st.rounds.findIndex(function(r){ return r.status !== 'done'; });
  return i < 0 ? -1 : i;
}
function frame(){ return shown >= 0 ? frames[shown] : (head ? head.initial : null); }
function goRound(i, toEnd){
  cur = i; counted = toEnd ? i + 1 : i; head = null; frames = []; finished = false; shown = -1; problem = '';
  if(es){ es.close(); es = null; }
  try { localStorage.setItem(placeKey(), JSON.stringify({cur: i})); } catch(e) {}
  stage.dataset.round = st.rounds[i].path; stage.dataset.index = i + 1;
  if(toEnd){ shown = Infinity; }
  subscribe(); loadStandings(); draw();
}
function subscribe(){
  const r = st.rounds[cur];
  if(es || !r || r.status === 'to play'){ return; }
  es = follow('/api/round?p=' + encodeURIComponent(roundPath(r)), onRound);
}
function onRound(msg){
  if(msg.reset){ frames = []; shown = -1; finished = false; }
  if(msg.head){ head = msg.head; }
  (msg.frames || []).forEach(function(f){ frames[f.turn - 1] = f; });
  if(msg.problem){ problem = msg.problem; }
  if(msg.finished || msg.problem){ finished = true; if(es){ es.close(); es = null; } }
  if(shown === Infinity && finished){ shown = frames.length - 1; }
  draw();
}
function loadStandings(){
  if(standingsFor === counted){ return; }
  const want = counted;
  fetch('/api/standings?p=' + encodeURIComponent(DATA.rel) + '&shown=' + want)
    .then(function(r){ return r.json(); }).then(function(s){ if(want !== counted){ return; }
      standingsFor = want; showStandings(s.standings); });
}
function showStandings(rows){
  const box = document.getElementById('table-box');
  let tbl = box.querySelector('#standings');
  if(!tbl){ tbl = box.appendChild(el('table', {id: 'standings'}));
    const hr = tbl.appendChild(el('thead')).appendChild(el('tr'));
    ['#', 'team', 'points', 'won', 'gold'].forEach(function(h){ hr.appendChild(el('th', {}, h)); });
    tbl.appendChild(el('tbody')); }
  const body = tbl.querySelector('tbody'); clear(body);
  rows.forEach(function(r){ const tr = el('tr', {'data-team': r.team, 'data-points': r.points});
    tr.appendChild(el('td', {}, r.rank));
    const name = tr.appendChild(el('td', {'class': 'team'})); name.appendChild(el('span', {}, r.team));
    [r.points, r.rounds_won, r.gold].forEach(function(v){ tr.appendChild(el('td', {}, v)); });
    body.appendChild(tr); });
  document.body.dataset.counted = counted;
  showNote();
  fitTable();
}
function showNote(){
  const shownText = counted >= st.total && st.complete ? 'final standings'
    : counted === 0 ? 'standings: no round shown yet'
    : 'standings after the ' + counted + ' round' + (counted === 1 ? '' : 's') + ' shown';
  document.getElementById('shown-note').textContent = shownText + ' \u00b7 played: ' + st.done + ' of ' + st.total;
}
function fitTable(){
  const box = document.getElementById('table-box'), tbl = box.querySelector('#standings');
  if(!tbl){ return; }
  tbl.querySelectorAll('tr').forEach(function(tr){ tr.hidden = false; });
  const old = tbl.querySelector('.more'); if(old){ old.remove(); }
  let size = Math.max(14, Math.min(30, Math.floor(window.innerHeight / 26)));
  tbl.style.fontSize = size + 'px';
  const name = tbl.querySelector('tbody td.team');
  const over = function(){ return tbl.offsetHeight > box.clientHeight || tbl.scrollWidth > box.clientWidth
    || (name && name.offsetWidth < box.clientWidth * 0.36); };
  while(over() && size > 14){ size -= 1; tbl.style.fontSize = size + 'px'; }
  const rows = Array.from(tbl.querySelectorAll('tbody tr'));
  if(tbl.offsetHeight <= box.clientHeight){ return; }
  const more = tbl.querySelector('tbody').appendChild(el('tr', {'class': 'more'}));
  const cell = more.appendChild(el('td', {colspan: 5}));
  for(let k = rows.length - 1; k > 0 && tbl.offsetHeight > box.clientHeight; k--){
    rows[k].hidden = true; cell.textContent = '… and ' + (rows.length - k) + ' more';
  }
}
function drawLiveBoard(f){
  let board = document.getElementById('board');
  if(!board){ board = boardBox.appendChild(el('div', {id: 'board'})); }
  clear(board);
  if(!head || !f){ board.dataset.turn = ''; return; }
  const rows = head.rows, cols = head.cols, gap = 2, pad = 6;
  stage.style.width = '';  // measured at its widest, then fitted to the board
  const size = Math.max(8, Math.floor(Math.min((boardBox.clientWidth - pad - gap * (cols - 1)) / cols,
                                               (boardBox.clientHeight - pad - gap * (rows - 1)) / rows)));
  board.style.gridTemplateColumns = 'repeat(' + cols + ',' + size + 'px)';
  stage.style.width = Math.max(size * cols + gap * (cols - 1) + pad, Math.floor(window.innerWidth * 0.4)) + 'px';
  board.dataset.rows = rows; board.dataset.cols = cols; board.dataset.turn = f.turn;
  const mid = [(rows + 1) >> 1, (cols + 1) >> 1];
  for(let r = 1; r <= rows; r++){ for(let c = 1; c <= cols; c++){
    const v = f.grid[r - 1][c - 1];
    const treasure = f.treasure !== null && f.treasure !== undefined && r === mid[0] && c === mid[1] && /^[1-9]/.test(v);
    const cell = el('div', {'class': 'cell', 'data-row': r, 'data-col': c, 'data-value': v, 'data-treasure': treasure ? 'true' : 'false'},
                    v === '0' ? '' : (treasure ? '\u2605' + v : v));
    cell.style.height = size + 'px'; cell.style.fontSize = Math.floor(size * 0.45) + 'px';
    board.appendChild(cell); } }
  (f.positions || []).forEach(function(p, s){ if(!p){ return; }
    const cell = board.querySelector('.cell[data-row="' + p[0] + '"][data-col="' + p[1] + '"]'); if(!cell){ return; }
    const cls = 'boat' + (f.sunk && f.sunk[s] ? ' sunk' : '') + (f.shield && f.shield[s] ? ' shield' : '') + (f.caption && f.caption[s] ? ' stuck' : '');
    const boat = el('div', {'class': cls, id: 'boat-' + s, 'data-row': p[0], 'data-col': p[1]});
    boat.style.background = COLS[s]; cell.appendChild(boat); });
}
function drawScore(f){
  const bar = document.getElementById('scorebar'); clear(bar);
  if(!head){ return; }
  [0, 1].forEach(function(s){ const t = bar.appendChild(el('span', {'class': 'team', id: 'team-' + s}));
    const dot = t.appendChild(el('span', {'class': 'dot'})); dot.style.background = COLS[s];
    const n = t.appendChild(el('span', {'class': 'name'}, head.teams[s])); n.style.color = 'var(--team' + s + '-text)';
    t.appendChild(el('span', {'class': 'gold', id: 'gold-' + s}, f ? f.gold[s] : 0)); });
  const turn = bar.appendChild(el('span', {'class': 'turn'}, 'turn '));
  turn.appendChild(el('span', {id: 'turn'}, f ? f.turn : 0));
  turn.appendChild(el('span', {'class': 'muted'}, ' of ' + head.turns));
}
// A caption line: a team's name, cut short first when the line is too long, then what
// befell it, which is never cut while the name can give way.
function caption(ul, attrs, who, what){
  const li = ul.appendChild(el('li', attrs));
  if(who !== null){ li.appendChild(el('span', {'class': 'who'}, who)); }
  li.appendChild(el('span', {'class': 'what'}, what));
  return li;
}
function drawCaptions(f){
  const ul = document.getElementById('captions'); clear(ul);
  if(problem){ caption(ul, {'class': 'why'}, null, problem); return; }
  if(!head){ return; }
  if(!f || f.turn === 0){ caption(ul, {'class': 'muted'}, null, 'placing the boats\u2026'); return; }
  // three lines: the result at the end, why each boat stood still, then the turn's events
  // on one line (at the end, only if there is room: the result and the boats come first)
  const atEnd = finished && shown === frames.length - 1, g = f.gold;
  if(atEnd){ const w = g[0] === g[1] ? null : (g[0] > g[1] ? 0 : 1);
    caption(ul, {'class': 'result'}, w === null ? null : head.teams[w],
            (w === null ? 'a draw' : ' wins') + ', gold ' + g[0] + '\u2013' + g[1]); }
  (f.caption || []).forEach(function(c, s){ if(c){
    caption(ul, {'class': 'why', 'data-seat': s}, head.teams[s], ': ' + c); } });
  const events = (f.text || []).filter(function(t){ return / sank |treasure|gold gap/.test(t); });
  if(events.length && ul.children.length < 3){ caption(ul, {'class': 'event'}, null, events.join(' \u00b7 ')); }
  fitCaptions(ul);
}
// A line too long for the board's width (a small board, a long name or reason) is set in
// smaller type until it fits; below a size the name gives way (cut short), never the reason.
function fitCaptions(ul){
  const full = parseFloat(getComputedStyle(ul).fontSize), least = Math.max(11, Math.round(0.7 * full));
  ul.querySelectorAll('li').forEach(function(li){
    const who = li.querySelector('.who');
    const whole = function(){ return !(who && who.scrollWidth > who.clientWidth) && li.scrollWidth <= li.clientWidth; };
    let size = full;
    while(!whole() && size > least){ size -= 1; li.style.fontSize = size + 'px'; }
    while(li.scrollWidth > li.clientWidth && size > 11){ size -= 1; li.style.fontSize = size + 'px'; }
  });
}
// The next round on at most two lines: its type made smaller until both teams fit.
function fitNext(nx){
  nx.style.fontSize = '';
  let size = parseFloat(getComputedStyle(nx).fontSize);
  while(nx.scrollHeight > nx.clientHeight + 1 && size > 11){ size -= 1; nx.style.fontSize = size + 'px'; }
}
function draw(){
  const r = st.rounds[cur];
  document.getElementById('page-title').textContent = st.title;
  document.title = st.title;
  const f = frame();
  if(r){ document.getElementById('round-title').textContent = 'round ' + (cur + 1) + ' of ' + st.total + (r.map || (head && head.map) ? ' \u00b7 ' + (r.map || head.map) : ''); }
  showNote();
  drawScore(f); drawLiveBoard(f); drawCaptions(f);
  if(!head && r){ const ul = document.getElementById('captions'); clear(ul);
    caption(ul, {'class': 'muted'}, r.seats ? r.seats[0] + ' vs ' + r.seats[1] : r.match,
            ': ' + (r.status === 'to play' ? 'waiting for the round to start' : 'starting\u2026')); }
  const nx = document.getElementById('next'), n = st.rounds[cur + 1];
  nx.textContent = n ? 'next: ' + (n.seats ? n.seats[0] + ' vs ' + n.seats[1] : n.match) + (n.map ? ' \u00b7 ' + n.map : '')
                     : (cur >= 0 ? 'the last round' : '');
  fitNext(nx);
  document.body.dataset.ready = 'true';
}
function tick(){
  if(cur < 0 || !head){ return; }
  if(shown + 1 < frames.length && frames[shown + 1]){ shown += 1; draw(); return; }
  if(!finished || shown !== frames.length - 1){ return; }
  if(st.rounds[cur].status !== 'done'){ return; }  // the ledger has not recorded it yet
  if(counted < cur + 1){ counted = cur + 1; holdUntil = Date.now() + HOLD_MS; loadStandings(); draw(); return; }
  if(Date.now() < holdUntil || cur + 1 >= st.rounds.length){ return; }
  goRound(cur + 1, false);
}
function onTournament(s){
  st = s;
  if(cur < 0){ const i = startAt(); if(i >= 0){ goRound(i, false); } else if(st.rounds.length){ goRound(st.rounds.length - 1, true); } }
  subscribe(); loadStandings(); draw();
}
document.body.dataset.pace = PACE;
onTournament(st);
follow('/api/tournament?p=' + encodeURIComponent(DATA.rel), onTournament);
setInterval(tick, 1000 / PACE);
window.addEventListener('resize', function(){ draw(); fitTable(); });
"""


def pace_or_default(text: str | None, default: float) -> float:
    """A ``?pace=`` from the address (turns a second), or ``default`` when it is not one."""
    try:
        pace = float(text) if text else default
    except ValueError:
        return default
    return pace if 0 < pace <= MAX_PACE else default


def hold_or_default(text: str | None) -> int:
    """A ``?hold=`` from the address (seconds a round's end stays), in ms; else the default."""
    try:
        hold = float(text) if text else HOLD_MS / 1000
    except ValueError:
        return HOLD_MS
    return round(1000 * hold) if 0 <= hold <= MAX_HOLD_S else HOLD_MS


def projector_page(
    rel: str, state: dict[str, Any], pace: float, colours: list[str], hold_ms: int = HOLD_MS
) -> str:
    body = (
        '<section id="stage"><div id="board-box"></div><ul id="captions"></ul></section>'
        '<section id="side"><p id="next" class="muted"></p><div id="table-box"></div>'
        '<p id="shown-note" class="muted"></p></section>'
    )
    data = {"rel": rel, "state": state, "pace": pace, "hold_ms": hold_ms, "colours": colours}
    return page(
        "projector",
        str(state.get("title") or state["name"]),
        body,
        JS,
        data,
        css=CSS,
        before_main='<div id="scorebar"></div>',
        header_extra='<span id="round-title"></span>',
    )
