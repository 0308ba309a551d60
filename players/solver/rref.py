"""Exact deduction: the single-row rules, and bound rules on a fraction-free integer reduced row
echelon form, so that every comparison is exact (docs/solver.md)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from numba import njit

from engine import numba_cache
from players.solver.errors import InconsistentPositionError
from players.solver.frontier import ConstraintSystem, extract_frontier, split_components, substitute
from players.solver.ordering import cells_rows

__all__ = [
    "bound_rules",
    "deduce",
    "deduce_matrix",
    "propagate_trivial",
    "reduce_system",
    "rref",
]

#: Operands above this make the int64 kernel hand over to Python integers (|x*y| < 2**61).
_INT_LIMIT = 2**30


@njit(cache=True)
def _rref_inplace(a: np.ndarray, limit: int) -> int:
    """Fraction-free Gauss-Jordan on the augmented matrix ``a``: positive pivots, rows of gcd 1.
    Returns the rank, or -1 when an operand passed ``limit > 0`` (then redo with Python ints)."""
    rows, cols = a.shape
    rank = 0
    for col in range(cols - 1):
        if rank == rows:
            break
        piv = -1
        best = 0
        for i in range(rank, rows):
            v = abs(a[i, col])
            if v != 0 and (piv < 0 or v < best):
                piv = i
                best = v
                if v == 1:
                    break
        if piv < 0:
            continue
        if piv != rank:
            for j in range(cols):
                t = a[rank, j]
                a[rank, j] = a[piv, j]
                a[piv, j] = t
        if a[rank, col] < 0:
            for j in range(cols):
                a[rank, j] = -a[rank, j]
        p = a[rank, col]
        for i in range(rows):
            f = a[i, col]
            if i == rank or f == 0:
                continue
            g = math.gcd(p, abs(f))
            pm = p // g
            fm = f // g
            if limit > 0 and (pm > limit or abs(fm) > limit):
                return -1
            for j in range(cols):
                x = a[i, j]
                y = a[rank, j]
                if limit > 0 and (abs(x) > limit or abs(y) > limit):
                    return -1
                a[i, j] = x * pm - y * fm
            g = 0
            for j in range(cols):
                if a[i, j] != 0:
                    g = math.gcd(g, abs(a[i, j]))
            if g > 1:
                for j in range(cols):
                    a[i, j] = a[i, j] // g
        rank += 1
    return rank


def rref(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact RREF of ``a x = b``: the nonzero rows, each an integer multiple of the rational row
    (int64, or Python ints where int64 could overflow)."""
    m, n = a.shape
    exact_python = np.asarray(a).dtype == object or np.asarray(b).dtype == object
    aug = np.empty((m, n + 1), dtype=object if exact_python else np.int64)
    aug[:, :n] = a
    aug[:, n] = b
    rank = -1
    if not exact_python:
        work = aug.copy()
        rank = _rref_inplace(work, _INT_LIMIT)
    if rank < 0:
        work = aug.astype(object)
        rank = _rref_inplace.py_func(work, 0)
    if np.any(work[rank:, n] != 0):
        raise InconsistentPositionError("the numbers contradict each other (their equations have no solution)")
    return work[:rank, :n], work[:rank, n]


def bound_rules(r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(safe, mine)`` masks of the cells a row's bounds fix: a 0/1 row sums between its negative
    and its positive coefficients; at either end every cell is decided."""
    n = r.shape[1]
    safe = np.zeros(n, dtype=bool)
    mine = np.zeros(n, dtype=bool)
    if r.shape[0] == 0:
        return safe, mine
    positive = r > 0
    negative = r < 0
    pos = np.where(positive, r, 0).sum(axis=1)
    neg = np.where(negative, r, 0).sum(axis=1)
    if np.any((c > pos) | (c < neg)):
        raise InconsistentPositionError("a combination of the numbers needs more (or fewer) mines than its cells allow")
    top = (c == pos) & (pos != neg)
    bottom = (c == neg) & (pos != neg)
    mine |= (positive[top].any(axis=0)) | (negative[bottom].any(axis=0))
    safe |= (negative[top].any(axis=0)) | (positive[bottom].any(axis=0))
    if np.any(safe & mine):
        raise InconsistentPositionError("the numbers force a cell to be both safe and a mine")
    return safe, mine


def deduce_matrix(a: np.ndarray, b: np.ndarray, *, use_rref: bool = True) -> np.ndarray:
    """Per column 0 (safe), 1 (mine) or -1: bound rules on the rows and (``use_rref``) their RREF,
    substituting what they fix until nothing new appears."""
    n = a.shape[1]
    values = np.full(n, -1, dtype=np.int8)
    live = np.arange(n)
    a = np.asarray(a)
    b = np.asarray(b)
    while live.size:
        safe, mine = bound_rules(a, b)
        if use_rref and not (safe.any() or mine.any()):
            a, b = rref(a, b)
            safe, mine = bound_rules(a, b)
        if not (safe.any() or mine.any()):
            break
        values[live[safe]] = 0
        values[live[mine]] = 1
        b = b - a[:, mine].sum(axis=1)
        keep = ~(safe | mine)
        a = a[:, keep]
        live = live[keep]
        nonzero = np.any(a != 0, axis=1)
        if np.any(b[~nonzero] != 0):
            raise InconsistentPositionError("the deduced cells leave a number unsatisfiable")
        a, b = a[nonzero], b[nonzero]
    return values


@njit(cache=True)
def _propagate(constraints: np.ndarray, rhs: np.ndarray, values: np.ndarray) -> int:
    """Single-row rules to a fixed point, in place on ``values``; -1, or the index of a broken row.
    A row is examined again when one of its cells gets a value."""
    m, width = constraints.shape
    n = values.shape[0]
    cell_rows, deg, _ = cells_rows(constraints, n)
    queue = np.empty(m + n * width, np.int64)
    queued = np.ones(m, np.bool_)
    for i in range(m):
        queue[i] = i
    head, tail = 0, m
    while head < tail:
        i = queue[head]
        head += 1
        queued[i] = False
        unknown = 0
        residual = rhs[i]
        for t in range(width):
            x = constraints[i, t]
            if x < 0:
                break
            if values[x] < 0:
                unknown += 1
            else:
                residual -= values[x]
        if residual < 0 or residual > unknown:
            return i
        if unknown == 0 or (residual != 0 and residual != unknown):
            continue
        value = 0 if residual == 0 else 1
        for t in range(width):
            x = constraints[i, t]
            if x < 0:
                break
            if values[x] < 0:
                values[x] = value
                for u in range(deg[x]):
                    j = cell_rows[x, u]
                    if not queued[j]:
                        queued[j] = True
                        queue[tail] = j
                        tail += 1
    return -1


def propagate_trivial(system: ConstraintSystem, values: np.ndarray | None = None) -> np.ndarray:
    """The single-row rules to a fixed point from ``values`` (0, 1, -1 per cell): per cell 0, 1 or -1."""
    values = np.full(system.n_cells, -1, dtype=np.int8) if values is None else np.array(values, dtype=np.int8)
    broken = _propagate(system.constraints, system.rhs, values)
    if broken >= 0:
        r, c = divmod(int(system.sources[broken]), system.shape[1])
        raise InconsistentPositionError(f"the number at ({r}, {c}) cannot be satisfied by the cells the others force")
    return values


def reduce_system(
    system: ConstraintSystem, *, use_rref: bool = True, rref_min_cells: int = 0
) -> tuple[np.ndarray, list[ConstraintSystem]]:
    """Per cell 0 (safe), 1 (mine) or -1, and the components of the undetermined cells: the trivial
    rules, then RREF on components of ``rref_min_cells`` cells or more, until nothing new."""
    values = propagate_trivial(system)
    while True:
        rest = substitute(system, values) if (values >= 0).any() else system
        pieces = split_components(rest)
        if not use_rref:
            return values, pieces
        rest_idx = np.flatnonzero(values == -1)
        found = False
        for piece in pieces:
            if piece.n_cells < rref_min_cells or piece.n_constraints < 2:
                continue
            piece_values = deduce_matrix(piece.matrix(), piece.rhs)
            hit = piece_values >= 0
            if hit.any():
                found = True
                idx = rest_idx[np.searchsorted(rest.cells, piece.cells)]
                values[idx[hit]] = piece_values[hit]
        if not found:
            return values, pieces
        # The new cells may make other rows trivially tight.
        values = propagate_trivial(system, values)


def deduce(grid: np.ndarray, mines: int | None = None) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Certain cells of an observation grid, ``(safe, mines)`` sorted; with ``mines`` the global
    count joins as one more row over every covered unflagged cell."""
    frontier = extract_frontier(grid, mines)
    system = frontier.system
    width = frontier.shape[1]
    if mines is None or frontier.n_unconstrained + system.n_cells == 0:
        values = reduce_system(system)[0]
        cells = system.cells
    else:
        n = system.n_cells + frontier.n_unconstrained
        a = np.zeros((system.n_constraints + 1, n), dtype=np.int64)
        a[: system.n_constraints, : system.n_cells] = system.matrix()
        a[-1, :] = 1
        b = np.concatenate((system.rhs, [frontier.mines_left])).astype(np.int64)
        values = deduce_matrix(a, b)
        cells = np.concatenate((system.cells, frontier.unconstrained))
    safe = sorted(divmod(int(f), width) for f in cells[values == 0])
    mine = sorted(divmod(int(f), width) for f in cells[values == 1])
    return safe, mine


numba_cache.stamp_dependencies(sys.modules[__name__], [Path(__file__).with_name("ordering.py")])
