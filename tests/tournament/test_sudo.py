"""Run with sudo, the judge gives its output to the user who ran sudo (judge.owner).

As root, with ``SUDO_UID``/``SUDO_GID`` set to nobody's ids as sudo would set
them; the tournament is played on the in-process fake sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.cli import main
from judge.owner import Handover, Owner, sudo_user
from tests.referee.fakes import FakeSandbox

from ._helpers import fake_bots, make_config

NOBODY = 65534


def _owners(top: Path) -> set[tuple[int, int]]:
    seen = {(top.lstat().st_uid, top.lstat().st_gid)}
    for root, dirs, files in os.walk(top):
        for n in (*dirs, *files):
            st = os.lstat(Path(root) / n)
            seen.add((st.st_uid, st.st_gid))
    return seen


def _fake_sandbox(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> None:
    monkeypatch.setattr("judge.sandbox.Sandbox", lambda **_: FakeSandbox(fake_bots(names)))


@pytest.mark.root("only root can give files to another user")
def test_a_tournament_run_with_sudo_belongs_to_the_user_who_ran_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    _fake_sandbox(monkeypatch, cfg.team_names)
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    monkeypatch.setenv("SUDO_GID", str(NOBODY))
    monkeypatch.setenv("SUDO_USER", "teacher")
    out = tmp_path / "results" / "final"  # results/ is made for it, and given back too
    assert main(["tournament", str(cfg.path), "--out", str(out), "--quiet"]) == 0
    assert (out / "ledger.sqlite").is_file() and (out / "index.html").is_file()
    assert _owners(tmp_path / "results") == {(NOBODY, NOBODY)}
    assert _owners(tmp_path / "cfg") == {(0, 0)}  # nothing that was there before
    assert tmp_path.stat().st_uid == 0
    shown = capsys.readouterr().out
    assert f"the files in {out} belong to teacher (uid {NOBODY}), who ran sudo" in shown
    # a resume under sudo (new rounds, a rewritten ledger) gives them back again
    (out / "standings.json").unlink()
    assert main(["tournament", str(cfg.path), "--out", str(out), "--resume", "--quiet"]) == 0
    assert _owners(tmp_path / "results") == {(NOBODY, NOBODY)}


@pytest.mark.root("only root can give files to another user")
def test_as_root_without_sudo_the_files_stay_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = make_config(tmp_path / "cfg", 3)
    _fake_sandbox(monkeypatch, cfg.team_names)
    out = tmp_path / "t"
    assert main(["tournament", str(cfg.path), "--out", str(out), "--quiet"]) == 0
    assert _owners(out) == {(0, 0)}
    assert "who ran sudo" not in capsys.readouterr().out


def test_who_ran_sudo(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"SUDO_UID": "1000", "SUDO_GID": "1001", "SUDO_USER": "lan"}
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert sudo_user(env) == Owner(1000, 1001, "lan")
    assert sudo_user({}) is None  # a root shell, a CI job: nobody to give to
    assert sudo_user({"SUDO_UID": "0", "SUDO_GID": "0"}) is None  # sudo -u root
    assert sudo_user({"SUDO_UID": "x", "SUDO_GID": "1"}) is None
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert sudo_user(env) is None  # not root: the files are the user's already


def test_a_file_that_cannot_be_given_back_is_said_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "t"
    handover = Handover(out, Owner(NOBODY, NOBODY, "teacher"))
    out.mkdir()
    (out / "a").write_text("x")

    def refuse(path: object, uid: int, gid: int, **_: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refuse)
    said = handover.give_back() or ""
    assert "could not all be given to teacher" in said and "and 1 more" in said
    assert f"sudo chown -R {NOBODY}:{NOBODY} {out}" in said


@pytest.mark.root("only root can give files to another user")
def test_a_match_run_with_sudo_belongs_to_the_user_who_ran_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox = FakeSandbox(fake_bots(["greedy", "random"]))
    monkeypatch.setattr("judge.commands.match.open_sandbox", lambda **_: sandbox)
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    monkeypatch.setenv("SUDO_GID", str(NOBODY))
    out = tmp_path / "matches" / "m"
    args = ["match", "greedy", "random", "--map", "m1", "--seed", "1", "--out", str(out)]
    assert main(args) == 0
    assert (out / "result.json").is_file()
    assert _owners(tmp_path / "matches") == {(NOBODY, NOBODY)}
    assert f"belong to {NOBODY} (uid {NOBODY}), who ran sudo" in capsys.readouterr().out


ALICE = 4242  # another user of the machine


@pytest.mark.root("only root can give files to another user")
def test_a_folder_that_was_someone_elses_is_left_to_them_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` an (empty) folder of another user: neither it nor anything in it is given
    to the user who ran sudo; the judge says so, with the chown that would."""
    cfg = make_config(tmp_path / "cfg", 3)
    _fake_sandbox(monkeypatch, cfg.team_names)
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    monkeypatch.setenv("SUDO_GID", str(NOBODY))
    out = tmp_path / "shared"
    out.mkdir()
    os.chown(out, ALICE, ALICE)
    assert main(["tournament", str(cfg.path), "--out", str(out), "--quiet"]) == 0
    assert (out.stat().st_uid, out.stat().st_gid) == (ALICE, ALICE)
    assert (NOBODY, NOBODY) not in _owners(out)
    shown = capsys.readouterr().out
    assert f"{out} was there before" in shown and f"uid {ALICE}" in shown
    assert f"sudo chown -R {NOBODY}:{NOBODY} {out}" in shown


@pytest.mark.root("only root can give files to another user")
def test_what_was_not_roots_or_reaches_outside_the_folder_keeps_its_owner(
    tmp_path: Path,
) -> None:
    """In the sudo user's own folder (a resume), only root's files are given; a link is given
    itself, never what it points to, and a file linked from outside (a hard link) is left."""
    outside = tmp_path / "outside.txt"
    outside.write_text("root's")
    out = tmp_path / "t"
    out.mkdir()
    os.chown(out, NOBODY, NOBODY)
    (out / "alice.txt").write_text("hers")
    os.chown(out / "alice.txt", ALICE, ALICE)
    (out / "link").symlink_to(outside)
    os.link(outside, out / "hard")
    handover = Handover(out, Owner(NOBODY, NOBODY, "teacher"))
    (out / "round-1").mkdir()
    (out / "round-1" / "replay.jsonl").write_text("{}")
    assert "belong to teacher" in (handover.give_back() or "")
    assert (outside.stat().st_uid, (out / "hard").stat().st_uid) == (0, 0)
    assert (out / "alice.txt").stat().st_uid == ALICE
    assert (out / "link").lstat().st_uid == NOBODY
    assert {(out / p).stat().st_uid for p in ("round-1", "round-1/replay.jsonl")} == {NOBODY}
