"""Hostile: spins forever on its second move of every real game (expected: timeout; killed and
restarted for the next game). It does not spin in the host's warm-up game (recognised by its
generator): that one would only be cut by the warm-up's own, much longer, budget."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arena.play.runner import is_warm_up
from engine import Action, BoardSpec, FirstClick, Observation
from players import Player, hookimpl


class Looper(Player):
    name = "hostile-looper"
    warming_up = False

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        self.warming_up = is_warm_up(rng, self.name)
        super().reset(rng, spec, rule)

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move or self.warming_up:
            return [Action.reveal(0, 0)]  # in the warm-up, an illegal repeat ends the game
        n = 0
        while True:
            n += 1


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Looper)
