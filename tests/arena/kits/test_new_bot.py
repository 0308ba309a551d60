"""``arena new-bot`` and ``arena.kits.new_bot``: what a kit holds, and bad input refused before anything is written."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli import app, main
from arena.kits import LANGUAGES, KitError, engine_bot_option, new_bot, template_files
from arena.kits.new_bot import STRATEGY_FILES, TEST_COMMANDS, crate_name

#: What every kit holds, whatever its language.
COMMON = ("README.md", "build.sh", "run.sh", ".gitignore")
#: What a compiled kit's run.sh starts, which build.sh makes.
UNBUILT = {"cpp": "build/bot", "rust": "target/release/bot", "java": "build/classes"}


def cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_kit_is_its_template_with_the_name_filled_in(tmp_path: Path, language: str) -> None:
    kit = new_bot("my.bot-1", language, tmp_path / "kit")
    files = tree(kit.folder)
    template = template_files(language)
    assert sorted(files) == sorted(template), "every template file is written, nothing else"
    for name in COMMON:
        assert name in files, name
    assert STRATEGY_FILES[language] in files
    text = {name: data.decode() for name, data in files.items()}
    assert not [name for name, body in text.items() if "__BOT_NAME__" in body or "__CRATE_NAME__" in body]
    named = [name for name, body in text.items() if '"my.bot-1"' in body or "'my.bot-1'" in body]
    assert named, "the bot's name is in its strategy file (or package manifest)"
    assert "my.bot-1=my.bot-1/run.sh" in text["README.md"]
    for script in ("build.sh", "run.sh"):
        mode = (kit.folder / script).stat().st_mode
        assert mode & stat.S_IXUSR, script
        assert text[script].startswith("#!/bin/sh\n"), script
    assert not (kit.folder / "README.md").stat().st_mode & stat.S_IXUSR
    assert set(map(str, kit.files)) == {str(kit.folder / name) for name in files}


def test_the_rust_kit_gets_a_crate_name_cargo_accepts(tmp_path: Path) -> None:
    kit = new_bot("2.fast", "rust", tmp_path / "r")
    assert 'name = "bot-2_fast"' in (kit.folder / "Cargo.toml").read_text()
    assert 'NAME: &str = "2.fast"' in (kit.folder / "src" / "strategy.rs").read_text()


@pytest.mark.slow
@given(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,63}", fullmatch=True))
def test_crate_names_are_valid_for_cargo(name: str) -> None:
    crate = crate_name(name)
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", crate), crate
    assert crate.replace("-", "_") not in {"test", "std", "core", "self", "fn"}


def test_the_default_folder_is_the_name_in_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("new-bot", "mybot", "--language", "python")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mybot" / "strategy.py").is_file()
    lines = [line.strip() for line in result.stdout.strip().splitlines()]
    assert lines[-1] == 'arena play --engine-bot "mybot=mybot/run.sh"', "the --engine-bot command comes last"
    assert 'arena tournament -d beginner -n 200 --engine-bot "mybot=mybot/run.sh" -p mybot,random' in lines[-3]
    assert "your strategy, the one file to edit: mybot/strategy.py" in result.stdout
    assert f"cd mybot && {TEST_COMMANDS['python']}" in result.stdout


@pytest.mark.slow
def test_the_working_folder_itself_is_filled_and_the_commands_run_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mkdir mybot && cd mybot && arena new-bot mybot --dir .``: the folder is filled, not replaced (a replaced
    working folder is a deleted one: the shell's ``ls`` showed nothing, and the arena itself then failed with
    "[Errno 2] No such file or directory"), and the printed commands run from it (``./run.sh``, not ``run.sh``,
    which a shell and the arena look up on the PATH)."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    inode = folder.stat().st_ino
    monkeypatch.chdir(folder)
    result = cli("new-bot", "mybot", "--language", "python", "--dir", ".")
    assert result.exit_code == 0, result.output
    assert folder.stat().st_ino == inode and (folder / "strategy.py").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["mybot"]  # no staging folder left beside it
    lines = [line.strip() for line in result.stdout.strip().splitlines()]
    assert lines[-1] == 'arena play --engine-bot "mybot=./run.sh"'
    assert lines[3].startswith("./build.sh ") and lines[4].startswith(f"{TEST_COMMANDS['python']} ")
    build = subprocess.run(["sh", "-c", lines[3].split("#")[0]], capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr


def test_a_failure_while_filling_an_empty_folder_leaves_it_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    calls = {"n": 0}
    original = os.replace

    def failing(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        original(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(KitError, match="No space left on device"):
        new_bot("b", "java", folder)
    assert calls["n"] == 3
    assert list(folder.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["b"]


def test_an_empty_folder_and_missing_parents_are_fine(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert (new_bot("a", "java", tmp_path / "empty").folder / "build.sh").is_file()
    assert (new_bot("b", "cpp", tmp_path / "x" / "y" / "b").folder / "Makefile").is_file()


def test_json_output_names_the_files_and_the_engine_bot(tmp_path: Path) -> None:
    import json

    result = cli("new-bot", "jb", "-l", "javascript", "--dir", tmp_path / "jb", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["language"] == "javascript" and data["name"] == "jb"
    assert data["strategy"] == str(tmp_path / "jb" / "src" / "strategy.js")
    assert data["engine_bot"] == f'"jb={tmp_path / "jb" / "run.sh"}"'
    assert len(data["files"]) == len(template_files("javascript")) and all(Path(f).is_file() for f in data["files"])


def test_engine_bot_option_quotes_paths_a_shell_and_the_arena_split() -> None:
    assert engine_bot_option("b", "b/run.sh") == '--engine-bot "b=b/run.sh"'
    assert engine_bot_option("b", "my bots/b/run.sh") == "--engine-bot 'b='\"'\"'my bots/b/run.sh'\"'\"''"


BAD = {
    "upper-case name": (("new-bot", "MyBot", "-l", "python"), "bot name 'MyBot' must be 1-64 lower-case letters"),
    "name with a space": (("new-bot", "my bot", "-l", "python"), "bot name 'my bot' must be"),
    "name starting with a dot": (("new-bot", ".bot", "-l", "python"), "bot name '.bot' must be"),
    "too long a name": (("new-bot", "a" * 65, "-l", "python"), "must be 1-64"),
    "a built-in player's name": (("new-bot", "random", "-l", "rust"), "bot name 'random' is a built-in player's"),
    "unknown language": (
        ("new-bot", "b", "-l", "cobol"),
        "unknown language 'cobol'; choose one of: python, javascript",
    ),
    "language in capitals": (("new-bot", "b", "-l", "Python"), "unknown language 'Python'"),
}


@pytest.mark.parametrize("args,message", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_error_line: Callable[[Any], str], args: tuple, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_error_line(cli(*args))
    assert message in line
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_is_not_empty_is_refused_and_left_alone(
    tmp_path: Path, one_error_line: Callable[[Any], str]
) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    line = one_error_line(cli("new-bot", "b", "-l", "cpp", "--dir", folder))
    assert line == f"error: {folder} exists and is not empty; choose another --dir, or empty it"
    assert tree(folder) == {"notes.txt": b"mine"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"], "no staging folder is left"
    file = tmp_path / "file"
    file.write_text("x")
    assert "exists and is not a folder" in one_error_line(cli("new-bot", "b", "-l", "cpp", "--dir", file))
    assert file.read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_folder_it_cannot_write_in_is_refused(tmp_path: Path, one_error_line: Callable[[Any], str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert "cannot write in" in one_error_line(cli("new-bot", "b", "-l", "java", "--dir", locked / "b"))
    finally:
        locked.chmod(0o700)


def test_a_failure_while_writing_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    original = Path.write_text

    def failing(self: Path, *args: Any, **kwargs: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", failing)
    with pytest.raises(KitError, match=r"^cannot write .*/new/parents/b: No space left on device; choose another"):
        new_bot("b", "rust", tmp_path / "new" / "parents" / "b")
    assert calls["n"] == 3
    assert list(tmp_path.iterdir()) == []  # the parents it made are gone too


def test_a_folder_it_cannot_make_is_one_line_naming_it_not_a_staging_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_error_line: Callable[[Any], str]
) -> None:
    """What ``--dir /proc/x`` met as root: the parent looks writable, the staging folder cannot be made."""

    def refused(*args: Any, **kwargs: Any) -> str:
        raise FileNotFoundError(2, "No such file or directory", str(tmp_path / "deep" / ".b.x1y2z3"))

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    line = one_error_line(cli("new-bot", "b", "-l", "python", "--dir", tmp_path / "deep" / "b"))
    assert line == f"error: cannot write {tmp_path / 'deep' / 'b'}: No such file or directory; choose another --dir"
    assert list(tmp_path.iterdir()) == []


def test_library_errors_are_kit_errors(tmp_path: Path) -> None:
    with pytest.raises(KitError, match="unknown language"):
        new_bot("b", "go", tmp_path / "b")
    assert not (tmp_path / "b").exists()


def test_a_missing_language_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["new-bot", "b"])
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == ""
    assert err.strip() == "error: missing option '--language' / '-l' (see `arena new-bot --help`)"


def test_new_bot_is_listed_in_the_help() -> None:
    result = cli("--help")
    assert "new-bot" in result.stdout


@pytest.mark.parametrize("language", ["cpp", "rust", "java"])
def test_an_unbuilt_kit_says_to_run_build_sh_first(tmp_path: Path, language: str) -> None:
    """A new author's first mistake: ``arena play`` (or ``check-bot``) before ``build.sh``. The arena shows the
    last line of a bot's stderr, so ``run.sh`` says what is missing and what builds it."""
    kit = new_bot("b", language, tmp_path / "my kit")
    result = subprocess.run([str(kit.run_script)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 127 and result.stdout == ""
    assert result.stderr == (
        f"run.sh: {kit.folder}/{UNBUILT[language]} is not built yet: run {kit.folder}/build.sh first\n"
    )
