"""Guessing from single constraints: the `max-single-constraint` and `mean-constraint` players reveal
the cell whose largest (or mean) ratio, over the numbers touching it, of mines still needed to covered
neighbours is lowest (else the density): the C++ engine's heuristics (docs/players.md).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Literal

import numpy as np
from numba import njit

from engine import COVERED, Action, BoardSpec, FirstClick, Observation, numba_cache
from players import deduction
from players.builtin.common import CppEnginePlayer, opening_move, warm_up_grid
from players.deduction import certain_actions, known_actions, neighbour_counts, popcount, subset_closure

__all__ = ["MaxSingleConstraintPlayer", "MeanConstraintPlayer", "constraint_estimates"]

MODE_MAX, MODE_MEAN = 0, 1


@njit(cache=True)
def _number_rows(grid):
    """Each number with covered unflagged neighbours as a row (row, col, mask, mines it still
    needs), in board order: the form of ``players.deduction.subset_closure``'s constraints."""
    height, width = grid.shape
    undecided = np.zeros((height, width), np.int8)  # nothing deduced: only flags count as mines
    rows = np.empty((height * width, 4), np.int64)
    n = 0
    for r in range(height):
        for c in range(width):
            if grid[r, c] > 0:
                flags, mask = neighbour_counts(grid, undecided, r, c)
                if mask != 0:
                    rows[n, 0], rows[n, 1], rows[n, 2], rows[n, 3] = r - 1, c - 1, mask, grid[r, c] - flags
                    n += 1
    return rows[:n]


@njit(cache=True)
def _ratios(constraints, mode, out):
    """Fill ``out`` (NaN on entry) with each cell's largest (``MODE_MAX``) or mean ratio of mines to
    cells over the rows (row, col, mask, mines) that hold it."""
    count = np.zeros(out.shape, np.int64)
    for k in range(constraints.shape[0]):
        row, col, mask, mines = constraints[k, 0], constraints[k, 1], constraints[k, 2], constraints[k, 3]
        ratio = mines / popcount(mask)
        for b in range(9):
            if (mask >> b) & 1:
                r = row + b // 3
                c = col + b % 3
                if count[r, c] == 0 or (mode == MODE_MAX and ratio > out[r, c]):
                    out[r, c] = ratio
                elif mode == MODE_MEAN:
                    out[r, c] += ratio
                count[r, c] += 1
    if mode == MODE_MEAN:
        for r in range(out.shape[0]):
            for c in range(out.shape[1]):
                if count[r, c] > 0:
                    out[r, c] /= count[r, c]


def constraint_estimates(
    observation: Observation,
    mode: str,
    *,
    constraints: np.ndarray | None = None,
    density_floor: bool = False,
) -> np.ndarray:
    """Mine estimates of covered cells (``inf`` elsewhere) by ``mode`` ``"max"`` or ``"mean"``; with
    ``constraints`` (``"max"`` only) from those rows, such as ``subset_closure``'s, not the numbers
    alone; with ``density_floor``, none below the density."""
    grid = observation.grid
    if constraints is None or mode != "max":
        constraints = _number_rows(grid)
    out = np.full(grid.shape, np.nan)
    _ratios(constraints, MODE_MAX if mode == "max" else MODE_MEAN, out)
    covered = grid == COVERED
    density = max(observation.mines_left, 0) / max(int(covered.sum()), 1)
    out[np.isnan(out)] = density
    if density_floor:
        np.maximum(out, density, out=out)
    out[~covered] = np.inf
    return out


@functools.cache
def _load_kernels() -> None:
    """Load the estimate kernels at the first ``reset``: the arena's warm-up game may end without
    a guess, and the first real game must not be billed for them."""
    _ratios(_number_rows(warm_up_grid()), MODE_MAX, np.full((3, 3), np.nan))


class _SingleConstraintPlayer(CppEnginePlayer):
    mode = "max"

    class Options(CppEnginePlayer.Options):
        #: How equal estimates are broken: ``"rng"``, uniformly by the player's generator;
        #: ``"scan"``, the first cell in the C++ engine's scan order (column by column from the
        #: left, each from the top).
        ties: Literal["rng", "scan"] = "rng"

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        _load_kernels()

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
        # The max player takes its ratios from the subset rule's constraints too, as the C++
        # engine does from its sentences.
        floor = getattr(self.options, "density_floor", False)
        return constraint_estimates(observation, self.mode, constraints=constraints, density_floor=floor)


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


class MeanConstraintPlayer(_SingleConstraintPlayer):
    """Single-cell rules, then the cell whose average single-number mine ratio is lowest."""

    name = "mean-constraint"
    description = "single-cell rules; guess the cell whose mean single-number mine ratio is lowest"
    mode = "mean"


numba_cache.stamp_dependencies(sys.modules[__name__], [Path(deduction.__file__), Path(__file__)])
