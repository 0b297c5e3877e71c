"""Seeds derived from seeds: one number fixes a whole match, evaluation or tournament.

Every derived seed is the first 48 bits of SHA-256 of ``purpose:part:part...``,
so the streams of different purposes are independent, a derived seed never
depends on when (or in which thread) a round is played, and the values are
the same on every machine and every Python.  The purposes in use (changing
one changes every result of its kind):

* ``ocean-round``: a match's round ``i`` (:func:`judge.match.round_seed`);
* ``ocean-match``: a tournament's match of two teams (:func:`judge.tournament.pairings.match_seed`);
* ``ocean-eval-map`` / ``-round`` / ``-turns``: ``judge eval``'s map ``i`` (:func:`judge.evaluate.derive_seed`).
"""

from __future__ import annotations

import hashlib


def derive(purpose: str, *parts: object) -> int:
    """A 48-bit seed for ``purpose`` from ``parts`` (seeds, indexes, names)."""
    text = ":".join([purpose, *(str(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")
