"""Acceleration of ``analysis.analyze_general``: a typical position in a few compiled calls;
held equal to it, to the bit, by ``tests/players/test_solver_fast.py``. See docs/solver.md.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from players.solver.enumeration import _BINOM_INT, MAX_CELLS, _search_into
from players.solver.fast_system import deduce_matrix, extract, split, stamp_dependencies, substitute
from players.solver.frontier import MAX_ARITY
from players.solver.ordering import prepare_search_into, search_work_size
from players.solver.rref import _propagate
from players.solver.weighting import forward_backward, log_correlate

__all__ = ["combine", "finish", "guess_parts", "prepare", "prepare_parts", "work_size"]


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _reduce(
    constraints: np.ndarray,
    rhs: np.ndarray,
    sources: np.ndarray,
    values: np.ndarray,
    use_rref: bool,
    rref_min_cells: int,
) -> tuple:
    """``rref.reduce_system`` after the first trivial pass, updating ``values``: ``(ok, the
    undetermined system, keep (its cells' frontier indices), its pieces as ``split`` gives them)``."""
    n = values.shape[0]
    while True:
        if (values >= 0).any():
            ok, r_cons, r_rhs, r_src, keep = substitute(constraints, rhs, sources, values)
            if not ok:  # an unsatisfiable row: nothing to split
                r_cons, keep = r_cons[:0], keep[:0]
        else:
            ok, r_cons, r_rhs, r_src, keep = True, constraints, rhs, sources, np.arange(n)
        count, cell_ptr, piece_cells, row_ptr, row_order, remapped = split(r_cons, keep.shape[0])
        if not ok or not use_rref:
            break
        found = False
        for k in range(count):
            nk = cell_ptr[k + 1] - cell_ptr[k]
            mk = row_ptr[k + 1] - row_ptr[k]
            if nk < rref_min_cells or mk < 2:
                continue
            a = np.zeros((mk, nk), np.int64)
            b = np.empty(mk, np.int64)
            for p in range(mk):
                i = row_order[row_ptr[k] + p]
                b[p] = r_rhs[i]
                for t in range(MAX_ARITY):
                    x = remapped[i, t]
                    if x < 0:
                        break
                    a[p, x] = 1
            ok, piece_values = deduce_matrix(a, b)
            if not ok:
                break
            for j in range(nk):
                if piece_values[j] >= 0:
                    values[keep[piece_cells[cell_ptr[k] + j]]] = piece_values[j]
                    found = True
        if not ok or not found:
            break
        # The new cells may make other rows trivially tight.
        if _propagate(constraints, rhs, values) >= 0:
            ok = False
            break
    return ok, r_cons, r_rhs, r_src, keep, count, cell_ptr, piece_cells, row_ptr, row_order, remapped


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _declined() -> tuple:
    """What ``prepare_parts`` returns when the general path has to take over (same types as a result)."""
    e = np.zeros(0, np.int64)
    r = np.zeros((0, MAX_ARITY), np.int32)
    f = np.zeros(0)
    s = np.zeros(0, np.int8)
    ints = (e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e)
    return False, False, 0, 0, 0.0, 0, ints, r, r, (f, f, f, f, f), s, s, np.zeros(0, np.uint8)


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _concat(parts: tuple) -> np.ndarray:
    """The arrays of ``parts`` back to back: Python unboxes one array instead of many."""
    total = 0
    for a in parts:
        total += a.shape[0]
    out = np.empty(total, parts[0].dtype)
    pos = 0
    for a in parts:
        for x in a:
            out[pos] = x
            pos += 1
    return out


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _count_words(n: int, m: int) -> int:
    """``prepare``'s work for a component of at most ``n`` cells and ``m`` rows: the search's order,
    its totals and counts, the rows' mines and cells left, and the search's own arrays."""
    return search_work_size(n, m, np.int64(MAX_ARITY)) + (n + 1) * (n + 2) + 2 * m + 4 * n + 3


def work_size(cells: int, exact_cells: int) -> int:
    """The words of ``prepare``'s ``work`` that a board of ``cells`` cells can need (components of at
    most ``exact_cells`` cells are counted; larger ones decline before they take any)."""
    n = max(0, min(cells, exact_cells, MAX_CELLS))
    return search_work_size(n, cells, MAX_ARITY) + (n + 1) * (n + 2) + 2 * cells + 4 * n + 3


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def prepare_parts(
    grid: np.ndarray,
    mines: int,
    weighted: bool,
    use_rref: bool,
    rref_min_cells: int,
    probe: int,
    exact_cells: int,
    log_table: np.ndarray,
    work: np.ndarray,
) -> tuple:
    """Frontier, deduction and the int64 counts of every component, or a decline (``ok`` false).
    ``work``: int64 room for the counting (``work_size``'s words for the board, or fewer: a call then
    allocates what it needs), its old values ignored; a caller that prepares often keeps one.

    Returns ``(ok, combined, mines_left, mines_w, log_total, u_state, ints, rows, piece_rows, floats,
    state, piece_state, support)``. ``ints``: the int64 arrays ``cells, rhs, sources, unconstrained,
    flags, piece_cells, piece_rhs, piece_sources, totals, mine_counts, log_index, feasible, cell_ptr,
    row_ptr, log_ptr, ratio_ptr, nodes``; ``rows``: the frontier's; ``floats``: ``probabilities,
    logs, log_of, ratios, exponents``. Compiled callers take these as they are (``guess_parts``);
    ``prepare`` packs them for Python. Component ``k`` owns ``cell_ptr[k]:cell_ptr[k + 1]`` of the
    cells, ``row_ptr`` likewise of the rows, ``n_k + 1`` totals from ``cell_ptr[k] + k``,
    ``(n_k + 1) * n_k`` counts and support bytes, log counts at ``log_ptr`` (counts past
    ``log_table``: in ``log_of``, their logs due at ``log_index``) and ``mine_counts / totals`` at
    ``ratio_ptr``. ``mines_w`` is the mines left less the deduced ones. When ``combined``
    (unweighted, every log from the table) ``combine`` has run; otherwise the caller completes
    ``logs`` and calls it.
    """
    height, width = grid.shape
    size = height * width
    ok, cells, constraints, rhs, sources, unconstrained, flags, mines_left = extract(grid, mines)
    if not ok:
        return _declined()
    n = cells.shape[0]
    values = np.full(n, -1, np.int8)
    if _propagate(constraints, rhs, values) >= 0:
        return _declined()
    ok, r_cons, r_rhs, r_src, keep, count, cell_ptr, piece_cells, row_ptr, row_order, remapped = _reduce(
        constraints, rhs, sources, values, use_rref, rref_min_cells
    )
    if not ok:
        return _declined()
    probabilities = np.full(size, np.nan)
    state = np.full(size, -1, np.int8)
    for f in flags:
        probabilities[f] = 1.0
    mines_w = mines_left
    for j in range(n):
        if values[j] >= 0:
            probabilities[cells[j]] = float(values[j])
            state[cells[j]] = values[j]
            mines_w -= values[j]
    if mines_w < 0:
        return _declined()

    n_rest = keep.shape[0]
    mc_ptr = np.zeros(count + 1, np.int64)
    big_n = big_m = 0
    for k in range(count):
        nk = cell_ptr[k + 1] - cell_ptr[k]
        if nk > exact_cells or nk > MAX_CELLS:
            return _declined()
        mc_ptr[k + 1] = mc_ptr[k] + (nk + 1) * nk
        big_n = max(big_n, nk)
        big_m = max(big_m, row_ptr[k + 1] - row_ptr[k])
    need_words = _count_words(np.int64(big_n), np.int64(big_m))  # not literals: one compilation
    if work.shape[0] < need_words:
        work = np.empty(need_words, np.int64)
    tot_buf = np.zeros(n_rest + count, np.int64)
    mc_buf = np.zeros(mc_ptr[count], np.int64)
    sup_buf = np.zeros(mc_ptr[count], np.uint8)
    nodes = np.zeros(count, np.int64)
    p_rows = np.empty((r_cons.shape[0], MAX_ARITY), np.int32)
    p_rhs = np.empty(r_cons.shape[0], np.int64)
    p_src = np.empty(r_cons.shape[0], np.int64)
    p_cells = np.empty(n_rest, np.int64)
    no_prefix = mc_ptr[:0]  # empty views: no allocation
    no_support = sup_buf[:0].reshape(0, 0)  # not written: the search does not track support here
    log_ptr = np.zeros(count + 1, np.int64)
    for k in range(count):
        c0 = cell_ptr[k]
        nk = cell_ptr[k + 1] - c0
        r0 = row_ptr[k]
        mk = row_ptr[k + 1] - r0
        for p in range(mk):
            i = row_order[r0 + p]
            for t in range(MAX_ARITY):
                p_rows[r0 + p, t] = remapped[i, t]
            p_rhs[r0 + p] = r_rhs[i]
            p_src[r0 + p] = r_src[i]
        for j in range(nk):
            p_cells[c0 + j] = cells[keep[piece_cells[c0 + j]]]
        cons_k = p_rows[r0 : r0 + mk]
        rhs_k = p_rhs[r0 : r0 + mk]
        # The search's arrays, one after the other in ``work`` (see ``_count_words``).
        at = search_work_size(nk, mk, np.int64(MAX_ARITY))
        sizes, var_ptr, var_cons, cap, cell_var = prepare_search_into(cons_k, rhs_k, nk, work[:at])
        nv = sizes.shape[0]
        total, at = work[at : at + nk + 1], at + nk + 1
        counts, at = work[at : at + (nk + 1) * nv].reshape(nk + 1, nv), at + (nk + 1) * nv
        need, at = work[at : at + mk], at + mk
        cap_left, at = work[at : at + mk], at + mk
        weight, at = work[at : at + nv + 1], at + nv + 1
        total[:] = 0
        counts[:] = 0
        need[:] = rhs_k
        cap_left[:] = cap
        max_k = max(0, min(nk, mines_w))
        track = np.bool_(False)  # not a literal: one compiled search for this call and the general path's
        used = _search_into(sizes, var_ptr, var_cons, need, cap_left, _BINOM_INT, no_prefix, max_k, total, counts,
                            no_support, track, probe, work[at:], weight)  # fmt: skip
        if used < 0:
            return _declined()
        nodes[k] = used
        for i in range(nk + 1):
            tot_buf[c0 + k + i] = total[i]
        off = mc_ptr[k]
        for i in range(nk + 1):
            for j in range(nk):
                v = counts[i, cell_var[j]]
                mc_buf[off + i * nk + j] = v
                sup_buf[off + i * nk + j] = (1 if v > 0 else 0) | (2 if v < total[i] else 0)
        length = 1
        for i in range(nk, -1, -1):
            if total[i] != 0:
                length = i + 1
                break
        log_ptr[k + 1] = log_ptr[k] + length

    # weighting.weigh's steps before its convolutions; logs past ``log_table`` are left to numpy.
    logs = np.full(log_ptr[count], -np.inf)
    ratio_ptr = np.zeros(count + 1, np.int64)
    n_log = 0
    for k in range(count):
        nk = cell_ptr[k + 1] - cell_ptr[k]
        ratio_ptr[k + 1] = ratio_ptr[k] + (log_ptr[k + 1] - log_ptr[k]) * nk
        for i in range(log_ptr[k + 1] - log_ptr[k]):
            if tot_buf[cell_ptr[k] + k + i] >= log_table.shape[0]:
                n_log += 1
    log_index = np.empty(n_log, np.int64)
    log_of = np.empty(n_log)
    ratios = np.zeros(ratio_ptr[count])
    n_log = 0
    for k in range(count):
        nk = cell_ptr[k + 1] - cell_ptr[k]
        for i in range(log_ptr[k + 1] - log_ptr[k]):
            t = tot_buf[cell_ptr[k] + k + i]
            if t <= 0:
                continue
            if t < log_table.shape[0]:
                logs[log_ptr[k] + i] = log_table[t]
            else:
                log_index[n_log] = log_ptr[k] + i
                log_of[n_log] = float(t)
                n_log += 1
            for j in range(nk):
                ratios[ratio_ptr[k] + i * nk + j] = mc_buf[mc_ptr[k] + i * nk + j] / float(t)

    # Unweighted weights are exactly 0 or -inf, so the convolutions can run here at once.
    combined = not weighted and n_log == 0
    log_total = -np.inf
    exponents = np.zeros(0)
    piece_state = np.zeros(0, np.int8)
    feasible = no_prefix
    u_state = -1
    if combined:
        n_total = log_ptr[count] - count
        g = np.full(n_total + 1, -np.inf)
        for k in range(n_total + 1):
            if 0 <= mines_w - k <= unconstrained.shape[0]:
                g[k] = 0.0
        ok, log_total, exponents, piece_state, feasible, u_state = combine(
            cell_ptr, log_ptr, logs, g, sup_buf, unconstrained.shape[0], mines_w
        )
        if not ok:
            return _declined()
    ints = (
        cells, rhs, sources, unconstrained, flags, p_cells, p_rhs, p_src, tot_buf, mc_buf, log_index, feasible,
        cell_ptr, row_ptr, log_ptr, ratio_ptr, nodes,
    )  # fmt: skip
    floats = (probabilities, logs, log_of, ratios, exponents)
    return (
        True,
        combined,
        mines_left,
        mines_w,
        log_total,
        u_state,
        ints,
        constraints,
        p_rows,
        floats,
        state,
        piece_state,
        sup_buf,
    )


@njit(cache=True, error_model="numpy")
def prepare(
    grid: np.ndarray,
    mines: int,
    weighted: bool,
    use_rref: bool,
    rref_min_cells: int,
    probe: int,
    exact_cells: int,
    log_table: np.ndarray,
    work: np.ndarray,
) -> tuple:
    """Frontier, deduction and the int64 counts of every component, or a decline (``ok`` false):
    ``prepare_parts``, packed in a few flat arrays (Python unboxes one array instead of many).

    Returns ``(ok, combined, mines_left, mines_w, log_total, u_state, ints, rows, floats, states,
    support)``. ``ints``: a header of segment ends, then ``cells, rhs, sources, unconstrained, flags,
    piece_cells, piece_rhs, piece_sources, totals, mine_counts, log_index, feasible, cell_ptr,
    row_ptr, log_ptr, ratio_ptr, nodes``; ``rows``: the frontier's then the pieces'; ``floats``:
    ``probabilities, logs, log_of, ratios, exponents``; ``states``: ``state, piece_state``; each as
    ``prepare_parts`` describes it.
    """
    out = prepare_parts(grid, mines, weighted, use_rref, rref_min_cells, probe, exact_cells, log_table, work)
    ints_parts, constraints, p_rows, floats, state, piece_state = out[6], out[7], out[8], out[9], out[10], out[11]
    header = np.empty(len(ints_parts) + 1, np.int64)
    header[0] = header.shape[0]
    for i in range(len(ints_parts)):
        header[i + 1] = header[i] + ints_parts[i].shape[0]
    ints = _concat((header, *ints_parts))
    rows = np.empty((constraints.shape[0] + p_rows.shape[0], MAX_ARITY), np.int32)
    rows[: constraints.shape[0]] = constraints
    rows[constraints.shape[0] :] = p_rows
    return (
        out[0], out[1], out[2], out[3], out[4], out[5],
        ints, rows, _concat(floats), _concat((state, piece_state)), out[12],
    )  # fmt: skip


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def guess_parts(out: tuple) -> tuple:
    """A combined ``prepare_parts`` result cut for ``enumeration_compiled``: ``(probabilities, state,
    piece_cells, piece_state, unconstrained, u_state, cells, exponents, ratios, spans, feasible_at,
    rest)``, the last three as ``analysis.piece_probabilities`` / ``unconstrained_probability`` take them."""
    ints, floats = out[6], out[9]
    cells, unconstrained, p_cells, feasible = ints[0], ints[3], ints[5], ints[11]
    starts, log_ptr, ratio_ptr = ints[12], ints[14], ints[15]
    count = starts.shape[0] - 1
    spans = np.empty(6 * count, np.int64)
    for k in range(count):
        spans[6 * k] = log_ptr[k]
        spans[6 * k + 1] = log_ptr[k + 1]
        spans[6 * k + 2] = ratio_ptr[k]
        spans[6 * k + 3] = ratio_ptr[k + 1]
        spans[6 * k + 4] = log_ptr[k + 1] - log_ptr[k]
        spans[6 * k + 5] = starts[k + 1] - starts[k]
    return (
        floats[0], out[10], p_cells, out[11], unconstrained, out[5], cells, floats[4], floats[3], spans,
        feasible + log_ptr[count], out[3] - feasible,
    )  # fmt: skip


@njit(cache=True, error_model="numpy")
def combine(
    cell_ptr: np.ndarray,
    log_ptr: np.ndarray,
    logs: np.ndarray,
    g: np.ndarray,
    support: np.ndarray,
    unconstrained: int,
    mines_left: int,
) -> tuple[bool, float, np.ndarray, np.ndarray, np.ndarray, int]:
    """``weighting.weigh``'s convolutions, with the same compiled kernels in the same order.

    Returns ``(ok, log_total, exponents, piece_state, feasible, u_state)``: the exponents ``weigh``
    takes (per component at ``log_ptr``, then the frontier's), 0 / 1 / -1 for certainly safe /
    mine / neither per cell and for the unconstrained cells, the feasible frontier mine counts.
    """
    count = cell_ptr.shape[0] - 1
    n_total = log_ptr[count] - count
    forward, backward, f_len, b_len = forward_backward(logs, log_ptr, g)
    log_total = backward[0, 0]
    ok = log_total > -np.inf
    exponents = np.empty(log_ptr[count] + n_total + 1)
    piece_state = np.full(cell_ptr[count], -1, np.int8)
    off = 0
    for k in range(count):
        # Length b_len[k + 1] - f_len[k] + 1: the component's own number of log counts.
        context = log_correlate(forward[k, : f_len[k]], backward[k + 1, : b_len[k + 1]])  # C views: no copies
        lp = log_ptr[k]
        nk = cell_ptr[k + 1] - cell_ptr[k]
        for i in range(log_ptr[k + 1] - lp):
            exponents[lp + i] = context[i] + logs[lp + i] - log_total
        for j in range(nk):
            seen = 0
            for i in range(log_ptr[k + 1] - lp):
                if logs[lp + i] > -np.inf and context[i] > -np.inf:
                    seen |= support[off + i * nk + j]
            if (seen & 3) == 0:
                ok = False
            elif (seen & 1) == 0:
                piece_state[cell_ptr[k] + j] = 0
            elif (seen & 2) == 0:
                piece_state[cell_ptr[k] + j] = 1
        off += (nk + 1) * nk
    n_feasible = 0
    for i in range(n_total + 1):
        e = forward[count, i] + g[i]
        exponents[log_ptr[count] + i] = e - log_total
        if e > -np.inf:
            n_feasible += 1
    feasible = np.empty(n_feasible, np.int64)
    n_feasible = 0
    rest_max = -1
    rest_min = unconstrained + 1
    for i in range(n_total + 1):
        if forward[count, i] + g[i] > -np.inf:
            feasible[n_feasible] = i
            n_feasible += 1
            rest_max = max(rest_max, mines_left - i)
            rest_min = min(rest_min, mines_left - i)
    u_state = 0 if rest_max == 0 else (1 if rest_min == unconstrained else -1)
    return ok, log_total, exponents, piece_state, feasible, u_state


@njit(cache=True, no_cpython_wrapper=True, error_model="numpy")
def _certain(state: np.ndarray, width: int, value: int) -> np.ndarray:
    """Board cells whose state is ``value``, in board order, as a (2, k) array of rows and cols."""
    k = 0
    for f in range(state.shape[0]):
        if state[f] == value:
            k += 1
    out = np.empty((2, k), np.int64)
    k = 0
    for f in range(state.shape[0]):
        if state[f] == value:
            out[0, k] = f // width
            out[1, k] = f % width
            k += 1
    return out


@njit(cache=True, error_model="numpy")
def finish(
    probabilities: np.ndarray,
    state: np.ndarray,
    piece_cells: np.ndarray,
    piece_p: np.ndarray,
    piece_state: np.ndarray,
    unconstrained: np.ndarray,
    u: float,
    u_state: int,
    width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Write the probabilities into the flat board arrays; return the certain safe cells and mines."""
    for j in range(piece_cells.shape[0]):
        f = piece_cells[j]
        s = piece_state[j]
        state[f] = s
        probabilities[f] = piece_p[j] if s < 0 else float(s)
    for f in unconstrained:
        probabilities[f] = u
        state[f] = u_state
    return _certain(state, width, np.int64(0)), _certain(state, width, np.int64(1))


stamp_dependencies(sys.modules[__name__])
