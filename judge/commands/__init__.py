"""One module per ``judge`` sub-command (see :mod:`judge.cli`)."""
