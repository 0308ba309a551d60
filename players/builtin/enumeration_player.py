"""`enumeration`: the published "full enumeration" solver.

RREF deductions, then every solution of each frontier component is enumerated; combinations
whose mine total cannot fit the mines left are discarded. A cell that is safe (or a mine) in
every solution is played. Otherwise the best frontier cell's probability, from plain solution
counts (unweighted, as published), is compared with the probability of a cell away from the
frontier; a guess away from the frontier prefers a corner, then an edge, then any other cell.

Reproduces the open-source Rust solver of REFERENCES.md (91.05 / 75.68 / 32.51% on Beginner /
Intermediate / Expert with a safe first click in the corner).
"""

from __future__ import annotations

import numba
import numpy as np
from pydantic import Field

from engine import Action, FirstClick, Observation
from players.api import Player
from players.rules import certain_actions
from players.solver import DEFAULT_PARALLEL_THRESHOLD, analyze

__all__ = ["EnumerationPlayer", "position_preference"]


def position_preference(cells: list[tuple[int, int]], height: int, width: int) -> list[tuple[int, int]]:
    """The corners among ``cells`` if any, else the edge cells, else all of them."""
    corners = [(r, c) for r, c in cells if r in (0, height - 1) and c in (0, width - 1)]
    if corners:
        return corners
    edges = [(r, c) for r, c in cells if r in (0, height - 1) or c in (0, width - 1)]
    return edges or cells


class EnumerationPlayer(Player):
    """Exact enumeration of the frontier with unweighted solution counts; corner/edge guesses."""

    name = "enumeration"
    description = "full frontier enumeration (unweighted counts, as published), corner/edge guesses"

    class Options(Player.Options):
        #: Search large components on several threads: None = when numba has more than one
        #: thread (tournament workers are pinned to one, so cores are never oversubscribed).
        parallel: bool | None = None
        #: Components with at least this many cells are searched in parallel.
        parallel_threshold: int = Field(default=DEFAULT_PARALLEL_THRESHOLD, ge=1)

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        # The compiled single-cell rules first: they find most certain moves for a fraction of the
        # cost, and the position reached before any guess is the same whatever order safe cells
        # are opened in, so no decision changes.
        actions = certain_actions(observation)
        if actions:
            return actions
        parallel = self.options.parallel
        if parallel is None:
            parallel = numba.get_num_threads() > 1
        result = analyze(
            observation.grid,
            observation.mines,
            weighted=False,
            parallel=parallel,
            parallel_threshold=self.options.parallel_threshold,
        )
        actions = [Action.reveal(r, c) for r, c in result.safe] + [Action.flag(r, c) for r, c in result.mines]
        if actions:
            return actions
        return [Action.reveal(*self._guess(result, observation), guess=True)]

    def _guess(self, result, observation: Observation) -> tuple[int, int]:
        probabilities = result.probabilities
        frontier = [divmod(int(f), observation.width) for f in result.frontier.system.cells]
        frontier = [cell for cell in frontier if probabilities[cell] < 1.0]
        unconstrained = [divmod(int(f), observation.width) for f in result.frontier.unconstrained]
        best_frontier = min((probabilities[cell] for cell in frontier), default=np.inf)
        if unconstrained and result.unconstrained_probability < best_frontier:
            choices = position_preference(unconstrained, observation.height, observation.width)
        else:
            choices = [cell for cell in frontier if probabilities[cell] == best_frontier]
        return choices[int(self.rng.integers(len(choices)))]
