"""A tournament's standings and its audit record: ``standings.json``, ``standings.csv``, the ledger's runs.

:func:`judge.tournament.standings.standings` ranks the teams into
:class:`StandingRow` s; the runner adds a :class:`StandingsAudit` (how the
tournament was played, so that a published result can be checked later), made
from the ledger's :class:`LedgerRun` s.  Only ``to_json``/``from_json`` know the
files' keys; the files are those the judge has always written (the golden
files in ``tests/tournament/golden`` hold them byte for byte):

* ``standings.json`` is the audit's keys, then ``"standings"``: the rows.
  Judge 0.1.0 wrote the rows alone (a list); :meth:`Standings.from_json` reads both.
* a ledger's ``runs`` (its ``meta`` table) is a list of :class:`LedgerRun`
  objects, written with sorted keys; ledgers of 0.1.0 have none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.records.fields import Json, JsonObject, RecordError, is_int, read_rows

#: The columns of standings.json's rows and of standings.csv, in order.
COLUMNS = ("rank", "team", "points", "rounds_won", "draws", "losses", "gold")


@dataclass(frozen=True)
class StandingRow:
    """One team's line of the standings (ruling R18 orders them; ``rank`` is the position).

    ``rounds_won + draws + losses`` is the number of rounds the team played;
    ``draws`` counts every drawn round, a 0-point draw (no gold) included.
    """

    rank: int
    team: str
    points: int
    rounds_won: int
    draws: int
    losses: int
    gold: int

    def to_json(self) -> Json:
        return {
            "rank": self.rank,
            "team": self.team,
            "points": self.points,
            "rounds_won": self.rounds_won,
            "draws": self.draws,
            "losses": self.losses,
            "gold": self.gold,
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "a standings row") -> StandingRow:
        o = JsonObject(d, where)
        return cls(
            o.whole("rank"),
            o.text("team"),
            o.whole("points"),
            o.whole("rounds_won"),
            o.whole("draws"),
            o.whole("losses"),
            o.whole("gold"),
        )


def _texts(v: Any) -> tuple[str, ...]:
    return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list) else ()


@dataclass(frozen=True)
class LedgerRun:
    """One start or resume of a tournament, as its ledger records it before any round is played.

    Read leniently (a value of the wrong type reads as its default), since
    the audit only reports what the ledger says.
    """

    started_at: str
    judge_version: str
    unsandboxed: bool  # some sandbox protection was off
    unsandboxed_option: bool  # --unsandboxed was given
    protections_off: tuple[str, ...]
    programs: Mapping[str, str]  # team -> program hash (judge.programs.tree_hash)
    jobs: int | None
    cluster: str | None = None  # the --cluster address, when played on one
    #: teams whose matches this run played again (--replace), and the rounds it took out
    #: of the ledger to play them again (theirs, and rounds whose replay was gone)
    replaced: tuple[str, ...] = ()
    replayed: tuple[str, ...] = ()  # "match/round"
    #: teams whose program had changed and whose earlier rounds were kept (--keep-changed)
    kept_changed: tuple[str, ...] = ()

    def to_json(self) -> Json:
        """The ledger's object: keys sorted, as the ledger has always stored them (the
        lists of replaced and kept teams only when there are some)."""
        d: Json = {
            "jobs": self.jobs,
            "judge_version": self.judge_version,
            "programs": dict(sorted(self.programs.items())),
            "protections_off": list(self.protections_off),
            "started_at": self.started_at,
            "unsandboxed": self.unsandboxed,
            "unsandboxed_option": self.unsandboxed_option,
        }
        if self.cluster is not None:
            d["cluster"] = self.cluster
        for key in ("replaced", "replayed", "kept_changed"):
            if getattr(self, key):
                d[key] = list(getattr(self, key))
        return dict(sorted(d.items()))

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LedgerRun:
        programs = d.get("programs")
        cluster = d.get("cluster")
        return cls(
            started_at=str(d.get("started_at") or ""),
            judge_version=str(d.get("judge_version") or ""),
            unsandboxed=bool(d.get("unsandboxed")),
            unsandboxed_option=bool(d.get("unsandboxed_option")),
            protections_off=_texts(d.get("protections_off")),
            programs=(
                {str(k): str(v) for k, v in programs.items()} if isinstance(programs, dict) else {}
            ),
            jobs=d["jobs"] if is_int(d.get("jobs")) else None,
            cluster=cluster if isinstance(cluster, str) else None,
            replaced=_texts(d.get("replaced")),
            replayed=_texts(d.get("replayed")),
            kept_changed=_texts(d.get("kept_changed")),
        )


#: How standings.json names a round played by a program the ledger does not know (a round
#: recorded by a judge that did not say which run played it, runs that disagree).
UNKNOWN_PROGRAM = "unknown"


@dataclass(frozen=True)
class TeamProgram:
    """A team's program as the standings record it: the bot argument, the hash of the
    program that played its rounds, and which program played which of them.

    ``sha256`` is the program that played the team's rounds (the last of them, when a
    changed program was kept with ``--keep-changed``); today's program when the ledger
    cannot tell.  ``played`` maps each program's hash to the rounds (``match/round``)
    it played for the team.
    """

    bot: str
    sha256: str
    played: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> Json:
        return {
            "bot": self.bot,
            "sha256": self.sha256,
            "played": {h: list(keys) for h, keys in self.played.items()},
        }

    @classmethod
    def from_json(cls, d: Any) -> TeamProgram:
        played = d.get("played") if isinstance(d.get("played"), dict) else {}
        return cls(str(d["bot"]), str(d["sha256"]), {str(h): _texts(k) for h, k in played.items()})


#: What the standings know of a round: its two teams and the run that played it (None:
#: the ledger does not say).
RoundOrigin = tuple[tuple[str, str], int | None]


def _program_of(team: str, run: int | None, runs: Sequence[LedgerRun], before: int) -> str:
    """The hash of the program that played ``team``'s round in run ``run`` (1-based); a
    round of no known run was played by one of the first ``before`` runs: theirs when
    they all name one program (none, a 0.1.0 ledger's, name any)."""
    if run is not None and 1 <= run <= len(runs) and team in runs[run - 1].programs:
        return runs[run - 1].programs[team]
    named = {r.programs[team] for r in runs[:before] if team in r.programs}
    return named.pop() if len(named) == 1 else UNKNOWN_PROGRAM


def _played(
    programs: Mapping[str, TeamProgram],
    rounds: Mapping[str, RoundOrigin],
    runs: Sequence[LedgerRun],
    before: int,
) -> dict[str, TeamProgram]:
    """Each team's program with the rounds each of its programs played (see TeamProgram);
    ``before``: the runs that did not say which rounds they played."""
    out = {}
    for team, now in programs.items():
        played: dict[str, list[str]] = {}
        last: tuple[int, str] | None = None
        for key, (teams, run) in rounds.items():
            if team not in teams:
                continue
            digest = _program_of(team, run, runs, before)
            played.setdefault(digest, []).append(key)
            if digest != UNKNOWN_PROGRAM and (last is None or (run or 0) >= last[0]):
                last = (run or 0, digest)
        sha = last[1] if last is not None else now.sha256
        out[team] = TeamProgram(now.bot, sha, {h: tuple(k) for h, k in played.items()})
    return out


@dataclass(frozen=True)
class StandingsAudit:
    """What standings.json records so that a result can be checked later.

    The seed, when the standings were written and the tournament started, the
    judge's version, the configuration's hash, each team's program (and which
    program played which of its rounds), the teams whose program changed between
    runs, and how isolated the bots were in every run, with the rounds each run
    played (from the ledger).
    """

    seed: int
    date: str
    started_at: str | None
    judge_version: str
    config_hash: str
    programs: Mapping[str, TeamProgram]  # in the configuration's team order
    programs_changed_between_runs: tuple[str, ...]
    unsandboxed: bool
    protections_off: tuple[str, ...]
    runs: tuple[LedgerRun, ...]
    #: the rounds (``match/round``) each run played that count, in the order of ``runs``
    run_rounds: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def of_runs(
        cls,
        runs: Sequence[LedgerRun],
        programs: Mapping[str, TeamProgram],
        rounds: Mapping[str, RoundOrigin] | None = None,
        unnamed_before: int | None = None,
        **head: Any,
    ) -> StandingsAudit:
        """The audit of a tournament played in ``runs`` by ``programs`` (today's hashes);
        ``rounds``: every round that counts (``match/round``), with its teams and the run
        that played it, in play order; ``unnamed_before``: how many of the first runs did
        not say which rounds they played, those a round of no known run was played by
        (None: any of them)."""
        rounds = rounds or {}
        before = len(runs) if unnamed_before is None else unnamed_before
        changed = {
            team
            for r in runs
            for team, digest in r.programs.items()
            if digest != (programs[team].sha256 if team in programs else None)
        }
        return cls(
            **head,
            programs=_played(programs, rounds, runs, before),
            programs_changed_between_runs=tuple(sorted(changed)),
            unsandboxed=any(r.unsandboxed for r in runs),
            protections_off=tuple(sorted({p for r in runs for p in r.protections_off})),
            runs=tuple(runs),
            run_rounds=tuple(
                tuple(k for k, (_, run) in rounds.items() if run == i)
                for i in range(1, len(runs) + 1)
            ),
        )

    def to_json(self) -> Json:
        rounds = self.run_rounds or tuple(() for _ in self.runs)
        return {
            "seed": self.seed,
            "date": self.date,
            "started_at": self.started_at,
            "judge_version": self.judge_version,
            "config_hash": self.config_hash,
            "programs": {t: p.to_json() for t, p in self.programs.items()},
            "programs_changed_between_runs": list(self.programs_changed_between_runs),
            "unsandboxed": self.unsandboxed,
            "protections_off": list(self.protections_off),
            "runs": [
                {**r.to_json(), "rounds": list(keys)}
                for r, keys in zip(self.runs, rounds, strict=True)
            ],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StandingsAudit:
        try:
            programs = {str(t): TeamProgram.from_json(p) for t, p in d["programs"].items()}
            runs = [r for r in d.get("runs") or [] if isinstance(r, dict)]
            return cls(
                seed=int(d["seed"]),
                date=str(d["date"]),
                started_at=None if d.get("started_at") is None else str(d["started_at"]),
                judge_version=str(d["judge_version"]),
                config_hash=str(d["config_hash"]),
                programs=programs,
                programs_changed_between_runs=_texts(d.get("programs_changed_between_runs")),
                unsandboxed=bool(d.get("unsandboxed")),
                protections_off=_texts(d.get("protections_off")),
                runs=tuple(LedgerRun.from_json(r) for r in runs),
                run_rounds=tuple(_texts(r.get("rounds")) for r in runs),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"standings.json: a bad audit record ({exc!r})") from None


@dataclass(frozen=True)
class Standings:
    """standings.json: the audit record (None in files of 0.1.0) and the rows, best first."""

    rows: tuple[StandingRow, ...]
    audit: StandingsAudit | None = None

    def to_json(self) -> Json:
        head = self.audit.to_json() if self.audit is not None else {}
        return {**head, "standings": [r.to_json() for r in self.rows]}

    @classmethod
    def from_json(cls, data: Any) -> Standings:
        if isinstance(data, list):  # judge 0.1.0: the rows alone
            return cls(read_rows(StandingRow.from_json, data, "standings.json"))
        if not isinstance(data, dict) or not isinstance(data.get("standings"), list):
            raise RecordError("standings.json must be an object with a 'standings' list")
        audit = StandingsAudit.from_json(data) if "config_hash" in data else None
        rows = read_rows(StandingRow.from_json, data["standings"], "standings.json.standings")
        return cls(rows, audit)
