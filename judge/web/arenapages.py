"""The arena's pages: login, a team's page, the organiser's page (self-contained HTML).

Every text a team chose or a bot wrote (names, file names, check-bot's words, a
program's error output) is put in the page as escaped HTML by the server and, when
the page updates itself, with ``textContent`` only: shown as text, never run.
Forms carry the session's CSRF token in a hidden ``csrf`` field.  Automation hooks
(stable; the tests drive the pages through them):

* every page: ``body[data-page]`` (``login``, ``team``, ``organiser``, ``message``),
  ``body[data-ready="true"]`` once drawn;
* the team page: ``#upload`` (the form: ``bot``, ``source``, ``report``),
  ``#versions tr[data-version][data-status]`` with ``.reason`` and ``.log``;
  ``#current`` names the current version;
* the organiser page: ``#teams tr[data-team]``, ``#archive`` (the download).
"""

from __future__ import annotations

import html
from typing import Any

from judge.web.pages import page


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _hidden(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{_e(csrf)}">'


def login_page(csrf: str, message: str = "", title: str = "Ocean Treasure arena") -> str:
    why = f'<p class="why" id="message">{_e(message)}</p>' if message else ""
    body = (
        "<section><h2>Log in</h2>"
        f"{why}"
        '<form method="post" action="/login" id="login">'
        f"{_hidden(csrf)}"
        '<p><label>Team <input name="team" autocomplete="username" required></label></p>'
        '<p><label>Password <input name="password" type="password" '
        'autocomplete="current-password" required></label></p>'
        '<p><button type="submit">Log in</button></p></form>'
        '<p class="muted">The organiser hands out each team\'s password '
        "(credentials.csv).</p></section>"
    )
    return page("login", title, body, READY_JS, {}, home="/")


def message_page(title: str, message: str, back: str = "/") -> str:
    body = f'<section><p class="why" id="message">{_e(message)}</p><p><a href="{_e(back)}">back</a></p></section>'
    return page("message", title, body, READY_JS, {}, home=back)


READY_JS = "document.body.dataset.ready='true';"

VERSIONS_JS = r"""
function versionRows(body, versions, own){
  clear(body);
  versions.forEach(function(v){
    const tr = el('tr', {'data-version': v.version, 'data-status': v.status, 'data-id': v.id});
    tr.appendChild(el('td', {}, v.version));
    tr.appendChild(el('td', {'class':'status'}, v.status));
    tr.appendChild(el('td', {}, v.file + ' (' + v.kind + ', ' + v.size + ' bytes)'));
    tr.appendChild(el('td', {}, v.uploaded_at));
    const why = el('td', {'class':'reason'}, v.reason);
    tr.appendChild(why);
    const files = el('td', {});
    ['bot','source','report'].forEach(function(w){
      if(w==='bot' || v[w]){const a = el('a', {href: own + v.version + '/' + w}, w); files.appendChild(a); files.appendChild(el('span',{},' '));}});
    tr.appendChild(files);
    body.appendChild(tr);
    if(v.log){const lt = el('tr', {'class':'log-row','data-version': v.version});
      const td = el('td', {colspan: 6}); const pre = el('pre', {'class':'log'}, v.log); td.appendChild(pre);
      lt.appendChild(td); body.appendChild(lt);}
  });
}
"""

TEAM_JS = (
    VERSIONS_JS
    + r"""
function show(st){
  versionRows(document.querySelector('#versions tbody'), st.versions, '/team/versions/');
  const cur = document.getElementById('current');
  cur.textContent = st.current ? 'version ' + st.current : 'none yet (no version accepted)';
  cur.dataset.version = st.current || '';
  document.body.dataset.ready = 'true';
}
show(DATA.state);
if (window.EventSource) { follow('/team/events', show); }
"""
)


def team_page(
    team: str, csrf: str, state: dict[str, Any], phase_note: str, notice: str = ""
) -> str:
    note = f'<p id="notice" class="live">{_e(notice)}</p>' if notice else ""
    closed = f'<p class="why" id="closed">{_e(phase_note)}</p>' if phase_note else ""
    body = (
        '<section style="flex-basis:100%">'
        f"{note}"
        f'<p>Current bot: <b id="current"></b></p>'
        '<p><a href="/team/ladder" id="ladder-link">On the ladder: your place, games, failures, '
        'your map for the final, challenges</a> &middot; <a href="/ladder">the ladder</a></p>'
        "<h2>Upload a version</h2>"
        f"{closed}"
        '<form method="post" action="/team/upload" enctype="multipart/form-data" id="upload">'
        f"{_hidden(csrf)}"
        '<p><label>Bot (.exe, or .zip of the bot folder) <input type="file" name="bot" required></label></p>'
        '<p><label>Source archive (optional) <input type="file" name="source"></label></p>'
        '<p><label>Report (optional) <input type="file" name="report"></label></p>'
        '<p><button type="submit">Upload</button></p></form>'
        "<h2>Versions</h2>"
        '<table id="versions"><thead><tr><th>#</th><th>status</th><th>file</th><th>uploaded</th>'
        "<th>check</th><th>files</th></tr></thead><tbody></tbody></table>"
        "</section>"
        "<section><h2>Account</h2>"
        '<form method="post" action="/password" id="password">'
        f"{_hidden(csrf)}"
        '<p><label>Password now <input name="current" type="password" autocomplete="current-password" required></label></p>'
        '<p><label>New password <input name="new" type="password" autocomplete="new-password" minlength="8" required></label></p>'
        '<p><button type="submit">Change the password</button> (logs out every other session)</p></form>'
        '<form method="post" action="/team/token" id="token">'
        f"{_hidden(csrf)}"
        '<p><button type="submit">New upload token</button> (for judge submit; the old one stops working)</p></form>'
        '<form method="post" action="/logout" id="logout">'
        f"{_hidden(csrf)}"
        '<p><button type="submit">Log out</button></p></form></section>'
    )
    return page("team", f"Arena: {team}", body, TEAM_JS, {"state": state}, home="/team")


ORGANISER_JS = (
    VERSIONS_JS
    + r"""
function show(st){
  const box = document.getElementById('teams-box'); clear(box);
  st.teams.forEach(function(t){
    const sec = el('div', {'class':'team', 'data-team': t.name});
    sec.appendChild(el('h3', {}, t.name + (t.members ? ' (' + t.members + ')' : '')));
    sec.appendChild(el('p', {'class':'muted'}, t.current ? 'current: version ' + t.current : 'no version accepted yet'));
    const tbl = el('table', {}); const body = el('tbody', {}); tbl.appendChild(body); sec.appendChild(tbl);
    versionRows(body, t.versions, '/organiser/teams/' + t.id + '/versions/');
    box.appendChild(sec);
  });
  const rows = document.querySelector('#teams tbody'); clear(rows);
  st.teams.forEach(function(t){const tr = el('tr', {'data-team': t.name, 'data-current': t.current || ''});
    tr.appendChild(el('td', {}, t.name)); tr.appendChild(el('td', {}, t.current || '-'));
    tr.appendChild(el('td', {}, t.versions.length)); rows.appendChild(tr);});
  document.getElementById('phase').textContent = st.phase;
  document.body.dataset.ready = 'true';
}
show(DATA.state);
if (window.EventSource) { follow('/organiser/events', show); }
"""
)


def organiser_page(csrf: str, state: dict[str, Any]) -> str:
    body = (
        '<section><p>Uploads: <b id="phase"></b></p>'
        '<p><a id="archive" href="/organiser/archive.zip" download>Download every team\'s '
        "current .exe, source and report (one .zip, a folder per team)</a></p>"
        '<table id="teams"><thead><tr><th>team</th><th>current</th><th>versions</th></tr></thead>'
        "<tbody></tbody></table>"
        '<form method="post" action="/logout" id="logout">'
        f"{_hidden(csrf)}"
        '<p><button type="submit">Log out</button></p></form></section>'
        '<section style="flex-basis:100%"><h2>Versions</h2><div id="teams-box"></div></section>'
    )
    return page(
        "organiser", "Arena: organiser", body, ORGANISER_JS, {"state": state}, home="/organiser"
    )
