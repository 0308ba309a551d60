"""The solver's entry point: ``analyze(grid, mines)`` gives exact mine probabilities and certain cells.

Pipeline, each step chosen so that the expensive one (enumeration) sees as little as possible:

1. ``extract_frontier``: constrained cells, equations, unconstrained cells, mines left.
2. Deduction: trivial single-row rules on the whole frontier, then exact RREF bound rules on
   components of at least ``rref_min_cells`` cells. Determined cells leave the system, which
   often splits a long component into independent pieces (enumeration cost multiplies within a
   component but only adds across components). They are certain whatever the mine count.
3. ``count_component`` on each remaining component (numba backtracking, optionally parallel).
4. ``weigh``: log-space convolution over mine counts with the global weights ``C(U, M - k)``.

Determined mines lower the mines left before weighting. Certain cells come from exact integer
reasoning at every step, so ``Analysis.safe`` never holds a cell that is a mine in some layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from players.solver.enumeration import (
    DEFAULT_NODE_LIMIT,
    DEFAULT_PARALLEL_THRESHOLD,
    EXACT_CELLS,
    ComponentCounts,
    count_component,
)
from players.solver.errors import InconsistentPositionError
from players.solver.frontier import Frontier, extract_frontier
from players.solver.rref import reduce_system
from players.solver.weighting import weigh

__all__ = ["DEFAULT_RREF_MIN_CELLS", "Analysis", "analyze"]

#: Components smaller than this are enumerated directly: cheaper than reducing them first.
DEFAULT_RREF_MIN_CELLS = 24

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the solver knows about a position.

    ``probabilities`` is a float64 (height, width) array: the probability that each covered
    unflagged cell is a mine (exactly 0.0 / 1.0 for certain cells), 1.0 on flags (trusted),
    NaN on revealed cells. ``safe`` and ``mines`` list the certain covered unflagged cells, sorted.
    ``log_weight`` is the natural log of the number of layouts consistent with the position
    (weighted mode) or of frontier solutions whose mine total fits (unweighted mode).
    ``components`` holds the per-component counts for players that want more than marginals
    (cells determined by deduction are not in them); ``frontier_mines[k]`` is the probability that
    those components hold ``k`` mines together. ``nodes`` is the enumeration effort.
    """

    probabilities: np.ndarray
    safe: list[Cell]
    mines: list[Cell]
    log_weight: float
    weighted: bool
    frontier: Frontier
    components: tuple[ComponentCounts, ...]
    unconstrained_probability: float
    frontier_mines: np.ndarray
    nodes: int

    @property
    def covered(self) -> np.ndarray:
        """Boolean (height, width) mask of the covered unflagged cells."""
        mask = np.zeros(self.probabilities.size, dtype=bool)
        mask[self.frontier.system.cells] = True
        mask[self.frontier.unconstrained] = True
        return mask.reshape(self.probabilities.shape)

    @property
    def min_probability(self) -> float:
        """The smallest mine probability over covered unflagged cells (NaN when there are none)."""
        p = self.probabilities[self.covered]
        return float(p.min()) if p.size else math.nan

    def probability(self, row: int, col: int) -> float:
        return float(self.probabilities[row, col])

    def best_guesses(self, tolerance: float = 0.0) -> list[Cell]:
        """Covered unflagged cells whose mine probability is within ``tolerance`` of the lowest,
        sorted: the candidates a player breaks ties among (by progress, information, position)."""
        mask = self.covered
        if not mask.any():
            return []
        p = self.probabilities
        best = p[mask].min()
        rows, cols = np.nonzero(mask & (p <= best + tolerance))
        return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True)]

    def ranked(self) -> list[tuple[float, Cell]]:
        """Every covered unflagged cell with its probability, safest first (ties by position)."""
        rows, cols = np.nonzero(self.covered)
        p = self.probabilities[rows, cols]
        order = np.lexsort((cols, rows, p))
        return [(float(p[i]), (int(rows[i]), int(cols[i]))) for i in order]


def analyze(
    grid: np.ndarray,
    mines: int,
    *,
    weighted: bool = True,
    use_rref: bool = True,
    rref_min_cells: int = DEFAULT_RREF_MIN_CELLS,
    parallel: bool = False,
    parallel_threshold: int = DEFAULT_PARALLEL_THRESHOLD,
    node_limit: int = DEFAULT_NODE_LIMIT,
    exact_cells: int = EXACT_CELLS,
) -> Analysis:
    """Exact mine probabilities of an observation grid with ``mines`` mines in total.

    ``weighted=False`` gives the unweighted probabilities of the published full-enumeration
    solver (frontier solutions counted alike; mine totals that cannot fit are dropped).
    The trivial single-row rules always run first; ``use_rref`` / ``rref_min_cells`` control the
    RREF deduction on large components before enumeration; ``parallel`` and
    ``parallel_threshold`` the threaded search of large components (results are identical either
    way); ``node_limit`` raises ``TooComplexError`` for absurd positions; ``exact_cells`` is the
    int64/float64 switch of the counts (tests only). Raises ``InconsistentPositionError`` when no
    layout fits the position.
    """
    frontier = extract_frontier(grid, int(mines))
    system = frontier.system
    height, width = frontier.shape
    values, pieces = reduce_system(system, use_rref=use_rref, rref_min_cells=rref_min_cells)
    mines_left = int(mines) - int(frontier.flags.shape[0]) - int((values == 1).sum())
    if mines_left < 0:
        raise InconsistentPositionError(f"the numbers need more mines than the {frontier.mines_left} left")
    components = tuple(
        count_component(
            piece,
            max_mines=mines_left,
            parallel=parallel,
            parallel_threshold=parallel_threshold,
            node_limit=node_limit,
            exact_cells=exact_cells,
        )
        for piece in pieces
    )
    result = weigh(components, frontier.n_unconstrained, mines_left, weighted=weighted)

    flat = np.full(height * width, np.nan)
    flat[frontier.flags] = 1.0
    safe_cells = [system.cells[values == 0]]
    mine_cells = [system.cells[values == 1]]
    flat[system.cells[values == 0]] = 0.0
    flat[system.cells[values == 1]] = 1.0
    for comp, p, s, m in zip(components, result.probabilities, result.safe, result.mine, strict=True):
        p = p.copy()
        p[s] = 0.0
        p[m] = 1.0
        flat[comp.cells] = p
        safe_cells.append(comp.cells[s])
        mine_cells.append(comp.cells[m])
    if frontier.n_unconstrained:
        u = result.unconstrained_probability
        if result.unconstrained_safe:
            u = 0.0
            safe_cells.append(frontier.unconstrained)
        elif result.unconstrained_mine:
            u = 1.0
            mine_cells.append(frontier.unconstrained)
        flat[frontier.unconstrained] = u

    def listed(parts: list[np.ndarray]) -> list[Cell]:
        cells = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        return [(int(f) // width, int(f) % width) for f in cells]

    return Analysis(
        probabilities=flat.reshape(height, width),
        safe=listed(safe_cells),
        mines=listed(mine_cells),
        log_weight=result.log_total,
        weighted=weighted,
        frontier=frontier,
        components=components,
        unconstrained_probability=float(flat[frontier.unconstrained[0]]) if frontier.n_unconstrained else math.nan,
        frontier_mines=result.frontier_mines,
        nodes=sum(c.nodes for c in components),
    )
