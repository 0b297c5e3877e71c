"""``judge league``: many bots, OpenSkill ratings in SQLite, matches where they tell most."""
