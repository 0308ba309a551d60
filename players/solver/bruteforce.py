"""Brute-force reference: exact probabilities by listing every layout, for tests and debugging.

Deliberately naive and independent of the rest of the library (no frontier, no components, no
numba, no logs): it tries every placement and counts with Python integers, so it can referee the
fast solver on small positions (up to a few hundred thousand layouts). Do not use it in players.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from engine import COVERED, FLAGGED

__all__ = ["BruteForce", "brute_force"]


@dataclass(frozen=True, slots=True)
class BruteForce:
    """Exact results: ``probabilities`` maps each covered unflagged cell to a ``Fraction``;
    ``count`` is the number of layouts (weighted) or of feasible frontier solutions (unweighted).
    ``count == 0`` means the position is inconsistent (and ``probabilities`` is empty)."""

    probabilities: dict[tuple[int, int], Fraction]
    count: int

    @property
    def safe(self) -> list[tuple[int, int]]:
        return sorted(c for c, p in self.probabilities.items() if p == 0)

    @property
    def mines(self) -> list[tuple[int, int]]:
        return sorted(c for c, p in self.probabilities.items() if p == 1)


def _constraints(grid: np.ndarray, cells: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Matrix (numbers x cells) of adjacency and each number's value minus its adjacent flags."""
    h, w = grid.shape
    index = {c: i for i, c in enumerate(cells)}
    rows, rhs = [], []
    for r in range(h):
        for c in range(w):
            if grid[r, c] < 0:
                continue
            row = np.zeros(len(cells), dtype=np.int64)
            flags = 0
            for rr in range(max(r - 1, 0), min(r + 2, h)):
                for cc in range(max(c - 1, 0), min(c + 2, w)):
                    if grid[rr, cc] == FLAGGED:
                        flags += 1
                    elif (rr, cc) in index:
                        row[index[(rr, cc)]] = 1
            rows.append(row)
            rhs.append(int(grid[r, c]) - flags)
    a = np.array(rows, dtype=np.int64).reshape(len(rows), len(cells))
    return a, np.array(rhs, dtype=np.int64)


def brute_force(grid: np.ndarray, mines: int, *, weighted: bool = True, limit: int = 2_000_000) -> BruteForce:
    """Exact mine probabilities of every covered unflagged cell, flags trusted as mines.

    Weighted: every placement of the unflagged mines on the covered unflagged cells that agrees
    with every number counts once. Unweighted: every 0/1 assignment of the frontier (covered cells
    next to a number) that agrees with the numbers counts once if the rest of the mines fits the
    other covered cells; the other cells then share the remaining mines evenly.
    """
    grid = np.asarray(grid)
    h, w = grid.shape
    covered = [(r, c) for r in range(h) for c in range(w) if grid[r, c] == COVERED]
    left = mines - int((grid == FLAGGED).sum())
    if weighted:
        if left < 0 or left > len(covered):
            return BruteForce({}, 0)
        if math.comb(len(covered), left) > limit:
            raise ValueError("too many layouts for brute force")
        a, b = _constraints(grid, covered)
        combos = np.array(list(itertools.combinations(range(len(covered)), left)), dtype=np.int64)
        x = np.zeros((combos.shape[0], len(covered)), dtype=np.int64)
        np.put_along_axis(x, combos.reshape(combos.shape[0], left), 1, axis=1)
        good = x[(x @ a.T == b).all(axis=1)]
        count = good.shape[0]
        if count == 0:
            return BruteForce({}, 0)
        hits = good.sum(axis=0)
        return BruteForce({c: Fraction(int(hits[i]), count) for i, c in enumerate(covered)}, count)

    def touches_number(r: int, c: int) -> bool:
        rs, cs = slice(max(r - 1, 0), r + 2), slice(max(c - 1, 0), c + 2)
        return bool((grid[rs, cs] >= 0).any())

    frontier = [cell for cell in covered if touches_number(*cell)]
    others = [cell for cell in covered if not touches_number(*cell)]
    if 2 ** len(frontier) > limit:
        raise ValueError("too many frontier assignments for brute force")
    a, b = _constraints(grid, frontier)
    u = len(others)
    x = np.array(list(itertools.product((0, 1), repeat=len(frontier))), dtype=np.int64).reshape(
        2 ** len(frontier), len(frontier)
    )
    k = x.sum(axis=1)
    good = (x @ a.T == b).all(axis=1) & (left - k >= 0) & (left - k <= u)
    count = int(good.sum())
    if count == 0:
        return BruteForce({}, 0)
    hits = x[good].sum(axis=0)
    probabilities = {c: Fraction(int(hits[i]), count) for i, c in enumerate(frontier)}
    if u:
        rest = Fraction(int((left - k[good]).sum()), u * count)
        for c in others:
            probabilities[c] = rest
    return BruteForce(probabilities, count)
