"""Hostile: SIGKILLs its own process on its second move of every game but the first its process plays
(the host's warm-up game), so it dies in each real game (expected: crashed, restarted for the next game)."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

from engine import Action, Observation
from players import Player, hookimpl


class Suicide(Player):
    name = "hostile-suicide"
    games = 0

    def reset(self, *args: Any) -> None:
        super().reset(*args)
        self.games += 1

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        if self.games > 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return [Action.reveal(0, 1)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Suicide)
