"""The built-in players. They register through the same hook as any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable

from players.builtin.apex import ApexPlayer
from players.builtin.enumeration_player import EnumerationPlayer
from players.builtin.random_player import RandomPlayer
from players.builtin.rollout import RolloutPlayer
from players.builtin.rref_player import RrefPlayer
from players.builtin.single_constraint import MaxSingleConstraintPlayer, MeanConstraintPlayer
from players.hookspecs import hookimpl

__all__ = [
    "BUILTIN_PLAYERS",
    "EnumerationPlayer",
    "MaxSingleConstraintPlayer",
    "MeanConstraintPlayer",
    "RandomPlayer",
    "RolloutPlayer",
    "RrefPlayer",
    "register_players",
]

BUILTIN_PLAYERS: tuple[type, ...] = (
    RandomPlayer,
    MaxSingleConstraintPlayer,
    MeanConstraintPlayer,
    RrefPlayer,
    EnumerationPlayer,
    ApexPlayer,
    RolloutPlayer,
)


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    for cls in BUILTIN_PLAYERS:
        register(cls)
