"""What a resume does with what changed since the tournament's last run (pure but for a look
at the folder).

A resume plays the rounds the ledger lacks.  Two things can have changed since
the last run, and neither may be passed over in silence:

* **A team's program** (its hash differs from the one the ledger's last run
  recorded, e.g. a ``.exe`` replaced in place).  Playing on would mix two
  programs in one team's results, so the resume is refused, naming each such
  team, unless it is told what to do: ``--replace TEAM`` plays that team's
  matches again with the new program (its rounds and its opponents' in those
  matches are taken out of the ledger), ``--keep-changed`` keeps the rounds
  the old program played.  Either is recorded in the ledger's run, and
  ``standings.json`` says which program played which round.
* **A round's files**: a recorded round whose replay is gone (a match folder
  deleted to play it again) is played again, and the run says so; otherwise
  the pages would list a round nobody can watch.

``--replace`` is also the way to play one team's matches again when nothing
changed.  A ledger that records no runs (judge 0.1.0) has no hashes to compare.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge import bundled
from judge.bots import BotSpec, looks_like_path
from judge.names import normalise, same_folder
from judge.records.standings import LedgerRun
from judge.tournament.config import TournamentConfig
from judge.tournament.pairings import Pairing


@dataclass(frozen=True)
class ResumeChoices:
    """What the command was told to do with changed programs (and whose matches to replay)."""

    replace: tuple[str, ...] = ()  # team names, as typed
    keep_changed: bool = False


@dataclass(frozen=True)
class ChangedProgram:
    """A team whose program is not the one its rounds in the ledger were played by."""

    team: str
    bot: str  # the configuration's bot, as written (and the folder a name finds)
    before: str  # the hash the ledger's last run recorded
    now: str
    rounds: int  # the team's rounds in the ledger


@dataclass(frozen=True)
class ResumePlan:
    """What a resume does before it plays the rounds the ledger lacks."""

    replaced: tuple[str, ...] = ()  # teams whose matches are played again
    kept_changed: tuple[str, ...] = ()  # teams whose changed program keeps the old rounds
    #: recorded rounds (match, round) taken out of the ledger to be played again
    replay: tuple[tuple[str, int], ...] = ()
    #: of those, the rounds whose replay is gone (the others are the replaced teams')
    missing: tuple[tuple[str, int], ...] = ()
    changed: tuple[ChangedProgram, ...] = ()
    #: each replaced team with the number of its recorded rounds played again
    replaced_rounds: tuple[tuple[str, int], ...] = ()
    #: why the resume cannot go on (a changed program nobody said what to do with)
    refusal: str | None = None

    @property
    def decided(self) -> bool:
        """Whether this resume changes the ledger's record even with no round to play."""
        return bool(self.replaced or self.kept_changed or self.replay)


def team_named(cfg: TournamentConfig, typed: str) -> str | None:
    """The team ``typed`` names: its name as written (whatever Unicode form the terminal
    typed it in), else any spelling with its folder form, in any case: ``Rong Bien`` for
    ``Rồng Biển`` on a keyboard without Vietnamese (the configuration refuses two teams
    of one folder form, so this names at most one)."""
    name = normalise(typed)
    for t in cfg.teams:
        if t.name == name:
            return t.name
    for t in cfg.teams:
        if same_folder(t.name, name):
            return t.name
    return None


def unknown_teams(cfg: TournamentConfig, typed: Iterable[str]) -> list[str]:
    """A problem per ``--replace`` name that is no team of the tournament."""
    return [
        f"--replace {t}: no such team; {bundled.did_you_mean(t, cfg.team_names)}"
        f"the teams are: {', '.join(cfg.team_names)}"
        for t in typed
        if team_named(cfg, t) is None
    ]


def changed_programs(
    cfg: TournamentConfig, runs: Sequence[LedgerRun], recorded: Iterable[tuple[str, str]]
) -> list[ChangedProgram]:
    """The teams with rounds in the ledger whose program differs from the one the last run
    that names them recorded (``recorded``: the two teams of each recorded round)."""
    counts: dict[str, int] = {}
    for pair in recorded:
        for team in pair:
            counts[team] = counts.get(team, 0) + 1
    out = []
    for t in cfg.teams:
        before = next((r.programs[t.name] for r in reversed(runs) if t.name in r.programs), None)
        if before is not None and before != t.bot.digest and counts.get(t.name):
            out.append(ChangedProgram(t.name, _shown(t.bot), before, t.bot.digest, counts[t.name]))
    return out


def plan_resume(
    cfg: TournamentConfig,
    schedule: Sequence[Pairing],
    runs: Sequence[LedgerRun],
    recorded: Sequence[tuple[str, int]],
    out: Path,
    choices: ResumeChoices,
) -> ResumePlan:
    """What to do before playing on; ``recorded``: the (match, round) keys in the ledger."""
    teams_of = {p.folder: p.teams for p in schedule}
    changed = changed_programs(cfg, runs, (teams_of[m] for m, _ in recorded if m in teams_of))
    replaced = tuple(dict.fromkeys(n for t in choices.replace if (n := team_named(cfg, t))))
    undecided = [c for c in changed if c.team not in replaced and not choices.keep_changed]
    if undecided:
        return ResumePlan(changed=tuple(changed), refusal=refusal(undecided))
    kept = tuple(c.team for c in changed if c.team not in replaced)
    theirs = [(m, r) for m, r in recorded if set(teams_of.get(m, ())) & set(replaced)]
    missing = [
        (m, r)
        for m, r in recorded
        if (m, r) not in theirs and not (out / m / f"round-{r}" / "replay.jsonl").is_file()
    ]
    order = {key: i for i, key in enumerate(recorded)}
    return ResumePlan(
        replaced=replaced,
        kept_changed=kept,
        replay=tuple(sorted([*theirs, *missing], key=order.__getitem__)),
        missing=tuple(missing),
        changed=tuple(changed),
        replaced_rounds=tuple((t, sum(1 for m, _ in theirs if t in teams_of[m])) for t in replaced),
    )


def _shown(bot: BotSpec) -> str:
    """The bot as the configuration writes it and, for a name, the folder it finds now (a
    new ``bots/greedy``, an upgraded judge's bundled bot: not what the teacher edited)."""
    if looks_like_path(bot.source) or bot.home is None:
        return bot.source
    return f"{bot.source}, the folder {bot.home}"


def _short(digest: str) -> str:
    return f"{digest[:12]}…" if len(digest) > 12 else digest or "(none)"


def refusal(changed: Sequence[ChangedProgram]) -> str:
    """Why a resume with changed programs stops, naming each team, and the ways on."""
    lines = [
        f"the program of {c.team} ({c.bot}) has changed since the last run: "
        f"{_short(c.before)} in the ledger, {_short(c.now)} now; {c.rounds} of its rounds "
        "in the ledger were played by the old one"
        for c in changed
    ]
    options = " ".join(f"--replace {shlex.quote(c.team)}" for c in changed)
    return (
        "; ".join(lines) + ".  Resuming as it is would mix two programs in one team's "
        "results, so nothing was played.  Either play the team's matches again with its "
        f"new program: add {options} (its rounds and its opponents' in those matches are "
        "taken out of the ledger and played again); or keep the rounds the old program "
        "played and play the rest with the new one: add --keep-changed; or put the old "
        "program back and resume as before.  --replace and --keep-changed are recorded in "
        "the ledger and standings.json"
    )
