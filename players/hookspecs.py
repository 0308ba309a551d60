"""The plugin hooks: the whole contract between the arena and a plugin."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "minesweeper_arena"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_players(register: Callable[[type], None]) -> None:
    """Call ``register(PlayerClass)`` once for each player this plugin provides."""
