"""The HTML, CSS and JavaScript of the replay page, as strings (one file, no package data).

Kept apart from :mod:`judge.views.html` so the Python stays readable.  The
page must work offline from ``file://`` in current Chromium and Firefox: no
modules, no fetch, no external fonts (system fonts only), no emoji.
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{{TITLE}} - Ocean Treasure replay</title>
<style>{{CSS}}</style>
</head>
<body data-ready="false">
<header id="top">
  <a id="back" hidden>&larr; tournament</a>
  <h1 id="title"></h1>
  <label id="round-picker">round <select id="round-select" title="round (PageUp/PageDown)"></select></label>
  <span id="round-label"></span>
  <span id="result"></span>
</header>
<main id="main">
  <div id="board-wrap"><div id="board"></div></div>
  <aside id="panel">
    <div id="turn-line">turn <span id="turn">0</span><span class="dim"> / <span id="turn-total">0</span></span>
      <span id="turns-left" class="dim"></span></div>
    <section class="team" id="team-0" data-seat="0">
      <div class="team-head"><span class="swatch" id="swatch-0">A</span><span class="name" id="name-0"></span></div>
      <div class="line"><span class="big">gold <b id="gold-0">0</b></span> <span id="shield-0" class="tag"></span> <span id="state-0" class="tag"></span></div>
      <div class="line">move <span id="move-0"></span> <span id="status-0" class="status"></span></div>
      <div class="line"><span id="run-label-0">run</span> <span id="verdict-0"></span> <span id="time-0" class="dim"></span> <span id="message-0" class="warn"></span></div>
    </section>
    <section class="team" id="team-1" data-seat="1">
      <div class="team-head"><span class="swatch" id="swatch-1">B</span><span class="name" id="name-1"></span></div>
      <div class="line"><span class="big">gold <b id="gold-1">0</b></span> <span id="shield-1" class="tag"></span> <span id="state-1" class="tag"></span></div>
      <div class="line">move <span id="move-1"></span> <span id="status-1" class="status"></span></div>
      <div class="line"><span id="run-label-1">run</span> <span id="verdict-1"></span> <span id="time-1" class="dim"></span> <span id="message-1" class="warn"></span></div>
    </section>
    <div id="treasure"></div>
    <h2>events</h2>
    <ol id="events"></ol>
    <p id="keys" class="dim">&larr;/&rarr; step &middot; space play/pause &middot; Home/End &middot; +/&minus; speed</p>
  </aside>
</main>
<footer id="controls">
  <button id="first" type="button" title="first turn (Home)">|&#9664;</button>
  <button id="prev" type="button" title="back one turn (left arrow)">&#9664;</button>
  <button id="play" type="button" title="play / pause (space)" data-playing="false">play</button>
  <button id="next" type="button" title="forward one turn (right arrow)">&#9654;</button>
  <button id="last" type="button" title="last turn (End)">&#9654;|</button>
  <input id="slider" type="range" min="1" max="1" value="1" step="1" title="turn">
  <label>speed <select id="speed" title="turns per second (+/-)">
    <option value="0.5">0.5/s</option><option value="1">1/s</option><option value="2">2/s</option>
    <option value="4" selected>4/s</option><option value="8">8/s</option><option value="16">16/s</option>
  </select></label>
</footer>
<script type="application/json" id="replay-data">{{DATA}}</script>
<script>{{JS}}</script>
</body>
</html>
"""

CSS = r"""
:root { --c0: #3b82f6; --c1: #ef4444; --bg: #0f172a; --fg: #e2e8f0; --water: #0b3a5c;
        --cell: 32px; --label: 18px; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--fg);
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
body { display: flex; flex-direction: column; overflow: hidden; }
#top { display: flex; align-items: baseline; gap: 1.2em; padding: 0.4em 1em; flex-wrap: wrap; }
#top h1 { font-size: 1.4em; margin: 0; }
#top a { color: #93c5fd; }
#top select { font: inherit; background: #334155; color: var(--fg); border: 1px solid #475569;
  border-radius: 4px; padding: 0.1em 0.3em; }
#result { font-weight: bold; color: #fbbf24; }
#main { flex: 1; display: flex; min-height: 0; gap: 1em; padding: 0 1em; }
#board-wrap { flex: 1; min-width: 0; min-height: 0; display: flex; align-items: center;
  justify-content: center; }
#board { position: relative; display: grid; gap: 2px;
  grid-template-columns: var(--label) repeat(var(--cols), var(--cell));
  grid-template-rows: var(--label) repeat(var(--rows), var(--cell)); }
.cell, .lab { display: flex; align-items: center; justify-content: center;
  font-size: calc(var(--cell) * 0.42); font-weight: 600; border-radius: 3px; }
.lab { font-size: calc(var(--label) * 0.62); color: #64748b; }
.cell { background: var(--water); color: #cbd5e1; }
.cell[data-kind="gold"] { color: #1c1917; }
.cell[data-kind="gold"][data-value="1"] { background: #6b5a1e; color: #fde68a; }
.cell[data-kind="gold"][data-value="2"] { background: #8f7a22; color: #fef3c7; }
.cell[data-kind="gold"][data-value="3"] { background: #b89a1c; }
.cell[data-kind="gold"][data-value="4"] { background: #dcb40f; }
.cell[data-kind="gold"] { background: #ffd700; }
.cell[data-kind="reef"] { background: repeating-linear-gradient(45deg, #3f3f46, #3f3f46 4px, #52525b 4px, #52525b 8px);
  color: #a1a1aa; }
.cell[data-kind="shield"] { background: #14532d; color: #86efac; }
.cell[data-kind="shield"] span { border: 2px solid #86efac; border-radius: 0 0 45% 45%;
  padding: 0 0.25em; }
.cell[data-treasure="true"] { background: #ff9800 !important; color: #1c1917;
  box-shadow: 0 0 calc(var(--cell) * 0.3) #ffb74d; }
.boat { position: absolute; width: var(--cell); height: var(--cell); display: flex;
  align-items: center; justify-content: center; pointer-events: none;
  transition: left var(--move-ms, 200ms) ease, top var(--move-ms, 200ms) ease; z-index: 2; }
.boat .hull { width: 78%; height: 78%; border-radius: 50%; display: flex; align-items: center;
  justify-content: center; color: #fff; font-weight: 800; font-size: calc(var(--cell) * 0.46);
  border: 2px solid rgba(255,255,255,0.85); box-shadow: 0 1px 4px #000; }
.boat[data-seat="0"] .hull { background: var(--c0); }
.boat[data-seat="1"] .hull { background: var(--c1); }
.boat[data-shield="true"] .hull { outline: 3px solid #4ade80; outline-offset: 1px; }
.boat[data-sunk="true"] .hull { opacity: 0.55; border-style: dashed; filter: grayscale(0.5); }
.boat[data-sunk="true"]::after { content: "\00d7"; position: absolute; right: 0; top: -8%;
  color: #fff; font-size: calc(var(--cell) * 0.55); font-weight: 900; line-height: 1;
  text-shadow: 0 0 3px #000, 0 0 2px #000; }
.boat.pair[data-seat="0"] { transform: translate(-18%, -18%) scale(0.8); }
.boat.pair[data-seat="1"] { transform: translate(18%, 18%) scale(0.8); }
.boat[hidden] { display: none; }
#panel { width: clamp(220px, 27vw, 460px); overflow-y: auto; font-size: clamp(13px, 1.35vw, 22px);
  padding-bottom: 0.5em; }
#turn-line { font-size: 1.5em; font-weight: bold; margin: 0.2em 0 0.4em; }
.team { border-left: 6px solid var(--c0); padding: 0.3em 0.6em; margin-bottom: 0.5em;
  background: #1e293b; border-radius: 4px; }
.team[data-seat="1"] { border-left-color: var(--c1); }
.team-head { font-weight: bold; font-size: 1.15em; }
.swatch { display: inline-block; width: 1.4em; text-align: center; border-radius: 50%;
  color: #fff; margin-right: 0.4em; }
#swatch-0 { background: var(--c0); } #swatch-1 { background: var(--c1); }
.line { margin-top: 0.15em; }
.big { font-size: 1.2em; }
.tag:not(:empty) { background: #334155; border-radius: 3px; padding: 0 0.35em; font-size: 0.85em; }
.tag.shield { background: #166534; } .tag.sunk { background: #7f1d1d; }
.status.void { color: #fbbf24; } .warn { color: #fbbf24; } .dim { color: #94a3b8; }
.bad { color: #f87171; font-weight: bold; } .ok { color: #4ade80; }
#treasure:not(:empty) { color: #ffb74d; font-weight: bold; margin: 0.3em 0; }
#panel h2 { font-size: 1em; margin: 0.5em 0 0.2em; color: #94a3b8; }
#events { margin: 0; padding-left: 1.3em; }
#events li { margin: 0.1em 0; }
#events li.none { list-style: none; margin-left: -1.3em; }
#keys { font-size: 0.8em; margin-top: 1em; }
#controls { display: flex; align-items: center; gap: 0.5em; padding: 0.5em 1em;
  background: #1e293b; font-size: clamp(13px, 1.2vw, 20px); }
#controls button, #controls select { font: inherit; background: #334155; color: var(--fg);
  border: 1px solid #475569; border-radius: 4px; padding: 0.2em 0.7em; cursor: pointer; }
#controls button:hover { background: #475569; }
#play { min-width: 5em; }
#slider { flex: 1; min-width: 6em; }
@media (max-width: 760px), (max-aspect-ratio: 4/5) {
  body { overflow: auto; }
  #main { flex: none; flex-direction: column; }
  #controls { position: sticky; bottom: 0; flex-wrap: wrap; }
  #board-wrap { flex: none; height: 62vh; }
  #panel { width: auto; overflow: visible; }
}
"""

JS = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("replay-data").textContent);
  function $(id) { return document.getElementById(id); }
  var board = $("board"), slider = $("slider"), speedSel = $("speed"), playBtn = $("play");
  var state = { round: 0, frame: 0, playing: false, timer: null };
  var cells = [], boats = [];

  document.documentElement.style.setProperty("--c0", DATA.colours[0]);
  document.documentElement.style.setProperty("--c1", DATA.colours[1]);
  $("title").textContent = DATA.title;
  if (DATA.back) { $("back").href = DATA.back; $("back").hidden = false; }
  DATA.rounds.forEach(function (r, k) {
    var o = document.createElement("option");
    o.value = String(r.index);
    o.textContent = r.index + ": " + r.label;
    $("round-select").appendChild(o);
  });
  if (DATA.rounds.length < 2) { $("round-picker").hidden = true; }

  function cur() { return DATA.rounds[state.round]; }

  function kindOf(tok) {
    if (tok === "D" || tok === "W") return "reef";
    if (tok === "S") return "shield";
    if (tok === "0") return "water";
    return "gold";
  }

  function buildBoard() {
    var r = cur();
    board.innerHTML = "";
    board.style.setProperty("--rows", r.rows);
    board.style.setProperty("--cols", r.cols);
    board.dataset.rows = r.rows; board.dataset.cols = r.cols;
    board.appendChild(label(""));
    for (var j = 1; j <= r.cols; j++) board.appendChild(label(j));
    cells = [];
    for (var i = 1; i <= r.rows; i++) {
      board.appendChild(label(i));
      var row = [];
      for (var c = 1; c <= r.cols; c++) {
        var d = document.createElement("div");
        d.className = "cell";
        d.dataset.row = i; d.dataset.col = c;
        d.appendChild(document.createElement("span"));
        board.appendChild(d);
        row.push(d);
      }
      cells.push(row);
    }
    boats = [0, 1].map(function (s) {
      var b = document.createElement("div");
      b.className = "boat"; b.id = "boat-" + s;
      b.dataset.seat = s;
      var h = document.createElement("div");
      h.className = "hull"; h.textContent = "AB"[s];
      b.appendChild(h);
      b.title = r.teams[s];
      board.appendChild(b);
      return b;
    });
    var people = r.people || [];
    $("name-0").textContent = r.teams[0] + (people.indexOf(0) >= 0 ? " (a person)" : "");
    $("name-1").textContent = r.teams[1] + (people.indexOf(1) >= 0 ? " (a person)" : "");
    $("round-label").textContent = r.label + (r.partial ? " (unfinished)" : "");
    $("turn-total").textContent = r.turns;
    slider.min = r.frames[0].turn;
    slider.max = r.frames[r.frames.length - 1].turn;
    $("round-select").value = String(r.index);
    board.dataset.round = r.index;
    fit();
  }

  function label(text) {
    var d = document.createElement("div");
    d.className = "lab"; d.textContent = text;
    return d;
  }

  function fit() {
    var r = cur(), wrap = $("board-wrap");
    var w = wrap.clientWidth - 4, h = wrap.clientHeight - 4;
    var cell = Math.floor(Math.min((w - 2 * (r.cols + 1)) / (r.cols + 0.6),
                                   (h - 2 * (r.rows + 1)) / (r.rows + 0.6)));
    cell = Math.max(14, cell);
    board.style.setProperty("--cell", cell + "px");
    board.style.setProperty("--label", Math.max(10, Math.round(cell * 0.6)) + "px");
    placeBoats(false);
  }

  function placeBoats(animate) {
    var f = cur().frames[state.frame];
    var pos = f.positions || [null, null];
    var pair = pos[0] && pos[1] && pos[0][0] === pos[1][0] && pos[0][1] === pos[1][1];
    boats.forEach(function (b, s) {
      var p = pos[s];
      b.style.setProperty("--move-ms", animate ? moveMs() + "ms" : "0ms");
      if (!p) {
        b.hidden = true; b.dataset.row = ""; b.dataset.col = "";
      } else {
        var c = cells[p[0] - 1][p[1] - 1];
        b.hidden = false;
        b.dataset.row = p[0]; b.dataset.col = p[1];
        b.style.left = c.offsetLeft + "px"; b.style.top = c.offsetTop + "px";
      }
      b.dataset.sunk = f.sunk[s] ? "true" : "false";
      b.dataset.shield = f.shield[s] ? "true" : "false";
      b.classList.toggle("pair", !!pair);
      b.title = cur().teams[s] + (f.sunk[s] ? " (sunk)" : "") + (f.shield[s] ? " (shield)" : "");
    });
  }

  function moveMs() { return Math.round(Math.min(250, 600 / speed())); }
  function speed() { return parseFloat(speedSel.value) || 4; }

  function centreOf(r) { return [(r.rows + 1) >> 1, (r.cols + 1) >> 1]; }

  function fmtMove(f, s) {
    if (f.turn === 0) return "-";
    var m = f.moves ? f.moves[s] : null;
    if (m) return "(" + m[0] + "," + m[1] + ")";
    var raw = f.raw ? f.raw[s] : null;
    if (raw !== null && raw !== undefined) return JSON.stringify(String(raw).slice(0, 24));
    return f.verdicts && f.verdicts[s] === null && f.sunk[s] ? "-" : "none";
  }

  function render(animate) {
    var r = cur(), f = r.frames[state.frame];
    var ctr = centreOf(r);
    var treasureHere = false;
    for (var i = 0; i < r.rows; i++) {
      for (var j = 0; j < r.cols; j++) {
        var tok = f.grid[i][j], c = cells[i][j];
        var kind = kindOf(tok);
        var isT = f.treasure !== null && f.treasure !== undefined && i + 1 === ctr[0] &&
                  j + 1 === ctr[1] && kind === "gold";
        c.dataset.value = tok;
        c.dataset.kind = kind;
        c.dataset.treasure = isT ? "true" : "false";
        if (isT) treasureHere = true;
        c.firstChild.textContent = kind === "water" ? "" : kind === "reef" ? "D" :
                                   kind === "shield" ? "S" : (isT ? "\u2605" + tok : tok);
      }
    }
    placeBoats(animate);
    $("turn").textContent = f.turn;
    $("turns-left").textContent = f.turn > 0 ? "(K left " + f.turns_left + ")" : "(before placement)";
    slider.value = f.turn;
    board.dataset.turn = f.turn;
    for (var s = 0; s < 2; s++) {
      $("gold-" + s).textContent = f.gold[s];
      var sh = $("shield-" + s);
      sh.textContent = f.shield[s] ? "shield" : "";
      sh.className = "tag" + (f.shield[s] ? " shield" : "");
      sh.dataset.shield = f.shield[s] ? "true" : "false";
      var st = $("state-" + s);
      st.textContent = f.sunk[s] ? "sunk" : "afloat";
      st.className = "tag" + (f.sunk[s] ? " sunk" : "");
      $("move-" + s).textContent = fmtMove(f, s);
      var ms = f.move_status ? f.move_status[s] : null;
      var stEl = $("status-" + s);
      var said = f.status_text ? f.status_text[s] : null;
      stEl.textContent = said || ms || "";
      stEl.dataset.status = ms || "";
      stEl.className = "status" + (ms && ["moved", "placed", "stayed"].indexOf(ms) < 0 ? " void" : "");
      var v = f.verdicts ? f.verdicts[s] : null;
      var vEl = $("verdict-" + s);
      var person = (r.people || []).indexOf(s) >= 0;  // a person's seat: no program ran
      $("run-label-" + s).textContent = person ? "" : "run";
      vEl.textContent = v === null || v === undefined ? (f.sunk[s] ? "not run (sunk)" : "-") :
                        person ? "moved by a person" : v;
      vEl.className = person ? "dim" : v === "OK" ? "ok" : (v ? "bad" : "dim");
      var t = f.wall_ms ? f.wall_ms[s] : null;
      $("time-" + s).textContent = t === null || t === undefined || person ? "" : t + " ms";
      $("message-" + s).textContent = f.messages && f.messages[s] ? f.messages[s] : "";
    }
    var tr = $("treasure");
    if (f.treasure === null || f.treasure === undefined) tr.textContent = "";
    else if (treasureHere) tr.textContent = "\u2605 treasure " + f.treasure + " at (" + ctr[0] + "," + ctr[1] + ")";
    else if (f.treasure > 0) tr.textContent = "treasure " + f.treasure + " collected" +
        (f.treasure_by === 0 || f.treasure_by === 1 ? " by " + r.teams[f.treasure_by] : "");
    else tr.textContent = "treasure worth 0 (nothing to take)";
    var ev = $("events");
    ev.innerHTML = "";
    (f.text || []).forEach(function (txt) {
      var li = document.createElement("li"); li.textContent = txt; ev.appendChild(li);
    });
    if (!f.text || !f.text.length) {
      var li = document.createElement("li"); li.className = "dim none"; li.textContent = "none";
      ev.appendChild(li);
    }
    var last = state.frame === r.frames.length - 1;
    var res = $("result");
    res.textContent = last ? resultText(r, f) : "";
    res.dataset.final = last ? "true" : "false";
  }

  function resultText(r, f) {
    if (r.partial || !f.ended) return "unfinished";
    var g = r.result && r.result.gold ? r.result.gold : f.gold;
    var w = r.result ? r.result.winner : (g[0] === g[1] ? null : (g[0] > g[1] ? 0 : 1));
    var who = w === 0 || w === 1 ? r.teams[w] + " wins" : "draw";
    var pts = r.result && r.result.points ? ", points " + r.result.points[0] + "\u2013" + r.result.points[1] : "";
    return who + " " + g[0] + "\u2013" + g[1] + pts;
  }

  function show(frame, animate) {
    var n = cur().frames.length;
    state.frame = Math.max(0, Math.min(n - 1, frame));
    render(!!animate);
  }

  function gotoTurn(turn) {
    var fr = cur().frames;
    for (var k = 0; k < fr.length; k++) if (fr[k].turn === turn) { show(k, false); return true; }
    return false;
  }

  function setRound(n, turn) {
    var k = -1;
    DATA.rounds.forEach(function (r, i) { if (r.index === n) k = i; });
    if (k < 0) return false;
    pause();
    state.round = k; state.frame = 0;
    buildBoard();
    if (turn === undefined || turn === null || !gotoTurn(turn)) show(0, false);
    return true;
  }

  function tick() {
    state.timer = null;
    if (!state.playing) return;
    if (state.frame >= cur().frames.length - 1) { pause(); return; }
    show(state.frame + 1, true);
    state.timer = setTimeout(tick, 1000 / speed());
  }
  function play() {
    if (state.playing) return;
    if (state.frame >= cur().frames.length - 1) show(0, false);
    state.playing = true;
    playBtn.textContent = "pause"; playBtn.dataset.playing = "true";
    state.timer = setTimeout(tick, 1000 / speed());
  }
  function pause() {
    state.playing = false;
    if (state.timer) { clearTimeout(state.timer); state.timer = null; }
    playBtn.textContent = "play"; playBtn.dataset.playing = "false";
  }
  function next() { pause(); show(state.frame + 1, true); }
  function prev() { pause(); show(state.frame - 1, true); }

  function click(id, fn) {
    $(id).addEventListener("click", function (e) { fn(); if (e.detail) this.blur(); });
  }
  click("first", function () { pause(); show(0, false); });
  click("prev", prev);
  click("next", next);
  click("last", function () { pause(); show(cur().frames.length - 1, false); });
  click("play", function () { state.playing ? pause() : play(); });
  slider.addEventListener("input", function () { pause(); gotoTurn(parseInt(slider.value, 10)); });
  slider.addEventListener("change", function () { gotoTurn(parseInt(slider.value, 10)); });
  speedSel.addEventListener("change", function () {
    if (state.playing) { clearTimeout(state.timer); state.timer = setTimeout(tick, 1000 / speed()); }
  });
  $("round-select").addEventListener("change", function () {
    setRound(parseInt(this.value, 10));
  });
  function bumpSpeed(d) {
    var i = speedSel.selectedIndex + d;
    if (i >= 0 && i < speedSel.options.length) {
      speedSel.selectedIndex = i;
      speedSel.dispatchEvent(new Event("change"));
    }
  }
  function roundBy(d) {
    var i = state.round + d;
    if (i >= 0 && i < DATA.rounds.length) setRound(DATA.rounds[i].index);
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA") return;
    if (tag === "INPUT" && (e.key === "ArrowLeft" || e.key === "ArrowRight" ||
                            e.key === "Home" || e.key === "End")) return;
    var done = true;
    switch (e.key) {
      case "ArrowRight": next(); break;
      case "ArrowLeft": prev(); break;
      case " ": case "Spacebar": state.playing ? pause() : play(); break;
      case "Home": pause(); show(0, false); break;
      case "End": pause(); show(cur().frames.length - 1, false); break;
      case "+": case "=": bumpSpeed(1); break;
      case "-": bumpSpeed(-1); break;
      case "PageDown": roundBy(1); break;
      case "PageUp": roundBy(-1); break;
      default: done = false;
    }
    if (done) e.preventDefault();
  });
  document.addEventListener("keyup", function (e) {
    if (e.key === " " && e.target && e.target.tagName === "BUTTON") e.preventDefault();
  });
  window.addEventListener("resize", fit);

  function fromHash() {
    var h = {}, m;
    var re = /([a-z]+)=(\d+)/g;
    while ((m = re.exec(location.hash)) !== null) h[m[1]] = parseInt(m[2], 10);
    return h;
  }
  window.addEventListener("hashchange", function () {
    var h = fromHash();
    if (h.round !== undefined) setRound(h.round, h.turn);
    else if (h.turn !== undefined) gotoTurn(h.turn);
  });

  window.oceanReplay = {
    goto: function (turn) { pause(); return gotoTurn(turn); },
    setRound: function (n, turn) { return setRound(n, turn); },
    next: next, prev: prev, play: play, pause: pause,
    state: function () {
      var r = cur(), f = r.frames[state.frame];
      return { round: r.index, turn: f.turn, positions: f.positions, gold: f.gold,
               sunk: f.sunk, shield: f.shield, playing: state.playing };
    },
    data: DATA
  };

  var h = fromHash();
  var startRound = h.round !== undefined ? h.round : DATA.start.round;
  var startTurn = h.turn !== undefined ? h.turn : DATA.start.turn;
  if (startRound === null || startRound === undefined || !setRound(startRound, startTurn)) {
    setRound(DATA.rounds[0].index, startTurn);
  }
  document.body.dataset.ready = "true";
})();
"""

INDEX_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{TITLE}}</title>
<style>{{CSS}}</style>
</head>
<body>
<h1 id="title">{{TITLE}}</h1>
<h2>Standings</h2>
{{BODY}}
</body>
</html>
"""

INDEX_CSS = r"""
body { margin: 0 auto; max-width: 60em; padding: 1em 2em; background: #0f172a; color: #e2e8f0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
  font-size: clamp(15px, 1.6vw, 28px); }
a { color: #93c5fd; }
/* A wide table scrolls inside its own box; the page itself never scrolls sideways. */
.table-wrap { max-width: 100%; overflow-x: auto; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.8em; }
th, td { padding: 0.3em 0.6em; border-bottom: 1px solid #334155; text-align: right; }
th { white-space: nowrap; }
th:nth-child(2), td:nth-child(2) { text-align: left; min-width: 7em; }
td.failed, th.failed { text-align: left; }
.badge.v-void { background: #fde68a; }
.none { color: #94a3b8; font-weight: normal; }
.why-void { color: #cbd5e1; font-size: 0.85em; }
.legend { list-style: none; padding: 0; margin: -0.8em 0 1.5em; font-size: 0.8em; color: #94a3b8; }
.legend li { margin: 0.15em 0; }
.legend .badge { min-width: 3em; text-align: center; }
.badge { display: inline-block; padding: 0 0.35em; margin: 0.1em 0.15em; border-radius: 0.3em;
  font-size: 0.85em; font-weight: bold; text-decoration: none; color: #0f172a;
  background: #fca5a5; }
.badge.v-tle { background: #fdba74; }
.badge.v-mle, .badge.v-ole { background: #c4b5fd; }
.badge.v-ie { background: #94a3b8; }
.failed { margin-left: 0.4em; color: #fca5a5; }
th.failed { color: #94a3b8; }
thead th { color: #94a3b8; }
tbody tr:first-child td { color: #fbbf24; font-weight: bold; }
#matches > li { margin-bottom: 0.8em; }
.score { font-weight: bold; margin-left: 0.6em; }
.missing .why { color: #fbbf24; }
"""
