"""The leaderboard's baseline: the two single-cell rules, otherwise a uniformly random guess."""

from __future__ import annotations

import numpy as np

from engine import COVERED, Action, FirstClick, Observation
from players.api import Player
from players.rules import certain_actions

__all__ = ["RandomPlayer"]


class RandomPlayer(Player):
    """Applies the two single-cell rules; when they find nothing, reveals a random covered cell."""

    name = "random"
    description = "single-cell rules, else a uniformly random covered cell (the baseline)"
    version = "1"

    class Options(Player.Options):
        #: Open at a random cell instead of the conventional corner. Off by default so that the
        #: baseline plays the same boards as the other players (they share the first click).
        random_first_click: bool = False

    def play(self, observation: Observation) -> list[Action]:
        grid = observation.grid
        if observation.first_move and not self.options.random_first_click:
            # Only the unprotected rule can lose on the first click: elsewhere it is no guess.
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        actions = certain_actions(observation)
        if actions:
            return actions
        covered = np.flatnonzero(grid.reshape(-1) == COVERED)
        cell = int(covered[self.rng.integers(covered.size)])
        return [Action.reveal(cell // observation.width, cell % observation.width, guess=True)]
