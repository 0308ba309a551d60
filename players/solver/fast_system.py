"""Acceleration of ``frontier`` and ``rref``: their compiled twins, for ``players.solver.fast``;
held equal to them by ``tests/players/test_solver_fast.py``. Each returns exactly its reference's
arrays, or ``False`` first on anything unusual (the reference then raises the well-worded error).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import numpy as np
from numba import njit

from engine import numba_cache
from players.solver.frontier import _DC, _DR, MAX_ARITY, _component_labels
from players.solver.rref import _INT_LIMIT, _rref_inplace


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _row_cmp(rows: np.ndarray, i: int, j: int) -> int:
    """Lexicographic order of two compact rows (ascending ids, -1 padding sorting last)."""
    for t in range(rows.shape[1]):
        a = rows[i, t]
        b = rows[j, t]
        if a == b:
            if a < 0:
                return 0
            continue
        if a < 0:
            return 1
        if b < 0:
            return -1
        return -1 if a < b else 1
    return 0


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _sort_rows(rows: np.ndarray) -> np.ndarray:
    """Stable merge sort of the row indices (what ``np.lexsort`` on the padded rows gives)."""
    m = rows.shape[0]
    order = np.arange(m)
    # Rows arrive nearly sorted (numbers in board order): check before sorting.
    done = True
    for i in range(1, m):
        if _row_cmp(rows, i - 1, i) > 0:
            done = False
            break
    if done:
        return order
    buf = np.empty(m, np.int64)
    width = 1
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if _row_cmp(rows, order[b], order[a]) < 0:
                    buf[k] = order[b]
                    b += 1
                else:
                    buf[k] = order[a]
                    a += 1
                k += 1
            while a < mid:
                buf[k] = order[a]
                a += 1
                k += 1
            while b < hi:
                buf[k] = order[b]
                b += 1
                k += 1
        order, buf = buf, order
        width *= 2
    return order


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def normalise(
    rows: np.ndarray, rhs: np.ndarray, sources: np.ndarray
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """``frontier._normalise`` on compact rows: sort them, merge identical ones (keeping the first)."""
    m = rows.shape[0]
    order = _sort_rows(rows)
    out_rows = np.empty((m, MAX_ARITY), np.int32)
    out_rhs = np.empty(m, np.int64)
    out_src = np.empty(m, np.int64)
    k = 0
    prev = np.int64(-1)  # not a literal, which would make numba compile _row_cmp twice
    for p in range(m):
        i = order[p]
        if prev >= 0 and _row_cmp(rows, prev, i) == 0:
            if rhs[prev] != rhs[i]:
                return False, out_rows, out_rhs, out_src
            continue
        for t in range(MAX_ARITY):
            out_rows[k, t] = rows[i, t]
        out_rhs[k] = rhs[i]
        out_src[k] = sources[i]
        k += 1
        prev = i
    return True, out_rows[:k], out_rhs[:k], out_src[:k]  # views, as C-contiguous as copies: no allocation


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _not_extracted() -> tuple:
    """``extract``'s answer for a position it declines (its arrays made only then)."""
    empty = np.zeros(0, np.int64)
    return False, empty, np.zeros((0, MAX_ARITY), np.int32), empty, empty, empty, empty, 0


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def extract(grid: np.ndarray, mines: int) -> tuple:
    """``extract_frontier`` plus ``check_grid``'s value check: ``(ok, cells, constraints, rhs,
    sources, unconstrained, flags, mines_left)``."""
    height, width = grid.shape
    g = grid.reshape(-1)
    size = height * width
    n_numbers = 0
    for f in range(size):
        v = g[f]
        if v < -2 or v > 8:
            return _not_extracted()
        if v >= 0:
            n_numbers += 1
    raw = np.full((n_numbers, MAX_ARITY), -1, np.int64)
    need = np.empty(n_numbers, np.int64)
    src = np.empty(n_numbers, np.int64)
    seen = np.zeros(size, np.bool_)
    m = 0
    for f in range(size):
        v = g[f]
        if v < 0:
            continue
        r = f // width
        c = f - r * width
        count = 0
        flags = 0
        for d in range(8):
            rr = r + _DR[d]
            cc = c + _DC[d]
            if rr < 0 or rr >= height or cc < 0 or cc >= width:
                continue
            nb = rr * width + cc
            x = g[nb]
            if x == -1:
                raw[m, count] = nb  # directions run in board order: rows come out ascending
                count += 1
            elif x == -2:
                flags += 1
        left = v - flags
        if left < 0 or left > count:
            return _not_extracted()
        if count > 0:
            for t in range(count):
                seen[raw[m, t]] = True
            need[m] = left
            src[m] = f
            m += 1
    local = np.full(size, -1, np.int64)
    cells = np.empty(size, np.int64)
    unconstrained = np.empty(size, np.int64)
    flag_cells = np.empty(size, np.int64)
    n = n_unconstrained = n_flags = 0
    for f in range(size):
        if seen[f]:
            local[f] = n
            cells[n] = f
            n += 1
        elif g[f] == -1:
            unconstrained[n_unconstrained] = f
            n_unconstrained += 1
        elif g[f] == -2:
            flag_cells[n_flags] = f
            n_flags += 1
    rows = np.full((m, MAX_ARITY), -1, np.int32)
    for i in range(m):
        for t in range(MAX_ARITY):
            x = raw[i, t]
            if x < 0:
                break
            rows[i, t] = local[x]
    ok, constraints, rhs, sources = normalise(rows, need[:m], src[:m])
    mines_left = mines - n_flags
    if not ok or mines_left < 0 or mines_left > n + n_unconstrained:
        return _not_extracted()
    return True, cells[:n], constraints, rhs, sources, unconstrained[:n_unconstrained], flag_cells[:n_flags], mines_left


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def substitute(
    constraints: np.ndarray, rhs: np.ndarray, sources: np.ndarray, values: np.ndarray
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``frontier.substitute``: drop the cells with a value; also returns the kept cells' ids."""
    n = values.shape[0]
    new_id = np.full(n, -1, np.int64)
    kept = 0
    for j in range(n):
        if values[j] < 0:
            new_id[j] = kept
            kept += 1
    keep = np.empty(kept, np.int64)
    for j in range(n):
        if new_id[j] >= 0:
            keep[new_id[j]] = j
    m = constraints.shape[0]
    rows = np.full((m, MAX_ARITY), -1, np.int32)
    new_rhs = np.empty(m, np.int64)
    new_src = np.empty(m, np.int64)
    k = 0
    for i in range(m):
        left = rhs[i]
        length = 0
        for t in range(MAX_ARITY):
            x = constraints[i, t]
            if x < 0:
                break
            v = values[x]
            if v == 1:
                left -= 1
            elif v < 0:
                rows[k, length] = new_id[x]
                length += 1
        if left < 0 or left > length:
            return False, rows, new_rhs, new_src, keep
        if length > 0:
            new_rhs[k] = left
            new_src[k] = sources[i]
            k += 1
    ok, out_rows, out_rhs, out_src = normalise(rows[:k], new_rhs[:k], new_src[:k])
    return ok, out_rows, out_rhs, out_src, keep


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def split(constraints: np.ndarray, n: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``frontier.split_components`` as flat arrays ``(count, cell_ptr, piece_cells, row_ptr,
    row_order, remapped)``: piece ``k``'s cells and rows (CSR), and the rows in piece-local ids."""
    m = constraints.shape[0]
    labels, count = _component_labels(constraints, n)
    cell_ptr = np.zeros(count + 1, np.int64)
    for x in range(n):
        cell_ptr[labels[x] + 1] += 1
    for k in range(count):
        cell_ptr[k + 1] += cell_ptr[k]
    fill = cell_ptr[:count].copy()
    piece_cells = np.empty(n, np.int64)
    position = np.empty(n, np.int64)
    for x in range(n):
        k = labels[x]
        position[x] = fill[k] - cell_ptr[k]
        piece_cells[fill[k]] = x
        fill[k] += 1
    row_ptr = np.zeros(count + 1, np.int64)
    for i in range(m):
        row_ptr[labels[constraints[i, 0]] + 1] += 1
    for k in range(count):
        row_ptr[k + 1] += row_ptr[k]
    fill = row_ptr[:count].copy()
    row_order = np.empty(m, np.int64)
    remapped = np.full((m, MAX_ARITY), -1, np.int32)
    for i in range(m):
        k = labels[constraints[i, 0]]
        row_order[fill[k]] = i
        fill[k] += 1
        for t in range(MAX_ARITY):
            x = constraints[i, t]
            if x < 0:
                break
            remapped[i, t] = position[x]
    return count, cell_ptr, piece_cells, row_ptr, row_order, remapped


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _bound_rules(r: np.ndarray, c: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray, bool]:
    """``rref.bound_rules``; the last value says whether any cell was fixed."""
    m, n = r.shape
    safe = np.zeros(n, np.bool_)
    mine = np.zeros(n, np.bool_)
    any_hit = False
    for i in range(m):
        pos = 0
        neg = 0
        for j in range(n):
            v = r[i, j]
            if v > 0:
                pos += v
            elif v < 0:
                neg += v
        if c[i] > pos or c[i] < neg:
            return False, safe, mine, False
        if c[i] != pos and c[i] != neg:
            continue
        # At the top every positive cell is a mine and every negative one safe; at the bottom the
        # reverse. Both only for an all-zero row, which fixes nothing.
        top = c[i] == pos
        for j in range(n):
            v = r[i, j]
            if v != 0:
                any_hit = True
                if (v > 0) == top:
                    mine[j] = True
                else:
                    safe[j] = True
    for j in range(n):
        if safe[j] and mine[j]:
            return False, safe, mine, False
    return True, safe, mine, any_hit


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _rref(a: np.ndarray, b: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    """``rref.rref`` in int64 only: declines (``False``) where that one would go to Python ints."""
    m, n = a.shape
    work = np.empty((m, n + 1), np.int64)
    for i in range(m):
        for j in range(n):
            work[i, j] = a[i, j]
        work[i, n] = b[i]
    rank = _rref_inplace(work, np.int64(_INT_LIMIT))  # the general path's specialisation, not a literal one
    if rank < 0:
        return False, a, b
    for i in range(rank, m):
        if work[i, n] != 0:
            return False, a, b
    return True, work[:rank, :n].copy(), work[:rank, n].copy()


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def deduce_matrix(a: np.ndarray, b: np.ndarray) -> tuple[bool, np.ndarray]:
    """``rref.deduce_matrix`` (with RREF): per column 0 (safe), 1 (mine) or -1, same steps."""
    n = a.shape[1]
    values = np.full(n, -1, np.int8)
    live = np.arange(n)
    while live.shape[0] > 0:
        ok, safe, mine, hit = _bound_rules(a, b)
        if not ok:
            return False, values
        if not hit:
            ok, a, b = _rref(a, b)
            if not ok:
                return False, values
            ok, safe, mine, hit = _bound_rules(a, b)
            if not ok:
                return False, values
        if not hit:
            break
        values[live[safe]] = 0
        values[live[mine]] = 1
        b = b - a[:, mine].sum(axis=1)
        keep = ~(safe | mine)
        a = a[:, keep]
        live = live[keep]
        nonzero = np.zeros(a.shape[0], np.bool_)
        for i in range(a.shape[0]):
            nonzero[i] = (a[i] != 0).any()
            if not nonzero[i] and b[i] != 0:
                return False, values
        a, b = a[nonzero], b[nonzero]
    return True, values


#: The solver's files with compiled kernels: the fast path calls kernels from all of them.
KERNEL_FILES = ("frontier.py", "rref.py", "ordering.py", "enumeration.py", "weighting.py", "fast_system.py", "fast.py")


def stamp_dependencies(module: ModuleType) -> None:
    """Make ``module``'s cached kernels go stale when any solver kernel file changes."""
    folder = Path(__file__).resolve().parent
    numba_cache.stamp_dependencies(module, [folder / name for name in KERNEL_FILES])


stamp_dependencies(sys.modules[__name__])
