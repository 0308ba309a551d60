"""Exact enumeration of one component's solutions by mine count, in compiled backtracking; the
search, its lanes, limits and number types: docs/solver.md."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from players.solver.errors import TooComplexError
from players.solver.frontier import MAX_ARITY, ConstraintSystem
from players.solver.ordering import prepare_search

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "DEFAULT_PARALLEL_THRESHOLD",
    "EXACT_CELLS",
    "LANES",
    "MAX_CELLS",
    "ComponentCounts",
    "count_component",
]

#: Largest component counted in exact int64: max_k C(66, k) = C(66, 33) < 2**63 <= C(67, 33).
EXACT_CELLS = 66
#: Largest component counted at all: float64 holds 2**1020 (every count is at most 2**cells).
MAX_CELLS = 1020
#: Search nodes after which ``count_component`` gives up (minutes of one core: absurd positions only).
DEFAULT_NODE_LIMIT = 4_000_000_000
#: Search nodes a component may take serially before it is split into lanes.
DEFAULT_PARALLEL_THRESHOLD = 200_000
#: Lanes of the split search; fixed so that serial and parallel runs add up identically.
LANES = 16
#: Prefixes (subtrees) to aim for when splitting: many per lane, for load balance.
_PREFIX_TARGET = 16 * LANES


def _binomials(dtype: type) -> np.ndarray:
    table = np.zeros((MAX_ARITY + 1, MAX_ARITY + 1), dtype=dtype)
    for s in range(MAX_ARITY + 1):
        table[s, 0] = 1
        for m in range(1, s + 1):
            table[s, m] = table[s - 1, m - 1] + (table[s - 1, m] if m <= s - 1 else 0)
    return table


_BINOM_INT = _binomials(np.int64)
_BINOM_INT.flags.writeable = False  # as compiled code sees a global: one compiled type for both
_BINOM_FLOAT = _binomials(np.float64)


@dataclass(frozen=True, slots=True)
class ComponentCounts:
    """By mine count ``k``: ``totals[k]`` solutions, ``mine_counts[k, j]`` of them with cell ``j`` a
    mine, ``support[k, j]`` bit 1 if ``j`` is a mine in some, bit 2 if safe in some. int64 when
    ``exact``, else float64; ``nodes`` is the search effort."""

    system: ConstraintSystem
    totals: np.ndarray
    mine_counts: np.ndarray
    support: np.ndarray
    exact: bool
    nodes: int

    @property
    def cells(self) -> np.ndarray:
        return self.system.cells


@njit(cache=True)
def _bounds(
    d: int, s: int, var_ptr: np.ndarray, var_cons: np.ndarray, need: np.ndarray, cap: np.ndarray, rest: int
) -> tuple[int, int]:
    """Mines variable ``d`` (capacity ``s``) may take so that each of its rows stays satisfiable."""
    lo = 0
    hi = s if s < rest else rest
    for t in range(var_ptr[d], var_ptr[d + 1]):
        c = var_cons[t]
        if need[c] < hi:
            hi = need[c]
        low = need[c] - (cap[c] - s)
        if low > lo:
            lo = low
    return lo, hi


@njit(cache=True)
def _search(
    sizes: np.ndarray,
    var_ptr: np.ndarray,
    var_cons: np.ndarray,
    need0: np.ndarray,
    cap0: np.ndarray,
    binom: np.ndarray,
    prefix: np.ndarray,
    max_k: int,
    total: np.ndarray,
    counts: np.ndarray,
    support: np.ndarray,
    track: bool,
    limit: int,
) -> int:
    """Depth-first search below ``prefix`` (the mines of the first variables), adding every
    solution to ``total[k]`` and ``counts[k, var]``, credited to every variable at its leaf.
    Returns the nodes visited, or -1 past ``limit``."""
    nv = sizes.shape[0]
    work = np.empty(3 * nv + 2, np.int64)
    weight = np.empty(nv + 1, total.dtype)
    return _search_into(sizes, var_ptr, var_cons, need0.copy(), cap0.copy(), binom, prefix, max_k, total, counts,
                        support, track, limit, work, weight)  # fmt: skip


@njit(cache=True)
def _search_into(
    sizes: np.ndarray,
    var_ptr: np.ndarray,
    var_cons: np.ndarray,
    need: np.ndarray,
    cap: np.ndarray,
    binom: np.ndarray,
    prefix: np.ndarray,
    max_k: int,
    total: np.ndarray,
    counts: np.ndarray,
    support: np.ndarray,
    track: bool,
    limit: int,
    work: np.ndarray,
    weight: np.ndarray,
) -> int:
    """``_search`` on the caller's arrays: ``need`` and ``cap`` (the rows' mines and cells, used up),
    ``work`` (int64, ``3 nv + 2`` words at least) and ``weight`` (``nv + 1`` of ``total``'s type)."""
    nv = sizes.shape[0]
    m = work[:nv]
    hi = work[nv : 2 * nv]
    mines = work[2 * nv : 3 * nv + 1]
    m[:] = 0
    hi[:] = 0
    mines[:] = 0
    weight[0] = 1
    start = prefix.shape[0]
    for d in range(start):
        v = prefix[d]
        s = sizes[d]
        m[d] = v
        for t in range(var_ptr[d], var_ptr[d + 1]):
            need[var_cons[t]] -= v
            cap[var_cons[t]] -= s
        weight[d + 1] = weight[d] * binom[s, v]
        mines[d + 1] = mines[d] + v
    nodes = 0
    d = start
    descend = True
    while True:
        if descend:
            nodes += 1
            if nodes > limit:
                return -1
            if d == nv:
                k = mines[nv]
                w = weight[nv]
                total[k] += w
                for v in range(nv):
                    mv = m[v]
                    s = sizes[v]
                    if mv > 0:
                        if s == 1:
                            counts[k, v] += w
                        else:
                            # Every solution here carries C(s, mv); per cell it is C(s-1, mv-1).
                            counts[k, v] += (w // binom[s, mv]) * binom[s - 1, mv - 1]
                    if track:
                        if mv > 0:
                            support[k, v] |= 1
                        if mv < s:
                            support[k, v] |= 2
                descend = False
                d -= 1
                if d < start:
                    break
                continue
            s = sizes[d]
            lo, h = _bounds(d, s, var_ptr, var_cons, need, cap, max_k - mines[d])
            if lo > h:
                descend = False
                d -= 1
                if d < start:
                    break
                continue
            m[d] = lo
            hi[d] = h
            for t in range(var_ptr[d], var_ptr[d + 1]):
                need[var_cons[t]] -= lo
                cap[var_cons[t]] -= s
            weight[d + 1] = weight[d] * binom[s, lo]
            mines[d + 1] = mines[d] + lo
            d += 1
        else:
            v = m[d]
            s = sizes[d]
            if v < hi[d]:
                for t in range(var_ptr[d], var_ptr[d + 1]):
                    need[var_cons[t]] -= 1
                m[d] = v + 1
                weight[d + 1] = weight[d] * binom[s, v + 1]
                mines[d + 1] = mines[d] + v + 1
                d += 1
                descend = True
            else:
                for t in range(var_ptr[d], var_ptr[d + 1]):
                    need[var_cons[t]] += v
                    cap[var_cons[t]] += s
                d -= 1
                if d < start:
                    break
    return nodes


@njit(cache=True)
def _expand(problem: tuple, max_k: int, target: int) -> np.ndarray:
    """Feasible assignments of the first variables of ``problem`` (``_search``'s first six
    arguments), level by level, until there are ``target`` of them: the roots of the lanes' subtrees."""
    sizes, var_ptr, var_cons, need0, cap0, _ = problem
    nv = sizes.shape[0]
    current = np.zeros((1, 0), np.int64)
    depth = np.int64(0)
    while depth < nv and 0 < current.shape[0] < target:
        s = sizes[depth]
        out = np.empty((current.shape[0] * (s + 1), depth + 1), np.int64)
        count = 0
        for p in range(current.shape[0]):
            need = need0.copy()
            cap = cap0.copy()
            mines = 0
            for d in range(depth):
                v = current[p, d]
                for t in range(var_ptr[d], var_ptr[d + 1]):
                    need[var_cons[t]] -= v
                    cap[var_cons[t]] -= sizes[d]
                mines += v
            lo, hi = _bounds(depth, s, var_ptr, var_cons, need, cap, max_k - mines)
            for v in range(lo, hi + 1):
                out[count, :depth] = current[p]
                out[count, depth] = v
                count += 1
        current = out[:count]
        depth += 1
    return current


@njit(cache=True)
def _lane(
    problem: tuple, prefixes: np.ndarray, lane: int, lanes: int, max_k: int, found: tuple, track: bool, limit: int
) -> int:
    """Search the subtrees ``lane, lane + lanes, ...`` into one lane's arrays ``found`` (total,
    counts, support); nodes or -1."""
    sizes, var_ptr, var_cons, need0, cap0, binom = problem
    total, counts, support = found
    used = 0
    for i in range(lane, prefixes.shape[0], lanes):
        prefix = prefixes[i]
        r = _search(
            sizes, var_ptr, var_cons, need0, cap0, binom, prefix, max_k, total, counts, support, track, limit - used
        )
        if r < 0:
            return -1
        used += r
    return used


@njit(cache=True, parallel=True)
def _lanes_parallel(
    problem: tuple, prefixes: np.ndarray, max_k: int, found: tuple, track: bool, limit: int, nodes: np.ndarray
) -> None:
    totals, counts, support = found
    lanes = totals.shape[0]
    for lane in prange(lanes):
        nodes[lane] = _lane(
            problem, prefixes, lane, lanes, max_k, (totals[lane], counts[lane], support[lane]), track, limit
        )


def count_component(
    system: ConstraintSystem,
    *,
    max_mines: int | None = None,
    parallel: bool = False,
    parallel_threshold: int = DEFAULT_PARALLEL_THRESHOLD,
    node_limit: int = DEFAULT_NODE_LIMIT,
    exact_cells: int = EXACT_CELLS,
) -> ComponentCounts:
    """The solutions of one component by mine count, up to ``max_mines`` (options as ``analyze``'s)."""
    n = system.n_cells
    if n > MAX_CELLS:
        raise TooComplexError(f"a component of {n} cells is beyond float64 counts (at most {MAX_CELLS} cells)")
    sizes, var_ptr, var_cons, cap, cell_var = prepare_search(system.constraints, system.rhs, n)
    exact = n <= exact_cells
    dtype = np.int64 if exact else np.float64
    binom = _BINOM_INT if exact else _BINOM_FLOAT
    max_k = n if max_mines is None else max(0, min(n, int(max_mines)))
    need = system.rhs.astype(np.int64)
    nv = sizes.shape[0]
    total = np.zeros(n + 1, dtype)
    counts = np.zeros((n + 1, nv), dtype)
    support = np.zeros((n + 1, nv), np.uint8)
    track = not exact
    probe = min(parallel_threshold, node_limit)
    problem = (sizes, var_ptr, var_cons, need, cap, binom)
    nodes = _search(*problem, np.zeros(0, np.int64), max_k, total, counts, support, track, probe)
    if nodes < 0:
        if probe >= node_limit:
            raise TooComplexError(f"a component of {n} cells needs more than {node_limit} search nodes")
        prefixes = _expand(problem, max_k, _PREFIX_TARGET)
        totals = np.zeros((LANES, n + 1), dtype)
        lane_counts = np.zeros((LANES, n + 1, nv), dtype)
        lane_support = np.zeros((LANES, n + 1, nv), np.uint8)
        lane_nodes = np.zeros(LANES, np.int64)
        limit = max(1, node_limit // LANES)
        if parallel:
            _lanes_parallel(problem, prefixes, max_k, (totals, lane_counts, lane_support), track, limit, lane_nodes)
        else:
            for lane in range(LANES):
                found = (totals[lane], lane_counts[lane], lane_support[lane])
                lane_nodes[lane] = _lane(problem, prefixes, lane, LANES, max_k, found, track, limit)
        if np.any(lane_nodes < 0):
            raise TooComplexError(f"a component of {n} cells needs more than {node_limit} search nodes")
        nodes = probe + int(lane_nodes.sum())
        total = totals[0].copy()
        counts = lane_counts[0].copy()
        for lane in range(1, LANES):
            total += totals[lane]
            counts += lane_counts[lane]
        support = np.bitwise_or.reduce(lane_support, axis=0)
    mine_counts = counts[:, cell_var]
    if exact:
        cell_support = (mine_counts > 0).astype(np.uint8) | (2 * (mine_counts < total[:, None])).astype(np.uint8)
    else:
        cell_support = support[:, cell_var]
    return ComponentCounts(system, total, mine_counts, cell_support, exact, int(nodes))
