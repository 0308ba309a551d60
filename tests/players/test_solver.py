"""The solver library against brute force on realistic positions, plus its edge cases.

Positions come from real games on small boards: a first click, a few random safe reveals using
the hidden layout, some correct flags. Brute force (``tests/bruteforce.py``) lists every
layout with Python integers, so the comparison is with exact fractions.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from bruteforce import BruteForce, brute_force

from engine import COVERED, EXPERT, BoardSpec, Game
from engine.layout import parse_position
from players.solver import (
    Analysis,
    InconsistentPositionError,
    TooComplexError,
    analyze,
    count_component,
    deduce,
    deduce_matrix,
    extract_frontier,
    rref,
    split_components,
    weigh,
)
from players.solver.rref import _rref_inplace

BOARDS = [(4, 4, 3), (5, 5, 4), (5, 5, 6), (4, 6, 5), (6, 6, 7), (5, 6, 8), (3, 7, 4)]


def game_position(spec: BoardSpec, seed: int, reveals: int, flags: int) -> np.ndarray:
    """A position of a real game: first click, ``reveals`` random safe reveals, ``flags`` correct flags."""
    game = Game(spec, seed=seed, index=reveals * 7 + flags)
    rng = np.random.default_rng([seed, reveals, flags])
    game.reveal(int(rng.integers(spec.height)), int(rng.integers(spec.width)))
    layout = game.mine_layout()
    for _ in range(reveals):
        candidates = np.argwhere((game.grid == COVERED) & ~layout)
        if game.over or not len(candidates):
            break
        r, c = candidates[rng.integers(len(candidates))]
        game.reveal(int(r), int(c))
    if game.over:
        return game.observation().grid
    hidden = np.argwhere((game.grid == COVERED) & layout)
    for i in rng.permutation(len(hidden))[:flags]:
        game.flag(int(hidden[i][0]), int(hidden[i][1]))
    return game.observation().grid


def positions(count: int) -> list[tuple[np.ndarray, int]]:
    out = []
    seed = 0
    while len(out) < count:
        h, w, m = BOARDS[seed % len(BOARDS)]
        grid = game_position(BoardSpec(h, w, m), seed, reveals=seed % 4, flags=(seed // 4) % 3)
        seed += 1
        covered = int((grid == COVERED).sum())
        left = m - int((grid < COVERED).sum())
        if covered and math.comb(covered, left) <= 60_000:
            out.append((grid, m))
    return out


POSITIONS = positions(120)


def assert_matches(result: Analysis, exact: BruteForce) -> None:
    assert exact.count > 0
    for (r, c), p in exact.probabilities.items():
        assert result.probabilities[r, c] == pytest.approx(float(p), abs=1e-9), (r, c)
    assert result.safe == exact.safe
    assert result.mines == exact.mines
    assert result.log_weight == pytest.approx(math.log(exact.count), abs=1e-9)
    revealed = result.frontier.system.shape
    assert result.probabilities.shape == revealed


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [True, False], ids=["weighted", "unweighted"])
def test_probabilities_match_brute_force(weighted: bool) -> None:
    for grid, mines in POSITIONS:
        exact = brute_force(grid, mines, weighted=weighted)
        assert_matches(analyze(grid, mines, weighted=weighted), exact)


@pytest.mark.parametrize("weighted", [True, False], ids=["weighted", "unweighted"])
def test_float_counts_and_split_search_match_brute_force(weighted: bool) -> None:
    # exact_cells=0 forces float64 counts with support bits; parallel_threshold=1 forces the lanes.
    for grid, mines in POSITIONS[::3]:
        exact = brute_force(grid, mines, weighted=weighted)
        for parallel in (False, True):
            result = analyze(grid, mines, weighted=weighted, exact_cells=0, parallel_threshold=1, parallel=parallel)
            assert_matches(result, exact)


def test_without_rref_matches_brute_force() -> None:
    for grid, mines in POSITIONS[::2]:
        assert_matches(analyze(grid, mines, use_rref=False), brute_force(grid, mines))


def test_revealed_cells_are_nan_and_flags_are_one() -> None:
    grid = parse_position("1F#\n12#\n###")
    result = analyze(grid, 2)
    assert np.isnan(result.probabilities[0, 0]) and np.isnan(result.probabilities[1, 1])
    assert result.probabilities[0, 1] == 1.0
    assert result.covered.sum() == 5
    assert result.safe == [(2, 0), (2, 1)]
    lowest = result.probabilities[result.covered].min()
    assert all(result.probabilities[cell] == lowest for cell in result.best_guesses())


def frontier_certain(grid: np.ndarray) -> tuple[set, set]:
    """Cells safe / mines in every assignment of the frontier that satisfies the numbers alone."""
    system = extract_frontier(grid).system
    a, n = system.matrix(), system.n_cells
    x = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64).reshape(2**n, n)
    seen = x[(x @ a.T == system.rhs).all(axis=1)]
    coords = [divmod(int(f), grid.shape[1]) for f in system.cells]
    return {coords[j] for j in range(n) if not seen[:, j].any()}, {coords[j] for j in range(n) if seen[:, j].all()}


@pytest.mark.slow
def test_rref_deductions_are_sound() -> None:
    checked = 0
    for grid, mines in POSITIONS:
        exact = brute_force(grid, mines)
        safe, mine = deduce(grid, mines)
        assert set(safe) <= set(exact.safe)
        assert set(mine) <= set(exact.mines)
        # Without the global count: sound against the numbers alone.
        local_safe, local_mine = deduce(grid)
        true_safe, true_mine = frontier_certain(grid)
        assert set(local_safe) <= true_safe
        assert set(local_mine) <= true_mine
        checked += len(safe) + len(mine) + len(local_safe) + len(local_mine)
    assert checked > 50  # the positions do exercise the rules


def test_rref_finds_the_classic_121() -> None:
    grid = parse_position("###\n121\n000")
    assert deduce(grid) == ([(0, 1)], [(0, 0), (0, 2)])
    # 1-2-1 needs subtraction of rows: the trivial rules alone cannot see it.
    frontier = extract_frontier(grid)
    values = deduce_matrix(frontier.system.matrix(), frontier.system.rhs, use_rref=False)
    assert (values == -1).all()


def test_global_count_settles_the_endgame() -> None:
    # One mine left and it must be next to the 1: the far covered cells are safe.
    grid = parse_position("1##\n###\n###")
    safe, _ = deduce(grid, mines=1)
    assert (2, 2) in safe and (0, 1) not in safe


def test_rref_is_exact_and_the_python_fallback_agrees() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        a = rng.integers(0, 2, size=(rng.integers(1, 7), rng.integers(1, 9)))
        x = rng.integers(0, 2, size=a.shape[1])
        b = a @ x
        r, c = rref(a, b)
        assert np.array_equal(r @ x, c)  # the solution still solves the reduced rows
        assert np.linalg.matrix_rank(r) == np.linalg.matrix_rank(a) == r.shape[0]
        work = np.column_stack((a, b)).astype(object)
        rank = _rref_inplace.py_func(work, 0)
        assert np.array_equal(work[:rank].astype(np.int64), np.column_stack((r, c)))
    # Entries far beyond 2**30 overflow int64 arithmetic: the exact fallback takes over.
    big = np.array([[3**30, 5**20, 1], [7**20, 11**15, 1], [1, 1, 1]], dtype=np.int64)
    r, c = rref(big, np.array([2, 3, 4]))
    assert r.dtype == object
    ref = [[Fraction(int(v)) for v in row] for row in np.column_stack((big, [2, 3, 4]))]
    solution = _solve_fractions(ref)
    for row, rhs in zip(r, c, strict=True):
        assert sum(Fraction(int(v)) * s for v, s in zip(row, solution, strict=True)) == rhs


def _solve_fractions(aug: list[list[Fraction]]) -> list[Fraction]:
    n = len(aug)
    for col in range(n):
        piv = next(i for i in range(col, n) if aug[i][col] != 0)
        aug[col], aug[piv] = aug[piv], aug[col]
        for i in range(n):
            if i != col and aug[i][col] != 0:
                f = aug[i][col] / aug[col][col]
                aug[i] = [x - f * y for x, y in zip(aug[i], aug[col], strict=True)]
    return [aug[i][n] / aug[i][i] for i in range(n)]


@pytest.mark.parametrize(
    ("text", "mines"),
    [
        ("10\n00", 1),  # a 1 with no covered neighbour
        ("0F\n##", 1),  # a flag next to a 0
        ("2#\n00", 1),  # a 2 with one covered neighbour... and a 0 beside it
        ("1#\n##", 5),  # more mines than covered cells
        ("FF\nF1", 2),  # more flags than mines
        ("1#\n1#", 0),  # the frontier needs a mine, none is left
        ("11#\n###\n###", 6),  # mines can't fit outside the frontier
        ("#2#\n###\n1##", 8),  # 8 mines in 8 cells, but the 1 at (2, 0) wants exactly 1 of 3
    ],
)
def test_inconsistent_positions_raise(text: str, mines: int) -> None:
    grid = parse_position(text)
    assert brute_force(grid, mines).count == 0
    with pytest.raises(InconsistentPositionError):
        analyze(grid, mines)


def test_inconsistent_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        analyze(parse_position("4#\n##"), 3)


def test_flags_are_trusted_as_mines() -> None:
    # The flag at (0, 1) satisfies the 1: (1, 1) is then safe even though a layout with the
    # mine at (1, 1) and no mine under the flag would also fit the bare number.
    grid = parse_position("1F\n##")
    result = analyze(grid, 1)
    assert result.safe == [(1, 0), (1, 1)]
    assert result.probabilities[0, 1] == 1.0


def test_frontier_merges_identical_constraints() -> None:
    # Both 1s on the left see exactly (0, 1) and (1, 1); the 1s below see only (1, 1).
    frontier = extract_frontier(parse_position("1#\n1#\n11"), 1)
    system = frontier.system
    assert system.cells.tolist() == [1, 3]
    assert sorted(zip(system.rhs.tolist(), (system.constraints >= 0).sum(axis=1).tolist(), strict=True)) == [
        (1, 1),
        (1, 2),
    ]
    assert frontier.mines_left == 1 and frontier.n_unconstrained == 0
    assert analyze(parse_position("1#\n1#\n11"), 1).mines == [(1, 1)]


def test_components_partition_the_frontier() -> None:
    for grid, mines in POSITIONS[:40]:
        frontier = extract_frontier(grid, mines)
        system = frontier.system
        pieces = split_components(system)
        assert sorted(np.concatenate([p.cells for p in pieces] + [np.zeros(0, int)])) == sorted(system.cells)
        assert sum(p.n_constraints for p in pieces) == system.n_constraints
        owner = {int(f): i for i, p in enumerate(pieces) for f in p.cells}
        for i, piece in enumerate(pieces):
            for row in piece.constraints:
                assert {owner[int(piece.cells[j])] for j in row if j >= 0} == {i}
        covered = int((grid == COVERED).sum())
        assert system.n_cells + frontier.n_unconstrained == covered


def test_too_complex_error() -> None:
    # A row of 1s between two covered rows: mines every third column fit, among many layouts.
    grid = np.full((3, 20), COVERED, dtype=np.int8)
    grid[1, :] = 1
    assert len(analyze(grid, 7).components) == 1
    with pytest.raises(TooComplexError):
        analyze(grid, 7, node_limit=10, use_rref=False)


def expert_position(seed: int, moves: int) -> tuple[np.ndarray, int]:
    """An expert midgame: play safe cells and the least likely guesses for ``moves`` reveals."""
    game = Game(EXPERT, seed=seed, index=0)
    game.reveal(0, 0)
    layout = game.mine_layout()
    for _ in range(moves):
        if game.over:
            break
        result = analyze(game.grid, EXPERT.mines)
        cells = result.safe or result.best_guesses()[:1]
        for r, c in cells:
            if not layout[r, c] and game.grid[r, c] == COVERED:
                game.reveal(r, c)
    return game.observation().grid, EXPERT.mines


@pytest.mark.slow
def test_serial_and_parallel_counts_are_identical() -> None:
    grid, mines = expert_position(11, 12)
    frontier = extract_frontier(grid, mines)
    pieces = sorted(split_components(frontier.system), key=lambda p: -p.n_cells)
    for piece in pieces[:3]:
        for exact_cells in (66, 0):
            base = count_component(piece, exact_cells=exact_cells)
            serial = count_component(piece, exact_cells=exact_cells, parallel=False, parallel_threshold=1)
            threaded = count_component(piece, exact_cells=exact_cells, parallel=True, parallel_threshold=1)
            assert np.array_equal(serial.totals, threaded.totals)
            assert np.array_equal(serial.mine_counts, threaded.mine_counts)
            assert np.array_equal(serial.support, threaded.support)
            if exact_cells:
                assert np.array_equal(base.totals, serial.totals)
                assert np.array_equal(base.mine_counts, serial.mine_counts)
            else:
                np.testing.assert_allclose(base.mine_counts, serial.mine_counts, rtol=1e-12)


def test_expert_weighting_matches_exact_integers() -> None:
    # Exact rational probabilities from the int64 counts with Python integers and math.comb.
    for seed in (2, 7):
        grid, mines = expert_position(seed, 15)
        result = analyze(grid, mines)
        comps = result.components
        unconstrained = result.frontier.n_unconstrained
        in_components = np.concatenate([c.cells for c in comps])
        deduced = np.setdiff1d(result.frontier.system.cells, in_components)
        left = result.frontier.mines_left - int((result.probabilities.reshape(-1)[deduced] == 1).sum())
        assert all(c.exact for c in comps)
        poly = [1]
        for c in comps:
            poly = _poly_mul(poly, [int(v) for v in c.totals])
        weight = [math.comb(unconstrained, left - k) if 0 <= left - k <= unconstrained else 0 for k in range(len(poly))]
        z = sum(p * w for p, w in zip(poly, weight, strict=True))
        assert result.log_weight == pytest.approx(math.log(z), rel=1e-12)
        for i, comp in enumerate(comps):
            others = [1]
            for j, c in enumerate(comps):
                if j != i:
                    others = _poly_mul(others, [int(v) for v in c.totals])
            for cell in range(comp.system.n_cells):
                hits = sum(
                    int(comp.mine_counts[k, cell]) * others[k2] * weight[k + k2]
                    for k in range(comp.mine_counts.shape[0])
                    for k2 in range(len(others))
                    if comp.mine_counts[k, cell] and others[k2] and k + k2 < len(weight)
                )
                r, c = divmod(int(comp.cells[cell]), grid.shape[1])
                assert result.probabilities[r, c] == pytest.approx(hits / z, rel=1e-11, abs=1e-300)


def _poly_mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def test_huge_board_weights_do_not_overflow() -> None:
    # 200x200 with 8000 mines: C(U, M - k) is around 10**8000, far beyond float64.
    grid = np.full((200, 200), COVERED, dtype=np.int8)
    grid[0, 0], grid[5, 5], grid[5, 6] = 1, 3, 4
    result = analyze(grid, 8000)
    assert np.isfinite(result.log_weight) and result.log_weight > 10_000
    p = result.probabilities
    covered = result.covered
    assert np.all((p[covered] >= 0) & (p[covered] <= 1))
    # Expected mines add up to the mines on the board.
    assert p[covered].sum() == pytest.approx(8000, rel=1e-12)


def test_probabilities_sum_to_the_mines_left() -> None:
    for grid, mines in POSITIONS[:40]:
        result = analyze(grid, mines)
        assert result.probabilities[result.covered].sum() == pytest.approx(result.frontier.mines_left, abs=1e-9)


def test_weigh_rejects_unfittable_totals() -> None:
    grid = parse_position("1#\n1#")
    frontier = extract_frontier(grid, 1)
    comps = [count_component(p) for p in split_components(frontier.system)]
    with pytest.raises(InconsistentPositionError):
        weigh(comps, unconstrained=0, mines_left=0)
