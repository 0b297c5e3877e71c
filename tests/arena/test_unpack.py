"""A version's zip unpacked for its check (no sandbox here): a zip whose directory passed the
upload's checks but whose data is damaged is rejected in words, never taken for the judge's
own failure."""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

import pytest

from judge.arena.checks import Rejected, prepare
from tests.arena.conftest import Made, Served, bearer, make, zip_of

TEAM = "Rồng Biển"
BOT = {"bot/bot.yaml": "command: [python3, bot.py]\n", "bot/bot.py": "print(1)\n" * 50}


def _upload(served: Served, made: Made, data: bytes) -> int:
    r = served.client().post(
        "/api/submissions", headers=bearer(made.token(TEAM)), files={"bot": ("b.zip", data)}
    )
    assert r.status_code == 202, r.text
    return int(r.json()["id"])


def _damaged(files: dict[str, str]) -> bytes:
    """The zip of ``files`` with bot.py's CRC-32 wrong (its directory is as good as ever)."""
    data = bytearray(zip_of(files))
    crc = struct.pack("<I", zlib.crc32(files["bot/bot.py"].encode()))
    assert data.count(crc) == 2  # the local header's and the central directory's
    return bytes(data.replace(crc, b"\xde\xad\xbe\xef"))


def test_a_zip_with_damaged_data_is_rejected_saying_so(served: Served, made: Made) -> None:
    v = served.version(_upload(served, made, _damaged(BOT)))
    with pytest.raises(Rejected, match=r"cannot be unpacked \(Bad CRC-32.*damaged"):
        prepare(made.root, v, TEAM, served.arena.config, [])
    home = made.root / v.path
    assert sorted(p.name for p in home.parent.iterdir()) == ["bot.zip"]  # nothing half made


def test_a_zip_refused_by_caps_lowered_since_its_upload_is_rejected(
    served: Served, made: Made
) -> None:
    import dataclasses

    v = served.version(_upload(served, made, zip_of(BOT)))
    config = served.arena.config
    tighter = dataclasses.replace(
        config, uploads=dataclasses.replace(config.uploads, zip_entries=1)
    )
    with pytest.raises(Rejected, match="its .zip is refused: it has 2 entries; at most 1"):
        prepare(made.root, v, TEAM, tighter, [])


def test_an_exe_versions_games_run_the_folder_its_check_made_nothing_copied_out(
    served: Served, made: Made
) -> None:
    from judge.arena import games
    from judge.arena.gametask import version_bot
    from tests.arena.conftest import pe_bytes

    r = served.client().post(
        "/api/submissions",
        headers=bearer(made.token(TEAM)),
        files={"bot": ("bot.exe", pe_bytes())},
    )
    v = served.version(int(r.json()["id"]))
    checked = prepare(made.root, v, TEAM, served.arena.config, [])  # as its check does
    store = served.arena.store
    store.write(lambda conn: games.add_version_player(conn, v.id, v.team_id, 0.0))
    player = games.player(store, games.version_key(v.id))
    assert player is not None
    bot = version_bot(made.root, store, player)
    assert bot.program_dir == checked.program_dir  # the very program its check ran
    assert bot.program_dir is not None and bot.program_dir.is_relative_to(made.root)


@pytest.mark.slow  # a real (confined) build
@pytest.mark.root("a build is confined only as root (namespaces, the uid nobody)")
def test_a_build_sees_nothing_of_the_arena_folder() -> None:
    # an arena anyone may walk into (pytest's own folder is root's alone), holding the
    # organiser's map for the final and another team's game log, world-readable on
    # purpose: the build must not see the arena folder at all, whatever its files' modes
    import shutil
    import tempfile

    place = Path(tempfile.mkdtemp(prefix="arena-build-", dir="/tmp"))
    try:
        os.chmod(place, 0o755)
        made = make(place)
        served = Served(made)
        secret = made.root / "maps" / "organiser" / "final.txt"
        secret.parent.mkdir(parents=True)
        secret.write_text("the final's sea\n")
        log = made.root / "games" / "000001" / "round-1" / "log.txt"
        log.parent.mkdir(parents=True)
        log.write_text("another team's game\n")
        for p in (secret, log):
            os.chmod(p, 0o644)
        spy = f"cat {secret} {log}; ls -a {made.root}; exit 1"
        yaml = (
            f"command: [./built]\nbuild:\n  command: [sh, -c, {json.dumps(spy)}]\n  output: built\n"
        )
        v = served.version(_upload(served, made, zip_of({"b/bot.yaml": yaml, "b/bot.py": "1\n"})))
        with pytest.raises(Rejected) as why:
            prepare(made.root, v, TEAM, served.arena.config, [])
        served.close()
        said = str(why.value)
        assert "its build failed" in said, said
        assert "the final's sea" not in said and "another team's game" not in said, said
        assert "credentials.csv" not in said, said
    finally:
        shutil.rmtree(place, ignore_errors=True)
