"""Combine component counts into exact mine probabilities, weighted by the global mine count:
log-space convolutions of the components' count vectors (docs/solver.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from players.solver.enumeration import ComponentCounts
from players.solver.errors import InconsistentPositionError

__all__ = [
    "Weighting",
    "forward_backward",
    "log_convolve",
    "log_correlate",
    "log_weights",
    "log_weights_direct",
    "weigh",
]

_NEG_INF = -np.inf


@njit(cache=True)
def log_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``out[k] = log sum_{i+j=k} exp(a[i] + b[j])``, each sum scaled by its largest term."""
    na, nb = a.shape[0], b.shape[0]
    top = np.full(na + nb - 1, -np.inf)
    for i in range(na):
        if a[i] == -np.inf:
            continue
        for j in range(nb):
            v = a[i] + b[j]
            if v > top[i + j]:
                top[i + j] = v
    acc = np.zeros(na + nb - 1)
    for i in range(na):
        if a[i] == -np.inf:
            continue
        for j in range(nb):
            if b[j] != -np.inf:
                acc[i + j] += np.exp(a[i] + b[j] - top[i + j])
    out = np.full(na + nb - 1, -np.inf)
    for k in range(na + nb - 1):
        if top[k] != -np.inf:
            out[k] = top[k] + np.log(acc[k])
    return out


@njit(cache=True)
def log_correlate(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``out[j] = log sum_i exp(a[i] + g[i + j])`` for ``j = 0 .. len(g) - len(a)``."""
    na = a.shape[0]
    n_out = g.shape[0] - na + 1
    out = np.full(n_out, -np.inf)
    for j in range(n_out):
        top = -np.inf
        for i in range(na):
            v = a[i] + g[i + j]
            if v > top:
                top = v
        if top == -np.inf:
            continue
        acc = 0.0
        for i in range(na):
            v = a[i] + g[i + j]
            if v != -np.inf:
                acc += np.exp(v - top)
        out[j] = top + np.log(acc)
    return out


@njit(cache=True)
def forward_backward(
    logs: np.ndarray, log_ptr: np.ndarray, g: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``weigh``'s two passes over pieces back to back (CSR ``logs``, ``log_ptr``) with weights ``g``:
    ``forward[k]``, the log convolution of pieces before ``k`` (``f_len[k]`` entries);
    ``backward[k]``, the correlation of pieces from ``k`` on with ``g``; the log total at [0, 0]."""
    count = log_ptr.shape[0] - 1
    n_total = log_ptr[count] - count
    forward = np.full((count + 1, n_total + 1), -np.inf)
    backward = np.full((count + 1, n_total + 1), -np.inf)
    f_len = np.empty(count + 1, np.int64)
    b_len = np.empty(count + 1, np.int64)
    forward[0, 0] = 0.0
    f_len[0] = 1
    for k in range(count):
        out = log_convolve(forward[k, : f_len[k]], logs[log_ptr[k] : log_ptr[k + 1]])  # C views: no copies
        f_len[k + 1] = out.shape[0]
        for i in range(f_len[k + 1]):
            forward[k + 1, i] = out[i]
    for i in range(n_total + 1):
        backward[count, i] = g[i]
    b_len[count] = n_total + 1
    for k in range(count - 1, -1, -1):
        out = log_correlate(logs[log_ptr[k] : log_ptr[k + 1]], backward[k + 1, : b_len[k + 1]])
        b_len[k] = out.shape[0]
        for i in range(b_len[k]):
            backward[k, i] = out[i]
    return forward, backward, f_len, b_len


def log_weights(n_frontier: int, unconstrained: int, mines_left: int, *, weighted: bool = True) -> np.ndarray:
    """``log W(k)`` for ``k = 0 .. n_frontier`` frontier mines (``-inf`` where impossible)."""
    k = np.arange(n_frontier + 1)
    r = mines_left - k
    ok = (r >= 0) & (r <= unconstrained)
    out = np.full(n_frontier + 1, _NEG_INF)
    if not ok.any():
        return out
    if not weighted:
        out[ok] = 0.0
        return out
    r_lo, r_hi = int(r[ok].min()), int(r[ok].max())
    u = unconstrained
    anchor = math.lgamma(u + 1) - math.lgamma(r_lo + 1) - math.lgamma(u - r_lo + 1)
    steps = np.arange(r_lo, r_hi)
    logs = np.concatenate(([anchor], anchor + np.cumsum(np.log((u - steps) / (steps + 1.0)))))
    out[ok] = logs[r[ok] - r_lo]
    return out


def log_weights_direct(n_frontier: int, unconstrained: int, mines_left: int, *, weighted: bool = True) -> np.ndarray:
    """``log_weights`` to the bit in a third of the array operations (the fast path's, where each
    position asks for a new one): the feasible ``k`` are one run, ``mines_left - r`` for ``r`` from
    ``r_lo`` to ``r_hi``, so the same ``anchor + cumsum(log(...))`` is written there reversed
    instead of through masks and a gather. ``tests/players/test_solver_fast.py`` holds it equal."""
    out = np.full(n_frontier + 1, _NEG_INF)
    r_lo, r_hi = max(mines_left - n_frontier, 0), min(mines_left, unconstrained)
    if r_lo > r_hi:
        return out
    k_lo, k_hi = mines_left - r_hi, mines_left - r_lo  # out[k_lo] holds r_hi, out[k_hi] holds r_lo
    if not weighted:
        out[k_lo : k_hi + 1] = 0.0
        return out
    u = unconstrained
    anchor = math.lgamma(u + 1) - math.lgamma(r_lo + 1) - math.lgamma(u - r_lo + 1)
    out[k_hi] = anchor
    if r_hi > r_lo:
        steps = np.arange(r_lo, r_hi)
        out[k_lo:k_hi] = (anchor + np.cumsum(np.log((u - steps) / (steps + 1.0))))[::-1]
    return out


@dataclass(frozen=True, slots=True)
class Weighting:
    """Per component (in order) its cells' probabilities and ``safe`` / ``mine`` masks; the
    unconstrained cells' (NaN without any); ``frontier_mines[k]``, P(the components hold ``k``)."""

    log_total: float
    probabilities: tuple[np.ndarray, ...]
    safe: tuple[np.ndarray, ...]
    mine: tuple[np.ndarray, ...]
    unconstrained_probability: float
    unconstrained_safe: bool
    unconstrained_mine: bool
    frontier_mines: np.ndarray


def _log_counts(totals: np.ndarray) -> np.ndarray:
    nonzero = np.flatnonzero(totals)
    size = int(nonzero[-1]) + 1 if nonzero.size else 1
    out = np.full(size, _NEG_INF)
    t = totals[:size].astype(np.float64)
    pos = t > 0
    out[pos] = np.log(t[pos])
    return out


def weigh(
    components: Sequence[ComponentCounts], unconstrained: int, mines_left: int, *, weighted: bool = True
) -> Weighting:
    """Exact probabilities of every component cell and of the unconstrained cells."""
    logs = [_log_counts(c.totals) for c in components]
    log_ptr = np.cumsum([0] + [len(t) for t in logs])
    g = log_weights(int(log_ptr[-1]) - len(logs), unconstrained, mines_left, weighted=weighted)
    forward, backward, f_len, b_len = forward_backward(np.concatenate([np.zeros(0), *logs]), log_ptr, g)
    log_total = float(backward[0, 0])
    if log_total == _NEG_INF:
        raise InconsistentPositionError(
            f"no layout fits the mine count: {mines_left} unflagged mines, {unconstrained} unconstrained cells, "
            "and the numbers around the frontier"
        )
    probabilities, safe, mine = [], [], []
    for c, (comp, t) in enumerate(zip(components, logs, strict=True)):
        context = log_correlate(forward[c, : f_len[c]].copy(), backward[c + 1, : b_len[c + 1]].copy())
        share = np.exp(context + t - log_total)
        size = t.shape[0]
        totals = comp.totals[:size].astype(np.float64)
        counted = totals > 0
        ratio = np.zeros((size, comp.mine_counts.shape[1]))
        ratio[counted] = comp.mine_counts[:size][counted] / totals[counted, None]
        probabilities.append(share @ ratio)
        feasible = counted & (context > _NEG_INF)
        seen = np.bitwise_or.reduce(comp.support[:size][feasible], axis=0)
        safe.append((seen & 1) == 0)
        mine.append((seen & 2) == 0)
    frontier_log = forward[len(logs), : f_len[len(logs)]] + g
    feasible_k = np.flatnonzero(frontier_log > _NEG_INF)
    frontier_mines = np.exp(frontier_log - log_total)
    rest = mines_left - feasible_k
    if unconstrained > 0:
        u_prob = float(frontier_mines[feasible_k] @ rest) / unconstrained
        u_safe = bool(rest.max() == 0)
        u_mine = bool(rest.min() == unconstrained)
    else:
        u_prob, u_safe, u_mine = math.nan, False, False
    return Weighting(
        log_total,
        tuple(probabilities),
        tuple(safe),
        tuple(mine),
        u_prob,
        u_safe,
        u_mine,
        frontier_mines,
    )
