"""The base policy of the rollouts, a whole game in compiled code on a known layout.

A rollout plays a candidate guess and then the rest of the game, thousands of times per
decision, so the continuation must cost well under a millisecond on Expert: no Python at all.
``play_out`` plays from a position on a layout drawn from its posterior, deciding only from the
view (a policy that peeked at the layout would make every guess look good): the single-cell rules
(``enumeration_player._rules``), then the exact weighted probabilities of the solver's fast path
(``fast.prepare``, ``fast.combine`` and ``fast.finish``, with the few floating-point steps that
``analysis.fast_prepared`` leaves to numpy done here in compiled code: the probabilities agree
with ``analyze`` to rounding, not bit for bit, which a playout does not need), its certain cells,
and otherwise a greedy guess: the safest covered cell, ties to the cell with the fewest covered
neighbours (likelier a zero), then board order. That is the "greedy on exact probabilities"
player (about 38% on Expert / safe). Deterministic: the same layout gives the same game, which
is what makes the candidates' rollouts common random numbers.

``evaluate`` plays every candidate on every layout of a batch: the same layouts for all of them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from numba import njit

from engine import kernels, numba_cache
from engine.kernels import COVERED, FLAGGED, HIT_MINE, MINE
from players.builtin import enumeration_player
from players.builtin.enumeration_player import _rules
from players.solver import fast
from players.solver.analysis import _FAST_SEARCH_NODES, _INT_PARTS, DEFAULT_RREF_MIN_CELLS
from players.solver.enumeration import EXACT_CELLS
from players.solver.fast import combine, finish, prepare

__all__ = ["evaluate", "exact_probabilities", "play_out"]


@njit(cache=True)
def exact_probabilities(grid: np.ndarray, mines: int, log_table: np.ndarray) -> tuple:
    """``analyze(grid, mines)``'s flat probabilities (weighted by the global mine count) and
    certain cells, through the fast path; ``ok`` false when it declines (a component too large)."""
    size = grid.shape[0] * grid.shape[1]
    width = grid.shape[1]
    out = prepare(grid, mines, True, True, DEFAULT_RREF_MIN_CELLS, _FAST_SEARCH_NODES, EXACT_CELLS, log_table)
    ok, _, _, mines_w, _, _, ints, _, floats, states, support = out
    empty = np.zeros((2, 0), np.int64)
    if not ok:
        return False, np.zeros(0), empty, empty
    ends = ints[: _INT_PARTS + 1]
    unconstrained = ints[ends[3] : ends[4]]
    p_cells = ints[ends[5] : ends[6]]
    log_index = ints[ends[10] : ends[11]]
    cell_ptr = ints[ends[12] : ends[13]]
    log_ptr = ints[ends[14] : ends[15]]
    ratio_ptr = ints[ends[15] : ends[16]]
    count = cell_ptr.shape[0] - 1
    n_logs = log_index.shape[0]
    lp = log_ptr[count]
    probabilities = floats[:size]
    logs = floats[size : size + lp]
    for i in range(n_logs):
        logs[log_index[i]] = np.log(floats[size + lp + i])
    ratios = floats[size + lp + n_logs : size + lp + n_logs + ratio_ptr[count]]
    n_free = unconstrained.shape[0]
    n_total = lp - count
    # weighting.log_weights: log C(U, mines_w - k) for k frontier mines.
    g = np.full(n_total + 1, -np.inf)
    for k in range(n_total + 1):
        r = mines_w - k
        if 0 <= r <= n_free:
            g[k] = _log_choose(n_free, r)
    ok, _, exponents, piece_state, feasible, u_state = combine(cell_ptr, log_ptr, logs, g, support, n_free, mines_w)
    if not ok:
        return False, np.zeros(0), empty, empty
    shares = np.exp(exponents)
    piece_p = np.zeros(p_cells.shape[0])
    for k in range(count):
        nk = cell_ptr[k + 1] - cell_ptr[k]
        for i in range(log_ptr[k + 1] - log_ptr[k]):
            s = shares[log_ptr[k] + i]
            for j in range(nk):
                piece_p[cell_ptr[k] + j] += s * ratios[ratio_ptr[k] + i * nk + j]
    u = np.nan
    if n_free:
        if u_state >= 0:
            u = float(u_state)
        else:
            acc = 0.0
            for f in feasible:
                acc += shares[lp + f] * (mines_w - f)
            u = acc / n_free
    state = states[:size]
    safe, mine = finish(probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, width)
    return True, probabilities, safe, mine


@njit(cache=True)
def _log_choose(n: int, k: int) -> float:
    total = 0.0
    k = min(k, n - k)
    for i in range(k):
        total += np.log((n - i) / (i + 1.0))
    return total


@njit(cache=True)
def _covered_around(view: np.ndarray, height: int, width: int, cell: int) -> int:
    r = cell // width
    c = cell % width
    n = 0
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            if view[rr * width + cc] == COVERED:
                n += 1
    return n


@njit(cache=True)
def _greedy(view: np.ndarray, probabilities: np.ndarray, height: int, width: int) -> int:
    """The safest covered cell; ties to fewer covered neighbours, then board order."""
    best = -1
    best_p = 2.0
    best_n = 99
    for f in range(view.shape[0]):
        if view[f] != COVERED:
            continue
        p = probabilities[f]
        if not p < 1.0:
            continue
        if p < best_p - 1e-12:
            best, best_p, best_n = f, p, _covered_around(view, height, width, f)
        elif p <= best_p + 1e-12:
            n = _covered_around(view, height, width, f)
            if n < best_n:
                best, best_p, best_n = f, min(p, best_p), n
    return best


@njit(cache=True)
def _fallback(view: np.ndarray, height: int, width: int) -> int:
    """A guess when the solver declines (a component past its exact size, rare): the covered cell
    with the fewest covered neighbours."""
    best = -1
    best_n = 99
    for f in range(view.shape[0]):
        if view[f] == COVERED:
            n = _covered_around(view, height, width, f)
            if n < best_n:
                best, best_n = f, n
    return best


@njit(cache=True)
def play_out(
    view: np.ndarray,
    truth: np.ndarray,
    height: int,
    width: int,
    mines: int,
    cell: int,
    stack: np.ndarray,
    log_table: np.ndarray,
) -> bool:
    """Reveal ``cell`` on the position ``view`` (flat, modified in place) of the layout ``truth``
    (numbers, ``MINE``), then play the base policy to the end: True when the game is won."""
    left = 0
    for f in range(view.shape[0]):
        if view[f] < 0 and truth[f] != MINE:
            left += 1
    grid = view.reshape(height, width)
    while True:
        if cell >= 0:
            got = kernels.reveal_cells(view, truth, height, width, cell, stack)
            if got == HIT_MINE:
                return False
            left -= got
            cell = -1
        if left == 0:
            return True
        _, safe, mine = _rules(grid)
        if safe.shape[1] == 0 and mine.shape[1] == 0:
            ok, probabilities, safe, mine = exact_probabilities(grid, mines, log_table)
            if not ok:
                cell = _fallback(view, height, width)
                if cell < 0:
                    return False
                continue
            if safe.shape[1] == 0 and mine.shape[1] == 0:
                cell = _greedy(view, probabilities, height, width)
                if cell < 0:
                    return False
                continue
        for i in range(mine.shape[1]):
            view[mine[0, i] * width + mine[1, i]] = FLAGGED
        for i in range(safe.shape[1]):
            f = safe[0, i] * width + safe[1, i]
            if view[f] == COVERED:
                got = kernels.reveal_cells(view, truth, height, width, f, stack)
                if got == HIT_MINE:
                    return False  # a certain cell was a mine: the layout contradicts the view
                left -= got
        if left == 0:
            return True


@njit(cache=True)
def evaluate(
    view: np.ndarray,
    layouts: np.ndarray,
    candidates: np.ndarray,
    alive: np.ndarray,
    height: int,
    width: int,
    mines: int,
    log_table: np.ndarray,
) -> np.ndarray:
    """Win (1) or loss (0) of each living candidate on each layout: (candidates, layouts) int8,
    -1 for the candidates not played. Every candidate sees the same layouts."""
    size = height * width
    out = np.full((candidates.shape[0], layouts.shape[0]), -1, np.int8)
    truth = np.zeros(size, np.int8)
    stack = np.empty(size, np.int64)
    work = np.empty(size, np.int8)
    for s in range(layouts.shape[0]):
        kernels.neighbour_numbers(layouts[s], height, width, truth)
        for k in range(candidates.shape[0]):
            if not alive[k]:
                continue
            work[:] = view
            out[k, s] = 1 if play_out(work, truth, height, width, mines, candidates[k], stack, log_table) else 0
    return out


numba_cache.stamp_dependencies(
    sys.modules[__name__],
    [Path(m.__file__) for m in (kernels, enumeration_player)]
    + sorted(Path(fast.__file__).parent.glob("*.py"))
    + [Path(__file__)],
)
