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

__all__ = [
    "APP_NAME",
    "LEGACY_STORE",
    "PROJECT_ROOT",
    "PROTECTED_ENV",
    "STORE_ENV",
    "default_store",
    "describe_default_store",
    "protect",
    "protected_folders",
    "protected_paths",
    "revisions_dir",
    "shell_builds_dir",
    "user_cache_dir",
    "user_data_dir",
]

#: Overrides the default store location (``--store`` overrides both).
STORE_ENV = "ARENA_STORE"
APP_NAME = "minesweeper-arena"
#: The old default, relative to the folder a command ran in; named only in hints to find old results.
LEGACY_STORE = Path("leaderboards") / "arena.db"
#: The stores this arena (and the processes it starts) writes, which no sandboxed bot may see
#: (``protect``); the environment carries them to worker processes, never to a bot.
PROTECTED_ENV = "ARENA_PROTECTED"
#: The folder that holds the ``arena`` package (a source checkout's root, or site-packages): a bot's Python
#: host imports the arena from there (``arena.isolation.protocol.bot_command.bot_environment``).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: Overrides the folder of the compile stamps (``arena.warmup``).
CACHE_ENV = "ARENA_CACHE_DIR"


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


def user_cache_dir(app: str = APP_NAME) -> Path:
    """The per-user cache folder of ``app``: ``$XDG_CACHE_HOME`` or ``~/.cache`` (``~/Library/Caches``
    on macOS, ``%LOCALAPPDATA%\\<app>\\Cache`` on Windows)."""
    if sys.platform == "win32":
        return user_data_dir(app) / "Cache"
    if sys.platform == "darwin":
        return _home() / "Library" / "Caches" / app
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else _home() / ".cache"
    return base / app


def revisions_dir() -> Path:
    """The arena's cache folder of plugins read at a git revision (``arena.isolation.discovery.revisions``). Named
    here, not there, because the sandbox (``arena.isolation.sandbox.botfiles``) hides the arena's folders but
    shows a bot its own folder in this one, and must not import how players are found to know where it is."""
    return user_cache_dir() / "revisions"


def shell_builds_dir() -> Path:
    """The arena's cache folder of course-shell agents built from Java or C++ (``arena.shells``): each build is a
    bot's own folder, which its sandbox shows it as it shows a plugin read at a revision."""
    return user_cache_dir() / "shells"


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


def protect(path: str | Path) -> None:
    """Remember ``path`` as a store of this arena's: the sandbox hides it (and its journals and
    recovery copies) from every bot this process, or a process it starts later, runs."""
    absolute = os.path.abspath(os.fspath(path))
    current = os.environ.get(PROTECTED_ENV, "")
    entries = current.split(os.pathsep) if current else []
    if absolute not in entries:
        os.environ[PROTECTED_ENV] = os.pathsep.join([*entries, absolute])


def protected_paths() -> list[Path]:
    """The stores a bot never sees: those ``protect`` named, and the default one."""
    current = os.environ.get(PROTECTED_ENV, "")
    return [default_store(), *(Path(p) for p in current.split(os.pathsep) if p)]


def protected_folders() -> list[Path]:
    """The arena's own folders, which a bot never sees: its data (the default store's), its cache
    (compile stamps, sandboxed players' caches) and ``$ARENA_CACHE_DIR``."""
    folders = [user_data_dir(), user_cache_dir()]
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        folders.append(Path(configured).expanduser())
    return folders
