"""The built-in players. They register through the same hook as any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable

from players.builtin.random_player import RandomPlayer
from players.builtin.single_constraint import MaxSingleConstraintPlayer, MeanConstraintPlayer
from players.hookspecs import hookimpl

__all__ = [
    "BUILTIN_PLAYERS",
    "MaxSingleConstraintPlayer",
    "MeanConstraintPlayer",
    "RandomPlayer",
    "register_players",
]

BUILTIN_PLAYERS: tuple[type, ...] = (RandomPlayer, MaxSingleConstraintPlayer, MeanConstraintPlayer)


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    for cls in BUILTIN_PLAYERS:
        register(cls)
