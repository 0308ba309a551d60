"""Alice's entrant, a plugin file: single-cell rules, else the covered cell with the fewest numbers around it.

Its class calls itself ``fewest-numbers``; competition.toml enters it as ``alice``, the name it plays under
there (the entrant's name wins, as with ``--plugin alice=alice/alice_bot.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from players import Action, FirstClick, Observation, Player, hookimpl
from players.deduction import certain_actions


class FewestNumbers(Player):
    """Single-cell rules; otherwise the covered cell touching the fewest revealed numbers (ties at random)."""

    name = "fewest-numbers"
    version = "1"
    description = "single-cell rules, else the covered cell touching the fewest numbers"

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        actions = certain_actions(observation)
        if actions:
            return actions
        grid = observation.grid
        height, width = grid.shape
        numbers = np.pad((grid > 0).astype(np.int64), 1)
        touching = sum(numbers[dr : dr + height, dc : dc + width] for dr in range(3) for dc in range(3))
        covered = grid == Observation.COVERED
        fewest = touching[covered].min()
        candidates = np.flatnonzero(covered & (touching == fewest))
        cell = int(candidates[self.rng.integers(candidates.size)])
        return [Action.reveal(cell // width, cell % width, guess=True)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(FewestNumbers)
