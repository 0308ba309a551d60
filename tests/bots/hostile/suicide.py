"""Hostile: SIGKILLs its own process on its second move of every real game (expected: crashed,
restarted for the next game). It plays the host's warm-up game, which it recognises by its generator
(not by counting games, which breaks when a slow start cuts the warm-up short), without dying."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import numpy as np

from arena.play.runner import is_warm_up
from engine import Action, BoardSpec, FirstClick, Observation
from players import Player, hookimpl


class Suicide(Player):
    name = "hostile-suicide"
    warming_up = False

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        self.warming_up = is_warm_up(rng, self.name)
        super().reset(rng, spec, rule)

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        if not self.warming_up:
            os.kill(os.getpid(), signal.SIGKILL)
        return [Action.reveal(0, 0)]  # revealed already: the warm-up game ends here


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Suicide)
