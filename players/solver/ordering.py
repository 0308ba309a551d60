"""Search variables for enumeration: cells with the same rows merged into groups, the groups
ordered so that few rows are open at a time (docs/solver.md)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cells_rows", "prepare_search", "prepare_search_into", "search_work_size"]


@njit(cache=True)
def cells_rows(constraints: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's rows, ascending and -1 padded (a cell is in at most 8), their number, and each
    row's number of cells."""
    m, width = constraints.shape
    rows = np.empty((n, width), np.int64)
    deg = np.empty(n, np.int64)
    length = np.empty(m, np.int64)
    _cells_rows_into(constraints, n, rows, deg, length)
    return rows, deg, length


@njit(cache=True)
def _cells_rows_into(constraints: np.ndarray, n: int, rows: np.ndarray, deg: np.ndarray, length: np.ndarray) -> None:
    """``cells_rows`` into arrays of its shapes (their old values ignored)."""
    m, width = constraints.shape
    rows[:] = -1
    deg[:] = 0
    length[:] = 0
    for i in range(m):
        for t in range(width):
            x = constraints[i, t]
            if x < 0:
                break
            rows[x, deg[x]] = i
            deg[x] += 1
            length[i] += 1


@njit(cache=True)
def prepare_search(
    constraints: np.ndarray, rhs: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(sizes, var_ptr, var_cons, cap, cell_var)``: group sizes in search order, each group's rows
    (CSR), each row's cell count, each cell's group position."""
    m, width = constraints.shape
    return prepare_search_into(constraints, rhs, n, np.empty(search_work_size(n, m, width), np.int64))


@njit(cache=True)
def search_work_size(n: int, m: int, width: int) -> int:
    """The int64 words ``prepare_search_into`` takes for ``n`` cells and ``m`` rows of ``width``."""
    return n * (width + 13) + m * (2 * width + 5) + 4


@njit(cache=True)
def prepare_search_into(
    constraints: np.ndarray, rhs: np.ndarray, n: int, work: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``prepare_search`` with every array a view of ``work`` (int64, ``search_work_size`` words at
    least; its old values ignored): one allocation instead of two dozen small ones, or none when
    the caller keeps ``work``. The answer lives in ``work`` until it is used again."""
    m, width = constraints.shape
    at = 0
    cell_cons = work[at : at + n * width].reshape(n, width)
    at += n * width
    deg, at = work[at : at + n], at + n
    cap, at = work[at : at + m], at + m
    _cells_rows_into(constraints, n, cell_cons, deg, cap)
    # Group: an earlier member of x's group shares x's first row, so look only there.
    group, at = work[at : at + n], at + n
    rep, at = work[at : at + n], at + n
    size, at = work[at : at + n], at + n
    group[:] = -1
    size[:] = 0
    ng = 0
    for x in range(n):
        row = cell_cons[x, 0]
        for t in range(width):
            y = constraints[row, t]
            if y < 0 or y >= x:
                break
            if deg[y] != deg[x]:
                continue
            same = True
            for u in range(deg[x]):
                if cell_cons[y, u] != cell_cons[x, u]:
                    same = False
                    break
            if same:
                group[x] = group[y]
                break
        if group[x] < 0:
            group[x] = ng
            rep[ng] = x
            ng += 1
        size[group[x]] += 1
    # Rows as lists of distinct groups (CSR), for the ordering's breadth-first search.
    con_ptr, at = work[at : at + m + 1], at + m + 1
    con_vars, at = work[at : at + m * width], at + m * width
    con_ptr[:] = 0
    k = 0
    for i in range(m):
        for t in range(width):
            x = constraints[i, t]
            if x < 0:
                break
            g = group[x]
            dup = False
            for u in range(con_ptr[i], k):
                if con_vars[u] == g:
                    dup = True
                    break
            if not dup:
                con_vars[k] = g
                k += 1
        con_ptr[i + 1] = k
    # np.int64(): a literal argument would make numba compile a literal-typed copy of the callee too.
    order = work[at : at + ng]
    at += ng
    _order_into(np.int64(ng), (rep, deg, cell_cons, con_ptr, con_vars), work[at:], order)
    position, at = work[at : at + ng], at + ng
    for d in range(ng):
        position[order[d]] = d
    sizes, at = work[at : at + ng], at + ng
    var_ptr, at = work[at : at + ng + 1], at + ng + 1
    var_ptr[0] = 0
    for d in range(ng):
        sizes[d] = size[order[d]]
        var_ptr[d + 1] = var_ptr[d] + deg[rep[order[d]]]
    var_cons, at = work[at : at + var_ptr[ng]], at + var_ptr[ng]
    for d in range(ng):
        r = rep[order[d]]
        for u in range(deg[r]):
            var_cons[var_ptr[d] + u] = cell_cons[r, u]
    cell_var = work[at : at + n]
    for x in range(n):
        cell_var[x] = position[group[x]]
    return sizes, var_ptr, var_cons, cap, cell_var


@njit(cache=True)
def _bfs(start: int, ng: int, graph: tuple, dist: np.ndarray, queue: np.ndarray) -> None:
    """Distances between groups (linked when they share a row) from ``start`` into ``dist``; -1 if
    unreachable. ``graph``: each group's representative cell, the cells' rows and the rows' groups
    (CSR); ``queue``: room for ``ng``."""
    rep, deg, cell_cons, con_ptr, con_vars = graph
    dist[:] = -1
    dist[start] = 0
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        g = queue[head]
        head += 1
        r = rep[g]
        for u in range(deg[r]):
            c = cell_cons[r, u]
            for t in range(con_ptr[c], con_ptr[c + 1]):
                h = con_vars[t]
                if dist[h] < 0:
                    dist[h] = dist[g] + 1
                    queue[tail] = h
                    tail += 1


@njit(cache=True)
def _order_into(ng: int, graph: tuple, work: np.ndarray, order: np.ndarray) -> None:
    """Greedy order (into ``order``) from a pseudo-peripheral group: next, the group in the most open
    rows, then closing the most, then opening the fewest, then the nearest to the start. ``work``:
    room for ``3 ng + 2 m`` words."""
    rep, deg, cell_cons, con_ptr, _ = graph
    m = con_ptr.shape[0] - 1
    dist, queue = work[:ng], work[ng : 2 * ng]
    start = np.int64(0)  # not a literal: see prepare_search
    _bfs(start, ng, graph, dist, queue)
    for _ in range(2):
        far = start
        for g in range(ng):
            if dist[g] > dist[far] or (dist[g] == dist[far] and deg[rep[g]] < deg[rep[far]]):
                far = g
        start = far
        _bfs(start, ng, graph, dist, queue)
    remaining, opened, done = work[2 * ng : 2 * ng + m], work[2 * ng + m : 2 * ng + 2 * m], work[2 * ng + 2 * m :]
    for c in range(m):
        remaining[c] = con_ptr[c + 1] - con_ptr[c]
    opened[:m] = 0
    done[:ng] = 0
    for step in range(ng):
        best = -1
        b_touch, b_close, b_new, b_dist = -1, -1, 0, 0
        if step == 0:
            best = start
        else:
            for g in range(ng):
                if done[g]:
                    continue
                touch, close, new = 0, 0, 0
                r = rep[g]
                for u in range(deg[r]):
                    c = cell_cons[r, u]
                    if opened[c]:
                        touch += 1
                        if remaining[c] == 1:
                            close += 1
                    else:
                        new += 1
                dg = dist[g] if dist[g] >= 0 else ng
                if best < 0 or (touch, close, -new, -dg) > (b_touch, b_close, -b_new, -b_dist):
                    best, b_touch, b_close, b_new, b_dist = g, touch, close, new, dg
        done[best] = 1
        order[step] = best
        r = rep[best]
        for u in range(deg[r]):
            c = cell_cons[r, u]
            opened[c] = 1
            remaining[c] -= 1
