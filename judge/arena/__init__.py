"""The arena: where teams submit their bot in the weeks before the final and see it checked.

A folder made by ``judge arena init`` holds everything: ``arena.yaml`` (the
settings), ``arena.sqlite`` (the store: teams, versions, tasks), ``store/``
(every uploaded file under its content hash) and ``credentials.csv`` (for the
organiser to hand out).  ``judge arena serve`` serves it.

* :mod:`.config` -- ``arena.yaml``: load, validate, defaults, the commented template;
* :mod:`.store` -- the SQLite store (WAL, versioned schema, migrations as numbered steps);
* :mod:`.tasks` -- a generic task table with leases (checks now, games later);
* :mod:`.accounts` -- teams, argon2id passwords, hashed upload tokens, sessions,
  login throttling;
* :mod:`.uploads` -- a multipart body streamed to files under a cap (no web framework);
* :mod:`.submissions` -- what an upload is (a 64-bit ``.exe`` or a bot ``.zip``), the
  zip checks, content-hash storage, versions;
* :mod:`.builds` -- a zipped bot folder unpacked and built as ``judge match`` builds it,
  confined;
* :mod:`.checks` -- the check on upload: check-bot's battery, then a strict short round
  against the reference bot in each seat;
* :mod:`.service` -- the worker loop: claims tasks and runs them by kind;
* :mod:`.archive` -- the organiser's one download of every team's current files.

This layer sits above the tournament and the league and below the web pages and
the commands.
"""

from __future__ import annotations

from judge.errors import JudgeError


class ArenaError(JudgeError, ValueError):
    """An arena folder, its settings or a request that cannot be used; the message says why."""


__all__ = ["ArenaError"]
