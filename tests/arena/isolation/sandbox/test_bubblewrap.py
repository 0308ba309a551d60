"""The sandbox (``arena.isolation.sandbox.bubblewrap``): a bot that tries every way out learns nothing, changes nothing,
leaves no process behind, and other players' games are the same with it or without it, sandboxed or not.

Skipped, saying why, where bubblewrap cannot make a sandbox (CI installs it).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from repo import BOTS

from arena.config import PlayerRef, TournamentConfig
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.limits import Isolation, Limits, SandboxMode
from arena.outcome import GameResult, Outcome
from arena.play.agents import close_agents
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import BEGINNER, FirstClick

needs_sandbox = pytest.mark.sandbox  # skips, saying why, where the machine cannot make one (tests/conftest.py)

TEMPLATE = BOTS / "sandbox" / "escaper.py"
#: The ways out the escaper players try, one player each (``tests/bots/sandbox/escaper.py``).
ATTACKS = ("daemon", "fork-bomb", "proc", "store", "channels", "network", "write-outside")
LIMITS = Limits(move_time=30.0, game_time=300.0, memory_mb=1024, startup_time=120, processes=64)
TIMINGS = ("cpu_ms", "wall_ms")


def play(store: Path, names: tuple[str, ...], plugin: Path | None, mode: SandboxMode) -> list[GameResult]:
    refs = tuple(PlayerRef(name=n) for n in names)
    config = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=11, games=3, players=refs, limits=LIMITS, sandbox=mode
    )
    plugins = [str(plugin)] if plugin else []
    catalog = PlayerCatalog.for_tournament(plugins, (), Isolation.ISOLATED, mode)
    with Store(store) as db:
        run_tournament(plan_tournament(config, db, catalog, workers=1), db)
        rows = db.games(config.id)
    close_agents()  # the in-process worker keeps its bots for the next tournament: the arena's exit ends them
    return [dataclasses.replace(g, **dict.fromkeys(TIMINGS, 0.0)) for g in rows]  # timings zeroed: they vary


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
@needs_sandbox
def test_bots_that_try_every_way_out_get_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = f"secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("ARENA_SECRET_FOR_TEST", token)
    store = tmp_path / "arena.db"
    monkeypatch.setenv("ARENA_STORE", str(store))
    outside = tmp_path / "outside"
    outside.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    marker = f"escaper_{uuid.uuid4().hex[:12]}"
    plugin = tmp_path / f"{marker}.py"
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, value in (("STORE", store), ("TOKEN", token), ("OUTSIDE", outside), ("PORT", listener.getsockname()[1])):
        text = text.replace(f"@{key}@", str(value))
    plugin.write_text(text, encoding="utf-8")

    alone = play(tmp_path / "alone.db", ("random",), None, SandboxMode.REQUIRE)
    escapers = tuple(f"escaper-{attack}" for attack in ATTACKS)
    with_them = play(store, ("random", *escapers), plugin, SandboxMode.REQUIRE)

    for name in escapers:  # each learned nothing (it would raise: error) and played its games out
        rows = [row for row in with_them if row.player == name]
        assert len(rows) == 3
        assert all(row.outcome in (Outcome.WON, Outcome.LOST) for row in rows), rows
    assert [row for row in with_them if row.player == "random"] == alone
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert list(outside.iterdir()) == []
    assert not (Path(sandbox.__file__).parents[2] / "escaper-was-here").exists()
    with sqlite3.connect(store) as db:
        assert "hacked" not in {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    deadline = time.monotonic() + 60  # killing a namespace is asynchronous; a generous bound, not a timing
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_with(marker) == []


@needs_sandbox
def test_honest_isolated_games_are_the_same_sandboxed_or_not(tmp_path: Path) -> None:
    sandboxed = play(tmp_path / "on.db", ("random",), None, SandboxMode.REQUIRE)
    plain = play(tmp_path / "off.db", ("random",), None, SandboxMode.OFF)
    assert sandboxed == plain
    # Its bots gone, the worker leaves no cgroup folder of its own behind (a root arena caps a bot's
    # processes with one; a pool worker, which leaves by os._exit, cleans up the same way).
    assert not list(Path("/sys/fs/cgroup").glob(f"**/minesweeper-arena-{os.getpid()}"))


def test_require_without_a_sandbox_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, one_error_line: Any) -> None:
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bubblewrap (bwrap) is not installed")
    from typer.testing import CliRunner

    from arena.cli import app

    args = ["tournament", "-n", "1", "-p", "random", "--isolation", "isolated", "--sandbox", "require"]
    line = one_error_line(CliRunner().invoke(app, args))
    assert line == "error: --sandbox require: bubblewrap (bwrap) is not installed"


def test_a_sandboxed_players_cache_starts_with_the_arenas_compiled_code(tmp_path: Path) -> None:
    """A sandboxed bot finds the kernels the arena already compiled where numba looks under
    ``NUMBA_CACHE_DIR`` (without this, each sandboxed player compiles everything again on its first start)."""
    import numba.core.caching

    import engine.kernels
    from engine import Game

    Game(BEGINNER, FirstClick.SAFE, seed=1, index=0).reveal(4, 4)  # the engine's kernels, in the arena's cache
    kernels = Path(engine.kernels.__file__).resolve()
    folder = tmp_path / numba.core.caching.UserProvidedCacheLocator.get_suitable_cache_subpath(str(kernels))
    assert sandbox.seed_cache(tmp_path) > 0
    assert list(folder.glob("kernels.reveal_cells-*.nbi")) and list(folder.glob("kernels.reveal_cells-*.nbc"))
    assert sandbox.seed_cache(tmp_path) == 0  # up to date: nothing copied again


def test_the_protocols_word_on_isolation_agrees_with_the_sandbox() -> None:
    # docs/protocol.md once said, without a condition, that a bot "can read files the user can": true only
    # without the sandbox. What it says now names the modes, and what a sandboxed bot cannot reach.
    from repo import ROOT

    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text[text.index("## What isolation does and does not protect") :]
    assert "It is not a sandbox against malicious code" not in section
    assert "--sandbox off" in section and "--sandbox require" in section
    assert "not the\n  results store" in section or "not the results store" in " ".join(section.split())
