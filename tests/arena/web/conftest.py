"""Shared fixtures of the pages' tests: a small stored tournament with a hostile bot (``web_support``), the app
over it, the app served by uvicorn on 127.0.0.1, and Debian's Chromium (as
``tests/arena/analysis/test_replay_browser.py`` drives it)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from shared_once import built_once
from web_support import BOARDS, COMPETITION, EVIL_SOURCE, OWNERS, PLAYERS, Stored, arena, chromium, free_port


def _play_the_web_store(folder: Path) -> None:
    plugin = folder / "evil_bot.py"
    plugin.write_text(EVIL_SOURCE, encoding="utf-8")
    arena(
        "tournament", "-d", "beginner", "-n", BOARDS, "-p", ",".join(PLAYERS), "--plugin", plugin,
        "--sandbox", "off", "--workers", "2", "--store", folder / "arena.db", "--seed", "5",
    )  # fmt: skip
    from arena.results.store import Store

    with Store(folder / "arena.db") as store:  # named, with owners, as a competition's tournament is
        store.describe(store.latest(), name=COMPETITION, owners=OWNERS)


@pytest.fixture(scope="session")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    """Played once for the whole run, whatever the number of workers (the tests only read it)."""
    folder = built_once(tmp_path_factory, "web-store", _play_the_web_store)
    plugin, path = folder / "evil_bot.py", folder / "arena.db"
    listed = arena("leaderboard", "--list", "--json", "--store", path)
    tournament = json.loads(listed.stdout)[0]["id"]
    return Stored(path, tournament, plugin)


@pytest.fixture(scope="session")
def client(stored: Stored) -> Any:
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    return TestClient(create_app(stored.path), raise_server_exceptions=False)


@dataclass
class Served:
    url: str
    server: Any


@contextlib.contextmanager
def serving(path: Path) -> Iterator[Served]:
    """The app over the store at ``path``, served by uvicorn on 127.0.0.1 (a free port) in a thread."""
    import uvicorn

    from arena.web.app import create_app

    port = free_port()
    config = uvicorn.Config(create_app(path), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Served(f"http://127.0.0.1:{port}", server)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="session")
def served(stored: Stored) -> Iterator[Served]:
    with serving(stored.path) as app:
        yield app


@pytest.fixture
def serve() -> Any:
    """``with serve(path) as app:``: another store served the same way."""
    return serving


# Module-scoped, as tests/arena/analysis/test_replay_browser.py's: playwright's sync API runs one event loop at a
# time, so a browser kept for the whole session would break the next module that starts its own.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture
def cli() -> Any:
    """Invoke the ``arena`` app in-process; ``result.stdout``/``result.stderr`` are separate."""
    from typer.testing import CliRunner

    from arena.cli import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="session")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A small stored sweep (6x6, three mine counts, two players, 30 boards a point) and its `--json`."""

    def sweep(folder: Path) -> None:
        result = arena("sweep", "--size", "6x6", "--mines", "4,6,8", "-p", "random,mean-constraint", "-n", "30",
                       "--workers", "2", "--store", folder / "sweep.db", "--json")  # fmt: skip
        (folder / "sweep.json").write_text(result.stdout, encoding="utf-8")

    folder = built_once(tmp_path_factory, "web-sweep", sweep)
    return folder / "sweep.db", json.loads((folder / "sweep.json").read_text(encoding="utf-8"))
