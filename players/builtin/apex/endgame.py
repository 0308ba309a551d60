"""Exact endgame search over the few layouts left: the guess that maximises the probability of
winning, not of surviving (docs/players.md, "apex, inside")."""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from engine import COVERED
from players.builtin.apex.outlook import Outlook, neighbours

__all__ = ["Endgame", "EndgameBudgetExceeded", "enumerate_layouts", "solve_endgame"]


class EndgameBudgetExceeded(Exception):
    """The search needed more work than its budget; the position is decided heuristically."""


@njit(cache=True)
def _enumerate(
    n: int,
    var_rows: np.ndarray,
    var_ptr: np.ndarray,
    need0: np.ndarray,
    free0: np.ndarray,
    mines: int,
    limit: int,
    out: np.ndarray,
) -> int:
    """Every 0/1 assignment of ``n`` variables meeting each row's count and ``mines`` in total,
    written to ``out`` (one row per layout). Returns how many, or -1 past ``limit``."""
    need = need0.copy()
    free = free0.copy()
    value = np.full(n, -1, np.int64)
    d = 0
    used = 0
    found = 0
    while True:
        if d == n:
            if used == mines:
                if found >= limit:
                    return -1
                for j in range(n):
                    out[found, j] = value[j]
                found += 1
            d -= 1
            if d < 0:
                return found
            continue
        v = value[d] + 1
        if value[d] >= 0:
            # Undo the previous value of this variable.
            for t in range(var_ptr[d], var_ptr[d + 1]):
                r = var_rows[t]
                need[r] += value[d]
                free[r] += 1
            used -= value[d]
        advanced = False
        while v <= 1:
            ok = used + v <= mines and mines - used - v <= n - d - 1
            if ok:
                for t in range(var_ptr[d], var_ptr[d + 1]):
                    r = var_rows[t]
                    rest = need[r] - v
                    if rest < 0 or rest > free[r] - 1:
                        ok = False
                        break
            if ok:
                for t in range(var_ptr[d], var_ptr[d + 1]):
                    r = var_rows[t]
                    need[r] -= v
                    free[r] -= 1
                used += v
                value[d] = v
                d += 1
                advanced = True
                break
            v += 1
        if not advanced:
            value[d] = -1
            d -= 1
            if d < 0:
                return found


def enumerate_layouts(outlook: Outlook, limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """All layouts of the unknown cells of ``outlook``'s position: (cells, layouts) with
    ``layouts[i, j]`` 1 when board cell ``cells[j]`` is a mine in layout ``i``; None past ``limit``."""
    comps = outlook.components
    cells = [*(comp.cells for comp in comps), np.flatnonzero(outlook.unconstrained)]
    var_cells = np.concatenate(cells).astype(np.int64)
    n = var_cells.shape[0]
    rows: list[list[int]] = []
    need: list[int] = []
    offset = 0
    for comp in comps:
        system = comp.system
        for i in range(system.n_constraints):
            ids = system.constraints[i]
            rows.append([offset + int(j) for j in ids if j >= 0])
            need.append(int(system.rhs[i]))
        offset += system.n_cells
    per_var: list[list[int]] = [[] for _ in range(n)]
    for r, ids in enumerate(rows):
        for j in ids:
            per_var[j].append(r)
    var_ptr = np.zeros(n + 1, dtype=np.int64)
    var_ptr[1:] = np.cumsum([len(p) for p in per_var])
    var_rows = np.array([r for p in per_var for r in p], dtype=np.int64)
    free = np.array([len(ids) for ids in rows], dtype=np.int64)
    out = np.zeros((limit, max(n, 1)), dtype=np.uint8)
    found = _enumerate(n, var_rows, var_ptr, np.array(need, dtype=np.int64), free, outlook.mines_left, limit, out)
    if found < 0:
        return None
    return var_cells, out[:found, :n].astype(bool)


@njit(cache=True)
def _search(
    state: np.ndarray,
    layouts: np.ndarray,
    numbers: np.ndarray,
    key1: np.ndarray,
    key2: np.ndarray,
    table_key: np.ndarray,
    table_check: np.ndarray,
    table_value: np.ndarray,
    counter: np.ndarray,
    limit: int,
) -> tuple[float, int]:
    """(win probability, best guess or -1) of the layouts ``state``; (-1, -1) past ``limit`` layouts
    expanded. Memoised in a hash table keyed by two order-free sums of random keys (0: empty)."""
    m = state.shape[0]
    if m == 1:
        return 1.0, -1
    h1 = 0
    h2 = 0
    for i in state:
        h1 += key1[i]
        h2 += key2[i]
    if h1 == 0:
        h1 = 1
    mask = table_key.shape[0] - 1
    slot = h1 & mask
    while table_key[slot] != 0:
        if table_key[slot] == h1 and table_check[slot] == h2:
            return table_value[slot], -1
        slot = (slot + 1) & mask
    counter[0] += m
    if counter[0] > limit:
        return -1.0, -1
    n = layouts.shape[1]
    mines = np.zeros(n, np.int64)
    low = np.full(n, 127, np.int64)
    high = np.full(n, -1, np.int64)
    for i in state:
        for j in range(n):
            if layouts[i, j]:
                mines[j] += 1
            else:
                v = numbers[i, j]
                if v < low[j]:
                    low[j] = v
                if v > high[j]:
                    high[j] = v
    free = -1
    for j in range(n):
        if mines[j] == 0 and low[j] != high[j]:
            free = j
            break
    value = 0.0
    best_cell = -1
    if free >= 0:
        # A cell safe everywhere whose number varies: reveal it for free and split by its number.
        shown = numbers[state, free]
        for v in range(9):
            part = state[shown == v]
            if part.shape[0] == 0:
                continue
            r, _ = _search(part, layouts, numbers, key1, key2, table_key, table_check, table_value, counter, limit)
            if r < 0.0:
                return -1.0, -1
            value += part.shape[0] / m * r
    else:
        open_cells = np.array([j for j in range(n) if 0 < mines[j] < m], dtype=np.int64)
        if open_cells.shape[0] == 0:
            return 1.0, -1
        order = open_cells[np.argsort(mines[open_cells], kind="mergesort")]
        best = -1.0
        counts = np.zeros(9, np.int64)
        for x in order:
            survive = m - mines[x]
            if survive / m <= best + 1e-12:
                break
            safe = state[layouts[state, x] == 0]
            shown = numbers[safe, x]
            counts[:] = 0
            for v in shown:
                counts[v] += 1
            remaining = survive / m
            acc = 0.0
            for v in np.argsort(-counts, kind="mergesort"):
                count = counts[v]
                if count == 0:
                    break
                part = safe[shown == v]
                w = count / m
                remaining -= w
                r, _ = _search(part, layouts, numbers, key1, key2, table_key, table_check, table_value, counter, limit)
                if r < 0.0:
                    return -1.0, -1
                acc += w * r
                if acc + remaining <= best + 1e-12:
                    break
            if acc > best + 1e-12:
                best = acc
                best_cell = x
        value = best
    if counter[1] * 2 < table_key.shape[0]:
        slot = h1 & mask
        while table_key[slot] != 0:
            slot = (slot + 1) & mask
        table_key[slot] = h1
        table_check[slot] = h2
        table_value[slot] = value
        counter[1] += 1
    return value, best_cell


class Endgame:
    """The memoised search over one position's layouts."""

    def __init__(self, outlook: Outlook, layouts: np.ndarray, cells: np.ndarray, budget: int) -> None:
        self.cells = cells
        self.layouts = np.ascontiguousarray(layouts, dtype=np.uint8)
        height, width = outlook.height, outlook.width
        index = {int(c): j for j, c in enumerate(cells)}
        n = cells.shape[0]
        adjacency = np.zeros((n, n), dtype=np.int16)
        constant = np.zeros(n, dtype=np.int16)
        for j, c in enumerate(cells):
            for x in neighbours(int(c), height, width):
                k = index.get(x)
                if k is not None:
                    adjacency[k, j] = 1
                elif outlook.constant_mine[x]:
                    constant[j] += 1
        # numbers[i, j]: what cell j shows in layout i (meaningful where it is safe).
        self.numbers = np.ascontiguousarray((self.layouts.astype(np.int16) @ adjacency + constant).astype(np.int8))
        self.budget = budget
        self.effort = 0

    def _tables(self) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """The search's hash keys, an empty memo and its counters."""
        key1, key2 = _hash_keys(self.layouts.shape[0])
        # At most budget / 2 states are expanded (each holds two layouts or more): room for all.
        size = 1 << max(10, min(22, int(self.budget).bit_length()))
        table = (np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64))
        return key1, key2, table, np.zeros(2, dtype=np.int64)

    def best(self) -> tuple[int, float]:
        """(board cell to reveal, probability of winning with perfect play from here)."""
        count = self.layouts.shape[0]
        key1, key2, table, counter = self._tables()
        state = np.arange(count, dtype=np.int64)
        value, cell = _search(state, self.layouts, self.numbers, key1, key2, *table, counter, self.budget)
        self.effort = int(counter[0])
        if value < 0.0:
            raise EndgameBudgetExceeded
        if cell < 0:
            # Solved (a single layout) or every unknown cell is safe somewhere: any open cell.
            mines = self.layouts.sum(axis=0)
            cell = int(np.flatnonzero(mines < count)[0])
        return int(self.cells[cell]), value


@functools.lru_cache(maxsize=1024)
def _hash_keys(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The memo's two hash keys of each of ``count`` layouts (never written to). Fixed: the memo's
    hashes, not a source of randomness in any decision; made once per count (a generator costs
    more than the search of a small endgame)."""
    keys = np.random.default_rng(20240601).integers(-(2**62), 2**62, size=(2, count), dtype=np.int64)
    return keys[0], keys[1]


def solve_endgame(outlook: Outlook, max_layouts: int, budget: int) -> tuple[int, int, float] | None:
    """The winning-probability-maximising guess when at most ``max_layouts`` layouts remain:
    (row, col, win probability), or None when there are more layouts or the search is too big."""
    if outlook.log_weight > math.log(max_layouts) + 1e-9 or not (outlook.grid == COVERED).any():
        return None
    enumerated = enumerate_layouts(outlook, max_layouts)
    if enumerated is None:
        return None
    cells, layouts = enumerated
    if layouts.shape[0] == 0:
        return None
    search = Endgame(outlook, layouts, cells, budget)
    try:
        cell, value = search.best()
    except EndgameBudgetExceeded:
        return None
    return (*divmod(cell, outlook.width), value)
