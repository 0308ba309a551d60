"""A bot is a folder (``arena.isolation.sandbox.botfiles``): in the sandbox a bot sees its own folder, read-only,
and never the arena's files, even when they lie in that folder; the program an engine bot's command
starts is resolved as the sandbox will run it (a version manager's shim included).

The tests that start bots skip, saying why, where bubblewrap cannot make a sandbox (CI installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from repo import BOTS
from typer.testing import CliRunner

from arena.cli import app
from arena.isolation.processes.bot_process import BotProcess
from arena.isolation.protocol.bot_command import engine_bot_sandbox
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.isolation.sandbox.botfiles import (
    Hidden,
    Program,
    ProgramError,
    broad_folder,
    engine_bot_folder,
    hidden,
    is_arena_store,
    resolve_program,
    view,
)
from arena.limits import EngineBot
from arena.paths import PROTECTED_ENV, user_data_dir
from arena.results.store import Store

needs_sandbox = pytest.mark.sandbox  # skips, saying why, where the machine cannot make one (tests/conftest.py)

PEEK = BOTS / "sandbox" / "peek.py"
runner = CliRunner()


def make_store(path: Path) -> None:
    """A results store at ``path``, left with its journal files, as a running tournament has it."""
    Store(path).close()


def bound(options: list[str]) -> set[str]:
    """The destinations that ``options`` show (bound or linked)."""
    shown = set()
    for i, option in enumerate(options):
        if option in ("--ro-bind", "--symlink"):
            shown.add(options[i + 2])
    return shown


# -- what the sandbox shows, without starting one ------------------------------------------------------------------


def test_a_folder_that_holds_the_store_is_shown_without_it_its_journals_or_its_recovery_copies(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    for name in ("bot.py", "helpers.py", "data/book.txt", "arena.db", "arena.db-wal", "arena.db-shm"):
        (folder / name).write_text("x")
    (folder / "arena.db.recovered-20260101T000000.db").write_text("x")
    (folder / "link").symlink_to("helpers.py")
    secret = Hidden(stores=frozenset({str(folder / "arena.db")}))
    options = view([str(folder)], secret)
    assert bound(options) == {str(folder / n) for n in ("bot.py", "helpers.py", "data", "link")}
    assert options[:2] == ["--tmpfs", str(folder)] and options[-2:] == ["--remount-ro", str(folder)]
    assert ["--symlink", "helpers.py", str(folder / "link")] == options[options.index("--symlink") :][:3]
    # Nothing to hide: the folder is shown whole, as one bind.
    assert view([str(folder / "data")], secret) == ["--ro-bind", str(folder / "data"), str(folder / "data")]


def test_a_store_is_found_by_its_content_whatever_its_name_and_in_a_subfolder_when_named(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "results").mkdir(parents=True)
    make_store(folder / "scores.sqlite")  # a store the arena did not name: found by its application id
    assert is_arena_store(folder / "scores.sqlite")
    with sqlite3.connect(folder / "book.db") as db:  # a bot's own SQLite file is its own
        db.execute("CREATE TABLE t (x)")
    assert not is_arena_store(folder / "book.db")
    (folder / "scores.sqlite-wal").write_text("x")
    (folder / "results" / "notes.txt").write_text("x")
    secret = Hidden(stores=frozenset({str(folder / "results" / "arena.db")}))  # named, not there yet
    shown = bound(view([str(folder)], secret))
    assert shown == {str(folder / "book.db"), str(folder / "results" / "notes.txt")}


def test_the_arenas_data_and_cache_folders_are_hidden_and_the_store_in_use_is_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(PROTECTED_ENV, "")
    store = tmp_path / "work" / "mine.db"
    make_store(store)  # opened for writing: remembered for every bot started from now on
    secret = hidden()
    assert secret.covers(str(store.resolve())) and secret.covers(str(store.resolve()) + "-wal")
    assert secret.covers(str(store.resolve()) + ".recovered-20260101T000000-2.db")
    assert not secret.covers(str(store.resolve()) + ".txt")
    assert secret.covers(str(user_data_dir() / "arena.db"))
    assert secret.covers(str(tmp_path / "cache" / "minesweeper-arena" / "compiled" / "x.json"))
    assert broad_folder(tmp_path / "data") is not None  # it holds the arena's data folder


@pytest.mark.parametrize("folder", ["/", "/tmp", "/usr/bin", "~", "~/.."])
def test_folders_that_hold_more_than_a_bot_are_never_a_bots_folder(folder: str) -> None:
    assert broad_folder(os.path.expanduser(folder)) is not None


def test_an_engine_bots_folder_is_its_programs_or_its_first_files_or_the_one_named(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    (kit / "build").mkdir(parents=True)
    (kit / "run.sh").write_text("#!/bin/sh\n")
    (kit / "bot.py").write_text("")
    cwd = str(tmp_path)
    assert engine_bot_folder(["kit/run.sh"], cwd) == kit
    assert engine_bot_folder(["python3", "-u", "kit/bot.py"], cwd) == kit
    assert engine_bot_folder(["java", "-cp", "kit/build", "Main"], cwd) is None  # a folder argument shows itself
    assert engine_bot_folder(["sh", "-c", "exec ./x"], cwd, named="kit") == kit
    assert engine_bot_folder(["./missing.sh"], cwd) is None
    # An interpreter named by its path (a virtualenv's, a version manager's, the system's) is not the bot:
    # the file it runs is, wherever the interpreter is installed (inside the home folder or not).
    venv = tmp_path / "home" / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text("")
    assert engine_bot_folder([str(venv / "python"), "kit/bot.py"], cwd) == kit
    assert engine_bot_folder([sys.executable, str(kit / "bot.py")], "/") == kit
    assert engine_bot_folder([str(venv / "python")], cwd) == venv  # nothing else named: the program's own
    (kit / "bin").mkdir()
    (kit / "bin" / "bot").write_text("")
    assert engine_bot_folder(["kit/bin/bot"], cwd) == kit / "bin"


# -- in the sandbox ------------------------------------------------------------------------------------------------


def peek(bot: EngineBot, cwd: Path, reads: list[Path], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Start ``bot`` (running ``peek.py`` in ``cwd / "bot"``) in its sandbox and return what it saw."""
    (cwd / "bot" / "probe.json").write_text(json.dumps([str(p) for p in reads]))
    box, bot_env = engine_bot_sandbox(bot, 64, cwd=str(cwd))
    process = BotProcess(bot.command, env={**bot_env, **(env or {})}, sandbox=box)
    process.start()
    try:
        process.send('{"type": "hello", "protocol": 1}', time.monotonic() + 30)
        line = process.receive(time.monotonic() + 60)
    except Exception as error:  # the message says why, with the bot's last words
        raise AssertionError(f"{error}: {process.stderr_tail()}") from None
    finally:
        process.close()
    return dict(json.loads(json.loads(line)["error"]))


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    shutil.copy(PEEK, folder / "peek.py")
    (folder / "peek_helper.py").write_text("")
    (folder / "data" / "book.txt").write_text("opening book")
    return folder


@needs_sandbox
def test_an_engine_bot_sees_its_folder_read_only_but_not_the_store_beside_it(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    store = folder / "arena.db"
    with Store(store):  # open, with its journal, while the bot runs
        (folder / "arena.db.recovered-20260101T000000.db").write_bytes(store.read_bytes())
        family = [store, Path(f"{store}-wal"), Path(f"{store}-shm"), folder / "arena.db.recovered-20260101T000000.db"]
        assert all(p.exists() for p in family)
        bot = EngineBot(name="peek", command=("python3", str(folder / "peek.py")))
        seen = peek(bot, tmp_path, [*family, folder / "data" / "book.txt"])
    assert seen["listing"] == ["data", "data/book.txt", "peek.py", "peek_helper.py", "probe.json"]
    assert seen["read"] == {**{str(p): "FileNotFoundError" for p in family}, str(folder / "data" / "book.txt"): 12}
    assert seen["helper"] is True and seen["wrote"] is False
    assert not (folder / "written-by-the-bot").exists()


@needs_sandbox
def test_bot_dir_names_the_folder_of_a_bot_whose_command_names_no_file(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    command = ("sh", "-c", f"exec python3 {folder}/peek.py")  # one argument: not a path
    unnamed = EngineBot(name="peek", command=command)
    with pytest.raises(AssertionError, match=r"No such file or directory"):
        peek(unnamed, tmp_path, [])
    seen = peek(unnamed.model_copy(update={"folder": str(folder)}), tmp_path, [folder / "data" / "book.txt"])
    assert seen["read"] == {str(folder / "data" / "book.txt"): 12} and seen["helper"] is True


def fake_pyenv(tmp_path: Path) -> Path:
    """A version manager laid out like pyenv: a shim that runs the manager, the manager (which says
    which program a shim runs, unless $FAKE_PYENV_FAILS), and one installed "version"."""
    root = tmp_path / "fake-pyenv"
    for folder in ("shims", "libexec", "versions/9.9/bin"):
        (root / folder).mkdir(parents=True)
    (root / "versions" / "9.9" / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    manager = root / "libexec" / "pyenv"
    manager.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = which ]; then\n'
        '  if [ -n "$FAKE_PYENV_FAILS" ]; then echo "pyenv: $2: command not found" >&2; exit 127; fi\n'
        '  echo "$PYENV_ROOT/versions/9.9/bin/$2"; exit 0\n'
        "fi\n"
        'shift; program="$1"; shift; exec "$PYENV_ROOT/versions/9.9/bin/$program" "$@"\n'
    )
    shim = root / "shims" / "python3"
    shim.write_text(
        "#!/usr/bin/env bash\nset -e\n"
        'program="${0##*/}"\n'
        f'export PYENV_ROOT="{root}"\n'
        f'exec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    for script in (manager, shim):
        script.chmod(0o755)
    return root


def test_a_shim_is_resolved_to_its_real_program_and_one_that_cannot_be_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_pyenv(tmp_path)
    path = f"{root / 'shims'}{os.pathsep}{os.environ['PATH']}"
    program = resolve_program(["python3", "bot.py"], str(tmp_path), path)
    assert program.path_first == [str(root / "versions" / "9.9" / "bin")]
    assert str(root / "versions" / "9.9") in program.readable
    monkeypatch.setenv("FAKE_PYENV_FAILS", "1")
    with pytest.raises(ProgramError) as info:
        resolve_program(["python3", "bot.py"], str(tmp_path), path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"python3 is a version manager's shim ({root / 'shims' / 'python3'})")
    assert "`pyenv which python3` did not say which program it runs (pyenv: python3: command not found)" in message
    assert message.endswith("name the program by its full path instead (the path `pyenv which python3` prints)")


@pytest.mark.slow
@needs_sandbox
def test_an_engine_bot_started_through_a_shim_runs_in_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_error_line: Any
) -> None:
    root = fake_pyenv(tmp_path)
    monkeypatch.setenv("PATH", f"{root / 'shims'}{os.pathsep}{os.environ['PATH']}")
    folder = bot_folder(tmp_path)
    seen = peek(EngineBot(name="peek", command=("python3", str(folder / "peek.py"))), tmp_path, [])
    assert seen["helper"] is True
    assert seen["python"] == str(root / "versions" / "9.9" / "bin" / "python3")
    # Without the resolution the shim runs its manager, which the sandbox does not show.
    monkeypatch.setattr(sandbox, "resolve_program", lambda command, cwd: Program())
    with pytest.raises(AssertionError, match=r"before its hello|closed its output|fake-pyenv"):
        peek(EngineBot(name="peek", command=("python3", str(folder / "peek.py"))), tmp_path, [])
    monkeypatch.undo()
    monkeypatch.setenv("PATH", f"{root / 'shims'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_PYENV_FAILS", "1")
    monkeypatch.chdir(tmp_path)
    args = ["play", "--engine-bot", f"peek=python3 {folder / 'peek.py'}", "--sandbox", "require"]
    line = one_error_line(runner.invoke(app, args))
    assert line.startswith("error: engine bot 'peek': python3 is a version manager's shim")


PLUGIN = """
import os
from pathlib import Path

from players import Action, Player, hookimpl
from split_helpers import first_cell

HERE = Path(__file__).resolve().parent


class Peeker(Player):
    name = "peeker"

    def play(self, observation):
        names = sorted(os.listdir(HERE))
        if any(n.startswith("arena.db") for n in names):
            raise RuntimeError(f"saw the store: {names}")
        for name in ("arena.db", "arena.db-wal", "arena.db-shm"):
            try:
                data = (HERE / name).read_bytes()
            except OSError:
                continue
            raise RuntimeError(f"read {len(data)} bytes of {name}")
        if "split_helpers.py" not in names:
            raise RuntimeError(f"does not see its own folder: {names}")
        covered = (observation.grid == observation.COVERED).nonzero()
        row, col = (first_cell(observation) if observation.first_move else (int(covered[0][0]), int(covered[1][0])))
        return Action.reveal(row, col, guess=not observation.first_move)


@hookimpl
def register_players(register):
    register(Peeker)
"""


@pytest.mark.slow
@needs_sandbox
def test_a_plugin_of_two_files_beside_the_store_plays_and_cannot_read_the_store(tmp_path: Path) -> None:
    """The common case: one working folder holding the bot and the results store; a tournament of
    two worker processes (which learn of the store from the arena that opened it)."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "my_bot.py").write_text(PLUGIN)
    (folder / "split_helpers.py").write_text("def first_cell(observation):\n    return (0, 0)\n")
    store = folder / "arena.db"
    args = ["tournament", "-n", "4", "-p", "peeker", "--plugin", str(folder / "my_bot.py"), "--sandbox", "require"]
    result = runner.invoke(app, [*args, "--workers", "2", "-q", "--json", "--store", str(store)])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT outcome, error FROM games WHERE player = 'peeker'").fetchall()
    assert len(rows) == 4
    assert {outcome for outcome, _ in rows} <= {"won", "lost"}, rows


@pytest.mark.slow
@needs_sandbox
def test_a_plugin_folder_plays_in_the_sandbox_with_its_relative_imports(tmp_path: Path) -> None:
    package = tmp_path / "corner_bot"
    package.mkdir()
    (package / "__init__.py").write_text("from .strategy import register_players\n")
    (package / "strategy.py").write_text(
        "from players import Action, Player, hookimpl\n"
        "from .cells import FIRST\n\n\n"
        "class Corner(Player):\n"
        "    name = 'corner-package'\n\n"
        "    def play(self, observation):\n"
        "        covered = (observation.grid == observation.COVERED).nonzero()\n"
        "        if observation.first_move:\n"
        "            return Action.reveal(*FIRST)\n"
        "        return Action.reveal(int(covered[0][0]), int(covered[1][0]), guess=True)\n\n\n"
        "@hookimpl\n"
        "def register_players(register):\n"
        "    register(Corner)\n"
    )
    (package / "cells.py").write_text("FIRST = (0, 0)\n")
    args = ["play", "--plugin", str(package), "-p", "corner-package", "--sandbox", "require", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] in ("won", "lost")
