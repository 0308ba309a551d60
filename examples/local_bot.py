"""A single-file plugin for quick experiments, no packaging needed::

    arena players --plugin examples/local_bot.py
    arena tournament -d beginner -n 200 --plugin examples/local_bot.py -p local-bot,random

Edit ``play``, rerun, compare. Once the bot is worth keeping, package it like
``examples/arena-example-bot`` so that ``pip install`` is all another machine needs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from players import Action, FirstClick, Observation, Player, hookimpl
from players.deduction import certain_actions


class LocalBot(Player):
    """Single-cell rules; otherwise a random covered cell away from every number, if any is left."""

    name = "local-bot"
    description = "local experiment: single-cell rules, else a random cell off the frontier"

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        actions = certain_actions(observation)
        if actions:
            return actions
        grid = observation.grid
        covered = grid == Observation.COVERED
        numbers = np.pad(grid > 0, 1)  # a covered cell touching a number is on the frontier
        height, width = grid.shape
        frontier = np.zeros_like(covered)
        for dr in range(3):
            for dc in range(3):
                frontier |= numbers[dr : dr + height, dc : dc + width]
        candidates = np.flatnonzero(covered & ~frontier)
        if candidates.size == 0:
            candidates = np.flatnonzero(covered)
        cell = int(candidates[self.rng.integers(candidates.size)])
        return [Action.reveal(cell // width, cell % width, guess=True)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(LocalBot)
