"""Messages that point at the real cause when a bot cannot be used."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from judge.bots import BotError, resolve_bot
from judge.cli import main

CRLF_WORDS = "its first line ends with a Windows line ending (CRLF): save it with LF line endings"


def err_text(capsys: Any) -> str:
    return " ".join(capsys.readouterr().err.split())


def script(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode())
    os.chmod(path, 0o755)
    return path


def test_a_bot_yaml_syntax_error_is_shown_intact(tmp_path: Path, capsys: Any) -> None:
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.yaml").write_text("command: [python3, bot.py\n")
    assert main(["match", str(bot), "random", "--map", "m1"]) == 2
    msg = capsys.readouterr().err
    assert "command: [python3, bot.py" in msg  # rich must not eat "[python3, bot.py" as markup
    assert "expected ',' or ']', but got '<stream end>'" in msg
    # The error names the student's file (not PyYAML's "<unicode string>").
    assert str(bot / "bot.yaml") in msg and "<unicode string>" not in msg


def test_a_missing_command_file_is_never_guessed_to_be_bot_yaml(tmp_path: Path) -> None:
    """``mybot.py`` is close to ``bot.yaml`` by spelling, but bot.yaml is never the program."""
    folder = tmp_path / "only_yaml"
    folder.mkdir()
    (folder / "bot.yaml").write_text("command: [python3, mybot.py]\n")
    with pytest.raises(BotError) as info:
        resolve_bot(str(folder))
    msg = str(info.value)
    assert "names 'mybot.py'" in msg and "did you mean" not in msg
    assert "the folder holds: bot.yaml" in msg


def test_rich_markup_in_a_path_is_shown_as_typed(tmp_path: Path, capsys: Any) -> None:
    assert main(["match", str(tmp_path / "[bold]nope[/]"), "random", "--map", "m1"]) == 2
    assert "[bold]nope[/]" in capsys.readouterr().err


def test_a_script_saved_with_windows_line_endings(tmp_path: Path, capsys: Any) -> None:
    bot = script(tmp_path / "crlf_bot.py", "#!/usr/bin/env python3\nprint('1 1')\n", "\r\n")
    assert main(["match", str(bot), "random", "--map", "m1"]) == 2
    msg = err_text(capsys)
    assert CRLF_WORDS in msg and "interpreter" not in msg and "uid" not in msg
    # The same script run by a bot.yaml command (it is exec'd directly).
    folder = tmp_path / "folder_bot"
    script(folder / "run.py", "#!/usr/bin/env python3\nprint('1 1')\n", "\r\n")
    (folder / "bot.yaml").write_text("command: [./run.py]\n")
    with pytest.raises(BotError, match=r"CRLF\): save it with LF"):
        resolve_bot(str(folder))
    # Through python3 the '#!' line does not matter: accepted.
    (folder / "bot.yaml").write_text("command: [python3, run.py]\n")
    assert resolve_bot(str(folder)).command == ("python3", "run.py")


def test_a_single_file_bot_copies_that_file_only(tmp_path: Path) -> None:
    project = tmp_path / "project"
    bot = script(project / "my_bot.py", "#!/usr/bin/env python3\nprint('hi')\n")
    matches = project / "matches"
    matches.mkdir()
    for i in range(2500):  # a project folder that has played many matches
        (matches / f"f{i}").write_bytes(b"")
    spec = resolve_bot(str(bot))
    assert spec.program_dir is not None
    assert sorted(p.name for p in spec.program_dir.iterdir()) == ["my_bot.py"]
    assert spec.home == project  # messages name the file where its author keeps it
    assert spec.argv_for(Path("/seat/prog")) == ["/seat/prog/my_bot.py"]


def test_a_lone_exe_is_copied_with_its_dlls_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An .exe in a project folder that has played many matches: not refused, not copied whole."""
    monkeypatch.setattr("judge.bots._check_windows", lambda exe, spec: None)  # no wine needed
    project = tmp_path / "Đội Hải Âu"
    project.mkdir()
    (project / "bot.exe").write_bytes(b"MZ not really")
    (project / "helper.DLL").write_bytes(b"MZ a library")
    (project / "notes.txt").write_text("mine\n")
    matches = project / "matches"
    matches.mkdir()
    for i in range(2500):
        (matches / f"f{i}").write_bytes(b"")
    spec = resolve_bot(str(project / "bot.exe"))
    assert spec.program_dir is not None and spec.program_dir != project
    assert sorted(p.name for p in spec.program_dir.iterdir()) == ["bot.exe", "helper.DLL"]
    assert spec.home == project and spec.name == "Đội Hải Âu"  # bot.exe: named after its folder
    assert spec.argv_for(Path("/seat/prog")) == ["/seat/prog/bot.exe"]
    alone = resolve_bot(str(project / "bot.exe"))
    assert alone.digest == spec.digest  # the same files, the same fingerprint
    (project / "helper.DLL").unlink()
    without = resolve_bot(str(project / "bot.exe"))
    assert without.program_dir is not None
    assert sorted(p.name for p in without.program_dir.iterdir()) == ["bot.exe"]
    assert without.digest != spec.digest  # the DLLs are part of the program


def test_an_exe_whose_folder_cannot_be_listed_is_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its DLLs are looked for beside it; a folder one may enter but not list (mode 711 of
    another user: root is never refused, so the refusal is simulated) says so."""
    monkeypatch.setattr("judge.bots._check_windows", lambda exe, spec: None)  # no wine needed
    folder = tmp_path / "theirs"
    folder.mkdir()
    (folder / "bot.exe").write_bytes(b"MZ not really")
    listed = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return listed(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    with pytest.raises(BotError, match=r"cannot look for the DLLs beside .*bot\.exe: .*denied"):
        resolve_bot(str(folder / "bot.exe"))


def test_a_command_naming_a_missing_file(tmp_path: Path) -> None:
    folder = tmp_path / "typo"
    folder.mkdir()
    (folder / "bot.py").write_text("print(1)\n")
    (folder / "bot.yaml").write_text("command: [python3, bott.py]\n")
    with pytest.raises(BotError) as info:
        resolve_bot(str(folder))
    msg = str(info.value)
    assert "names 'bott.py', which is not in the bot's folder" in msg
    assert "did you mean 'bot.py'" in msg
    (folder / "bot.yaml").write_text("command: [no-such-interpreter-xyz, bot.py]\n")
    with pytest.raises(
        BotError, match="which is neither a file of the bot's folder .* nor a program installed"
    ):
        resolve_bot(str(folder))


def test_the_chmod_hint_for_a_script_is_a_command_that_works(tmp_path: Path) -> None:
    """A folder name with spaces (a Vietnamese team name) is quoted in the hint."""
    bot = tmp_path / "Rồng Biển" / "bot.py"
    bot.parent.mkdir()
    bot.write_text("#!/usr/bin/env python3\nprint('1 1')\n", encoding="utf-8")
    with pytest.raises(BotError, match="is not executable") as caught:
        resolve_bot(str(bot))
    hint = str(caught.value).split("with the command ", 1)[1].split(" (and give", 1)[0]
    assert hint.startswith("chmod +x ") and "'" in hint
    subprocess.run(["sh", "-c", hint], check=True)
    assert os.access(bot, os.X_OK)
    assert resolve_bot(str(bot)).name == "bot.py"
