"""Exact samples from the posterior over mine layouts of a position.

A rollout estimates a guess's chance to win by playing it out on layouts drawn from what the
player knows; the estimate is only unbiased when the layouts come from the exact posterior. With
uniform mines every layout consistent with the numbers is equally likely, so the posterior weight
of "component ``c`` holds ``k_c`` mines" is ``prod_c N_c(k_c) x C(U, M - sum_c k_c)`` (``N_c(k)``
the component's solutions with ``k`` mines, ``U`` the unconstrained cells, ``M`` the mines left),
and given the counts each component's solution is uniform among its ``N_c(k_c)`` and the rest of
the mines are uniform over the unconstrained cells. ``sample_layouts`` draws the counts one
component at a time from the exact conditional (a backward table of log weights), then a
solution, then the rest: a draw with exactly the posterior's probability, no rejection.

The solutions are listed once per position (``PosteriorSampler``, through apex's layout
enumerator); a component with more than ``max_solutions`` of them declines (None), and the
caller decides without rollouts. ``tests/players/test_rollout.py`` compares the frequencies
with brute force (``players.solver.bruteforce.layouts``) by a chi-square test.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from numba import njit

from engine import numba_cache, rng
from players.builtin.apex import endgame
from players.builtin.apex.endgame import _layouts_of
from players.builtin.apex.outlook import Outlook

__all__ = ["PosteriorSampler", "sample_layouts", "uniform"]


@njit(cache=True)
def uniform(state: np.ndarray) -> float:
    """A uniform double in [0, 1) from 53 bits of one PCG64 draw."""
    return float(rng.next_uint64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _log_binom(n: int, k: int) -> float:
    if k < 0 or k > n:
        return -np.inf
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@njit(cache=True)
def _backward(group_ptr: np.ndarray, g_k: np.ndarray, g_count: np.ndarray, n_free: int, mines: int) -> np.ndarray:
    """``table[c, m]``: log of the number of ways components ``c..`` and the unconstrained cells
    hold exactly ``m`` mines (``-inf`` when none)."""
    n_comp = group_ptr.shape[0] - 1
    table = np.full((n_comp + 1, mines + 1), -np.inf)
    for m in range(mines + 1):
        table[n_comp, m] = _log_binom(n_free, m)
    for c in range(n_comp - 1, -1, -1):
        for m in range(mines + 1):
            best = -np.inf
            for g in range(group_ptr[c], group_ptr[c + 1]):
                k = g_k[g]
                if k <= m:
                    best = max(best, math.log(g_count[g]) + table[c + 1, m - k])
            if best == -np.inf:
                continue
            total = 0.0
            for g in range(group_ptr[c], group_ptr[c + 1]):
                k = g_k[g]
                if k <= m:
                    total += math.exp(math.log(g_count[g]) + table[c + 1, m - k] - best)
            table[c, m] = best + math.log(total)
    return table


@njit(cache=True)
def sample_layouts(
    state: np.ndarray,
    n_samples: int,
    size: int,
    fixed: np.ndarray,
    group_ptr: np.ndarray,
    g_k: np.ndarray,
    g_count: np.ndarray,
    g_offset: np.ndarray,
    comp_ptr: np.ndarray,
    comp_cells: np.ndarray,
    solutions: np.ndarray,
    free: np.ndarray,
    mines: int,
) -> np.ndarray:
    """``n_samples`` layouts (uint8 rows of ``size`` board cells, 1 = mine) from the posterior.

    ``fixed`` marks the known mines (flags, deduced mines); component ``c`` owns the groups
    ``group_ptr[c]:group_ptr[c + 1]`` (``g_k`` mines, ``g_count`` solutions stored from row
    ``g_offset`` of its block of ``solutions``, each row its ``comp_ptr[c + 1] - comp_ptr[c]``
    cells ``comp_cells[comp_ptr[c]:]`` in order); ``free`` are the unconstrained cells and
    ``mines`` the mines left for the components and them."""
    n_comp = group_ptr.shape[0] - 1
    table = _backward(group_ptr, g_k, g_count, free.shape[0], mines)
    out = np.zeros((n_samples, size), np.uint8)
    pool = free.copy()
    for s in range(n_samples):
        row = out[s]
        for f in range(size):
            row[f] = fixed[f]
        m = mines
        for c in range(n_comp):
            # P(k) = N_c(k) x ways(rest, m - k) / ways(c.., m)
            u = uniform(state)
            acc = 0.0
            chosen = group_ptr[c + 1] - 1
            for g in range(group_ptr[c], group_ptr[c + 1]):
                k = g_k[g]
                if k > m:
                    continue
                acc += math.exp(math.log(g_count[g]) + table[c + 1, m - k] - table[c, m])
                if u < acc:
                    chosen = g
                    break
            while g_k[chosen] > m or table[c + 1, m - g_k[chosen]] == -np.inf:
                chosen -= 1  # rounding left u past the last possible group: take the last possible
            pick = g_offset[chosen] + rng.draw_below(state, g_count[chosen])
            n_cells = comp_ptr[c + 1] - comp_ptr[c]
            for j in range(n_cells):
                row[comp_cells[comp_ptr[c] + j]] = solutions[pick, j]
            m -= g_k[chosen]
        # The rest: a uniform subset of m unconstrained cells (partial Fisher-Yates).
        n_free = pool.shape[0]
        for i in range(m):
            j = i + rng.draw_below(state, n_free - i)
            pool[i], pool[j] = pool[j], pool[i]
            row[pool[i]] = 1
    return out


class PosteriorSampler:
    """The posterior of one position (an ``Outlook``), listed once and sampled many times."""

    def __init__(self, outlook: Outlook, max_solutions: int) -> None:
        self.size = outlook.height * outlook.width
        self.fixed = outlook.constant_mine.astype(np.uint8)
        self.free = np.flatnonzero(outlook.unconstrained).astype(np.int64)
        self.mines = int(outlook.mines_left)
        group_ptr = [0]
        g_k: list[int] = []
        g_count: list[int] = []
        g_offset: list[int] = []
        comp_ptr = [0]
        cells: list[np.ndarray] = []
        blocks: list[np.ndarray] = []
        width = 1
        rows = 0
        self.ok = True
        for comp in outlook.components:
            totals = np.asarray(comp.totals)
            if not comp.exact or float(totals.sum()) > max_solutions:
                self.ok = False
                return
            width = max(width, comp.system.n_cells)
            for k in np.flatnonzero(totals > 0).tolist():
                listed = _layouts_of((comp,), np.zeros(0, np.int64), k, int(totals[k]) + 1)
                if listed is None or listed[1].shape[0] != int(totals[k]):
                    self.ok = False  # cannot happen: the enumerator and the counts agree
                    return
                g_k.append(k)
                g_count.append(int(totals[k]))
                g_offset.append(rows)
                rows += int(totals[k])
                blocks.append(listed[1])
            group_ptr.append(len(g_k))
            comp_ptr.append(comp_ptr[-1] + comp.system.n_cells)
            cells.append(comp.cells.astype(np.int64))
        self.solutions = np.zeros((max(rows, 1), width), np.uint8)
        at = 0
        for block in blocks:
            self.solutions[at : at + block.shape[0], : block.shape[1]] = block
            at += block.shape[0]
        self.group_ptr = np.array(group_ptr, np.int64)
        self.g_k = np.array(g_k, np.int64)
        self.g_count = np.array(g_count, np.int64)
        self.g_offset = np.array(g_offset, np.int64)
        self.comp_ptr = np.array(comp_ptr, np.int64)
        self.comp_cells = np.concatenate(cells) if cells else np.zeros(0, np.int64)

    def sample(self, state: np.ndarray, n_samples: int) -> np.ndarray:
        """``n_samples`` layouts (rows of board cells, 1 = mine), drawing from ``state``."""
        return sample_layouts(
            state, n_samples, self.size, self.fixed, self.group_ptr, self.g_k, self.g_count, self.g_offset,
            self.comp_ptr, self.comp_cells, self.solutions, self.free, self.mines,
        )  # fmt: skip


numba_cache.stamp_dependencies(sys.modules[__name__], [Path(rng.__file__), Path(endgame.__file__), Path(__file__)])
