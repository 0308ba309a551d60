"""`enumeration`: the published "full enumeration" solver: certain cells from unweighted solution
counts of the frontier, else the least likely cell, a corner or edge first away from the frontier.

``play`` is the reference of ``players.builtin.enumeration_compiled`` (``play_compiled``).
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np

from engine import COVERED, Action, Actions, BoardSpec, FirstClick, Observation
from engine.compiled_game import CompiledGame
from engine.layout import name_key
from players.api import Player
from players.builtin.common import ThreadingOptions, guess_candidates, warm_up_grid
from players.builtin.enumeration_compiled import play_boards, play_whole_game
from players.deduction import certain_cells
from players.solver import Analysis, analyze

__all__ = ["EnumerationPlayer"]


@functools.cache
def _load_kernels() -> None:
    """Load every kernel a game may need at the first ``reset``: the arena's warm-up game may
    never reach the solver, and the first real game must not be billed for it."""
    grid = warm_up_grid()
    certain_cells(grid)
    result = analyze(grid, 2, weighted=False)
    frontier = result.frontier
    guess_candidates(result.probabilities.reshape(-1), frontier.system.cells, frontier.unconstrained, 0.5, 3, 3, False)


class EnumerationPlayer(Player):
    """Exact enumeration of the frontier with unweighted solution counts; corner/edge guesses."""

    name = "enumeration"
    description = "full frontier enumeration (unweighted counts, as published), corner/edge guesses"

    class Options(ThreadingOptions):
        #: The mine probability of a cell away from the frontier: ``expected`` over the counted
        #: solutions, or the Rust solver's ``density`` (mines left over all covered cells, ties
        #: going away from the frontier; docs/players.md).
        interior: Literal["expected", "density"] = "expected"
        #: ``joint``: combinations of component solutions whose mine total fits the mines left.
        #: ``rust``: the Rust solver's counting and guessing, each component alone under an upper
        #: bound (docs/players.md; ``interior`` is then ignored).
        counting: Literal["joint", "rust"] = "joint"

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        _load_kernels()

    def play(self, observation: Observation) -> Actions | list[Action]:
        grid = observation.grid
        first_move, safe, mines = certain_cells(grid)
        if first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        # The compiled single-cell rules first, for a fraction of the cost: the position reached
        # before any guess is the same whatever order safe cells are opened in.
        if safe.shape[1] or mines.shape[1]:
            return Actions.cells(safe, mines)
        result = analyze(grid, observation.mines, weighted=False, **self.options.threading())
        if self.options.counting == "rust":
            return self._play_rust(result, observation)
        if result.safe or result.mines:
            return Actions.cells(result.safe, result.mines)
        density = self.options.interior == "density"
        u = _density(observation) if density else result.unconstrained_probability
        frontier = result.frontier
        return self._guess(
            observation, result.probabilities.reshape(-1), frontier.system.cells, frontier.unconstrained, u, density
        )

    def play_compiled(self, game: CompiledGame, seed_words: np.ndarray, move_limit: int) -> bool:
        """The same games in compiled code (``players.builtin.enumeration_compiled``), for the
        default counting; a subclass or the reproduction options play move by move."""
        options = self.options
        if type(self) is not EnumerationPlayer or options.counting != "joint" or options.interior != "expected":
            return False
        return play_whole_game(game, seed_words, move_limit, options)

    def play_compiled_boards(
        self,
        game: CompiledGame,
        seed: int,
        boards: np.ndarray,
        move_limit: int,
        figures: np.ndarray,
        logs: np.ndarray,
        log_ends: np.ndarray,
    ) -> bool:
        """``play_compiled`` on many boards a call (``enumeration_compiled.play_boards``), when it would play."""
        options = self.options
        if type(self) is not EnumerationPlayer or options.counting != "joint" or options.interior != "expected":
            return False
        play_boards(game, seed, boards, name_key(self.name), move_limit, options, figures, logs, log_ends)
        return True

    def _play_rust(self, result: Analysis, observation: Observation) -> Actions | list[Action]:
        """The Rust solver's counting and guessing (see ``Options.counting``)."""
        width = observation.width
        flat = result.probabilities.reshape(-1)
        in_component = np.zeros(flat.size, dtype=bool)
        for comp in result.components:
            in_component[comp.cells] = True
        # Cells settled by the local deductions, before any counting, stay settled.
        settled = result.frontier.system.cells[~in_component[result.frontier.system.cells]]
        safe = [int(x) for x in settled if flat[x] == 0.0]
        mines = [int(x) for x in settled if flat[x] == 1.0]
        left = observation.mines - observation.flags
        lowest = [int(np.flatnonzero(comp.totals)[0]) for comp in result.components]
        p = np.full(flat.size, np.nan)
        for comp, low in zip(result.components, lowest, strict=True):
            kept = np.arange(comp.totals.shape[0]) + sum(lowest) - low <= left
            total = float(comp.totals[kept].sum())
            counts = comp.mine_counts[kept].sum(axis=0).astype(np.float64)
            p[comp.cells] = counts / total
            safe += [int(x) for x, n in zip(comp.cells, counts, strict=True) if n == 0]
        if safe or mines:
            return Actions.cells([divmod(x, width) for x in sorted(safe)], [divmod(x, width) for x in sorted(mines)])
        covered = np.flatnonzero(observation.grid.reshape(-1) == COVERED)
        away = result.frontier.unconstrained if result.frontier.unconstrained.size else covered
        # Settled cells are NaN in ``p``, so only the components' cells are candidates.
        return self._guess(observation, p, result.frontier.system.cells, away, _density(observation), True)

    def _guess(
        self, observation: Observation, p: np.ndarray, frontier: np.ndarray, away: np.ndarray, u: float, ties_away: bool
    ) -> list[Action]:
        """The least likely mine on the frontier, unless a cell away from it is less likely (then
        a corner, an edge or any such cell; see ``guess_candidates``); ties broken at random."""
        choices = guess_candidates(p, frontier, away, u, observation.height, observation.width, ties_away)
        cell = int(choices[int(self.rng.integers(len(choices)))])
        return [Action.reveal(*divmod(cell, observation.width), guess=True)]


def _density(observation: Observation) -> float:
    """Mines left over covered cells: the Rust solver's mine probability of a cell away from the frontier."""
    covered = int(np.count_nonzero(observation.grid == COVERED))
    return observation.mines_left / covered if covered else 1.0
