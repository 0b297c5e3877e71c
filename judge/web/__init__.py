"""The judge on the web: ``judge serve`` (a folder of results, live) and ``judge play``.

* :mod:`.catalog` -- what a folder holds (tournaments, matches, evals, leagues), and
  paths that never leave it;
* :mod:`.state` -- a tournament's state as it is played (standings, crosstable,
  rounds done, in flight and to play) and a round's turns as they are written,
  read from the files the judge writes (plain data, no web);
* :mod:`.pages` -- the pages: self-contained HTML, CSS and JS, no network, every
  text a bot or a team chose shown as text, never as markup;
* :mod:`.app` -- the web app (Starlette, served by uvicorn): pages, JSON and
  server-sent events;
* :mod:`.play` -- a person in one seat against a bot, under the same referee.

Starlette and uvicorn are the optional extra ``web`` (``pip install -e ".[web]"``),
imported only by ``judge serve``, ``judge play`` and ``judge tournament --serve``.
"""

from __future__ import annotations

INSTALL_HINT = (
    "pip install 'ocean-treasure-judge[web]' (in a checkout of the judge: pip install -e '.[web]')"
)

#: The projector's turns a second (``--pace``): a turn can be followed, a 40-turn round
#: takes 8 s.  Here, not in :mod:`.projector`, so that the commands' options import nothing.
DEFAULT_PACE = 5.0
#: The fastest pace that still shows each turn (a screen redraws about 60 times a second).
MAX_PACE = 60.0
