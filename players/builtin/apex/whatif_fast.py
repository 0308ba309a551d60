"""Acceleration of ``Outlook.outcomes`` (``outlook.py``): a candidate's every what-if reveal in one
compiled call; held equal to it by ``tests/players/test_apex_fast.py``.

The reference spends nearly all of a lookahead's time in Python and numpy around tiny searches
(about 40 array operations per shown number, a median search of a few dozen nodes). This twin takes
the same steps in the same order on the same kernels: the involved components merged with the cell
set safe (``fast_system.substitute``), the new row appended, ``ordering.prepare_search`` and the
int64 ``enumeration._search``, then ``whatif.summarize`` (the untouched components' log counts and
forward pass once for every number, ``summarize_prefix``, then ``summarize_after``); only
``exp(log_total - log_weight)`` is left to Python (``math.exp``, as the reference). It declines (and
the reference runs) on a piece counted in float64 (over ``EXACT_CELLS`` cells) or a search past
``count_component``'s serial probe.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numba import njit

from engine import COVERED, FLAGGED, numba_cache
from players.builtin.apex.whatif import summarize_after, summarize_prefix
from players.solver import ComponentCounts
from players.solver.enumeration import _BINOM_INT, DEFAULT_PARALLEL_THRESHOLD, EXACT_CELLS, _search
from players.solver.fast_system import KERNEL_FILES, substitute
from players.solver.frontier import MAX_ARITY
from players.solver.ordering import prepare_search

__all__ = [
    "DECLINED",
    "INCONSISTENT",
    "OK",
    "SystemStore",
    "index_position",
    "outcomes",
    "shortlist",
    "unknown_neighbours",
]

#: ``outcomes``' status: values computed; the cell is a certain mine (no outcome); left to the reference.
OK, INCONSISTENT, DECLINED = 0, 1, 2


class SystemStore:
    """The components' constraint systems back to back: component ``k``'s cells from
    ``cell_ptr[k]``, its rows and right-hand sides from ``row_ptr[k]``."""

    def __init__(self, components: Sequence[ComponentCounts]) -> None:
        count = len(components)
        self.cell_ptr = np.zeros(count + 1, dtype=np.int64)
        self.row_ptr = np.zeros(count + 1, dtype=np.int64)
        self.cell_ptr[1:] = np.cumsum([c.system.n_cells for c in components])
        self.row_ptr[1:] = np.cumsum([c.system.n_constraints for c in components])
        self.cells = np.concatenate([np.zeros(0, np.int64), *(c.system.cells for c in components)]).astype(np.int64)
        self.rows = np.concatenate(
            [np.zeros((0, MAX_ARITY), np.int32), *(c.system.constraints for c in components)]
        ).astype(np.int32)
        self.rhs = np.concatenate([np.zeros(0, np.int64), *(c.system.rhs for c in components)]).astype(np.int64)


@njit(cache=True, error_model="numpy")
def outcomes(
    cell: int,
    height: int,
    width: int,
    comp_of: np.ndarray,
    unconstrained: np.ndarray,
    constant_mine: np.ndarray,
    n_unconstrained: int,
    mines_left: int,
    systems: tuple,
    store: tuple,
) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(status, base, valid, log_total, progress, best_safety)``: for each number ``base + i`` the
    candidate ``cell`` could show (``i`` up to its unknown neighbours), whether it can show and,
    if so, what ``Outlook._evaluate`` computes before its ``exp``. ``systems``: a ``SystemStore``'s
    ``(cell_ptr, cells, row_ptr, rows, rhs)``; ``store``: a ``ComponentStore``'s six arrays."""
    sys_cell_ptr, sys_cells, sys_row_ptr, sys_rows, sys_rhs = systems
    n_comp = sys_cell_ptr.shape[0] - 1
    r, c = cell // width, cell % width
    # outlook.neighbours' order (row-major), the known mines, the new number's cells.
    variables = np.empty(8, np.int64)
    nvar = 0
    base = 0
    free_used = 1 if unconstrained[cell] else 0
    involved_mask = np.zeros(n_comp, np.bool_)
    if comp_of[cell] >= 0:
        involved_mask[comp_of[cell]] = True
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            if rr == r and cc == c:
                continue
            x = rr * width + cc
            if constant_mine[x]:
                base += 1
            if comp_of[x] >= 0 or unconstrained[x]:
                variables[nvar] = x
                nvar += 1
                if unconstrained[x]:
                    free_used += 1
                if comp_of[x] >= 0:
                    involved_mask[comp_of[x]] = True
    n_free = n_unconstrained - free_used
    n_rest = 0
    for k in range(n_comp):
        if not involved_mask[k]:
            n_rest += 1
    rest = np.empty(n_rest, np.int64)
    n_rest = 0
    for k in range(n_comp):
        if not involved_mask[k]:
            rest[n_rest] = k
            n_rest += 1
    valid = np.zeros(nvar + 1, np.bool_)
    log_totals = np.full(nvar + 1, -np.inf)
    progress = np.zeros(nvar + 1, np.bool_)
    best = np.zeros(nvar + 1)

    # Outlook._merge: the involved components (ascending), the cell set safe in its own.
    local = np.full(height * width, -1, np.int64)
    for i in range(nvar):
        local[variables[i]] = 0
    n_rows = 0
    for k in range(n_comp):
        if involved_mask[k]:
            n_rows += sys_row_ptr[k + 1] - sys_row_ptr[k]
    part_rows = np.full((n_rows + 1, MAX_ARITY), -1, np.int32)  # board cells for now; one spare row
    rhs = np.zeros(n_rows + 1, np.int64)
    m = 0
    for k in range(n_comp):
        if not involved_mask[k]:
            continue
        c0, c1 = sys_cell_ptr[k], sys_cell_ptr[k + 1]
        r0, r1 = sys_row_ptr[k], sys_row_ptr[k + 1]
        cells_k = sys_cells[c0:c1]
        rows_k = sys_rows[r0:r1]
        rhs_k = sys_rhs[r0:r1]
        if comp_of[cell] == k:
            values = np.full(c1 - c0, -1, np.int8)
            for j in range(c1 - c0):
                if cells_k[j] == cell:
                    values[j] = 0
            ok, rows_k, rhs_k, _, keep = substitute(rows_k, rhs_k, np.zeros(r1 - r0, np.int64), values)
            if not ok:
                return INCONSISTENT, base, valid, log_totals, progress, best
            cells_k = cells_k[keep]
        for j in range(cells_k.shape[0]):
            local[cells_k[j]] = 0
        for i in range(rows_k.shape[0]):
            for t in range(MAX_ARITY):
                x = rows_k[i, t]
                if x < 0:
                    break
                part_rows[m, t] = cells_k[x]
            rhs[m] = rhs_k[i]
            m += 1
    n = 0
    for x in range(height * width):
        if local[x] >= 0:
            local[x] = n
            n += 1
    if n > EXACT_CELLS:
        return DECLINED, base, valid, log_totals, progress, best
    cells = np.empty(n, np.int64)
    for x in range(height * width):
        if local[x] >= 0:
            cells[local[x]] = x
    for i in range(m):
        for t in range(MAX_ARITY):
            x = part_rows[i, t]
            if x < 0:
                break
            part_rows[i, t] = local[x]
    new_row = np.full(MAX_ARITY, -1, np.int32)
    for i in range(nvar):
        new_row[i] = local[variables[i]]
    fixed = -1
    if nvar > 0:
        for i in range(m):
            same = True
            for t in range(MAX_ARITY):
                if part_rows[i, t] != new_row[t]:
                    same = False
                    break
            if same:
                fixed = rhs[i]
                break
    with_row = nvar > 0 and fixed < 0
    if with_row:
        part_rows[m] = new_row
    rows = part_rows[: m + 1] if with_row else part_rows[:m]
    need = rhs[: m + 1] if with_row else rhs[:m]

    # Outlook._evaluate for each number.
    n_, total_ptr, cell_ptr, totals, mine_counts, support = store
    no_prefix = np.zeros(0, np.int64)
    track = np.bool_(False)
    # The search's variables and order depend on the rows, not on their counts: once for every number.
    if n > 0:
        sizes, var_ptr, var_cons, cap, cell_var = prepare_search(rows, need, n)
    else:
        sizes = var_ptr = var_cons = cap = cell_var = no_prefix
    nv = sizes.shape[0]
    # The untouched components are the same for every number: their log counts and forward pass once.
    prefix = summarize_prefix(total_ptr, totals, rest)
    for i in range(nvar + 1):
        if fixed >= 0 and i != fixed:
            continue
        if n > 0:
            if with_row:
                need[m] = i
            total = np.zeros(n + 1, np.int64)
            counts = np.zeros((n + 1, nv), np.int64)
            found = np.zeros((n + 1, nv), np.uint8)
            max_k = max(0, min(n, mines_left))
            used = _search(
                sizes, var_ptr, var_cons, need.copy(), cap, _BINOM_INT, no_prefix, max_k, total, counts, found,
                track, np.int64(DEFAULT_PARALLEL_THRESHOLD),
            )  # fmt: skip
            if used < 0:
                return DECLINED, base, valid, log_totals, progress, best
            e_totals = np.empty(n + 1)
            e_counts = np.empty((n + 1, n))
            e_support = np.empty((n + 1, n), np.uint8)
            for a in range(n + 1):
                e_totals[a] = float(total[a])
                for j in range(n):
                    v = counts[a, cell_var[j]]
                    e_counts[a, j] = float(v)
                    e_support[a, j] = (1 if v > 0 else 0) | (2 if v < total[a] else 0)
            has_extra = True
        else:
            e_totals = np.zeros(1)
            e_counts = np.zeros((1, 0))
            e_support = np.zeros((1, 0), np.uint8)
            has_extra = False
        ok, log_total, prog, safety = summarize_after(
            prefix, n_, total_ptr, cell_ptr, totals, mine_counts, support, rest, e_totals, e_counts, e_support,
            has_extra, n_free, mines_left,
        )  # fmt: skip
        if ok:
            valid[i] = True
            log_totals[i] = log_total
            progress[i] = prog
            best[i] = safety
    return OK, base, valid, log_totals, progress, best


@njit(cache=True)
def unknown_neighbours(unknown: np.ndarray, height: int, width: int) -> np.ndarray:
    """``player._unknown_neighbours`` (numpy, the reference) in one pass: per flat cell, how many
    of its neighbours are ``unknown``."""
    out = np.zeros(height * width, np.int64)
    for r in range(height):
        for c in range(width):
            total = 0
            for rr in range(max(r - 1, 0), min(r + 2, height)):
                for cc in range(max(c - 1, 0), min(c + 2, width)):
                    if (rr != r or cc != c) and unknown[rr * width + cc]:
                        total += 1
            out[r * width + c] = total
    return out


@njit(cache=True)
def shortlist(
    p: np.ndarray,
    covered: np.ndarray,
    constant_mine: np.ndarray,
    comp_of: np.ndarray,
    unconstrained: np.ndarray,
    height: int,
    width: int,
    tolerance: float,
    off_frontier: int,
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """``ApexPlayer.candidates``' numpy steps in one pass: ``(ok, frontier, away, counts)``, the
    near-safest frontier cells (ascending), the first ``off_frontier`` near-safest cells away from
    the numbers by (unknown neighbours, cell), and every cell's unknown neighbours; ``ok`` false
    when no covered cell may be safe (the caller's numpy raises as before)."""
    n = p.shape[0]
    live = np.zeros(n, np.bool_)
    best = np.inf
    found = False
    for x in range(n):
        if covered[x] and p[x] < 1.0:
            live[x] = True
            if not found or p[x] < best:
                best = p[x]
                found = True
    counts = np.zeros(n, np.int64)
    if not found:
        return False, counts[:0], counts[:0], counts
    limit = 1.0 - (1.0 - best) * (1.0 - tolerance) + 1e-12
    for r in range(height):
        for c in range(width):
            total = 0
            for rr in range(max(r - 1, 0), min(r + 2, height)):
                for cc in range(max(c - 1, 0), min(c + 2, width)):
                    x = rr * width + cc
                    if (rr != r or cc != c) and live[x] and not constant_mine[x]:
                        total += 1
            counts[r * width + c] = total
    frontier = np.empty(n, np.int64)
    n_front = 0
    away = np.empty(max(off_frontier, 0), np.int64)
    n_away = 0
    for x in range(n):
        if not live[x] or not p[x] <= limit:
            continue
        if comp_of[x] >= 0:
            frontier[n_front] = x
            n_front += 1
        if unconstrained[x] and off_frontier > 0:
            # Keep the off_frontier smallest (count, cell): cells come ascending, so a tie stays behind.
            at = n_away
            while at > 0 and counts[away[at - 1]] > counts[x]:
                at -= 1
            if at < off_frontier:
                for j in range(min(n_away, off_frontier - 1), at, -1):
                    away[j] = away[j - 1]
                away[at] = x
                n_away = min(n_away + 1, off_frontier)
    return True, frontier[:n_front], away[:n_away], counts


_COVERED, _FLAGGED = int(COVERED), int(FLAGGED)


@njit(cache=True)
def index_position(
    flat: np.ndarray,
    probabilities: np.ndarray,
    starts: np.ndarray,
    comp_cells: np.ndarray,
    unconstrained_cells: np.ndarray,
    frontier_cells: np.ndarray,
    mines: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """``Outlook._index`` (numpy, the reference) in one pass: ``(comp_of, unconstrained,
    constant_mine, covered, mines_left)`` of a position whose components' cells are back to back
    (``comp_cells``, component ``k``'s from ``starts[k]``)."""
    n = flat.shape[0]
    comp_of = np.full(n, -1, np.int64)
    for k in range(starts.shape[0] - 1):
        for j in range(starts[k], starts[k + 1]):
            comp_of[comp_cells[j]] = k
    unconstrained = np.zeros(n, np.bool_)
    for x in unconstrained_cells:
        unconstrained[x] = True
    constant_mine = np.empty(n, np.bool_)
    covered = np.empty(n, np.bool_)
    for x in range(n):
        constant_mine[x] = flat[x] == _FLAGGED
        covered[x] = flat[x] == _COVERED
    for x in frontier_cells:  # deduced mines: frontier cells left out of the components, certain
        if comp_of[x] < 0 and probabilities[x] == 1.0:
            constant_mine[x] = True
    mines_left = mines
    for x in range(n):
        if constant_mine[x]:
            mines_left -= 1
    return comp_of, unconstrained, constant_mine, covered, mines_left


numba_cache.stamp_dependencies(
    sys.modules[__name__],
    [
        *(Path(sys.modules["players.solver.fast_system"].__file__).with_name(name) for name in KERNEL_FILES),
        Path(__file__).with_name("whatif.py"),
        Path(__file__),
    ],
)
