"""A version's zip unpacked for its check (no sandbox here): a zip whose directory passed the
upload's checks but whose data is damaged is rejected in words, never taken for the judge's
own failure."""

from __future__ import annotations

import struct
import zlib

import pytest

from judge.arena.checks import Rejected, prepare
from tests.arena.conftest import Made, Served, bearer, zip_of

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
