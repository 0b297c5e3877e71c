"""Order statistics of measured times: one definition for every table and file.

Nearest rank, never an interpolation: a p50 or p99 is a time that really
happened, so "p99 1990 ms" is a run that took 1990 ms.  ``result.json``'s
per-seat ``wall_ms_p50``, ``judge match``'s summary and ``judge eval``'s
p50/p99 all come from :func:`percentile`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile of already sorted values; None when there are none.

    p99 of 100 runs is the 99th fastest; p50 of an even count is the lower of
    the two middle values.
    """
    if not sorted_values:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"a percentile is from 0 to 100, not {q!r}")
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def median(sorted_values: Sequence[float]) -> float | None:
    """The p50 of :func:`percentile`."""
    return percentile(sorted_values, 50)
