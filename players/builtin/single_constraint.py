"""Guessing from single constraints: the `max-single-constraint` and `mean-constraint` players.

After the two single-cell rules, each covered cell next to numbers gets a mine estimate from the
numbers that touch it: for a number, (mines it still needs) / (its covered, unflagged
neighbours). The `max` player takes the largest such ratio over the cell's numbers, the `mean`
player their average. Cells away from every number get the global density, mines left / covered
cells. The player reveals the cell with the lowest estimate (ties broken by the player's rng).

These are the heuristics of the C++ engine of "Writing a Stronger Minesweeper-Engine in C++"
(Baran Can Oener, 2020). The options set that engine's choices, for the reproduction in
``benchmarks/players_reproduction.py``; docs/players.md gives their measured effects.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import numpy as np
from numba import njit
from pydantic import NonNegativeInt

from engine import COVERED, Action, BoardSpec, FirstClick, Observation, numba_cache
from players import rules
from players.api import Player
from players.builtin.common import opening_cell, opening_move
from players.rules import certain_actions, known_actions, neighbour_counts, popcount, subset_closure

__all__ = ["MaxSingleConstraintPlayer", "MeanConstraintPlayer", "constraint_estimates"]

MODE_MAX, MODE_MEAN = 0, 1


@njit(cache=True)
def _estimates(grid, mode, out):
    """Fill ``out`` with each covered cell's estimate; NaN where no number touches it."""
    height, width = grid.shape
    undecided = np.zeros((height, width), np.int8)  # nothing deduced: only flags count as mines
    total = np.zeros((height, width))
    count = np.zeros((height, width), dtype=np.int64)
    for r in range(height):
        for c in range(width):
            if grid[r, c] <= 0:
                continue
            flags, mask = neighbour_counts(grid, undecided, r, c)
            if mask == 0:
                continue
            ratio = (grid[r, c] - flags) / popcount(mask)
            for b in range(9):
                if not (mask >> b) & 1:
                    continue
                rr = r - 1 + b // 3
                cc = c - 1 + b % 3
                if mode == MODE_MAX:
                    if count[rr, cc] == 0 or ratio > total[rr, cc]:
                        total[rr, cc] = ratio
                else:
                    total[rr, cc] += ratio
                count[rr, cc] += 1
    for r in range(height):
        for c in range(width):
            if count[r, c] == 0:
                out[r, c] = np.nan
            elif mode == MODE_MAX:
                out[r, c] = total[r, c]
            else:
                out[r, c] = total[r, c] / count[r, c]


@njit(cache=True)
def _max_over(constraints, out):
    """Fill ``out`` (NaN on entry) with each cell's largest ratio over ``constraints``, rows of
    (row, col, mask, mines) as ``players.rules.subset_closure`` returns them."""
    for k in range(constraints.shape[0]):
        row, col, mask, mines = constraints[k, 0], constraints[k, 1], constraints[k, 2], constraints[k, 3]
        ratio = mines / popcount(mask)
        for b in range(9):
            if (mask >> b) & 1:
                r = row + b // 3
                c = col + b % 3
                if np.isnan(out[r, c]) or ratio > out[r, c]:
                    out[r, c] = ratio


def constraint_estimates(
    observation: Observation,
    mode: str,
    *,
    constraints: np.ndarray | None = None,
    density_floor: bool = False,
) -> np.ndarray:
    """Mine estimates for covered cells (``inf`` elsewhere), by ``mode`` ``"max"`` or ``"mean"``.

    ``constraints`` (mode ``"max"`` only): take the ratios from these (row, col, mask, mines)
    rows, such as the numbers and the differences ``subset_closure`` derived, instead of from the
    numbers alone. ``density_floor``: no estimate below the density (the C++ engine starts every
    cell at the density and only raises it)."""
    grid = observation.grid
    out = np.empty(grid.shape)
    if constraints is not None and mode == "max":
        out.fill(np.nan)
        _max_over(constraints, out)
    else:
        _estimates(grid, MODE_MAX if mode == "max" else MODE_MEAN, out)
    covered = grid == COVERED
    density = max(observation.mines_left, 0) / max(int(covered.sum()), 1)
    out[np.isnan(out)] = density
    if density_floor:
        np.maximum(out, density, out=out)
    out[~covered] = np.inf
    return out


_kernels_loaded: set[str] = set()


def _load_kernels(subsets: bool) -> None:
    """Compile (or load from numba's cache) the estimate kernels once per process, at the first
    ``reset``: the arena's warm-up game may end without a guess, and the first real game must
    not be billed for it. (``subset_closure`` runs on every move, so the warm-up loads it.)"""
    if "estimates" not in _kernels_loaded:
        grid = np.full((3, 3), COVERED, dtype=np.int8)
        grid[0, 0] = 1
        grid.flags.writeable = False  # like an observation's grid: the same compiled signature
        _estimates(grid, MODE_MAX, np.empty((3, 3)))
        _kernels_loaded.add("estimates")
    if subsets and "max_over" not in _kernels_loaded:
        _max_over(np.array([[0, 0, 0b11, 1]], dtype=np.int64), np.full((3, 3), np.nan))
        _kernels_loaded.add("max_over")


class _SingleConstraintPlayer(Player):
    mode = "max"

    class Options(Player.Options):
        """Each default is the leaderboard's behaviour; the others are the C++ engine's choices
        (their measured effects: docs/players.md)."""

        #: After the single-cell rules, the subset rule to a fixed point (``players.rules``), the
        #: deduction all that engine's players share. The max player then takes its ratios from
        #: the derived constraints too, as that engine does from its sentences.
        subsets: bool = False
        #: How equal estimates are broken: ``"rng"``, uniformly by the player's generator;
        #: ``"scan"``, the first cell in the C++ engine's scan order (column by column from the
        #: left, each from the top).
        ties: Literal["rng", "scan"] = "rng"
        #: The first click under the ``opening`` rule (row, column); None: (3, 3), three in from
        #: the corner. The C++ engine clicks (0, 0).
        opening_cell: tuple[NonNegativeInt, NonNegativeInt] | None = None

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        _load_kernels(self.options.subsets)

    def first_click(self, observation: Observation) -> tuple[int, int]:
        return opening_cell(observation, self.options.opening_cell)

    def play(self, observation: Observation) -> list[Action]:
        if opening := opening_move(self, observation):
            return opening
        options = self.options
        constraints = None
        if options.subsets:
            known, constraints = subset_closure(observation.grid)
            actions = known_actions(known)
        else:
            actions = certain_actions(observation)
        if actions:
            return actions
        estimates = self.estimates(observation, constraints)
        if options.ties == "scan":
            cell = int(np.argmin(estimates.T.reshape(-1)))  # the first lowest, column by column
            row, col = cell % observation.height, cell // observation.height
        else:
            best = np.flatnonzero(estimates.reshape(-1) == estimates.min())
            cell = int(best[self.rng.integers(best.size)])
            row, col = cell // observation.width, cell % observation.width
        return [Action.reveal(row, col, guess=True)]

    def estimates(self, observation: Observation, constraints: np.ndarray | None) -> np.ndarray:
        return constraint_estimates(observation, self.mode)


class MaxSingleConstraintPlayer(_SingleConstraintPlayer):
    """Single-cell rules, then the cell whose most pessimistic single constraint is lowest."""

    name = "max-single-constraint"
    description = "single-cell rules; guess the cell whose largest single-number mine ratio is lowest"
    mode = "max"

    class Options(_SingleConstraintPlayer.Options):
        #: The C++ engine's estimate: every covered cell starts at the density (mines left /
        #: covered cells) and is raised to the ratio of any constraint over it that is larger,
        #: so no estimate is below the density and a cell next to a low ratio is no better than
        #: any other.
        density_floor: bool = False

    def estimates(self, observation: Observation, constraints: np.ndarray | None) -> np.ndarray:
        return constraint_estimates(
            observation, self.mode, constraints=constraints, density_floor=self.options.density_floor
        )


class MeanConstraintPlayer(_SingleConstraintPlayer):
    """Single-cell rules, then the cell whose average single-number mine ratio is lowest."""

    name = "mean-constraint"
    description = "single-cell rules; guess the cell whose mean single-number mine ratio is lowest"
    mode = "mean"


numba_cache.stamp_dependencies(sys.modules[__name__], [Path(rules.__file__), Path(__file__)])
