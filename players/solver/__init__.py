"""Solver library shared by the constraint players: exact mine probabilities of a position::

    from players.solver import analyze
    result = analyze(observation.grid, observation.mines)
    result.safe, result.mines, result.probabilities

The stages (``frontier``, ``rref``, ``enumeration``, ``weighting``) are public too: docs/solver.md.
"""

from __future__ import annotations

from players.solver.analysis import Analysis, analyze
from players.solver.enumeration import DEFAULT_PARALLEL_THRESHOLD, ComponentCounts, count_component
from players.solver.errors import InconsistentPositionError, SolverError, TooComplexError
from players.solver.frontier import ConstraintSystem, extract_frontier, split_components, substitute
from players.solver.rref import deduce, deduce_matrix, rref
from players.solver.weighting import weigh

__all__ = [
    "DEFAULT_PARALLEL_THRESHOLD",
    "Analysis",
    "ComponentCounts",
    "ConstraintSystem",
    "InconsistentPositionError",
    "SolverError",
    "TooComplexError",
    "analyze",
    "count_component",
    "deduce",
    "deduce_matrix",
    "extract_frontier",
    "rref",
    "split_components",
    "substitute",
    "weigh",
]
