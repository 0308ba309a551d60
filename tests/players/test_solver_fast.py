"""The compiled fast path of ``analyze`` against the general numpy path, bit for bit.

``analyze`` runs typical positions through ``players.solver.fast`` and hands everything else to
``analyze_general``. The promise is stronger than "the same probabilities": the fast path must
return the very same ``Analysis`` (same frontier rows and sources, same components and counts,
same node counts, probabilities equal to the last bit) because players break ties by comparing
probabilities exactly, so a one-ulp difference would change their moves. Positions here are
bigger than brute force could check (up to expert size), drawn at random (some broken) and
taken from real games; the general path is the reference, itself checked against brute force
in ``test_solver.py`` and ``test_solver_properties.py``.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import COVERED, EXPERT, FLAGGED, Game
from engine.layout import parse_position
from players.solver import Analysis, SolverError, analyze
from players.solver import analysis as analysis_module
from players.solver.analysis import _analyze_fast, analyze_general
from players.solver.weighting import log_weights, log_weights_direct

SETTINGS = settings(
    max_examples=int(os.environ.get("SOLVER_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Small enough that random positions with huge components fail fast (in both paths alike).
NODE_LIMIT = 200_000


def assert_identical(fast: Analysis, general: Analysis) -> None:
    """Every field equal; float arrays equal to the bit."""
    assert fast.probabilities.shape == general.probabilities.shape
    assert fast.probabilities.tobytes() == general.probabilities.tobytes()
    assert fast.safe == general.safe
    assert fast.mines == general.mines
    assert fast.log_weight == general.log_weight
    assert fast.frontier_mines.tobytes() == general.frontier_mines.tobytes()
    u, v = fast.unconstrained_probability, general.unconstrained_probability
    assert (math.isnan(u) and math.isnan(v)) or u == v
    assert fast.nodes == general.nodes
    f, g = fast.frontier, general.frontier
    assert f.mines_left == g.mines_left and f.shape == g.shape
    for x, y in ((f.unconstrained, g.unconstrained), (f.flags, g.flags)):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    systems = [(f.system, g.system)]
    assert len(fast.components) == len(general.components)
    for a, b in zip(fast.components, general.components, strict=True):
        systems.append((a.system, b.system))
        assert a.exact == b.exact and a.nodes == b.nodes
        for x, y in ((a.totals, b.totals), (a.mine_counts, b.mine_counts), (a.support, b.support)):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    for s, t in systems:
        assert s.shape == t.shape
        for x, y in ((s.cells, t.cells), (s.constraints, t.constraints), (s.rhs, t.rhs), (s.sources, t.sources)):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


def check(grid: np.ndarray, mines: int, **options: object) -> Analysis | None:
    """``analyze`` and ``analyze_general`` agree, or raise the same kind of error."""
    for weighted in (True, False):
        try:
            general = analyze_general(grid, mines, weighted=weighted, **options)
        except SolverError as error:
            with pytest.raises(type(error)):
                analyze(grid, mines, weighted=weighted, **options)
            continue
        assert_identical(analyze(grid, mines, weighted=weighted, **options), general)
    return None


@st.composite
def positions(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """A random layout up to expert size, some safe cells revealed, flags, sometimes broken."""
    h = draw(st.integers(1, 16))
    w = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout = rng.random((h, w)) < draw(st.sampled_from([0.1, 0.2, 0.3]))
    padded = np.pad(layout, 1).astype(np.int64)
    numbers = sum(padded[1 + dr : h + 1 + dr, 1 + dc : w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full((h, w), COVERED, dtype=np.int8)
    shown = ~layout & (rng.random((h, w)) < draw(st.sampled_from([0.4, 0.6, 0.8, 0.95])))
    grid[shown] = numbers[shown]
    grid[layout & (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3])))] = FLAGGED
    mines = int(layout.sum())
    if draw(st.integers(0, 4)) == 0:
        kind = draw(st.sampled_from(["wrong-flag", "nudge", "count"]))
        covered = np.argwhere(grid == COVERED)
        revealed = np.argwhere(grid >= 0)
        if kind == "wrong-flag" and len(covered):
            r, c = covered[draw(st.integers(0, len(covered) - 1))]
            grid[r, c] = FLAGGED
        elif kind == "nudge" and len(revealed):
            r, c = revealed[draw(st.integers(0, len(revealed) - 1))]
            grid[r, c] = min(8, max(0, int(grid[r, c]) + draw(st.sampled_from([-1, 1]))))
        else:
            mines += draw(st.sampled_from([-1, 1]))
    return grid, max(mines, 0)


@SETTINGS
@given(positions())
def test_fast_path_equals_general_path(position: tuple[np.ndarray, int]) -> None:
    check(*position, node_limit=NODE_LIMIT)


@SETTINGS
@given(positions(), st.sampled_from([0, 2, 8, 24]), st.booleans())
def test_fast_path_equals_general_path_with_options(
    position: tuple[np.ndarray, int], rref_min_cells: int, use_rref: bool
) -> None:
    check(*position, node_limit=NODE_LIMIT, rref_min_cells=rref_min_cells, use_rref=use_rref)


def game_positions(seed: int, count: int) -> list[np.ndarray]:
    """The positions an ``analyze``-driven expert game goes through (first click in the corner)."""
    game = Game(EXPERT, seed=seed, index=0)
    game.reveal(0, 0)
    out = []
    while not game.over and len(out) < count:
        out.append(game.observation().grid)
        result = analyze(game.grid, EXPERT.mines)
        for r, c in result.safe or result.best_guesses()[:1]:
            if not game.over and game.grid[r, c] == COVERED:
                game.reveal(r, c)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_real_expert_positions_take_the_fast_path(seed: int) -> None:
    positions = game_positions(seed, 60)
    assert len(positions) > 10
    for grid in positions:
        for weighted in (True, False):
            args = (weighted, True, 24, 200_000, 66)
            fast = _analyze_fast(grid, EXPERT.mines, *args)
            assert fast is not None  # typical positions never need the general path
            assert_identical(fast, analyze_general(grid, EXPERT.mines, weighted=weighted))


def test_counts_past_the_log_table_go_to_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a two-entry table every count above 1 takes the numpy log inside the fast path.
    monkeypatch.setattr(analysis_module, "_LOG_TABLE", analysis_module._LOG_TABLE[:2].copy())
    for grid in game_positions(4, 25):
        for weighted in (True, False):
            fast = _analyze_fast(grid, EXPERT.mines, weighted, True, 24, 200_000, 66)
            assert fast is not None
            assert_identical(fast, analyze_general(grid, EXPERT.mines, weighted=weighted))


def test_log_table_is_numpys_log() -> None:
    table = analysis_module._LOG_TABLE
    assert table[0] == -np.inf
    for t in [1, 2, 3, 7, 100, 4095, 65535, *np.random.default_rng(0).integers(1, table.size, 200).tolist()]:
        assert table[t] == np.log(np.array([float(t)]))[0]


def test_the_fast_path_declines_what_it_does_not_handle() -> None:
    grid = parse_position("1##\n###\n###")
    assert _analyze_fast(grid, 2, True, True, 24, 200_000, 66) is not None
    # Float counts (a component above exact_cells), a search past the probe: general path.
    assert _analyze_fast(grid, 2, True, True, 24, 200_000, 0) is None
    assert _analyze_fast(grid, 2, True, True, 24, 1, 66) is None
    # Inconsistent positions: the general path raises the well-worded error.
    assert _analyze_fast(parse_position("4#\n##"), 3, True, True, 24, 200_000, 66) is None
    assert _analyze_fast(parse_position("1#\n1#"), 0, True, True, 24, 200_000, 66) is None
    # And analyze still answers (or raises) exactly like the general path.
    check(grid, 2, exact_cells=0)
    check(grid, 2, parallel_threshold=1)
    check(parse_position("1#\n1#"), 0)


def test_grid_types_are_accepted_like_the_general_path() -> None:
    grid = parse_position("1F#\n12#\n###")
    reference = analyze_general(grid, 2)
    for variant in (grid.astype(np.int64), grid.tolist(), np.asfortranarray(grid), grid[:, :]):
        assert_identical(analyze(variant, 2), reference)
    read_only = grid.copy()
    read_only.flags.writeable = False
    assert_identical(analyze(read_only, 2), reference)
    with pytest.raises(ValueError):
        analyze(np.full((2, 2), 9, dtype=np.int8), 1)
    with pytest.raises(ValueError):
        analyze(np.zeros((2, 2), dtype=np.float64), 1)


def test_fast_path_caches_watch_every_kernel_file() -> None:
    # numba checks only a cached function's own file; the fast path links other files' kernels.
    from numba.core.dispatcher import Dispatcher

    from players.solver import fast, fast_system

    kernels = [
        k
        for module in (fast, fast_system)
        for k in vars(module).values()
        if isinstance(k, Dispatcher) and k.py_func.__module__ == module.__name__
    ]
    assert len(kernels) >= 10
    for kernel in kernels:
        stamp = kernel._cache._cache_file._source_stamp
        assert isinstance(stamp, tuple) and len(stamp[-1]) == 64, kernel


@given(
    st.integers(0, 120),
    st.integers(0, 480),
    st.integers(-5, 130),
    st.booleans(),
)
def test_direct_log_weights_equal_the_reference_to_the_bit(
    n_frontier: int, free: int, mines: int, weighted: bool
) -> None:
    direct = log_weights_direct(n_frontier, free, mines, weighted=weighted)
    reference = log_weights(n_frontier, free, mines, weighted=weighted)
    assert direct.dtype == reference.dtype and direct.shape == reference.shape == (n_frontier + 1,)
    assert direct.tobytes() == reference.tobytes()


def test_direct_log_weights_equal_the_reference_on_expert_sized_inputs() -> None:
    rng = np.random.default_rng(29)
    checked = 0
    for _ in range(2000):
        n_frontier, free, mines = int(rng.integers(0, 160)), int(rng.integers(0, 481)), int(rng.integers(0, 100))
        direct = log_weights_direct(n_frontier, free, mines)
        assert direct.tobytes() == log_weights(n_frontier, free, mines).tobytes(), (n_frontier, free, mines)
        checked += int(np.isfinite(direct).sum())
    assert checked > 10_000  # most draws have a run of feasible mine counts, not only -inf
