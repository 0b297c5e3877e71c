#!/usr/bin/env python3
"""A scripted bot for end-to-end tests: plays the lines of script.txt beside it, one per run.

Each run reads its run counter from STATE.OUT, so re-asks consume lines too.
A line is written to MOVE.OUT as it is, except for these directives:
  -              write no MOVE.OUT
  !crash I J     write the move, then exit 3
  !segv          die from SIGSEGV
  !sleep S I J   write the move, then sleep S seconds
  !hex HEX       write these bytes to MOVE.OUT
  !stdout I J    print the move on stdout instead of writing MOVE.OUT
  !mem MB I J    write the move, then touch MB MiB of memory
The last line repeats when the script runs out.
"""

import os
import signal
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "script.txt")) as f:
    lines = [ln.rstrip("\n") for ln in f if ln.strip()]
try:
    with open("STATE.OUT") as f:
        n = int(f.read().strip() or 0)
except (OSError, ValueError):
    n = 0
with open("STATE.OUT", "w") as f:
    f.write(str(n + 1))
line = lines[min(n, len(lines) - 1)]
words = line.split()
if line == "-":
    sys.exit(0)
if words[0] == "!crash":
    open("MOVE.OUT", "w").write(" ".join(words[1:]) + "\n")
    sys.exit(3)
if words[0] == "!segv":
    os.kill(os.getpid(), signal.SIGSEGV)
if words[0] == "!sleep":
    open("MOVE.OUT", "w").write(" ".join(words[2:]) + "\n")
    time.sleep(float(words[1]))
    sys.exit(0)
if words[0] == "!hex":
    open("MOVE.OUT", "wb").write(bytes.fromhex(words[1]))
    sys.exit(0)
if words[0] == "!stdout":
    print(" ".join(words[1:]))
    sys.exit(0)
if words[0] == "!mem":
    open("MOVE.OUT", "w").write(" ".join(words[2:]) + "\n")
    block = bytearray(int(words[1]) * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(0.2)
    sys.exit(0)
with open("MOVE.OUT", "w") as f:
    f.write(line + "\n")
