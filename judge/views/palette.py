"""The teams' colours: one palette for every page and the terminal (pure: no rich).

Seat 0 (A) is blue and seat 1 (B) red wherever a team is drawn: the replay
pages, the live pages and the projector, the play page, and the terminal's
board.  ``FILL`` paints a boat; ``TEXT``, lighter, writes a team's name on the
dark backgrounds of the pages (and reads on a washed-out projector).
"""

from __future__ import annotations

#: A boat's colour, seat 0 then seat 1.
FILL = ("#3b82f6", "#ef4444")
#: A team's name on a dark background, seat 0 then seat 1.
TEXT = ("#60a5fa", "#f87171")


def css_variables() -> str:
    """The palette as CSS custom properties (``--team0``, ``--team0-text``, ...)."""
    return "".join(f"--team{s}:{FILL[s]};--team{s}-text:{TEXT[s]};" for s in (0, 1))
