"""Solver library shared by the constraint players: frontier, components, exact RREF deduction,
exact enumeration and mine probabilities weighted by the global mine count.

Typical use::

    from players.solver import analyze
    result = analyze(observation.grid, observation.mines)
    result.safe          # certainly safe cells, [(row, col), ...]
    result.best_guesses()  # otherwise the least likely mines

``analyze`` takes typical positions through a compiled fast path (``players.solver.fast``) and
everything else through ``players.solver.analysis.analyze_general``; both give identical results.

Lower layers are public too, for players that need only part of the pipeline: ``extract_frontier``
and ``split_components`` (max-single-constraint, mean-constraint), ``deduce`` (RREF-only),
``count_component`` and ``weigh`` (custom enumeration players).
"""

from __future__ import annotations

from players.solver.analysis import DEFAULT_RREF_MIN_CELLS, Analysis, analyze
from players.solver.enumeration import (
    DEFAULT_NODE_LIMIT,
    DEFAULT_PARALLEL_THRESHOLD,
    EXACT_CELLS,
    MAX_CELLS,
    ComponentCounts,
    count_component,
)
from players.solver.errors import InconsistentPositionError, SolverError, TooComplexError
from players.solver.frontier import (
    MAX_ARITY,
    ConstraintSystem,
    Frontier,
    check_grid,
    extract_frontier,
    split_components,
    substitute,
)
from players.solver.rref import (
    bound_rules,
    deduce,
    deduce_matrix,
    deduce_system,
    propagate_trivial,
    reduce_system,
    rref,
)
from players.solver.weighting import Weighting, log_weights, weigh

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "DEFAULT_PARALLEL_THRESHOLD",
    "DEFAULT_RREF_MIN_CELLS",
    "EXACT_CELLS",
    "MAX_ARITY",
    "MAX_CELLS",
    "Analysis",
    "ComponentCounts",
    "ConstraintSystem",
    "Frontier",
    "InconsistentPositionError",
    "SolverError",
    "TooComplexError",
    "Weighting",
    "analyze",
    "bound_rules",
    "check_grid",
    "count_component",
    "deduce",
    "deduce_matrix",
    "deduce_system",
    "extract_frontier",
    "log_weights",
    "propagate_trivial",
    "reduce_system",
    "rref",
    "split_components",
    "substitute",
    "weigh",
]
