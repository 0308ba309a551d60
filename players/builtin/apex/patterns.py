"""Local patterns that decide a guess without search: unavoidable 50/50s, and cells that are "a
50/50 or safe" (why each is safe to guess at once: docs/players.md, "apex, inside")."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from engine import COVERED, FLAGGED
from players.builtin.apex.outlook import Outlook, neighbours
from players.solver import InconsistentPositionError
from players.solver.analysis import weight_then_probabilities

__all__ = ["pseudo_fifty", "unavoidable_pair"]

#: Probabilities (and relative log weights) this close are equal.
_TOLERANCE = 1e-9


def _sealed(outlook: Outlook, cell: int, partner: int) -> bool:
    """Every neighbour of ``cell`` except ``partner`` is revealed or a known mine."""
    flat = outlook.grid.reshape(-1)
    return all(
        x == partner or flat[x] != COVERED or outlook.constant_mine[x] or outlook.probabilities[x] == 1.0
        for x in neighbours(cell, outlook.height, outlook.width)
    )


def unavoidable_pair(outlook: Outlook) -> tuple[int, int] | None:
    """A cell of an unavoidable 50/50 pair (the first in board order), or None."""
    p = outlook.probabilities
    halves = np.flatnonzero(np.abs(p - 0.5) < _TOLERANCE)
    if halves.size < 2:
        return None
    half = set(int(x) for x in halves)
    for a in halves:
        a = int(a)
        for b in neighbours(a, outlook.height, outlook.width):
            if b <= a or b not in half:
                continue
            if _sealed(outlook, a, b) and _sealed(outlook, b, a) and _one_mine(outlook, a, b):
                return divmod(a, outlook.width)
    return None


def _one_mine(outlook: Outlook, a: int, b: int) -> bool:
    """Some row says exactly one mine lies in {a, b}, and every row that sees one sees both."""
    comp = int(outlook.comp_of[a])
    if comp < 0 or comp != int(outlook.comp_of[b]):
        return False
    system = outlook.components[comp].system
    ia = int(np.searchsorted(system.cells, a))
    ib = int(np.searchsorted(system.cells, b))
    rows = system.constraints
    has_a = (rows == ia).any(axis=1)
    has_b = (rows == ib).any(axis=1)
    if np.any(has_a != has_b):
        return False
    length = (rows >= 0).sum(axis=1)
    return bool(np.any(has_a & (length == 2) & (system.rhs == 1)))


def pseudo_fifty(outlook: Outlook) -> tuple[int, int] | None:
    """The safest cell that is "a 50/50 or safe" (first in board order among equals), or None."""
    width = outlook.width
    p = outlook.probabilities
    known_mine = outlook.constant_mine | (outlook.covered & (p == 1.0))
    open_cell = outlook.covered & ~known_mine  # covered and possibly safe
    found: list[int] = []
    best = 0.5 + _TOLERANCE  # a cell of such a pattern is a mine at most half the time
    # Both tiles of a block flag the same cells: one analysis.
    analysed: dict[tuple[int, ...], tuple[float, Callable[[], np.ndarray]] | None] = {}
    for tile, mines, safes, missing in _patterns(outlook, open_cell):
        if not 0.0 < p[tile] <= best:
            continue
        if not _forced_whenever_mined(outlook, tile, mines + missing, safes, analysed):
            continue
        if len(outlook.outcomes(*divmod(tile, width))) <= 1:
            continue  # dead: its number is known, it would teach nothing
        if p[tile] < best - _TOLERANCE:
            found.clear()
        best = min(best, float(p[tile]))
        found.append(tile)
    return divmod(min(found), width) if found else None


def _patterns(outlook: Outlook, open_cell: np.ndarray) -> list[tuple[int, list[int], list[int], list[int]]]:
    """(tile, its would-be fellow mines, the cells then safe, the closing cells not known to be
    mines) of every pair and 2x2 block of covered, possibly safe cells whose closing cells are all
    covered or off the board, at most one of them not known to be a mine."""
    h, w = outlook.height, outlook.width
    revealed = (outlook.grid.reshape(-1) >= 0).reshape(h, w)
    unknown = open_cell.reshape(h, w)
    # Padded by two cells, which count as nothing (off the board: as good as a mine); a revealed
    # closing cell counts 3, more than the one unknown cell allowed.
    blocked = np.zeros((h + 4, w + 4), dtype=np.int64)
    blocked[2:-2, 2:-2] = 3 * revealed + unknown
    col3 = blocked[:-2, :] + blocked[1:-1, :] + blocked[2:, :]  # [i, j]: padded rows i..i+2 of column j
    row3 = blocked[:, :-2] + blocked[:, 1:-1] + blocked[:, 2:]  # [i, j]: padded columns j..j+2 of row i
    # Pairs along rows, pairs down columns and 2x2 blocks of unknown cells whose closing cells
    # hold no revealed cell and at most one unknown one (indices into the padded sums above).
    along = unknown[:, :-1] & unknown[:, 1:] & (col3[1 : h + 1, 1:w] + col3[1 : h + 1, 4 : w + 3] <= 1)
    down = unknown[:-1, :] & unknown[1:, :] & (row3[1:h, 1 : w + 1] + row3[4 : h + 3, 1 : w + 1] <= 1)
    corners = blocked[1:h, 1:w] + blocked[1:h, 4 : w + 3] + blocked[4 : h + 3, 1:w] + blocked[4 : h + 3, 4 : w + 3]
    block = unknown[:-1, :-1] & unknown[:-1, 1:] & unknown[1:, :-1] & unknown[1:, 1:] & (corners <= 1)
    out: list[tuple[int, list[int], list[int], list[int]]] = []

    def unknown_of(cells: list[tuple[int, int]]) -> list[int]:
        return [r * w + c for r, c in cells if 0 <= r < h and 0 <= c < w and unknown[r, c]]

    for r, c in np.argwhere(along).tolist():
        a, b = r * w + c, r * w + c + 1
        missing = unknown_of([(r + k, c - 1) for k in (-1, 0, 1)] + [(r + k, c + 2) for k in (-1, 0, 1)])
        out += [(a, [], [b], missing), (b, [], [a], missing)]
    for r, c in np.argwhere(down).tolist():
        a, b = r * w + c, (r + 1) * w + c
        missing = unknown_of([(r - 1, c + k) for k in (-1, 0, 1)] + [(r + 2, c + k) for k in (-1, 0, 1)])
        out += [(a, [], [b], missing), (b, [], [a], missing)]
    for r, c in np.argwhere(block).tolist():
        a, b, d, e = r * w + c, r * w + c + 1, (r + 1) * w + c, (r + 1) * w + c + 1
        missing = unknown_of([(r - 1, c - 1), (r - 1, c + 2), (r + 2, c - 1), (r + 2, c + 2)])
        out += [(a, [e], [b, d], missing), (e, [a], [b, d], missing)]
        out += [(b, [d], [a, e], missing), (d, [b], [a, e], missing)]
    return out


def _forced_whenever_mined(
    outlook: Outlook,
    tile: int,
    mines: list[int],
    safes: list[int],
    analysed: dict[tuple[int, ...], tuple[float, Callable[[], np.ndarray]] | None],
) -> bool:
    """Whether every layout with ``tile`` a mine also has ``mines`` mined and ``safes`` safe.
    ``analysed``: the analyses of this position with cells flagged, by those cells (None:
    inconsistent), filled as they are made: the log weight, and the probabilities when asked."""
    flagged = tuple(sorted({tile, *mines}))
    if flagged not in analysed:
        grid = np.array(outlook.grid, dtype=np.int8)
        grid.reshape(-1)[list(flagged)] = FLAGGED
        try:
            analysed[flagged] = weight_then_probabilities(grid, outlook.mines)
        except InconsistentPositionError:
            analysed[flagged] = None
    known = analysed[flagged]
    if known is None:
        return False
    log_weight, probabilities = known
    # The layouts with all of them mined are all of those with ``tile`` mined (most often they
    # are not, and the probabilities are never computed) ...
    tally = outlook.log_weight + math.log(outlook.probabilities[tile])
    if not abs(log_weight - tally) <= _TOLERANCE * max(1.0, abs(tally)):
        return False
    # ... and in those, ``safes`` are safe.
    q = probabilities().reshape(-1)
    return not any(q[x] > 0.0 for x in safes)
