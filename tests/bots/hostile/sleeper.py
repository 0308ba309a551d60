"""Hostile: sleeps far past the move limit, in a child process of its own too, in every real game
(expected: timeout, and the whole process group, grandchild included, killed). It does not sleep in
the host's warm-up game (recognised by its generator): that one would only be cut by the warm-up's
own, much longer, budget."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from arena.play.runner import is_warm_up
from engine import Action, BoardSpec, FirstClick, Observation
from players import Player, hookimpl


class Sleeper(Player):
    name = "hostile-sleeper"
    warming_up = False

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        self.warming_up = is_warm_up(rng, self.name)
        super().reset(rng, spec, rule)

    def play(self, observation: Observation) -> list[Action]:
        if self.warming_up:
            return [Action.reveal(0, 0)]
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"sleeper-child-pid {child.pid}", file=sys.stderr, flush=True)
        time.sleep(600)
        return [Action.reveal(0, 0)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Sleeper)
