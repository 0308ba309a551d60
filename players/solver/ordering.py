"""Search variables for enumeration: cells with the same rows merged into groups, the groups
ordered so that few rows are open at a time (docs/solver.md)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cells_rows", "prepare_search"]


@njit(cache=True)
def cells_rows(constraints: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's rows, ascending and -1 padded (a cell is in at most 8), their number, and each
    row's number of cells."""
    m, width = constraints.shape
    rows = np.full((n, width), -1, np.int64)
    deg = np.zeros(n, np.int64)
    length = np.zeros(m, np.int64)
    for i in range(m):
        for t in range(width):
            x = constraints[i, t]
            if x < 0:
                break
            rows[x, deg[x]] = i
            deg[x] += 1
            length[i] += 1
    return rows, deg, length


@njit(cache=True)
def prepare_search(
    constraints: np.ndarray, rhs: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(sizes, var_ptr, var_cons, cap, cell_var)``: group sizes in search order, each group's rows
    (CSR), each row's cell count, each cell's group position."""
    m, width = constraints.shape
    cell_cons, deg, cap = cells_rows(constraints, n)
    # Group: an earlier member of x's group shares x's first row, so look only there.
    group = np.full(n, -1, np.int64)
    rep = np.empty(n, np.int64)
    size = np.zeros(n, np.int64)
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
    con_ptr = np.zeros(m + 1, np.int64)
    con_vars = np.empty(m * width, np.int64)
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
    order = _order(np.int64(ng), (rep, deg, cell_cons, con_ptr, con_vars))
    position = np.empty(ng, np.int64)
    for d in range(ng):
        position[order[d]] = d
    sizes = np.empty(ng, np.int64)
    var_ptr = np.zeros(ng + 1, np.int64)
    for d in range(ng):
        sizes[d] = size[order[d]]
        var_ptr[d + 1] = var_ptr[d] + deg[rep[order[d]]]
    var_cons = np.empty(var_ptr[ng], np.int64)
    for d in range(ng):
        r = rep[order[d]]
        for u in range(deg[r]):
            var_cons[var_ptr[d] + u] = cell_cons[r, u]
    cell_var = np.empty(n, np.int64)
    for x in range(n):
        cell_var[x] = position[group[x]]
    return sizes, var_ptr, var_cons, cap, cell_var


@njit(cache=True)
def _bfs(start: int, ng: int, graph: tuple) -> np.ndarray:
    """Distances between groups (linked when they share a row) from ``start``; -1 if unreachable.
    ``graph``: each group's representative cell, the cells' rows and the rows' groups (CSR)."""
    rep, deg, cell_cons, con_ptr, con_vars = graph
    dist = np.full(ng, -1, np.int64)
    queue = np.empty(ng, np.int64)
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
    return dist


@njit(cache=True)
def _order(ng: int, graph: tuple) -> np.ndarray:
    """Greedy order from a pseudo-peripheral group: next, the group in the most open rows, then
    closing the most, then opening the fewest, then the nearest to the start."""
    rep, deg, cell_cons, con_ptr, _ = graph
    start = np.int64(0)  # not a literal: see prepare_search
    dist = _bfs(start, ng, graph)
    for _ in range(2):
        far = start
        for g in range(ng):
            if dist[g] > dist[far] or (dist[g] == dist[far] and deg[rep[g]] < deg[rep[far]]):
                far = g
        start = far
        dist = _bfs(start, ng, graph)
    m = con_ptr.shape[0] - 1
    remaining = np.empty(m, np.int64)
    for c in range(m):
        remaining[c] = con_ptr[c + 1] - con_ptr[c]
    opened = np.zeros(m, np.bool_)
    done = np.zeros(ng, np.bool_)
    order = np.empty(ng, np.int64)
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
        done[best] = True
        order[step] = best
        r = rep[best]
        for u in range(deg[r]):
            c = cell_cons[r, u]
            opened[c] = True
            remaining[c] -= 1
    return order
