"""Hostile: raises in play() after writing a marker line to stderr (expected: error, with the stderr tail)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from engine import Action, Observation
from players import Player, hookimpl


class Raiser(Player):
    name = "hostile-raiser"

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        print("raiser-marker: about to raise", file=sys.stderr, flush=True)
        raise RuntimeError("the raiser raised")


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Raiser)
