"""The leaderboard's baseline: the two single-cell rules (with ``subsets`` the subset rule too, as
the C++ engine's random player), otherwise a uniformly random guess."""

from __future__ import annotations

from engine import Action, Observation
from players.builtin.common import CppEnginePlayer, opening_move, random_guess
from players.deduction import certain_actions

__all__ = ["RandomPlayer"]


class RandomPlayer(CppEnginePlayer):
    """Applies the two single-cell rules; when they find nothing, reveals a random covered cell."""

    name = "random"
    description = "single-cell rules, else a uniformly random covered cell (the baseline)"
    version = "1"

    class Options(CppEnginePlayer.Options):
        #: Open at a random cell instead of the conventional corner. Off by default so that the
        #: baseline plays the same boards as the other players (they share the first click).
        random_first_click: bool = False

    def play(self, observation: Observation) -> list[Action]:
        if not self.options.random_first_click and (opening := opening_move(self, observation)):
            return opening
        return certain_actions(observation, subsets=self.options.subsets) or [random_guess(observation, self.rng)]
