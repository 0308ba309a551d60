"""The example bot in ``examples/arena-example-bot``, tested the way its users get it: installed.

The distribution is built and installed by pip (a real wheel with its ``entry_points.txt``) into a
private ``--target`` folder that only this test's subprocesses see on ``PYTHONPATH``. That is the
same discovery path as an install into site-packages (``importlib.metadata`` reads every
``*.dist-info`` on ``sys.path``), but it leaves the shared virtualenv alone: other test runs in
the same environment never see ``example-corner`` appear, and a crash here leaves nothing
installed. Removing the folder is the uninstall.

Set ``ARENA_SKIP_PIP_TESTS=1`` to skip the install where pip cannot build packages; the example
modules are still checked as ``--plugin`` files, in process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import BEGINNER, FirstClick
from players import Player
from players.registry import Registry

needs_pip = pytest.mark.skipif(
    os.environ.get("ARENA_SKIP_PIP_TESTS", "") not in ("", "0"),
    reason="ARENA_SKIP_PIP_TESTS is set: the example plugin is not installed and tested",
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "arena-example-bot"
PLAYER = "example-corner"
DISTRIBUTION = "arena-example-bot"


def _can_build_offline() -> bool:
    """setuptools builds wheels by itself from 70.1 on; before that it needs the ``wheel`` package."""
    setuptools = importlib.util.find_spec("setuptools") is not None
    bdist_wheel = importlib.util.find_spec("wheel") is not None or (
        setuptools and importlib.util.find_spec("setuptools.command.bdist_wheel") is not None
    )
    return setuptools and bdist_wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Build and install the example; yields the folder to put on ``PYTHONPATH``."""
    root = tmp_path_factory.mktemp("example-plugin")
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources it builds.
    source = shutil.copytree(EXAMPLE, root / "src", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = root / "site"
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "--disable-pip-version-check"]
    # Offline when the environment can build (CI installs setuptools and wheel); otherwise pip
    # fetches the build backend into an isolated build environment.
    if _can_build_offline():
        command += ["--no-build-isolation", "--no-index"]
    command += ["--target", str(target), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"
    try:
        yield target
    finally:
        shutil.rmtree(root, ignore_errors=True)


def arena(*args: str, site: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the ``arena`` command in a fresh interpreter, the installed example visible or not."""
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    script = Path(sys.executable).with_name("arena")
    # The console script a user types; the same entry function when it is not beside the interpreter.
    argv = [str(script)] if script.exists() else [sys.executable, "-c", "from arena.cli import main; main()"]
    return subprocess.run([*argv, *args], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.slow
@needs_pip
def test_installed_example_is_listed_with_its_package(installed: Path) -> None:
    done = arena("players", "--json", site=installed)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    mine = [r for r in rows if r["name"] == PLAYER]
    assert len(mine) == 1, rows
    row = mine[0]
    assert row["status"] == "ok"
    assert row["source"].startswith(f"package {DISTRIBUTION} ("), row["source"]
    assert "arena_example_bot" in row["source"]
    assert row["description"]
    assert {r["name"] for r in rows} >= {"random", "max-single-constraint", "mean-constraint"}
    failures = [r for r in rows if r["status"] != "ok"]
    assert not [r for r in failures if DISTRIBUTION in r["source"]], failures


@pytest.mark.slow
@needs_pip
def test_example_is_absent_when_not_installed(installed: Path) -> None:
    done = arena("players", "--json")
    assert done.returncode == 0, done.stderr
    assert PLAYER not in {r["name"] for r in json.loads(done.stdout)}


@pytest.mark.slow
@needs_pip
def test_installed_example_plays_a_tournament(installed: Path, tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    args = ["tournament", "-d", "beginner", "-n", "20", "-p", f"{PLAYER},random", "--workers", "1"]
    done = arena(*args, "--store", str(store), "--json", site=installed)
    assert done.returncode == 0, done.stderr
    board = json.loads(done.stdout)
    rows = {r["player"]: r for r in board["rows"]}
    assert set(rows) == {PLAYER, "random"}
    for row in rows.values():
        assert row["games"] == 20
        assert row["failed"] == 0, row
    assert rows[PLAYER]["source"].startswith(f"package {DISTRIBUTION}")
    assert rows[PLAYER]["wins"] > 0
    assert board["run"]["played"] == 40


# -- the same modules as --plugin files, in process (no pip) ---------------------------------


@pytest.mark.parametrize(
    ("path", "name"),
    [(EXAMPLE / "arena_example_bot.py", PLAYER), (EXAMPLES / "local_bot.py", "local-bot")],
)
def test_example_files_load_as_plugins_and_win_games(path: Path, name: str) -> None:
    registry = Registry([path], entry_points=False)
    assert registry.failures == []
    entry = registry.get(name)
    assert entry.source == f"file {path}"
    assert issubclass(entry.cls, Player)
    results = [play_game(entry.create(), name, BEGINNER, FirstClick.SAFE, 0, board) for board in range(30)]
    assert all(r.outcome in (Outcome.WON, Outcome.LOST) and r.error == "" for r in results)
    assert sum(r.won for r in results) >= 10
    again = [play_game(entry.create(), name, BEGINNER, FirstClick.SAFE, 0, board) for board in range(30)]
    assert [(r.outcome, r.moves) for r in again] == [(r.outcome, r.moves) for r in results]


def test_example_player_plays_every_first_click_rule() -> None:
    entry = Registry([EXAMPLE / "arena_example_bot.py"], entry_points=False).get(PLAYER)
    for rule in FirstClick:
        results = [play_game(entry.create(), PLAYER, BEGINNER, rule, 1, board) for board in range(5)]
        assert all(r.outcome in (Outcome.WON, Outcome.LOST) and r.error == "" for r in results), results
