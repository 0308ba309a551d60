"""Hostile: spins forever on its second move (expected: timeout; killed and restarted for the next game)."""

from __future__ import annotations

from collections.abc import Callable

from engine import Action, Observation
from players import Player, hookimpl


class Looper(Player):
    name = "hostile-looper"

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        n = 0
        while True:
            n += 1


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Looper)
