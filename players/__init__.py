"""The player API, the plugin registry and the built-in players.

A third-party bot needs only this::

    from players import Player, hookimpl
"""

from __future__ import annotations

from players.api import NAME_PATTERN, Player, PlayerError, PlayerOptionsError, corner_first_click
from players.hookspecs import hookimpl, hookspec
from players.registry import (
    DuplicatePlayerError,
    PlayerEntry,
    PluginFailure,
    PluginNotFoundError,
    Registry,
    UnknownPlayerError,
)

__all__ = [
    "NAME_PATTERN",
    "DuplicatePlayerError",
    "Player",
    "PlayerEntry",
    "PlayerError",
    "PlayerOptionsError",
    "PluginFailure",
    "PluginNotFoundError",
    "Registry",
    "UnknownPlayerError",
    "corner_first_click",
    "hookimpl",
    "hookspec",
]
