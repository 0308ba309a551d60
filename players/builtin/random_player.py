"""The leaderboard's baseline: the two single-cell rules, otherwise a uniformly random guess.

With ``subsets`` it applies the subset rule too, as the random player of the C++ engine it
reproduces (docs/players.md).
"""

from __future__ import annotations

from pydantic import NonNegativeInt

from engine import Action, Observation
from players.api import Player
from players.builtin.common import opening_cell, opening_move, random_guess
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
        #: After the single-cell rules, the subset rule to a fixed point (``players.rules``): the
        #: C++ engine's deduction (its measured effect: docs/players.md).
        subsets: bool = False
        #: The first click under the ``opening`` rule (row, column); None: (3, 3), three in from
        #: the corner. The C++ engine clicks (0, 0).
        opening_cell: tuple[NonNegativeInt, NonNegativeInt] | None = None

    def first_click(self, observation: Observation) -> tuple[int, int]:
        return opening_cell(observation, self.options.opening_cell)

    def play(self, observation: Observation) -> list[Action]:
        if not self.options.random_first_click and (opening := opening_move(self, observation)):
            return opening
        return certain_actions(observation, subsets=self.options.subsets) or [random_guess(observation, self.rng)]
