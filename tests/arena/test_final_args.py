"""`judge arena final` hands judge tournament every option of its own (quick: the tournament
itself is not played here; test_final_e2e plays it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from judge.arena.store import STORE_FILE, Store
from judge.cli import main
from judge.commands import tournament
from tests.arena.arena_support import add_bot_version, make_test_arena


def test_the_final_gives_judge_tournament_all_its_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _creds = make_test_arena(tmp_path, ["Rồng Biển", "Beta"])
    with Store.open(root / STORE_FILE) as store:
        add_bot_version(root, store, "Rồng Biển", "random")
        add_bot_version(root, store, "Beta", "greedy")
    assert main(["arena", "freeze", str(root)]) == 0
    given: list[argparse.Namespace] = []

    def run(args: argparse.Namespace) -> int:
        given.append(args)
        return 0

    monkeypatch.setattr(tournament, "run", run)
    assert main(["arena", "final", str(root), "--quiet", "--jobs", "2", "--seed", "7"]) == 0
    parser = argparse.ArgumentParser()
    tournament.add_arguments(parser)
    own: dict[str, Any] = vars(parser.parse_args([]))
    (args,) = given
    assert set(own) <= set(vars(args)), set(own) - set(vars(args))
    assert args.config == root / "final.yaml" and args.out == root / "final"
    assert (args.jobs, args.quiet, args.resume, args.replace) == (2, True, False, [])
