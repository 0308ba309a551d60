"""Brute-force reference for the tests: exact probabilities by listing every layout.

Deliberately naive and independent of the rest of the library (no frontier, no components, no
numba, no logs): it tries every placement and counts with Python integers, so it can referee the
fast solver on small positions (up to a few hundred thousand layouts). ``layouts`` lists them as
sets of flat cells, and ``win_probability`` searches the whole game tree over them (tiny boards
only), to referee the players' guesses. Do not use it in players.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from engine import COVERED, FLAGGED

__all__ = ["BruteForce", "brute_force", "flood", "layouts", "numbers", "win_probability"]


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


def numbers(mined: frozenset[int], height: int, width: int) -> list[int]:
    """Per flat cell, how many of the cells around it (and itself) are in ``mined``."""
    out = []
    for f in range(height * width):
        r, c = divmod(f, width)
        out.append(
            sum(
                (rr * width + cc) in mined
                for rr in range(max(r - 1, 0), min(r + 2, height))
                for cc in range(max(c - 1, 0), min(c + 2, width))
            )
        )
    return out


def flood(start: int, counts: list[int], height: int, width: int) -> frozenset[int]:
    """The cells a click on safe ``start`` opens, ``counts`` being the layout's ``numbers``."""
    seen = {start}
    stack = [start]
    while stack:
        f = stack.pop()
        if counts[f] != 0:
            continue
        r, c = divmod(f, width)
        for rr in range(max(r - 1, 0), min(r + 2, height)):
            for cc in range(max(c - 1, 0), min(c + 2, width)):
                g = rr * width + cc
                if g not in seen:
                    seen.add(g)
                    stack.append(g)
    return frozenset(seen)


def layouts(grid: np.ndarray, mines: int) -> list[frozenset[int]]:
    """Every mine layout (a set of flat cells) that agrees with the revealed numbers, flags taken
    as mines, in ``itertools.combinations`` order of the covered cells."""
    grid = np.asarray(grid)
    h, w = grid.shape
    flat = grid.reshape(-1)
    flags = frozenset(np.flatnonzero(flat == FLAGGED).tolist())
    covered = np.flatnonzero(flat == COVERED).tolist()
    shown = np.flatnonzero(flat >= 0).tolist()
    out: list[frozenset[int]] = []
    if mines < len(flags):
        return out
    for combo in itertools.combinations(covered, mines - len(flags)):
        mined = flags | frozenset(combo)
        counts = numbers(mined, h, w)
        if all(counts[f] == flat[f] for f in shown):
            out.append(mined)
    return out


def win_probability(grid: np.ndarray, mines: int, first: tuple[int, int] | None = None) -> float:
    """The probability of winning from this position when every click is the best possible (or,
    with ``first``, when that cell is clicked now and every later click is the best): plain
    game-tree search over every layout, with the real rules (flood fill) and no shortcut."""
    grid = np.asarray(grid)
    h, w = grid.shape
    every = [(m, numbers(m, h, w)) for m in layouts(grid, mines)]
    blocked = frozenset(np.flatnonzero(grid.reshape(-1) != COVERED).tolist())

    def click(x: int, alive: frozenset[int], revealed: frozenset[int]) -> float:
        groups: dict[tuple[tuple[int, int], ...], list[int]] = {}
        for i in alive:
            mined, counts = every[i]
            if x not in mined:
                key = tuple(sorted((f, counts[f]) for f in flood(x, counts, h, w)))
                groups.setdefault(key, []).append(i)
        return sum(
            len(group) / len(alive) * value(frozenset(group), revealed | frozenset(f for f, _ in key))
            for key, group in groups.items()
        )

    @cache
    def value(alive: frozenset[int], revealed: frozenset[int]) -> float:
        if len({every[i][0] for i in alive}) == 1:
            return 1.0  # the mines are known: reveal every other cell
        return max(click(x, alive, revealed) for x in range(h * w) if x not in revealed)

    start = frozenset(range(len(every)))
    if first is None:
        return value(start, blocked)
    return click(first[0] * w + first[1], start, blocked)
