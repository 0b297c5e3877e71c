"""The arena: teams submit their bots, a practice ladder plays them, the final is played from it."""
