"""Where `arena` keeps results, reading them without write access, publishing without clobbering,
and a --workers that fits the machine: what a first run meets, through the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

import arena.play.plan

Cli = Callable[..., Result]
QUICK = ("-n", "2", "-p", "random", "-w", "1", "-q")


OneErrorLine = Callable[..., str]


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def user_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A user who configured nothing: no $ARENA_STORE; the data folder is a private $XDG_DATA_HOME."""
    monkeypatch.delenv("ARENA_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("sys.platform", "linux")
    return tmp_path / "data" / "minesweeper-arena" / "arena.db"


# -- one store, wherever the command runs ----------------------------------------------------------------------------


def test_results_are_found_from_any_folder(
    cli: Cli, user_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder in ("here", "there"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "here")
    played = ok(cli("tournament", *QUICK))
    assert f"results stored in {user_data}" in played.stdout
    assert user_data.is_file()
    assert not (tmp_path / "here" / "leaderboards").exists()

    monkeypatch.chdir(tmp_path / "there")
    shown = json.loads(ok(cli("leaderboard", "--json")).stdout)
    assert [r["player"] for r in shown["rows"]] == ["random"]
    listed = ok(cli("leaderboard", "--list"))
    assert str(user_data) in listed.stdout.replace("\n", "")


def test_arena_store_and_store_option_choose_the_store(
    cli: Cli, user_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_STORE", str(tmp_path / "from-env.db"))
    data = json.loads(ok(cli("tournament", *QUICK, "--json")).stdout)
    assert data["run"]["store"] == str(tmp_path / "from-env.db")
    assert (tmp_path / "from-env.db").is_file()
    explicit = tmp_path / "explicit.db"
    data = json.loads(ok(cli("tournament", *QUICK, "--json", "--store", explicit)).stdout)
    assert data["run"]["store"] == str(explicit)
    assert not user_data.exists()


@pytest.mark.slow
def test_help_names_the_store(user_data: Path) -> None:
    """The help is built when the command line is imported, so this asks a fresh interpreter."""
    for argv in (["--help"], ["leaderboard", "--help"]):
        script = f"from arena.cli import main; main({argv!r})"
        env = {**os.environ, "COLUMNS": "300"}  # the path on one line
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
        ).stdout
        assert str(user_data) in out, out
        assert "$ARENA_STORE" in out


# -- reading a store one may not write -----------------------------------------------------------------------------


def test_read_only_commands_work_on_a_read_only_store(
    cli: Cli, tmp_path: Path, read_only_folder: tuple[Path, Callable[[], Any]], request: pytest.FixtureRequest
) -> None:
    folder, locked = read_only_folder
    store, warm_up = folder / "arena.db", tmp_path / "warm-up.db"
    for path in (warm_up, store):
        ok(cli("tournament", *QUICK, "--store", path))
    for args in (("--json",), ("--list",), ("--publish", tmp_path / "out")):  # imports everything, as root
        ok(cli("leaderboard", "--store", warm_up, *args))
    assert sorted(p.name for p in folder.iterdir()) == ["arena.db"]  # no -shm: only immutable=1 opens it
    out = Path(tempfile.mkdtemp(prefix="arena-published-"))  # under /tmp, where the unprivileged user may write
    out.chmod(0o777)
    request.addfinalizer(lambda: shutil.rmtree(out, ignore_errors=True))
    with locked():
        shown = json.loads(ok(cli("leaderboard", "--store", store, "--json")).stdout)
        assert shown["rows"][0]["games"] == 2
        assert "beginner" in ok(cli("leaderboard", "--store", store, "--list")).stdout
        ok(cli("leaderboard", "--store", store, "--publish", out))
    assert (out / "beginner-safe.json").is_file()
    assert sorted(p.name for p in folder.iterdir()) == ["arena.db"]


# -- publishing --------------------------------------------------------------------------------------------------------


def test_publish_refuses_another_tournament_without_force(
    one_error_line: OneErrorLine, cli: Cli, tmp_path: Path
) -> None:
    store, out = tmp_path / "arena.db", tmp_path / "leaderboards"
    first = json.loads(ok(cli("tournament", *QUICK, "--seed", "1", "--store", store, "--json")).stdout)
    ok(cli("leaderboard", "--store", store, "--publish", out))
    before = (out / "beginner-safe.json").read_text()
    ok(cli("tournament", *QUICK, "--seed", "2", "--store", store))
    line = one_error_line(cli("leaderboard", "--store", store, "--publish", out))
    assert first["config"]["tournament_id"] in line and "--force" in line
    assert (out / "beginner-safe.json").read_text() == before
    ok(cli("leaderboard", "--store", store, "--publish", out, "--force"))
    assert json.loads((out / "beginner-safe.json").read_text())["config"]["seed"] == 2


def test_force_without_publish_is_a_usage_error(one_error_line: OneErrorLine, cli: Cli, tmp_path: Path) -> None:
    assert "--publish" in one_error_line(cli("leaderboard", "--force", "--store", tmp_path / "none.db"))


# -- workers -------------------------------------------------------------------------------------------------------


def test_workers_are_capped_at_the_cores_and_say_so(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.play.plan, "default_workers", lambda: 1)
    args = ("tournament", "-n", "3", "-p", "random", "--workers", "500", "-q", "--json", "--store", tmp_path / "a.db")
    result = ok(cli(*args))
    assert result.stderr.strip() == "--workers 500 capped at 1: this machine has 1 core"
    assert json.loads(result.stdout)["run"]["workers"] == 1


# -- writing a store one may not write ---------------------------------------------------------------------------------


def test_a_store_that_cannot_be_written_is_one_line_and_stays_as_it_was(
    cli: Cli, one_error_line: OneErrorLine, read_only_folder: tuple[Path, Callable[..., Any]]
) -> None:
    folder, locked = read_only_folder
    store = folder / "arena.db"
    ok(cli("tournament", *QUICK, "--store", store))
    before = store.read_bytes()
    import arena.cli.tournament  # noqa: F401  (the user without rights cannot read root's Python)

    with locked():
        line = one_error_line(cli("tournament", *QUICK, "-n", "3", "--store", store))
    assert line == (
        f"error: cannot write the results store {str(store)!r}: the file is read-only (its permissions or an"
        " immutable flag); make it writable, or pass --store PATH for another"
    )
    assert store.read_bytes() == before


def test_an_immutable_store_is_one_line_and_stays_as_it_was(cli: Cli, one_error_line: OneErrorLine) -> None:
    """Root may write any file but an immutable one (``chattr +i``), which SQLite opens read-only without a word."""
    folder = Path(tempfile.mkdtemp(prefix="arena-immutable-"))
    store = folder / "arena.db"
    ok(cli("tournament", *QUICK, "--store", store))
    if os.geteuid() != 0 or subprocess.run(["chattr", "+i", store], capture_output=True).returncode != 0:
        shutil.rmtree(folder)
        pytest.skip("needs root and a file system with the immutable flag (chattr +i)")
    try:
        before = store.read_bytes()
        line = one_error_line(cli("tournament", *QUICK, "-n", "3", "--store", store))
        assert "the file is read-only (its permissions or an immutable flag)" in line
        assert store.read_bytes() == before
    finally:
        subprocess.run(["chattr", "-i", store], check=True)
        shutil.rmtree(folder)
