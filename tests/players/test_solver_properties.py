"""Property tests: random small positions, including broken ones, against brute force.

Positions are drawn from a random layout with a random set of revealed safe cells (not only
positions a game can reach), some flags (mostly right, sometimes wrong), sometimes a number
nudged off by one and a total mine count off by one. Whatever comes out, ``analyze`` must either
agree with brute force to 1e-9, or raise ``InconsistentPositionError`` exactly when brute force
finds no layout at all.
"""

from __future__ import annotations

import itertools
import math
import os

import numpy as np
import pytest
from bruteforce import brute_force
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import COVERED, FLAGGED
from players.solver import (
    InconsistentPositionError,
    analyze,
    count_component,
    deduce,
    extract_frontier,
    split_components,
)

SETTINGS = settings(
    max_examples=int(os.environ.get("SOLVER_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def positions(draw: st.DrawFn, *, broken: bool = True) -> tuple[np.ndarray, int]:
    h = draw(st.integers(2, 5))
    w = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.15, 0.25, 0.4]))
    layout = rng.random((h, w)) < density
    padded = np.pad(layout, 1).astype(np.int64)
    numbers = sum(padded[1 + dr : h + 1 + dr, 1 + dc : w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full((h, w), COVERED, dtype=np.int8)
    shown = ~layout & (rng.random((h, w)) < draw(st.sampled_from([0.3, 0.5, 0.7])))
    grid[shown] = numbers[shown]
    flags = layout & (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3])))
    grid[flags] = FLAGGED
    mines = int(layout.sum())
    if broken and draw(st.booleans()):
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
    mines = max(mines, 0)
    # Keep brute force quick: few layouts, and a frontier of at most 16 cells.
    covered_mask = grid == COVERED
    covered = int(covered_mask.sum())
    left = mines - int((grid == FLAGGED).sum())
    assume(left < 0 or left > covered or math.comb(covered, left) <= 100_000)
    near_number = np.pad(grid >= 0, 1)
    near_number = sum(near_number[1 + dr : h + 1 + dr, 1 + dc : w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    assume(int((covered_mask & (near_number > 0)).sum()) <= 16)
    return grid, mines


def check(grid: np.ndarray, mines: int, **options: object) -> None:
    for weighted in (True, False):
        exact = brute_force(grid, mines, weighted=weighted)
        if exact.count == 0:
            with pytest.raises(InconsistentPositionError):
                analyze(grid, mines, weighted=weighted, **options)
            continue
        result = analyze(grid, mines, weighted=weighted, **options)
        for (r, c), p in exact.probabilities.items():
            assert result.probabilities[r, c] == pytest.approx(float(p), abs=1e-9)
        assert result.safe == exact.safe
        assert result.mines == exact.mines
        assert result.log_weight == pytest.approx(math.log(exact.count), abs=1e-9)
        assert np.all(np.isnan(result.probabilities[grid >= 0]))
        assert np.all(result.probabilities[grid == FLAGGED] == 1.0)


@SETTINGS
@given(positions())
def test_analyze_agrees_with_brute_force(position: tuple[np.ndarray, int]) -> None:
    check(*position)


@pytest.mark.slow
@SETTINGS
@given(positions())
def test_float_counts_and_lanes_agree_with_brute_force(position: tuple[np.ndarray, int]) -> None:
    check(*position, exact_cells=0, parallel=True, parallel_threshold=1, rref_min_cells=0)


@pytest.mark.slow
@SETTINGS
@given(positions(broken=False))
def test_deductions_are_sound(position: tuple[np.ndarray, int]) -> None:
    grid, mines = position
    exact = brute_force(grid, mines)
    assert exact.count > 0  # drawn from a real layout with correct flags
    safe, mine = deduce(grid, mines)
    assert set(safe) <= set(exact.safe)
    assert set(mine) <= set(exact.mines)


@pytest.mark.slow
@SETTINGS
@given(positions(broken=False))
def test_component_counts_are_exact(position: tuple[np.ndarray, int]) -> None:
    grid, mines = position
    for piece in split_components(extract_frontier(grid, mines).system):
        a = piece.matrix()
        n = piece.n_cells
        x = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64).reshape(2**n, n)
        good = x[(x @ a.T == piece.rhs).all(axis=1)]
        k = good.sum(axis=1)
        totals = np.bincount(k, minlength=n + 1)
        hits = np.array([good[k == j].sum(axis=0) for j in range(n + 1)])
        for options in ({}, {"parallel": True, "parallel_threshold": 1}, {"parallel_threshold": 1}):
            counts = count_component(piece, **options)
            assert counts.totals.tolist() == totals.tolist()
            assert counts.mine_counts.tolist() == hits.tolist()
