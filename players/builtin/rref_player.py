"""`rref`: linear algebra only. Deduce with RREF and the bound rules until nothing new, else guess.

The constraint matrix of the frontier (plus the global mine count as one more row) is reduced
to row echelon form; a row whose positive coefficients sum to its right-hand side (or whose
negative ones do) fixes all its cells. No enumeration, no probabilities: when linear reasoning
runs dry the player reveals a uniformly random covered cell. It sits between the single-cell
players and the enumeration players, showing what deduction alone is worth.
"""

from __future__ import annotations

from engine import Action, Observation
from players.api import Player
from players.builtin.common import opening_move, random_guess
from players.rules import certain_actions
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
