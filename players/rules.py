"""The single-cell rules every human learns first, compiled, and the subset rule after them.

1. A number whose covered neighbours are exactly as many as the mines it still needs: they are
   all mines.
2. A number whose flags (or known mines) already satisfy it: its other covered neighbours are safe.

Applied to a fixed point, treating mines found on the way as flags: the whole of what the
``random`` baseline knows by default, and the cheap first step of every built-in player.

3. (``subset_closure``) Each revealed number with undecided covered neighbours is a constraint:
   those cells hold exactly the mines it still needs. When one constraint's cells are a proper
   subset of another's, the cells left over hold the difference: a new constraint, compared like
   the others, and decided at once when its count is 0 or its size. This is the knowledge base of
   the C++ engine the constraint players reproduce (docs/players.md). It ignores the mine count.
"""

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
    "single_cell_deductions",
    "subset_closure",
    "subset_deductions",
]

#: ``known`` marks: undecided, a mine, safe.
UNKNOWN, MINE, SAFE = 0, 1, 2


@njit(cache=True)
def neighbour_counts(grid, known, r, c):
    """Around the cell (r, c): the flags and known mines, and the undecided covered cells as a
    mask (bit ``3 * (rr - r + 1) + (cc - c + 1)`` for the cell (rr, cc))."""
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
    """Apply the two rules to the number at (r, c): mark its undecided covered neighbours if one
    applies. Returns -1 when it has none (nothing to do, now or later), 1 when it marked cells,
    0 otherwise."""
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
    """The two rules to a fixed point, in place on ``known`` (int8, the grid's shape: ``MINE``,
    ``SAFE`` or ``UNKNOWN``). Returns False when nothing is revealed (the first move).

    Row-major sweeps until one changes nothing. A number without undecided neighbours stays so
    (cells only ever leave ``UNKNOWN``), so after the first sweep only the numbers that still had
    some and fired no rule are visited again, in the same order."""
    height, width = grid.shape
    revealed = False
    active = np.empty(height * width, np.int64)
    n_active = 0
    changed = False
    for r in range(height):
        for c in range(width):
            if grid[r, c] >= 0:
                revealed = True
            if grid[r, c] > 0:
                done = _number_rule(grid, known, r, c)
                if done == 1:
                    changed = True
                elif done == 0:
                    active[n_active] = r * width + c
                    n_active += 1
    while changed:
        changed = False
        kept = 0
        for i in range(n_active):
            f = active[i]
            done = _number_rule(grid, known, f // width, f % width)
            if done == 1:
                changed = True
            elif done == 0:
                active[kept] = f
                kept += 1
        n_active = kept
    return revealed


@njit(cache=True)
def _cells_marked(known, mark):
    """The cells ``known`` marks ``mark``, in board order, as a (2, k) array of rows and columns."""
    rows, cols = np.nonzero(known == mark)
    out = np.empty((2, rows.shape[0]), np.int64)
    out[0] = rows
    out[1] = cols
    return out


@njit(cache=True)
def certain_cells(grid):
    """``Observation.first_move`` and the two rules' certain cells in one compiled call:
    ``(first_move, safe, mines)``, the cells as (2, k) row/col arrays in board order."""
    known = np.zeros(grid.shape, np.int8)
    first = not _deduce(grid, known)
    return first, _cells_marked(known, SAFE), _cells_marked(known, MINE)


# A constraint's cells always fit in a 3x3 box (they are neighbours of one number, or a subset of
# such a set), so a set is (row, col, mask): bit 3*i + j stands for cell (row + i, col + j), with
# (row, col) the top-left of the set's own bounding box. That form is unique, so equal sets have
# equal triples, and a subset test or a difference is a shift and two bit operations.


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
    out = 0
    for i in range(3):
        for j in range(3):
            if (mask >> (3 * i + j)) & 1:
                out |= 1 << (3 * (i - top) + (j - left))
    return row + top, col + left, out


@njit(cache=True)
def _shift(mask, dr, dc):
    """``mask`` (box at (row, col)) in the frame of a box at (row - dr, col - dc); -1 when a cell
    falls outside that box (then it cannot be a subset of a set there)."""
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
    """Append the normalised set (row, col, mask) holding ``mines`` to ``pool`` (rows: row, col,
    mask, mines, last compared with) unless it is there already, and to the per-cell lists
    (``head`` per cell, ``links`` rows: next entry, constraint). Returns (pool, n, links, used),
    reallocated when full."""
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
    """The single-cell rules and the subset rule to a joint fixed point; ``known`` as in
    ``_deduce``, filled in place. Returns the constraints of the last pass (which decided
    nothing new) as an (n, 4) array of rows (row, col, mask, mines), numbers first.

    Each pass rebuilds the constraints from the numbers with every known cell taken out, then
    compares each constraint with every earlier one that shares a cell (a subset shares all its
    cells; the per-cell lists find them), appending each new difference so that it is compared
    in turn with everything before it: every pair is compared once. A pass that decides cells
    is followed by a fresh one: taking known cells out can create subset relations that did
    not hold before, and every difference an earlier pass kept comes back from the reduced
    constraints (if A holds B, A minus the known cells holds B minus them, and the difference
    is the old one minus them), so nothing is lost by starting over.
    """
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
                                if known[rr, cc] == 0:
                                    known[rr, cc] = 2 if mines == 0 else 1
                                    decided = True
                        continue
                    row, col, rest = _normalise(pool[outer, 0], pool[outer, 1], rest)
                    pool, n, links, used = _add(pool, n, links, used, head, width, row, col, rest, mines)
            k += 1
        if not decided:
            return pool[:n, :4].copy()


def single_cell_deductions(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (mines, safe) of covered cells the two rules decide. Flags count as mines."""
    known = np.zeros(grid.shape, dtype=np.int8)
    _deduce(np.asarray(grid, dtype=np.int8), known)
    return known == MINE, known == SAFE


def subset_closure(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The single-cell rules and the subset rule to a fixed point: ``known`` (int8, the grid's
    shape: ``MINE``, ``SAFE`` or ``UNKNOWN``) and the constraints left, an (n, 4) int64 array of
    (row, col, mask, mines), the numbers' first: bit ``3 * i + j`` of ``mask`` stands for cell
    (row + i, col + j). Flags count as mines.

    The full fixed point: every pair of constraints is compared, so the result is a function of
    the position (the C++ engine compares only some pairs; see docs/players.md)."""
    known = np.zeros(grid.shape, dtype=np.int8)
    pool = _closure(np.asarray(grid, dtype=np.int8), grid.shape[0], grid.shape[1], known)
    return known, pool


def subset_deductions(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (mines, safe) of covered cells the two rules and the subset rule decide."""
    known, _ = subset_closure(grid)
    return known == MINE, known == SAFE


def known_actions(known: np.ndarray) -> Actions:
    """Reveals of the cells ``known`` marks safe, then flags of those it marks mines, in board
    order, as one ``Actions``."""
    return Actions.cells(np.array(np.nonzero(known == SAFE)), np.array(np.nonzero(known == MINE)))


def certain_actions(observation: Observation, *, subsets: bool = False) -> Actions:
    """Every move the two rules (with ``subsets``, the subset rule too) make certain: reveals of
    safe cells, then flags of mines."""
    if subsets:
        return known_actions(subset_closure(observation.grid)[0])
    _, safe, mines = certain_cells(observation.grid)
    return Actions.cells(safe, mines)
