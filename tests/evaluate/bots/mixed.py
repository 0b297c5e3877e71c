#!/usr/bin/env python3
"""A deliberately weakened bot for the statistics tests: greedy with probability P, else random.

:func:`tests.evaluate.weakbots.mixed_bot` assembles a bot folder from this
file and copies of the bundled greedy and random bots (``greedy.py``,
``random_bot.py``) with P in ``mix.txt``.  Each turn the choice is drawn from
a hash of MAP.INP, so the bot is deterministic like the two it mixes; STATE.OUT
is shared, and each bundled bot ignores the other's (another tag).
"""

import hashlib
import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    with open(os.path.join(HERE, "mix.txt")) as f:
        p = float(f.read().strip())
    try:
        with open("MAP.INP", "rb") as f:
            data = f.read()
    except OSError:
        data = b""
    draw = int.from_bytes(hashlib.sha256(b"mixed:" + data).digest()[:8], "big") / 2**64
    chosen = "greedy.py" if draw < p else "random_bot.py"
    runpy.run_path(os.path.join(HERE, chosen), run_name="__main__")


if __name__ == "__main__":
    main()
