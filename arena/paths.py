"""Where the results store lives: one place per user, whichever folder the command runs in.

A store next to wherever the user happened to stand (``./leaderboards/arena.db`` until now) makes
``arena leaderboard`` from another folder find nothing. Like llm and datasette, the default is a
per-user data directory, and ``$ARENA_STORE`` or ``--store`` point elsewhere. Standard library
only: ``arena --help`` prints the location and should not pay for importing the engine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["APP_NAME", "LEGACY_STORE", "STORE_ENV", "default_store", "describe_default_store", "user_data_dir"]

#: Overrides the default store location (``--store`` overrides both).
STORE_ENV = "ARENA_STORE"
APP_NAME = "minesweeper-arena"
#: The old default, relative to the folder a command ran in; named only in hints to find old results.
LEGACY_STORE = Path("leaderboards") / "arena.db"


def _home() -> Path:
    # Not Path.home(): that raises when no home is known, and the help text calls this at import.
    return Path(os.path.expanduser("~"))


def user_data_dir(app: str = APP_NAME) -> Path:
    """The per-user data folder of ``app``, where platformdirs would put it (without the dependency):
    ``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux and other Unixes, ``~/Library/Application
    Support`` on macOS, ``%LOCALAPPDATA%`` on Windows."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return (Path(local) if local else _home() / "AppData" / "Local") / app
    if sys.platform == "darwin":
        return _home() / "Library" / "Application Support" / app
    xdg = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec says a relative value is invalid and to be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else _home() / ".local" / "share"
    return base / app


def default_store() -> Path:
    """``$ARENA_STORE`` if set, else ``arena.db`` in the user data folder; read at call time, so
    that a test (or a wrapper script) can redirect it with the environment."""
    configured = os.environ.get(STORE_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    return user_data_dir() / "arena.db"


def describe_default_store() -> str:
    """The default store, and whether the environment chose it, for help texts."""
    if os.environ.get(STORE_ENV, "").strip():
        return f"{default_store()} (from ${STORE_ENV})"
    return str(default_store())
