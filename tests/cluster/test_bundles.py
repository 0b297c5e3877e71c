"""Bots as content-addressed bundles, built where they are played; the error without Dask."""

from __future__ import annotations

import io
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from judge.bots import BotError, resolve_bot
from judge.cli import main
from judge.cluster import ClusterError
from judge.cluster.bundles import BotRef, make_bundle, pack_folder, prepare, unpack, unpack_folder
from judge.cluster.session import distributed_module, parse_cluster

ROOT = Path(__file__).resolve().parents[2]


def _copy_bot(src: str, dst: Path) -> Path:
    shutil.copytree(ROOT / "bots" / src, dst, ignore=shutil.ignore_patterns("greedy"))
    return dst


def test_the_same_files_are_one_bundle_and_the_build_output_is_never_shipped(
    tmp_path: Path,
) -> None:
    a = _copy_bot("greedy_c", tmp_path / "a")
    b = _copy_bot("greedy_c", tmp_path / "b")
    bot_a = resolve_bot(str(a))  # built here: a/greedy exists
    bot_b = resolve_bot(str(b), build=False)
    assert (a / "greedy").is_file() and not (b / "greedy").exists()
    ref_a, bundle_a = make_bundle(bot_a)
    ref_b, bundle_b = make_bundle(bot_b)
    assert bundle_a is not None and bundle_b is not None
    assert ref_a.bundle == ref_b.bundle == bundle_a.digest == bundle_b.digest
    with tarfile.open(fileobj=io.BytesIO(bundle_a.data)) as tar:
        assert sorted(tar.getnames()) == ["bot.yaml", "greedy.c"]
    (b / "greedy.c").write_text((b / "greedy.c").read_text() + "\n/* changed */\n")
    _, changed = make_bundle(resolve_bot(str(b), build=False))
    assert changed is not None and changed.digest != bundle_a.digest


def test_a_bundle_is_built_where_it_is_unpacked_and_a_failed_build_names_the_bot(
    tmp_path: Path,
) -> None:
    bot = resolve_bot(str(_copy_bot("greedy_c", tmp_path / "src")), build=False)
    ref, bundle = make_bundle(bot)
    assert bundle is not None
    folder = unpack(bundle.data, bundle.digest, tmp_path / "worker")
    assert unpack(bundle.data, bundle.digest, tmp_path / "worker") == folder  # kept, not redone
    spec, built = prepare(ref, folder)
    assert built and spec.program_dir == folder and (folder / "greedy").is_file()
    assert spec.name == bot.name and spec.source == bot.source

    broken = _copy_bot("greedy_c", tmp_path / "broken")
    (broken / "greedy.c").write_text("this is not C\n")
    bad_ref, bad = make_bundle(resolve_bot(str(broken), build=False))
    assert bad is not None
    with pytest.raises(BotError, match=r"build failed.*broken|broken.*build failed"):
        prepare(bad_ref, unpack(bad.data, bad.digest, tmp_path / "worker"))


def test_a_system_program_has_no_bundle() -> None:
    bot = resolve_bot("/bin/true")
    ref, bundle = make_bundle(bot)
    assert bundle is None and ref == BotRef(bot, None)
    assert prepare(ref, None) == (bot, False)


@pytest.mark.parametrize(
    ("name", "kind"),
    [("../escape", tarfile.REGTYPE), ("/abs", tarfile.REGTYPE), ("dev", tarfile.CHRTYPE)],
)
def test_an_archive_cannot_write_outside_its_folder(tmp_path: Path, name: str, kind: bytes) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.type = kind
        tar.addfile(info, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    with pytest.raises(tarfile.TarError):
        unpack_folder(buf.getvalue(), tmp_path / "into")
    assert not (tmp_path / "escape").exists()


def test_a_round_folder_travels_whole(tmp_path: Path) -> None:
    src = tmp_path / "round"
    (src / "Rồng Biển").mkdir(parents=True)
    (src / "replay.jsonl").write_text('{"type":"header"}\n')
    (src / "Rồng Biển" / "stderr.log").write_text("lỗi\n", encoding="utf-8")
    data, count = pack_folder(src)
    unpack_folder(data, tmp_path / "back")
    assert count == 2
    assert (tmp_path / "back" / "Rồng Biển" / "stderr.log").read_text(encoding="utf-8") == "lỗi\n"


def test_cluster_addresses() -> None:
    assert parse_cluster("local:3") == (None, 3)
    assert parse_cluster("10.0.0.1:8786") == ("tcp://10.0.0.1:8786", 0)
    assert parse_cluster("tls://h:1") == ("tls://h:1", 0)
    for bad in ("local:0", "local", "local:x", "", "a b"):
        with pytest.raises(ClusterError):
            parse_cluster(bad)


def test_without_dask_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ClusterError, match=r"\[cluster\]"):
        distributed_module()
    code = main(["eval", "greedy", "random", "--rounds", "2", "--cluster", "local:1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Dask distributed" in err and "[cluster]" in err


def test_dask_is_imported_only_for_a_cluster() -> None:
    import subprocess

    code = (
        "import sys, judge.cli, judge.cluster, judge.cluster.bundles, judge.cluster.session\n"
        "judge.cli.build_parser()\n"
        "print('distributed' in sys.modules, 'dask' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
