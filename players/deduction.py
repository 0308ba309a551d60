"""The single-cell rules every human learns first, and the subset rule after them, compiled: the
cheap first step of every built-in player (docs/players.md, "The deduction rules")."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine import COVERED, FLAGGED, Actions, Observation

__all__ = [
    "certain_actions",
    "certain_cells",
    "known_actions",
    "neighbour_counts",
    "popcount",
    "subset_closure",
]

#: ``known`` marks: undecided, a mine, safe.
UNKNOWN, MINE, SAFE = 0, 1, 2


@njit(cache=True)
def neighbour_counts(grid, known, r, c):
    """Around (r, c): the flags and known mines, and the undecided covered cells as a 3x3 mask."""
    height, width = grid.shape
    mines = 0
    mask = 0
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            g = grid[rr, cc]
            if g == FLAGGED or (g == COVERED and known[rr, cc] == MINE):
                mines += 1
            elif g == COVERED and known[rr, cc] == UNKNOWN:
                mask |= 1 << (3 * (rr - r + 1) + (cc - c + 1))
    return mines, mask


@njit(cache=True)
def _number_rule(grid, known, r, c):
    """The two rules on the number at (r, c): -1 when it has no undecided neighbour (now or
    later), 1 when it marked some, 0 otherwise."""
    mines, mask = neighbour_counts(grid, known, r, c)
    if mask == 0:
        return -1
    if mines == grid[r, c]:
        mark = SAFE
    elif mines + popcount(mask) == grid[r, c]:
        mark = MINE
    else:
        return 0
    for b in range(9):
        if (mask >> b) & 1:
            known[r - 1 + b // 3, c - 1 + b % 3] = mark
    return 1


@njit(cache=True)
def _deduce(grid, known):
    """The two rules to a fixed point, in place on ``known`` (``MINE``, ``SAFE`` or ``UNKNOWN`` per
    cell); False when nothing is revealed. Row-major sweeps, revisiting only the numbers that
    still have undecided neighbours: ``_number_rule`` on each, written out here (each compiled call
    taking arrays costs numba two atomic reference counts per array, and this runs on every number of
    every sweep)."""
    height, width = grid.shape
    revealed = False
    active = np.empty(height * width, np.int64)
    n_active = 0
    for r in range(height):
        for c in range(width):
            if grid[r, c] >= 0:
                revealed = True
            if grid[r, c] > 0:
                active[n_active] = r * width + c
                n_active += 1
    changed = True
    while changed:
        changed = False
        kept = 0
        for i in range(n_active):
            f = active[i]
            r = f // width
            c = f % width
            # _number_rule(grid, known, r, c): -1 no undecided neighbour, 1 marked some, 0 neither.
            mines = 0
            mask = 0
            for rr in range(max(r - 1, 0), min(r + 2, height)):
                for cc in range(max(c - 1, 0), min(c + 2, width)):
                    g = grid[rr, cc]
                    if g == FLAGGED or (g == COVERED and known[rr, cc] == MINE):
                        mines += 1
                    elif g == COVERED and known[rr, cc] == UNKNOWN:
                        mask |= 1 << (3 * (rr - r + 1) + (cc - c + 1))
            if mask == 0:
                continue
            if mines == grid[r, c]:
                mark = SAFE
            elif mines + popcount(np.int64(mask)) == grid[r, c]:  # int64: one compiled popcount
                mark = MINE
            else:
                active[kept] = f
                kept += 1
                continue
            for b in range(9):
                if (mask >> b) & 1:
                    known[r - 1 + b // 3, c - 1 + b % 3] = mark
            changed = True
        n_active = kept
    return revealed


@njit(cache=True)
def _cells_marked(known, mark):
    """The cells ``known`` marks ``mark``, in board order, as a (2, k) array of rows and columns."""
    height, width = known.shape
    k = 0
    for r in range(height):
        for c in range(width):
            if known[r, c] == mark:
                k += 1
    out = np.empty((2, k), np.int64)
    k = 0
    for r in range(height):
        for c in range(width):
            if known[r, c] == mark:
                out[0, k] = r
                out[1, k] = c
                k += 1
    return out


@njit(cache=True)
def certain_cells(grid):
    """``(first_move, safe, mines)`` in one compiled call, the cells as (2, k) row/col arrays."""
    known = np.zeros(grid.shape, np.int8)
    first = not _deduce(grid, known)
    return first, _cells_marked(known, np.int8(SAFE)), _cells_marked(known, np.int8(MINE))


# A constraint's cells fit in a 3x3 box, so a set is (row, col, mask), bit 3*i + j for cell
# (row + i, col + j) with (row, col) its bounding box's corner: unique, so equal sets are equal.


@njit(cache=True)
def _normalise(row, col, mask):
    """The unique (row, col, mask) of a non-empty set: first used row and column at bit 0's."""
    top = 3
    left = 3
    for i in range(3):
        for j in range(3):
            if (mask >> (3 * i + j)) & 1:
                top = min(top, i)
                left = min(left, j)
    return row + top, col + left, _shift(mask, -top, -left)


@njit(cache=True)
def _shift(mask, dr, dc):
    """``mask`` in the frame of a box ``(dr, dc)`` up and left; -1 when a cell falls outside it."""
    out = 0
    for i in range(3):
        for j in range(3):
            if (mask >> (3 * i + j)) & 1:
                ii = i + dr
                jj = j + dc
                if ii < 0 or ii > 2 or jj < 0 or jj > 2:
                    return -1
                out |= 1 << (3 * ii + jj)
    return out


@njit(cache=True)
def popcount(mask):
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


@njit(cache=True)
def _first_cell(row, col, mask, width):
    b = 0
    while not (mask >> b) & 1:
        b += 1
    return (row + b // 3) * width + col + b % 3


@njit(cache=True)
def _add(pool, n, links, used, head, width, row, col, mask, mines):
    """Append a new set to ``pool`` (row, col, mask, mines, last compared with) and to the per-cell
    lists (``head``, ``links``: next entry, constraint), growing them when full."""
    e = head[_first_cell(row, col, mask, width)]
    while e != -1:
        k = links[e, 1]
        if pool[k, 0] == row and pool[k, 1] == col and pool[k, 2] == mask:
            return pool, n, links, used
        e = links[e, 0]
    if n == pool.shape[0]:
        bigger = np.empty((2 * n, 5), dtype=np.int64)
        bigger[:n] = pool
        pool = bigger
    pool[n, 0] = row
    pool[n, 1] = col
    pool[n, 2] = mask
    pool[n, 3] = mines
    pool[n, 4] = -1
    for b in range(9):
        if (mask >> b) & 1:
            if used == links.shape[0]:
                bigger = np.empty((2 * used, 2), dtype=np.int64)
                bigger[:used] = links
                links = bigger
            cell = (row + b // 3) * width + col + b % 3
            links[used, 0] = head[cell]
            links[used, 1] = n
            head[cell] = used
            used += 1
    return pool, n + 1, links, used


@njit(cache=True)
def _closure(grid, height, width, known):
    """The single-cell and subset rules to a joint fixed point, in place on ``known``; returns
    the last pass's constraints. Each pass compares every pair sharing a cell once; why a pass
    that decides cells starts over: docs/players.md."""
    while True:
        _deduce(grid, known)
        pool = np.empty((64, 5), dtype=np.int64)
        links = np.empty((256, 2), dtype=np.int64)
        head = np.full(height * width, -1, dtype=np.int64)
        n = 0
        used = 0
        for r in range(height):
            for c in range(width):
                number = grid[r, c]
                if number <= 0:
                    continue
                mines, mask = neighbour_counts(grid, known, r, c)
                if mask != 0:
                    row, col, mask = _normalise(r - 1, c - 1, mask)
                    pool, n, links, used = _add(pool, n, links, used, head, width, row, col, mask, number - mines)
        decided = False
        k = 0
        while k < n:
            for b in range(9):
                if not (pool[k, 2] >> b) & 1:
                    continue
                e = head[(pool[k, 0] + b // 3) * width + pool[k, 1] + b % 3]
                while e != -1:
                    j = links[e, 1]
                    e = links[e, 0]
                    if j >= k or pool[j, 4] == k:
                        continue
                    pool[j, 4] = k
                    # Which one holds the other, if either? (Equal sets never coexist.)
                    inner = _shift(pool[k, 2], pool[k, 0] - pool[j, 0], pool[k, 1] - pool[j, 1])
                    if inner >= 0 and inner & ~pool[j, 2] == 0:
                        outer, small = j, k
                    else:
                        inner = _shift(pool[j, 2], pool[j, 0] - pool[k, 0], pool[j, 1] - pool[k, 1])
                        if inner < 0 or inner & ~pool[k, 2] != 0:
                            continue
                        outer, small = k, j
                    rest = pool[outer, 2] & ~inner
                    mines = pool[outer, 3] - pool[small, 3]
                    size = popcount(rest)
                    if mines < 0 or mines > size:
                        continue  # only in an inconsistent position: no conclusion
                    if mines == 0 or mines == size:
                        for bb in range(9):
                            if (rest >> bb) & 1:
                                rr = pool[outer, 0] + bb // 3
                                cc = pool[outer, 1] + bb % 3
                                if known[rr, cc] == UNKNOWN:
                                    known[rr, cc] = SAFE if mines == 0 else MINE
                                    decided = True
                        continue
                    row, col, rest = _normalise(pool[outer, 0], pool[outer, 1], rest)
                    pool, n, links, used = _add(pool, n, links, used, head, width, row, col, rest, mines)
            k += 1
        if not decided:
            return pool[:n, :4].copy()


def subset_closure(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The single-cell and subset rules to a fixed point: ``known`` (``MINE``, ``SAFE`` or
    ``UNKNOWN`` per cell) and the constraints left, rows (row, col, mask, mines), numbers first."""
    known = np.zeros(grid.shape, dtype=np.int8)
    pool = _closure(np.asarray(grid, dtype=np.int8), grid.shape[0], grid.shape[1], known)
    return known, pool


def known_actions(known: np.ndarray) -> Actions:
    """Reveals of the cells ``known`` marks safe, then flags of its mines, in board order."""
    return Actions.cells(np.array(np.nonzero(known == SAFE)), np.array(np.nonzero(known == MINE)))


def certain_actions(observation: Observation, *, subsets: bool = False) -> Actions:
    """Every move the two rules (and with ``subsets`` the subset rule) make certain."""
    if subsets:
        return known_actions(subset_closure(observation.grid)[0])
    _, safe, mines = certain_cells(observation.grid)
    return Actions.cells(safe, mines)
