"""The round-robin tournament: configuration, pairings, ledger, standings and the runner.

The pure parts (:mod:`.pairings`, :mod:`.standings`) know nothing of files or
processes, so the rules of the tournament (R18, R19) are tested in
milliseconds; :mod:`.ledger` is the only place results are kept, and
:mod:`.play` plays whatever the ledger does not have yet.
"""
