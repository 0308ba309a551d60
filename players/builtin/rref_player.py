"""`rref`: linear algebra only, to show what deduction alone is worth: RREF and the bound rules
on the frontier and the global mine count until nothing new, else a uniformly random guess."""

from __future__ import annotations

from engine import Action, Observation
from players.api import Player
from players.builtin.common import opening_move, random_guess
from players.deduction import certain_actions
from players.solver import deduce

__all__ = ["RrefPlayer"]


class RrefPlayer(Player):
    """RREF deductions to a fixed point; otherwise a uniformly random covered cell."""

    name = "rref"
    description = "RREF deductions (with the global mine count), else a uniformly random guess"

    def play(self, observation: Observation) -> list[Action]:
        if opening := opening_move(self, observation):
            return opening
        # Single-cell rules are a special case of the bound rules, only compiled and cheap.
        actions = certain_actions(observation)
        if actions:
            return actions
        safe, mines = deduce(observation.grid, observation.mines)
        actions = [Action.reveal(r, c) for r, c in safe] + [Action.flag(r, c) for r, c in mines]
        return actions or [random_guess(observation, self.rng)]
