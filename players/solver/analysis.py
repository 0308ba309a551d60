"""The solver's entry point: ``analyze(grid, mines)`` gives exact mine probabilities and certain cells,
through the compiled fast path (``players.solver.fast``) or the reference ``analyze_general`` for
what it declines. See docs/solver.md.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from players.solver.enumeration import (
    DEFAULT_NODE_LIMIT,
    DEFAULT_PARALLEL_THRESHOLD,
    EXACT_CELLS,
    ComponentCounts,
    count_component,
)
from players.solver.errors import InconsistentPositionError
from players.solver.fast import combine, finish, prepare
from players.solver.frontier import ConstraintSystem, Frontier, check_grid, extract_frontier
from players.solver.rref import reduce_system
from players.solver.weighting import log_weights_direct, weigh

__all__ = ["DEFAULT_RREF_MIN_CELLS", "Analysis", "analyze", "analyze_general", "probabilities_and_weight"]
__all__ += ["weight_then_probabilities"]

#: Components smaller than this are enumerated directly: cheaper than reducing them first.
DEFAULT_RREF_MIN_CELLS = 24

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the solver knows about a position.

    ``probabilities`` (height, width): each covered unflagged cell's mine probability (exactly 0.0 /
    1.0 when certain), 1.0 on flags, NaN on revealed cells; ``safe`` / ``mines``: the certain cells,
    sorted. ``log_weight``: log of the number of consistent layouts (weighted) or of fitting frontier
    solutions (unweighted). ``components``: the counts of the cells deduction left, whose mine total
    is ``k`` with probability ``frontier_mines[k]``. ``nodes``: the enumeration effort.
    """

    probabilities: np.ndarray
    safe: list[Cell]
    mines: list[Cell]
    log_weight: float
    frontier: Frontier
    components: tuple[ComponentCounts, ...]
    unconstrained_probability: float
    frontier_mines: np.ndarray
    nodes: int
    #: From the fast path (None from the general one): the components back to back, as ``prepare``
    #: left them, ``(starts, row_at, cells, rows, rhs, totals, mine_counts, support)``: component
    #: ``k``'s cells from ``starts[k]``, its rows from ``row_at[k]``, its ``n + 1`` totals from
    #: ``starts[k] + k`` and its ``(n + 1) * n`` counts and support bytes after the earlier ones'.
    #: The same arrays ``components`` are views of, for callers that want them whole.
    packed: tuple[np.ndarray, ...] | None = None

    @property
    def covered(self) -> np.ndarray:
        """Boolean (height, width) mask of the covered unflagged cells."""
        mask = np.zeros(self.probabilities.size, dtype=bool)
        mask[self.frontier.system.cells] = True
        mask[self.frontier.unconstrained] = True
        return mask.reshape(self.probabilities.shape)

    def best_guesses(self) -> list[Cell]:
        """Covered unflagged cells with the lowest probability, sorted."""
        mask = self.covered
        if not mask.any():
            return []
        p = self.probabilities
        best = p[mask].min()
        rows, cols = np.nonzero(mask & (p == best))
        return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True)]


def analyze(
    grid: np.ndarray,
    mines: int,
    *,
    weighted: bool = True,
    use_rref: bool = True,
    rref_min_cells: int = DEFAULT_RREF_MIN_CELLS,
    parallel: bool = False,
    parallel_threshold: int = DEFAULT_PARALLEL_THRESHOLD,
    node_limit: int = DEFAULT_NODE_LIMIT,
    exact_cells: int = EXACT_CELLS,
    reference: bool = False,
) -> Analysis:
    """Exact mine probabilities of an observation grid with ``mines`` mines in total.

    ``weighted=False``: the published full-enumeration solver's unweighted probabilities.
    ``use_rref`` / ``rref_min_cells``: RREF deduction on large components; ``parallel`` /
    ``parallel_threshold``: threaded search (same results); ``node_limit``: ``TooComplexError`` past
    it; ``exact_cells``: the int64/float64 switch of the counts (tests only). Raises
    ``InconsistentPositionError`` when no layout fits. The compiled fast path answers what it can;
    the general numpy pipeline below it takes every position and option, and alone (``reference``)
    it is what the fast path is held equal to.
    """
    if not reference:
        probe = min(parallel_threshold, node_limit, _FAST_SEARCH_NODES)
        fast = _analyze_fast(grid, mines, weighted, use_rref, rref_min_cells, probe, exact_cells)
        if fast is not None:
            return fast
    frontier = extract_frontier(grid, int(mines))
    system = frontier.system
    height, width = frontier.shape
    values, pieces = reduce_system(system, use_rref=use_rref, rref_min_cells=rref_min_cells)
    mines_left = int(mines) - int(frontier.flags.shape[0]) - int((values == 1).sum())
    if mines_left < 0:
        raise InconsistentPositionError(f"the numbers need more mines than the {frontier.mines_left} left")
    components = tuple(
        count_component(
            piece,
            max_mines=mines_left,
            parallel=parallel,
            parallel_threshold=parallel_threshold,
            node_limit=node_limit,
            exact_cells=exact_cells,
        )
        for piece in pieces
    )
    result = weigh(components, frontier.n_unconstrained, mines_left, weighted=weighted)

    flat = np.full(height * width, np.nan)
    flat[frontier.flags] = 1.0
    safe_cells = [system.cells[values == 0]]
    mine_cells = [system.cells[values == 1]]
    flat[system.cells[values == 0]] = 0.0
    flat[system.cells[values == 1]] = 1.0
    for comp, p, s, m in zip(components, result.probabilities, result.safe, result.mine, strict=True):
        flat[comp.cells] = p
        flat[comp.cells[s]] = 0.0
        flat[comp.cells[m]] = 1.0
        safe_cells.append(comp.cells[s])
        mine_cells.append(comp.cells[m])
    u = result.unconstrained_probability  # NaN, never safe nor mine, without unconstrained cells
    if result.unconstrained_safe:
        u = 0.0
        safe_cells.append(frontier.unconstrained)
    elif result.unconstrained_mine:
        u = 1.0
        mine_cells.append(frontier.unconstrained)
    flat[frontier.unconstrained] = u

    def listed(parts: list[np.ndarray]) -> list[Cell]:
        return [(int(f) // width, int(f) % width) for f in np.sort(np.concatenate(parts))]

    return Analysis(
        probabilities=flat.reshape(height, width),
        safe=listed(safe_cells),
        mines=listed(mine_cells),
        log_weight=result.log_total,
        frontier=frontier,
        components=components,
        unconstrained_probability=u,
        frontier_mines=result.frontier_mines,
        nodes=sum(c.nodes for c in components),
    )


#: A longer component search leaves the fast path for the general one (rare, and dwarfing its overhead).
_FAST_SEARCH_NODES = 20_000
#: Options and mine counts beyond this are left to the general path (the kernels take int64).
_BOUND = 2**62
_NO_PROBABILITIES = np.zeros(0)
#: ``fast.prepare``'s work when the caller keeps none: each call allocates what it needs, once.
_NO_WORK = np.zeros(0, np.int64)
#: ``np.log(t)`` for counts ``t < 2**16``: numpy's own values, for the fast path to look up.
with np.errstate(divide="ignore"):
    _LOG_TABLE = np.log(np.arange(2**16, dtype=np.float64))


@functools.lru_cache(maxsize=4096)
def _log_weights(n_frontier: int, unconstrained: int, mines_left: int, weighted: bool) -> np.ndarray:
    """``log_weights`` (as ``log_weights_direct``), memoised (never mutated): a game asks for the same
    few again and again."""
    return log_weights_direct(n_frontier, unconstrained, mines_left, weighted=weighted)


def piece_probabilities(shares: np.ndarray, ratios: np.ndarray, spans: list[int]) -> np.ndarray:
    """The components' cell probabilities, back to back: component ``k``'s are ``shares[a:b] @
    ratios[c:d]`` as ``(rows, cols)``, ``spans[6k : 6k + 6] = (a, b, c, d, rows, cols)``. numpy's
    products, as in ``weigh``: compiled code would round differently (docs/solver.md)."""
    parts = [
        shares[spans[i] : spans[i + 1]] @ ratios[spans[i + 2] : spans[i + 3]].reshape(spans[i + 4], spans[i + 5])
        for i in range(0, len(spans), 6)
    ]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else _NO_PROBABILITIES


def unconstrained_probability(
    shares: np.ndarray, feasible_at: np.ndarray, rest: np.ndarray, u_state: int, unconstrained: int
) -> float:
    """Each unconstrained cell's mine probability (NaN when none), as ``weigh`` computes it."""
    if not unconstrained:
        return math.nan
    return float(u_state) if u_state >= 0 else float(shares[feasible_at] @ rest) / unconstrained


def fast_prepared(
    grid: np.ndarray, mines: int, weighted: bool, use_rref: bool, rref_min_cells: int, probe: int, exact_cells: int
) -> tuple | None:
    """The fast path up to ``fast.finish`` (None when it declines): ``(pending, cells, rest)``;
    ``finish(*pending)`` completes the probabilities ``pending[0]``, ``cells`` are the frontier's."""
    counted = _fast_counted(grid, mines, weighted, use_rref, rref_min_cells, probe, exact_cells)
    return None if counted is None else _fast_weighed(counted)


def _fast_counted(
    grid: np.ndarray, mines: int, weighted: bool, use_rref: bool, rref_min_cells: int, probe: int, exact_cells: int
) -> tuple | None:
    """``fast_prepared``'s first half, up to the log weight (``[0]``, for callers that may stop
    there): the compiled counting and combining; None when the fast path declines (only here)."""
    if not (
        type(grid) is np.ndarray and grid.dtype == np.int8 and grid.ndim == 2 and grid.flags.c_contiguous and grid.size
    ):
        grid = check_grid(grid)  # the same ValueError the general path would raise
    if not grid.flags.writeable:
        grid = grid.copy()  # one compiled signature: numba types read-only arrays apart
    mines = int(mines)
    if not (-_BOUND < mines < _BOUND and -_BOUND < rref_min_cells < _BOUND and -_BOUND < exact_cells < _BOUND):
        return None  # numbers int64 cannot hold: the general path copes (or complains)
    if not 0 <= probe < _BOUND:
        return None
    out = prepare(
        grid,
        mines,
        bool(weighted),
        bool(use_rref),
        int(rref_min_cells),
        int(probe),
        int(exact_cells),
        _LOG_TABLE,
        _NO_WORK,
    )
    ok, combined, mines_left, mines_w, log_total, u_state, ints, rows, floats, states, support = out
    if not ok:
        return None
    # Only the slices needed here (``_analyze_fast`` cuts the rest): each one costs time per guess.
    ends = ints[: ints[0]].tolist()  # the header: where each segment starts
    unconstrained = ints[ends[3] : ends[4]]
    feasible = ints[ends[11] : ends[12]]
    n_logs = ends[11] - ends[10]
    tail = ints[ends[12] :].tolist()  # the pointers and the nodes, as Python ints
    count = len(tail) // 5
    lp = tail[2 * (count + 1) : 3 * (count + 1)]
    size = grid.size
    exponents = floats[size + lp[count] + n_logs + tail[4 * (count + 1) - 1] :]  # after the ratios
    piece_state = states[size:]
    n_unconstrained = unconstrained.shape[0]
    if not combined:
        logs = floats[size : size + lp[count]]
        if n_logs:
            logs[ints[ends[10] : ends[11]]] = np.log(floats[size + lp[count] : size + lp[count] + n_logs])
        cell_ptr, log_ptr = ints[ends[12] : ends[13]], ints[ends[14] : ends[15]]
        g = _log_weights(lp[count] - count, n_unconstrained, mines_w, bool(weighted))
        ok, log_total, exponents, piece_state, feasible, u_state = combine(
            cell_ptr, log_ptr, logs, g, support, n_unconstrained, mines_w
        )
        if not ok:
            return None
    head = (log_total, grid, mines_left, mines_w, u_state, ints, rows, floats, states, support)
    return (*head, exponents, piece_state, feasible, unconstrained, ends, tail)


def _fast_weighed(counted: tuple) -> tuple:
    """``fast_prepared``'s second half, on ``_fast_counted``'s answer: the weighting's numpy steps."""
    log_total, grid, mines_left, mines_w, u_state, ints, rows, floats, states, support = counted[:10]
    exponents, piece_state, feasible, unconstrained, ends, tail = counted[10:]
    cells = ints[ends[0] : ends[1]]
    p_cells = ints[ends[5] : ends[6]]
    n_logs = ends[11] - ends[10]
    count = len(tail) // 5
    starts, row_at, lp, rp, efforts = (tail[i * (count + 1) : (i + 1) * (count + 1)] for i in range(5))
    size = grid.size
    m = ends[2] - ends[1]
    probabilities = floats[:size]
    ratios = floats[size + lp[count] + n_logs : size + lp[count] + n_logs + rp[count]]
    state = states[:size]
    n_unconstrained = unconstrained.shape[0]
    shares = np.exp(exponents)  # numpy's, as in ``weigh``: see ``piece_probabilities``
    spans = []
    for k in range(count):
        spans += (lp[k], lp[k + 1], rp[k], rp[k + 1], lp[k + 1] - lp[k], starts[k + 1] - starts[k])
    piece_p = piece_probabilities(shares, ratios, spans)
    frontier_mines = shares[lp[count] :]
    u = unconstrained_probability(shares, feasible + lp[count], mines_w - feasible, u_state, n_unconstrained)
    pending = (probabilities, state, p_cells, piece_p, piece_state, unconstrained, u, u_state, grid.shape[1])
    rest = (grid.shape, ints, ends, rows, m, mines_left, log_total, frontier_mines, support, starts, row_at, efforts)
    return pending, cells, rest


def _analyze_fast(grid: np.ndarray, mines: int, weighted: bool, *options: int) -> Analysis | None:
    """``analyze`` through the fast path (``fast_prepared``'s options), or None when it declines."""
    prepared = fast_prepared(grid, mines, weighted, *options)
    if prepared is None:
        return None
    pending, cells, rest = prepared
    safe, mine = finish(*pending)
    probabilities, unconstrained, u = pending[0], pending[5], pending[6]
    shape, ints, ends, rows, m, mines_left, log_total, frontier_mines, support, starts, row_at, efforts = rest
    rhs, sources, _, flags, p_cells, p_rhs, p_src, totals, counts = (
        ints[a:b] for a, b in itertools.pairwise(ends[1:11])
    )
    frontier = Frontier(ConstraintSystem(shape, cells, rows[:m], rhs, sources), unconstrained, flags, mines_left)
    p_rows = rows[m:]
    components = []
    offset = 0
    for k, effort in enumerate(efforts):
        a, b = starts[k], starts[k + 1]
        n = b - a
        span = (n + 1) * n
        r0, r1 = row_at[k], row_at[k + 1]
        components.append(
            ComponentCounts(
                ConstraintSystem(shape, p_cells[a:b], p_rows[r0:r1], p_rhs[r0:r1], p_src[r0:r1]),
                totals[a + k : b + k + 1],
                counts[offset : offset + span].reshape(n + 1, n),
                support[offset : offset + span].reshape(n + 1, n),
                True,
                effort,
            )
        )
        offset += span
    return Analysis(
        probabilities=probabilities.reshape(shape),
        safe=list(zip(safe[0].tolist(), safe[1].tolist(), strict=True)),
        mines=list(zip(mine[0].tolist(), mine[1].tolist(), strict=True)),
        log_weight=log_total,
        frontier=frontier,
        components=tuple(components),
        unconstrained_probability=u,
        frontier_mines=frontier_mines,
        nodes=sum(efforts),
        packed=(starts, row_at, p_cells, p_rows, p_rhs, totals, counts, support),
    )


def probabilities_and_weight(grid: np.ndarray, mines: int) -> tuple[np.ndarray, float]:
    """``analyze(grid, mines)``'s ``probabilities`` and ``log_weight`` alone (default options), the
    same to the bit, without building the rest of an ``Analysis``: for callers that ask about many
    positions and read only these (apex's patterns). Raises as ``analyze`` does."""
    log_weight, probabilities = weight_then_probabilities(grid, mines)
    return probabilities(), log_weight


def weight_then_probabilities(grid: np.ndarray, mines: int) -> tuple[float, Callable[[], np.ndarray]]:
    """``probabilities_and_weight`` in two steps: the log weight now, and a function giving the
    probabilities (computed at its first call): a caller that often stops at the weight (apex's
    patterns, nineteen times out of twenty) skips the weighting's numpy steps. Raises now, as
    ``analyze`` does."""
    probe = min(DEFAULT_PARALLEL_THRESHOLD, DEFAULT_NODE_LIMIT, _FAST_SEARCH_NODES)
    counted = _fast_counted(grid, mines, True, True, DEFAULT_RREF_MIN_CELLS, probe, EXACT_CELLS)
    if counted is None:
        general = analyze(grid, mines)
        return general.log_weight, lambda: general.probabilities

    @functools.cache
    def probabilities() -> np.ndarray:
        pending, _, rest = _fast_weighed(counted)
        finish(*pending)
        return pending[0].reshape(rest[0])

    return counted[0], probabilities


def analyze_general(grid: np.ndarray, mines: int, **options: object) -> Analysis:
    """``analyze`` without the fast path: the reference (tests and benchmarks compare the two)."""
    return analyze(grid, mines, reference=True, **options)
