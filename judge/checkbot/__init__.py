"""``judge check-bot``: run a bot through a battery of situations and explain what it gets wrong.

* :mod:`judge.checkbot.situations`: the hand-made game states (pure);
* :mod:`judge.checkbot.diagnose`: from one run's facts to findings with likely causes (pure);
* :mod:`judge.checkbot.trials`: one run per situation through the real sandbox;
* :mod:`judge.checkbot.replayed`: ``--from``, a match's failed turns rebuilt and run again;
* :mod:`judge.checkbot.report`: counts, the summary line, the JSON (the table and the
  explanations are :mod:`judge.views.checkreport`'s).
"""

from judge.checkbot.diagnose import ADVICE, ERROR, WARNING, Finding, RunFacts, diagnose
from judge.checkbot.situations import Situation, battery
from judge.checkbot.trials import CheckAborted, SituationResult, check_bot, passed

__all__ = [
    "ADVICE",
    "ERROR",
    "WARNING",
    "CheckAborted",
    "Finding",
    "RunFacts",
    "Situation",
    "SituationResult",
    "battery",
    "check_bot",
    "diagnose",
    "passed",
]
