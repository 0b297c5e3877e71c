"""The pages of ``judge serve`` and ``judge play``: self-contained HTML, CSS and JS.

No font, script or image is fetched from anywhere; the data comes from the
server's JSON and event streams and is put into the page with ``textContent``
only, so a team's name or a bot's output is always shown as text, never run as
markup.  Automation hooks (stable; the tests drive the pages through them):

* every page: ``body[data-page]``, ``body[data-ready="true"]`` once drawn;
* tournament and projector: ``#standings tbody tr`` with ``data-team`` and
  ``data-points``, ``#rounds li`` with ``data-key`` (``match/round-N``) and
  ``data-status`` (``done``, ``playing``, ``stopped``, ``to play``), ``#progress``;
* a board (round, projector, play): ``#board`` with ``data-turn``,
  ``data-rows``, ``data-cols``; ``.cell`` with ``data-row``, ``data-col``,
  ``data-value``; ``#boat-0``/``#boat-1`` with ``data-row``/``data-col``;
  ``#gold-0``/``#gold-1``, ``#team-0``/``#team-1``, ``#turn``, ``#round-title``.
"""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import quote

from judge.views import failures, palette

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; form-action 'self'; base-uri 'none'"
)

CSS = (
    ":root{"
    + palette.css_variables()
    + """}
*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;background:#0b2239;color:#e8f1f8}
a{color:#8fd3ff}header{padding:10px 16px;background:#071827;display:flex;gap:16px;align-items:baseline}
header h1{font-size:20px;margin:0}main{padding:16px;display:flex;flex-wrap:wrap;gap:24px}
section{min-width:280px}table{border-collapse:collapse}th,td{padding:4px 8px;border-bottom:1px solid #24425e;text-align:right}
th:nth-child(2),td:nth-child(2){text-align:left}.muted{color:#8aa4ba}
#rounds{list-style:none;padding:0;margin:0;max-height:70vh;overflow:auto}
#rounds li{padding:2px 0}#rounds li[data-status=playing]{color:#ffd166;font-weight:bold}
#rounds li[data-status=done]{color:#cfe3f1}#rounds li[data-status="to play"]{color:#8aa4ba}
#rounds li[data-status=stopped]{color:#ffb3b3}
#board{display:inline-grid;gap:2px;background:#06121e;padding:4px;border-radius:6px}
.cell{position:relative;background:#13466e;display:flex;align-items:center;justify-content:center;
color:#ffe08a;font-weight:bold;border-radius:3px}.cell[data-value=D]{background:#5a4632;color:#d9c2a3}
.cell[data-value=S]{background:#1f6f5a;color:#b8ffe6}.cell.reach{outline:3px solid #8fd3ff;cursor:pointer}
.boat{position:absolute;inset:12%;border-radius:50%;border:3px solid #fff}.boat.sunk{opacity:.35}
.teams{display:flex;gap:24px;font-size:18px}.gold{font-weight:bold;color:#ffe08a}
.why{color:#ffb3b3}.live{color:#ffd166}
.badge{display:inline-block;padding:0 .35em;margin:.1em .15em;border-radius:.3em;font-size:.85em;
font-weight:bold;color:#0f172a;background:#fca5a5}.badge.v-tle{background:#fdba74}
.badge.v-mle,.badge.v-ole{background:#c4b5fd}.badge.v-ie{background:#94a3b8}.badge.v-void{background:#fde68a}
.legend{font-size:.85em;color:#8aa4ba;margin:.4em 0;padding:0;list-style:none}.legend li{margin:.1em 0}
td.failed,#standings th:nth-child(8){text-align:left}.none{color:#8aa4ba}
"""
)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{css}{page_css}</style></head>
<body data-page="{page}" data-ready="false">
<header><h1 id="page-title">{title}</h1>{header_extra}<a href="{home}">{home_label}</a><span id="progress" class="muted"></span></header>
{before_main}<main>{body}</main>
<script type="application/json" id="page-data">{data}</script>
<script>{js}</script></body></html>
"""


def json_for_script(data: Any) -> str:
    """JSON that cannot close its <script> tag: '<', '>' and '&' become \\u escapes."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(
    kind: str,
    title: str,
    body: str,
    js: str,
    data: Any,
    home: str = "/",
    css: str = "",
    before_main: str = "",
    header_extra: str = "",
    home_label: str = "index",
) -> str:
    """A page: the shared shell, CSS and JS, then the page's own (``css``, ``js``, ``body``;
    ``before_main`` and ``header_extra`` are markup of the page's own, never user text)."""
    return _PAGE.format(
        csp=CSP,
        title=html.escape(title),
        css=CSS,
        page_css=css,
        page=html.escape(kind),
        home=html.escape(home),
        home_label=html.escape(home_label),
        header_extra=header_extra,
        before_main=before_main,
        body=body,
        data=json_for_script(data),
        js=COMMON_JS + js,
    )


#: Shared by every page: DOM helpers (text only) and the board.
COMMON_JS = (
    r"""
const DATA = JSON.parse(document.getElementById('page-data').textContent);
function el(tag, attrs, text){const e=document.createElement(tag);
  for(const k in (attrs||{})){e.setAttribute(k, attrs[k]);} if(text!==undefined&&text!==null){e.textContent=String(text);} return e;}
function clear(e){while(e.firstChild){e.removeChild(e.firstChild);}}
const COLOURS="""
    + json.dumps(list(palette.FILL))
    + r""";
function drawBoard(box, head, frame, opts){
  opts = opts || {};
  const board = box.querySelector('#board') || box.appendChild(el('div', {id:'board'}));
  clear(board);
  const rows = head.rows, cols = head.cols, size = opts.size || Math.max(18, Math.floor(Math.min(560/cols, 560/rows)));
  board.style.gridTemplateColumns = 'repeat('+cols+','+size+'px)';
  board.dataset.rows = rows; board.dataset.cols = cols; board.dataset.turn = frame ? frame.turn : 0;
  const grid = frame ? frame.grid : null;
  for(let r=1;r<=rows;r++){for(let c=1;c<=cols;c++){
    const v = grid ? grid[r-1][c-1] : '';
    const cell = el('div', {'class':'cell','data-row':r,'data-col':c,'data-value':v}, v==='0'?'':v);
    cell.style.height = size+'px'; cell.style.fontSize = Math.floor(size*0.45)+'px';
    board.appendChild(cell);}}
  if(frame && frame.positions){frame.positions.forEach(function(p,s){ if(!p){return;}
    const cell = board.querySelector('.cell[data-row="'+p[0]+'"][data-col="'+p[1]+'"]');
    if(!cell){return;}
    const boat = el('div', {'class':'boat'+(frame.sunk&&frame.sunk[s]?' sunk':''),id:'boat-'+s,'data-row':p[0],'data-col':p[1]});
    boat.style.background = COLOURS[s]; cell.appendChild(boat);});}
  return board;
}
function teamsLine(box, head, frame){
  const t = box.querySelector('.teams') || box.insertBefore(el('div',{'class':'teams'}), box.firstChild);
  clear(t);
  [0,1].forEach(function(s){const span=el('span',{id:'team-'+s}); span.style.color=COLOURS[s];
    span.textContent=head.teams[s]+' '; const g=el('span',{id:'gold-'+s,'class':'gold'}, frame?frame.gold[s]:0);
    span.appendChild(g); t.appendChild(span);});
  const turn = el('span',{id:'turn'}, frame ? frame.turn : 0); t.appendChild(el('span',{},'turn ')).appendChild(turn);
  t.appendChild(el('span',{'class':'muted'},' of '+head.turns));
}
function standingsTable(box, rows){
  let tbl = box.querySelector('#standings');
  if(!tbl){tbl = box.appendChild(el('table',{id:'standings'}));
    const hr = tbl.appendChild(el('thead')).appendChild(el('tr'));
    ['#','team','points','won','draws','lost','gold'].forEach(function(h){hr.appendChild(el('th',{},h));});
    tbl.appendChild(el('tbody'));}
  const body = tbl.querySelector('tbody'); clear(body);
  rows.forEach(function(r){const tr=el('tr',{'data-team':r.team,'data-points':r.points});
    [r.rank,r.team,r.points,r.rounds_won,r.draws,r.losses,r.gold].forEach(function(v){tr.appendChild(el('td',{},v));});
    body.appendChild(tr);});
}
function follow(url, onData){const es = new EventSource(url); es.onmessage=function(m){onData(JSON.parse(m.data));}; return es;}
"""
)

INDEX_JS = r"""
const list = document.getElementById('entries');
if(!DATA.entries.length){list.appendChild(el('li',{'class':'muted'},'nothing here yet: play a match or a tournament into this folder'));}
DATA.entries.forEach(function(e){
  const li = el('li',{'data-kind':e.kind,'data-rel':e.rel,'data-state':e.state});
  li.appendChild(el('span',{'class':'muted'}, e.kind+': '));
  li.appendChild(el('a',{href:e.href}, e.title || e.name || '(this folder)'));
  if(e.kind==='tournament'){li.appendChild(el('span',{},' ')); li.appendChild(el('a',{href:'/live?p='+encodeURIComponent(e.rel)},'projector view'));}
  li.appendChild(el('span',{'class':'state '+(e.state==='playing now'?'live':'muted')},' — '+e.state_text));
  if(e.lines && e.lines.length){const ul = li.appendChild(el('ul',{'class':'summary'}));
    e.lines.forEach(function(t){ul.appendChild(el('li',{},t));});}
  if(e.name && e.title && e.title!==e.name){li.appendChild(el('div',{'class':'muted folder'}, 'folder: '+e.rel));}
  list.appendChild(li);});
document.body.dataset.ready='true';
"""


def index_page(entries: list[dict[str, Any]], title: str) -> str:
    body = '<section><ul id="entries"></ul></section>'
    return page("index", title, body, INDEX_JS, {"entries": entries})


#: Badges of failed runs and void moves, and their legend (shared by the tournament's pages).
BADGES_JS = r"""
function badges(box, f){ (f && f.badges || []).forEach(function(b){
  box.appendChild(el('span',{'class':'badge v-'+b[0].toLowerCase(),'data-verdict':b[0],'data-count':b[1],title:DATA.legend[b[0]]||''}, b[0]+' '+b[1])); });
  if(f && f.void && f.void.length){ box.appendChild(el('span',{'class':'void-why muted'},
    ' ('+f.void.map(function(v){return v[1]+' \u00d7 '+v[0];}).join('; ')+')')); } }
function legend(box){ clear(box); Object.keys(DATA.legend).forEach(function(k){
  const li = box.appendChild(el('li')); li.appendChild(el('span',{'class':'badge v-'+k.toLowerCase()},k));
  li.appendChild(el('span',{},' '+DATA.legend[k])); }); }
"""

TOURNAMENT_JS = (
    BADGES_JS
    + r"""
const roundsBox = document.getElementById('rounds'), crossBox = document.getElementById('cross');
function here(p){ return (DATA.rel ? DATA.rel+'/' : '')+p; }
function show(st){
  document.getElementById('page-title').textContent = st.title; document.title = st.title;
  const box = document.getElementById('table-box');
  standingsTable(box, st.standings);
  const head = box.querySelector('#standings thead tr');
  if(head.children.length===7){ head.appendChild(el('th',{},'failed runs, void moves')); }
  box.querySelectorAll('#standings tbody tr').forEach(function(tr){
    const td = tr.appendChild(el('td',{'class':'failed'})), f = st.failures[tr.dataset.team];
    if(f){ badges(td, f); } else { td.appendChild(el('span',{'class':'none'},'none')); } });
  document.getElementById('progress').textContent = st.done+' of '+st.total+' rounds'+(st.complete?' (finished)':'');
  clear(roundsBox);
  st.rounds.forEach(function(r){
    const li = el('li',{'data-key':r.path,'data-status':r.status});
    const t = r.teams || r.seats, who = t ? t[0]+' vs '+t[1] : r.match;
    const href = r.status==='done' ? '/replay?p='+encodeURIComponent(here(r.match))+'&round='+r.index : '/round?p='+encodeURIComponent(here(r.path));
    li.appendChild(el('a',{href:href}, who+', round '+r.index+(r.map ? ': '+r.map : '')));
    let what = ' — '+r.status;
    if(r.status==='done'){ const g = r.team_gold || r.gold, w = r.winner===null ? 'draw' : r.seats[r.winner]+' wins';
      what = ' — '+w+', gold '+g[0]+'–'+g[1]; }
    li.appendChild(el('span',{},what));
    Object.keys(r.failures || {}).forEach(function(team){
      const span = li.appendChild(el('span',{'class':'failed','data-team':team},' · '+team+' '));
      badges(span, r.failures[team]); });
    roundsBox.appendChild(li);});
  clear(crossBox);
  const teams = st.teams, tbl = crossBox.appendChild(el('table',{id:'crosstable'})), hr = tbl.appendChild(el('tr'));
  hr.appendChild(el('th',{},'')); teams.forEach(function(t){hr.appendChild(el('th',{},t));});
  teams.forEach(function(a){const tr=tbl.appendChild(el('tr')); tr.appendChild(el('th',{},a));
    teams.forEach(function(b){const v = a===b ? '·' : (st.crosstable[a]&&b in st.crosstable[a] ? st.crosstable[a][b] : ''); tr.appendChild(el('td',{'data-a':a,'data-b':b},v));});});
  if(st.problem){document.getElementById('problem').textContent = st.problem;}
  document.body.dataset.ready='true';
}
legend(document.getElementById('legend'));
show(DATA.state);
follow('/api/tournament?p='+encodeURIComponent(DATA.rel), show);
"""
)


def tournament_page(rel: str, state: dict[str, Any], home: str = "/") -> str:
    body = (
        '<section id="table-box"><h2>Standings</h2></section>'
        '<section><h2>Crosstable</h2><div id="cross"></div><p id="problem" class="why"></p>'
        '<ul id="legend" class="legend"></ul></section>'
        '<section><h2>Rounds</h2><ul id="rounds"></ul></section>'
    )
    live = f'<a href="/live?p={html.escape(quote(rel))}">projector view</a>'
    return page(
        "tournament",
        str(state.get("title") or state["name"]),
        body,
        TOURNAMENT_JS,
        {"rel": rel, "state": state, "legend": dict(failures.LEGEND)},
        home=home,
        header_extra=live,
    )


ROUND_JS = r"""
const box = document.getElementById('round'); let head = null, last = null;
function show(msg){
  if(msg.head){head = msg.head;}
  if(msg.frames && msg.frames.length){last = msg.frames[msg.frames.length-1];}
  if(!head){return;}
  document.getElementById('round-title').textContent = head.teams[0]+' vs '+head.teams[1]+' — '+head.map;
  teamsLine(box, head, last || head.initial); drawBoard(box, head, last || head.initial);
  const ev = document.getElementById('events'); if(last){clear(ev); (last.text||[]).forEach(function(t){ev.appendChild(el('li',{},t));});
    (last.status_text||[]).forEach(function(t,s){ if(t){ev.appendChild(el('li',{'class':t.indexOf('void')===0?'why':''}, head.teams[s]+': '+t));}});}
  if(msg.finished){document.getElementById('state').textContent='finished'; const a=document.getElementById('full');
    a.setAttribute('href', DATA.replay); a.textContent='the whole replay';}
  document.body.dataset.ready='true';
}
follow('/api/round?p='+encodeURIComponent(DATA.rel), show);
"""


def round_page(rel: str, replay_href: str) -> str:
    body = (
        '<section id="round"><h2 id="round-title"></h2></section>'
        '<section><p id="state" class="live">playing</p><ul id="events"></ul><a id="full"></a></section>'
    )
    return page("round", "Round", body, ROUND_JS, {"rel": rel, "replay": replay_href})


#: Reads a MAP.INP text (the person's view of a turn) into a head and a frame.
MAPINP_JS = r"""
function parseMapInp(text){
  const lines = text.split('\n').map(function(l){return l.trim();}).filter(function(l){return l.length;});
  const h = lines[0].split(/\s+/).map(Number), p = lines[1].split(/\s+/).map(Number), g = lines[2].split(/\s+/).map(Number);
  const grid = lines.slice(3, 3+h[0]).map(function(l){return l.split(/\s+/);});
  const positions = (p[0]===0) ? [null, null] : [[p[0],p[1]],[p[2],p[3]]];
  return {rows:h[0], cols:h[1], left:h[2], positions:positions, gold:g[0], shield:g[1]===1, grid:grid};
}
// Row numbers down the left and column numbers along the top of a drawn board (1-based,
// as MAP.INP and the moves count): extra grid items, never '.cell's.
function addRulers(board, rows, cols){
  const m = /,\s*(\d+)px\)/.exec(board.style.gridTemplateColumns); const size = m ? +m[1] : 24;
  board.style.gridTemplateColumns = 'repeat('+(cols+1)+','+size+'px)';
  function ruler(attrs, text){ const r = el('div', attrs, text);
    r.style.cssText = 'display:flex;align-items:center;justify-content:center;opacity:.7;font-size:'+Math.max(10, Math.floor(size*0.4))+'px';
    return r; }
  const first = board.firstChild;
  board.insertBefore(ruler({'class':'ruler corner'}), first);
  for(let c=1;c<=cols;c++){ board.insertBefore(ruler({'class':'ruler','data-ruler-col':c}, c), first); }
  for(let r=1;r<=rows;r++){ board.insertBefore(ruler({'class':'ruler','data-ruler-row':r}, r),
    board.querySelector('.cell[data-row="'+r+'"][data-col="1"]')); }
}
function isReef(token){ return token==='D' || token==='W'; }
"""

PLAY_JS = (
    MAPINP_JS
    + r"""
const box = document.getElementById('round'), info = document.getElementById('info');
let head = null, last = null, ask = null, seen = 0, sank = null;
function say(id, text, cls){const e=document.getElementById(id); e.textContent=text; if(cls!==undefined){e.className=cls;}}
function reachable(){
  const cells = document.querySelectorAll('.cell'); cells.forEach(function(c){c.classList.remove('reach');});
  if(!ask){return;}
  const m = parseMapInp(ask.map_inp);
  cells.forEach(function(c){const r=+c.dataset.row, col=+c.dataset.col;
    if(ask.placement){ if(m.grid[r-1][col-1]==='0'){c.classList.add('reach');} }
    else { const me=m.positions[0];
      // a reef sinks a boat without a shield: not offered as a move
      if(Math.abs(me[0]-r)+Math.abs(me[1]-col)===1 && (m.shield || !isReef(m.grid[r-1][col-1]))){c.classList.add('reach');} }});
}
function send(r, c){ if(!ask){return;} const body = JSON.stringify({row:r, col:c}); ask = null; reachable();
  say('prompt','waiting for the bot…');
  fetch('/api/play/move', {method:'POST', headers:{'Content-Type':'application/json'}, body:body}); }
function draw(){
  if(!head){return;}
  let frame = last;
  if(ask){ const m = parseMapInp(ask.map_inp);
    // the board as the person sees it now (their boat first in MAP.INP)
    const pos = [null,null]; if(m.positions[0]){pos[head.human_seat]=m.positions[0]; pos[1-head.human_seat]=m.positions[1];}
    frame = {turn: last?last.turn:0, grid: m.grid, positions: pos, gold: last?last.gold:[0,0], sunk: last?last.sunk:[false,false]}; }
  teamsLine(box, head, frame); const board = drawBoard(box, head, frame); addRulers(board, head.rows, head.cols);
  [0,1].forEach(function(s){ const b = board.querySelector('#boat-'+s);
    if(b){ b.title = s===head.human_seat ? 'your boat' : head.teams[s]+"'s boat"; b.dataset.owner = s===head.human_seat ? 'you' : 'bot'; } });
  box.querySelectorAll('.cell').forEach(function(c){c.addEventListener('click', function(){ if(c.classList.contains('reach')){send(+c.dataset.row, +c.dataset.col);} });});
  reachable(); document.body.dataset.ready='true';
}
function handle(ev){
  if(ev.kind==='start'){ head = ev; say('title', head.teams[0]+' vs '+head.teams[1]+' — '+head.map); }
  else if(ev.kind==='turn'){ last = ev.frame; const bot = 1-head.human_seat;
    say('bot', head.teams[bot]+': '+(last.raw&&last.raw[bot]!==null?'wrote "'+last.raw[bot]+'"':'wrote nothing')+(last.why_text&&last.why_text[bot]?' — '+last.why_text[bot]:''));
    say('me', 'you: '+(last.why_text&&last.why_text[head.human_seat]?last.why_text[head.human_seat]:''), (last.why_text&&last.why_text[head.human_seat]&&last.why_text[head.human_seat].indexOf('void')===0)?'why':'');
    const ul = document.getElementById('events'); clear(ul); (last.text||[]).forEach(function(t){ul.appendChild(el('li',{},t));});
    if(sank===null && last.sunk && last.sunk[head.human_seat]){
      // said at once and kept: the bot plays on alone, and the round soon ends
      const how = (last.text||[]).filter(function(t){return t.indexOf(head.teams[head.human_seat]+' sank')===0;})[0];
      sank = (how ? 'you '+how.slice(head.teams[head.human_seat].length+1)+', turn ' : 'you sank at turn ')+last.turn;
      say('sank', sank, 'why'); document.body.dataset.sank='true'; } }
  else if(ev.kind==='your_turn'){ ask = ev; say('prompt', ev.placement ? 'your start: click an empty cell' : 'your move: click a cell next to your boat, or use the arrow keys'); }
  else if(ev.kind==='end'){ ask = null; const w = ev.winner===null ? 'a draw' : (ev.winner===head.human_seat ? 'you win' : head.teams[ev.winner]+' wins');
    say('prompt', 'round over: '+w+', gold '+ev.gold[0]+'–'+ev.gold[1]+(sank ? ' — '+sank : '')); document.body.dataset.over='true';
    const a = document.getElementById('replay'); a.setAttribute('href','/replay?p='+encodeURIComponent(ev.replay)); a.textContent='the replay'; }
  else if(ev.kind==='error'){ say('prompt', 'the judge stopped: '+ev.message, 'why'); }
  draw();
}
document.addEventListener('keydown', function(e){ if(!ask||ask.placement){return;}
  const d = {ArrowUp:[-1,0], ArrowDown:[1,0], ArrowLeft:[0,-1], ArrowRight:[0,1]}[e.key]; if(!d){return;}
  e.preventDefault(); const me = parseMapInp(ask.map_inp).positions[0]; send(me[0]+d[0], me[1]+d[1]); });
follow('/api/play/events', function(evs){ evs.forEach(handle); });
"""
)


def play_page() -> str:
    body = (
        '<section id="round"><h2 id="title"></h2></section>'
        '<section id="info"><p id="prompt" class="live">starting…</p><p id="sank"></p><p id="bot"></p><p id="me"></p>'
        '<ul id="events"></ul><a id="replay"></a><p><a href="/editor">position editor</a></p></section>'
    )
    return page("play", "Play against your bot", body, PLAY_JS, {})


EDITOR_JS = (
    MAPINP_JS
    + r"""
const box = document.getElementById('board-box'), text = document.getElementById('mapinp');
const CYCLE = ['0','1','2','3','4','5','D','S'];
function render(){
  let m; try { m = parseMapInp(text.value); } catch(e) { return; }
  const head = {rows:m.rows, cols:m.cols, teams:['your bot','opponent'], turns:m.left};
  const frame = {turn:0, grid:m.grid, positions:m.positions, gold:[m.gold,0], sunk:[false,false]};
  const board = drawBoard(box, head, frame); addRulers(board, m.rows, m.cols);
  const names = ["your bot's boat (line 2: i1 j1)", 'the other boat (line 2: i2 j2)'];
  const legend = document.getElementById('legend'); clear(legend);
  names.forEach(function(t, s){ const item = legend.appendChild(el('span', {id:'legend-'+s}));
    const dot = item.appendChild(el('span', {}, '\u25cf ')); dot.style.color = COLOURS[s];
    item.appendChild(document.createTextNode(t+'   '));
    const b = board.querySelector('#boat-'+s); if(b){ b.title = t; b.dataset.owner = s===0 ? 'bot' : 'other'; } });
  box.querySelectorAll('.cell').forEach(function(c){ c.addEventListener('click', function(){
    const r=+c.dataset.row-1, col=+c.dataset.col-1; const v=m.grid[r][col];
    m.grid[r][col] = CYCLE[(CYCLE.indexOf(v)+1)%CYCLE.length]; write(m); }); });
  document.body.dataset.ready='true';
}
function write(m){
  const p = m.positions[0] ? m.positions[0].concat(m.positions[1]) : [0,0,0,0];
  text.value = [m.rows+' '+m.cols+' '+m.left, p.join(' '), m.gold+' '+(m.shield?1:0)].concat(m.grid.map(function(r){return r.join(' ');})).join('\n')+'\n';
  render();
}
text.addEventListener('input', render);
document.getElementById('ask').addEventListener('click', function(){
  const out = document.getElementById('answer'); clear(out); out.appendChild(el('p',{},'asking…'));
  fetch('/api/play/ask', {method:'POST', headers:{'Content-Type':'application/json'}, body: JSON.stringify({map_inp: text.value})})
    .then(function(r){return r.json();}).then(function(a){ clear(out);
      if(a.error){ out.appendChild(el('p',{'class':'why'}, a.error)); return; }
      out.dataset.verdict = a.verdict; out.dataset.move = a.move ? a.move.join(' ') : '';
      out.dataset.void = a.void ? 'true' : 'false'; out.dataset.status = a.status || '';
      // what the rules make of the answer, in the match's words: an illegal cell is a void move
      out.appendChild(el('p',{id:'answer-move','class':a.void?'why':''}, a.said || a.why || 'no usable move'));
      out.appendChild(el('p',{}, a.verdict+' in '+a.wall_ms+' ms ('+a.cpu_ms+' ms of CPU): '+a.message));
      if(a.findings && a.findings.length){ const ul = out.appendChild(el('ul',{id:'answer-findings'}));
        a.findings.forEach(function(f){ ul.appendChild(el('li',{'data-level':f.level,'class':f.level==='error'?'why':''},
          f.level+': '+f.reason+(f.cause ? ' — likely cause: '+f.cause : ''))); }); }
      if(a.stderr){ out.appendChild(el('pre',{id:'answer-stderr'}, a.stderr)); } }); });
render();
"""
)


def editor_page(map_inp: str) -> str:
    body = (
        '<section><div id="board-box"></div><p id="legend"></p><p class="muted">click a cell to '
        "change it; the text is the MAP.INP your bot gets: line 2 is its own boat, then the "
        "other boat; line 3 its gold and shield</p></section>"
        '<section><textarea id="mapinp" rows="20" cols="40"></textarea><p>'
        '<button id="ask">what does my bot do here?</button></p><div id="answer"></div></section>'
    )
    js = "document.getElementById('mapinp').value = DATA.map_inp;\n" + EDITOR_JS
    return page("editor", "Position editor", body, js, {"map_inp": map_inp})
