"""Moves the built-in players share: the opening click and a uniformly random guess."""

from __future__ import annotations

import numpy as np

from engine import COVERED, Action, FirstClick, Observation
from players.api import Player, corner_first_click

__all__ = ["opening_cell", "opening_move", "random_guess"]


def opening_move(player: Player, observation: Observation) -> list[Action] | None:
    """The player's first click on an untouched board, else None. Only the unprotected rule can
    lose on the first click, so only there is it counted as a guess."""
    if not observation.first_move:
        return None
    return [Action.reveal(*player.first_click(observation), guess=observation.rule is FirstClick.NONE)]


def opening_cell(observation: Observation, wanted: tuple[int, int] | None) -> tuple[int, int]:
    """The first click: ``wanted`` (clipped to the board) under the ``opening`` rule when given,
    else the conventional ``corner_first_click``. As apex's ``opening_cell`` option."""
    if wanted is None or observation.rule is not FirstClick.OPENING:
        return corner_first_click(observation)
    return min(wanted[0], observation.height - 1), min(wanted[1], observation.width - 1)


def random_guess(observation: Observation, rng: np.random.Generator) -> Action:
    """Reveal a uniformly random covered (unflagged) cell."""
    covered = np.flatnonzero(observation.grid.reshape(-1) == COVERED)
    cell = int(covered[rng.integers(covered.size)])
    return Action.reveal(cell // observation.width, cell % observation.width, guess=True)
