"""The compiled core of a what-if reveal: ``weighting.weigh`` reduced to the three numbers the
lookahead reads (docs/players.md, "apex, inside")."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from players.solver import ComponentCounts
from players.solver.weighting import forward_backward, log_convolve, log_correlate

__all__ = ["ComponentStore", "summarize", "summarize_after", "summarize_prefix"]


class ComponentStore:
    """A position's components back to back: component ``k``'s ``n[k] + 1`` totals from ``total_ptr[k]``,
    its ``(n[k] + 1) x n[k]`` mine counts and support bytes from ``cell_ptr[k]``."""

    def __init__(self, components: Sequence[ComponentCounts]) -> None:
        count = len(components)
        self.n = np.array([c.totals.shape[0] - 1 for c in components], dtype=np.int64)
        self.total_ptr = np.zeros(count + 1, dtype=np.int64)
        self.cell_ptr = np.zeros(count + 1, dtype=np.int64)
        self.total_ptr[1:] = np.cumsum(self.n + 1)
        self.cell_ptr[1:] = np.cumsum((self.n + 1) * self.n)
        # Each led by an empty array of its type: no components, empty arrays all the same.
        self.totals = np.concatenate([np.zeros(0), *(c.totals.astype(np.float64) for c in components)])
        self.mine_counts = np.concatenate(
            [np.zeros(0), *(c.mine_counts.astype(np.float64).ravel() for c in components)]
        )
        self.support = np.concatenate(
            [np.zeros(0, np.uint8), *(c.support.astype(np.uint8).ravel() for c in components)]
        )

    @classmethod
    def from_packed(
        cls, starts: np.ndarray, totals: np.ndarray, counts: np.ndarray, support: np.ndarray
    ) -> ComponentStore:
        """The store of components already back to back (``Analysis.packed``): ``starts`` are the
        components' first cells, ``totals``, ``counts`` and ``support`` their counts in order."""
        self = cls.__new__(cls)
        self.n = np.diff(starts)
        self.total_ptr = starts + np.arange(starts.shape[0], dtype=np.int64)
        self.cell_ptr = np.zeros(starts.shape[0], dtype=np.int64)
        self.cell_ptr[1:] = np.cumsum((self.n + 1) * self.n)
        self.totals = totals.astype(np.float64)
        self.mine_counts = counts.astype(np.float64)
        self.support = support
        return self

    def summarize(
        self, order: np.ndarray, extra: ComponentCounts | None, unconstrained: int, mines_left: int
    ) -> tuple[bool, float, bool, float]:
        """``summarize`` over components ``order`` of this store and then ``extra`` (if any)."""
        if extra is None:  # one empty layout
            e_totals, e_counts, e_support = np.zeros(1), np.zeros((1, 0)), np.zeros((1, 0), dtype=np.uint8)
        else:
            e_totals = extra.totals.astype(np.float64)
            e_counts = extra.mine_counts.astype(np.float64)
            e_support = extra.support.astype(np.uint8)
        store = (self.n, self.total_ptr, self.cell_ptr, self.totals, self.mine_counts, self.support)
        return summarize(*store, order, e_totals, e_counts, e_support, extra is not None, unconstrained, mines_left)


@njit(cache=True, error_model="numpy")
def _log_weights(n_frontier: int, unconstrained: int, mines_left: int) -> np.ndarray:
    """``weighting.log_weights`` (weighted): ``log C(U, M - k)`` for ``k = 0 .. n_frontier``."""
    out = np.full(n_frontier + 1, -np.inf)
    r_lo, r_hi = -1, -1
    for k in range(n_frontier + 1):
        r = mines_left - k
        if 0 <= r <= unconstrained:
            if r_lo < 0 or r < r_lo:
                r_lo = r
            if r > r_hi:
                r_hi = r
    if r_lo < 0:
        return out
    u = unconstrained
    logs = np.empty(r_hi - r_lo + 1)
    logs[0] = math.lgamma(u + 1) - math.lgamma(r_lo + 1) - math.lgamma(u - r_lo + 1)
    for s in range(r_lo, r_hi):
        logs[s - r_lo + 1] = logs[s - r_lo] + np.log((u - s) / (s + 1.0))
    for k in range(n_frontier + 1):
        r = mines_left - k
        if 0 <= r <= unconstrained:
            out[k] = logs[r - r_lo]
    return out


@njit(cache=True, error_model="numpy")
def summarize(
    n: np.ndarray,
    total_ptr: np.ndarray,
    cell_ptr: np.ndarray,
    totals: np.ndarray,
    mine_counts: np.ndarray,
    support: np.ndarray,
    order: np.ndarray,
    e_totals: np.ndarray,
    e_counts: np.ndarray,
    e_support: np.ndarray,
    has_extra: bool,
    unconstrained: int,
    mines_left: int,
) -> tuple[bool, float, bool, float]:
    """``(ok, log_total, progress, best_safety)`` of components ``order`` (distinct) of the store, the extra
    piece and ``unconstrained`` free cells with ``mines_left`` mines (``ok`` false: no layout fits).
    ``best_safety``: 1.0 with progress, else one minus the lowest probability of a possible safe cell."""
    count = order.shape[0] + (1 if has_extra else 0)
    # Each piece's log counts, cut after its last nonzero total, as weighting._log_counts does.
    length = np.empty(count, np.int64)
    log_ptr = np.zeros(count + 1, np.int64)
    logs = np.full(totals.shape[0] + e_totals.shape[0], -np.inf)  # room for every piece's counts, each piece once
    for q in range(count):
        t = totals[total_ptr[order[q]] : total_ptr[order[q] + 1]] if q < order.shape[0] else e_totals
        size = 1
        for i in range(t.shape[0] - 1, -1, -1):
            if t[i] != 0:
                size = i + 1
                break
        length[q] = size
        log_ptr[q + 1] = log_ptr[q] + size
        for i in range(size):
            if t[i] > 0:
                logs[log_ptr[q] + i] = np.log(t[i])
    logs = logs[: log_ptr[count]]
    n_total = log_ptr[count] - count
    g = _log_weights(n_total, unconstrained, mines_left)
    forward, backward, f_len, b_len = forward_backward(logs, log_ptr, g)
    return _summarize_tail(
        n, total_ptr, cell_ptr, totals, mine_counts, support, order, e_totals, e_counts, e_support,
        unconstrained, mines_left, count, length, log_ptr, logs, n_total, g, forward, backward, f_len, b_len,
    )  # fmt: skip


@njit(cache=True, error_model="numpy")
def _summarize_tail(
    n: np.ndarray,
    total_ptr: np.ndarray,
    cell_ptr: np.ndarray,
    totals: np.ndarray,
    mine_counts: np.ndarray,
    support: np.ndarray,
    order: np.ndarray,
    e_totals: np.ndarray,
    e_counts: np.ndarray,
    e_support: np.ndarray,
    unconstrained: int,
    mines_left: int,
    count: int,
    length: np.ndarray,
    log_ptr: np.ndarray,
    logs: np.ndarray,
    n_total: int,
    g: np.ndarray,
    forward: np.ndarray,
    backward: np.ndarray,
    f_len: np.ndarray,
    b_len: np.ndarray,
) -> tuple[bool, float, bool, float]:
    """``summarize`` after ``forward_backward``: the pieces' contexts, their cells' probabilities
    and the unconstrained cells' (shared with ``summarize_after``)."""
    log_total = backward[0, 0]
    if log_total == -np.inf:
        return False, log_total, False, 0.0
    progress = False
    lowest = 1.0
    for q in range(count):
        context = log_correlate(forward[q, : f_len[q]].copy(), backward[q + 1, : b_len[q + 1]].copy())
        if q < order.shape[0]:
            k = order[q]
            nq = n[k]
            t = totals[total_ptr[k] : total_ptr[k + 1]]
            mc = mine_counts[cell_ptr[k] : cell_ptr[k + 1]].reshape((nq + 1, nq))
            sup = support[cell_ptr[k] : cell_ptr[k + 1]].reshape((nq + 1, nq))
        else:
            nq = e_counts.shape[1]
            t = e_totals
            mc = e_counts
            sup = e_support
        lp = log_ptr[q]
        share = np.empty(length[q])
        for i in range(length[q]):
            share[i] = np.exp(context[i] + logs[lp + i] - log_total)
        for j in range(nq):
            p = 0.0
            seen = 0
            for i in range(length[q]):
                if t[i] > 0:
                    p += share[i] * (mc[i, j] / t[i])
                    if context[i] > -np.inf:
                        seen |= sup[i, j]
            if (seen & 1) == 0:
                progress = True
            if (seen & 2) != 0 and p < lowest:
                lowest = p
    # The unconstrained cells share the expected remaining mines.
    expected = 0.0
    rest_max, rest_min = -1, unconstrained + 1
    for k in range(n_total + 1):
        e = forward[count, k] + g[k]
        if e > -np.inf:
            rest = mines_left - k
            expected += np.exp(e - log_total) * rest
            rest_max = max(rest_max, rest)
            rest_min = min(rest_min, rest)
    if unconstrained > 0:
        if rest_max == 0:
            progress = True
        if rest_min != unconstrained:
            lowest = min(lowest, expected / unconstrained)
    if progress:
        return True, log_total, True, 1.0
    return True, log_total, False, 1.0 - lowest if lowest < 1.0 else 1.0


@njit(cache=True, error_model="numpy")
def summarize_prefix(
    total_ptr: np.ndarray, totals: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What ``summarize`` computes of components ``order`` before it meets the extra piece: their
    log counts (``logs``, ``log_ptr``, ``length``) and the forward pass over them (``forward``,
    ``f_len``). A what-if's every shown number has the same untouched components and a new extra
    piece: ``summarize_after`` takes this from there, the same operations on the same values."""
    count = order.shape[0]
    length = np.empty(count, np.int64)
    log_ptr = np.zeros(count + 1, np.int64)
    logs = np.full(totals.shape[0], -np.inf)
    for q in range(count):
        t = totals[total_ptr[order[q]] : total_ptr[order[q] + 1]]
        size = 1
        for i in range(t.shape[0] - 1, -1, -1):
            if t[i] != 0:
                size = i + 1
                break
        length[q] = size
        log_ptr[q + 1] = log_ptr[q] + size
        for i in range(size):
            if t[i] > 0:
                logs[log_ptr[q] + i] = np.log(t[i])
    logs = logs[: log_ptr[count]]
    forward = np.full((count + 1, log_ptr[count] - count + 1), -np.inf)
    f_len = np.empty(count + 1, np.int64)
    forward[0, 0] = 0.0
    f_len[0] = 1
    for k in range(count):  # forward_backward's forward pass
        out = log_convolve(forward[k, : f_len[k]].copy(), logs[log_ptr[k] : log_ptr[k + 1]].copy())
        f_len[k + 1] = out.shape[0]
        for i in range(f_len[k + 1]):
            forward[k + 1, i] = out[i]
    return logs, log_ptr, length, forward, f_len


@njit(cache=True, error_model="numpy")
def summarize_after(
    prefix: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    n: np.ndarray,
    total_ptr: np.ndarray,
    cell_ptr: np.ndarray,
    totals: np.ndarray,
    mine_counts: np.ndarray,
    support: np.ndarray,
    order: np.ndarray,
    e_totals: np.ndarray,
    e_counts: np.ndarray,
    e_support: np.ndarray,
    has_extra: bool,
    unconstrained: int,
    mines_left: int,
) -> tuple[bool, float, bool, float]:
    """``summarize`` (to the bit) given ``summarize_prefix(total_ptr, totals, order)``: only the extra
    piece's log counts and forward step, then the backward pass and the rest as ``summarize``."""
    r_logs, r_ptr, r_length, r_forward, r_f_len = prefix
    n_rest = order.shape[0]
    count = n_rest + (1 if has_extra else 0)
    length = np.empty(count, np.int64)
    log_ptr = np.zeros(count + 1, np.int64)
    length[:n_rest] = r_length
    log_ptr[: n_rest + 1] = r_ptr
    logs = np.full(r_logs.shape[0] + e_totals.shape[0], -np.inf)
    logs[: r_logs.shape[0]] = r_logs
    if has_extra:
        t = e_totals
        size = 1
        for i in range(t.shape[0] - 1, -1, -1):
            if t[i] != 0:
                size = i + 1
                break
        length[n_rest] = size
        log_ptr[count] = log_ptr[n_rest] + size
        for i in range(size):
            if t[i] > 0:
                logs[log_ptr[n_rest] + i] = np.log(t[i])
    logs = logs[: log_ptr[count]]
    n_total = log_ptr[count] - count
    g = _log_weights(n_total, unconstrained, mines_left)
    # forward_backward, its forward rows over the untouched components taken from the prefix.
    forward = np.full((count + 1, n_total + 1), -np.inf)
    backward = np.full((count + 1, n_total + 1), -np.inf)
    f_len = np.empty(count + 1, np.int64)
    b_len = np.empty(count + 1, np.int64)
    for k in range(n_rest + 1):
        f_len[k] = r_f_len[k]
        for i in range(f_len[k]):
            forward[k, i] = r_forward[k, i]
    for k in range(n_rest, count):
        out = log_convolve(forward[k, : f_len[k]].copy(), logs[log_ptr[k] : log_ptr[k + 1]].copy())
        f_len[k + 1] = out.shape[0]
        for i in range(f_len[k + 1]):
            forward[k + 1, i] = out[i]
    for i in range(n_total + 1):
        backward[count, i] = g[i]
    b_len[count] = n_total + 1
    for k in range(count - 1, -1, -1):
        out = log_correlate(logs[log_ptr[k] : log_ptr[k + 1]].copy(), backward[k + 1, : b_len[k + 1]].copy())
        b_len[k] = out.shape[0]
        for i in range(b_len[k]):
            backward[k, i] = out[i]
    return _summarize_tail(
        n, total_ptr, cell_ptr, totals, mine_counts, support, order, e_totals, e_counts, e_support,
        unconstrained, mines_left, count, length, log_ptr, logs, n_total, g, forward, backward, f_len, b_len,
    )  # fmt: skip
