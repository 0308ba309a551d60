"""The subset rule (``players.deduction.subset_closure``): hand-made patterns the single-cell rules
miss, and, on random small positions drawn from a real layout, soundness against brute force
(every cell it decides is decided the same way in every layout that agrees with the position)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from bruteforce import brute_force
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import COVERED, FLAGGED
from engine.layout import parse_position
from players.deduction import MINE, SAFE, certain_cells, subset_closure

SETTINGS = settings(
    max_examples=int(os.environ.get("SOLVER_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def decided(grid: np.ndarray, *, subsets: bool) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    if subsets:
        known = subset_closure(grid)[0]
        mines, safe = np.nonzero(known == MINE), np.nonzero(known == SAFE)
    else:
        _, safe, mines = certain_cells(grid)
    as_set = lambda cells: {(int(r), int(c)) for r, c in zip(*cells, strict=True)}  # noqa: E731
    return as_set(mines), as_set(safe)


def constraint_cells(row: int, col: int, mask: int) -> set[tuple[int, int]]:
    return {(row + b // 3, col + b % 3) for b in range(9) if (mask >> b) & 1}


# -- hand-made positions -------------------------------------------------------------------


@pytest.mark.slow
def test_one_two_two_one_along_a_wall() -> None:
    # Layout: mines at (0,1) and (0,2). The 1 at (1,0) needs one mine in {(0,0), (0,1)}, the 2 at
    # (1,1) two in {(0,0), (0,1), (0,2)}: so (0,2) is a mine; symmetrically (0,1); then the 1s
    # are satisfied and the corners are safe. No single number decides anything.
    grid = parse_position("####\n1221\n0000")
    assert decided(grid, subsets=False) == (set(), set())
    assert decided(grid, subsets=True) == ({(0, 1), (0, 2)}, {(0, 0), (0, 3)})
    exact = brute_force(grid, 2)
    assert (set(exact.mines), set(exact.safe)) == ({(0, 1), (0, 2)}, {(0, 0), (0, 3)})


def test_one_one_along_a_wall() -> None:
    # Layout: mines at (0,0) and (0,3). {(0,0), (0,1)} holds one mine and {(0,0), (0,1), (0,2)}
    # one too: (0,2) is safe; from the right, (0,1) is; then the 1s place the two mines.
    grid = parse_position("####\n1111\n0000")
    assert decided(grid, subsets=False) == (set(), set())
    assert decided(grid, subsets=True) == ({(0, 0), (0, 3)}, {(0, 1), (0, 2)})


def test_a_difference_builds_on_a_difference() -> None:
    # Row 0 covered, a, b, c, d, e from the left; row 1 shows 2 3 3 2 1 over zeros... built from
    # the layout below, so the position is consistent; whatever it decides must be right there.
    layout = np.array([[1, 1, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], dtype=bool)
    grid = position_of(layout, shown=~layout & (np.arange(18).reshape(3, 6) >= 6))
    mines, safe = decided(grid, subsets=True)
    exact = brute_force(grid, int(layout.sum()))
    assert mines <= set(exact.mines) and safe <= set(exact.safe)
    assert mines | safe == set(exact.mines) | set(exact.safe)


def test_constraints_are_returned_normalised_and_deduplicated() -> None:
    known, constraints = subset_closure(parse_position("###\n#2#\n###"))
    assert not known.any()
    # One number: its eight covered neighbours, bounding box at (0, 0), every bit but the centre.
    assert constraints.tolist() == [[0, 0, 0b111101111, 2]]
    # Two numbers seeing the same two cells enter once.
    _, constraints = subset_closure(parse_position("##\n11\n00"))
    assert constraints.tolist() == [[0, 0, 0b11, 1]]


@pytest.mark.slow
def test_flags_count_as_mines() -> None:
    # The 1-2-2-1 pattern again, with a flagged mine below the 2 and 3 on the left: they need one
    # and two mines in the row above, as the 1 and 2 did.
    grid = parse_position("####\n2321\nF100")
    assert decided(grid, subsets=False) == (set(), set())
    assert decided(grid, subsets=True) == ({(0, 1), (0, 2)}, {(0, 0), (0, 3)})
    assert set(brute_force(grid, 3).mines) == {(0, 1), (0, 2)}


# -- random positions against brute force --------------------------------------------------


def position_of(layout: np.ndarray, shown: np.ndarray, flags: np.ndarray | None = None) -> np.ndarray:
    h, w = layout.shape
    padded = np.pad(layout, 1).astype(np.int64)
    numbers = sum(padded[1 + dr : h + 1 + dr, 1 + dc : w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full((h, w), COVERED, dtype=np.int8)
    grid[shown] = numbers[shown]
    if flags is not None:
        grid[flags] = FLAGGED
    return grid


@st.composite
def positions(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """A random layout and a position it could show: some safe cells revealed, some mines flagged."""
    h = draw(st.integers(2, 6))
    w = draw(st.integers(2, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout = rng.random((h, w)) < draw(st.sampled_from([0.15, 0.25, 0.4]))
    shown = ~layout & (rng.random((h, w)) < draw(st.sampled_from([0.3, 0.5, 0.7])))
    flags = layout & (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3])))
    grid = position_of(layout, shown, flags)
    covered = int((grid == COVERED).sum())
    assume(math.comb(covered, int(layout.sum() - flags.sum())) <= 100_000)
    return grid, layout


@pytest.mark.slow
@SETTINGS
@given(positions())
def test_every_decided_cell_is_decided_in_every_consistent_layout(position: tuple[np.ndarray, np.ndarray]) -> None:
    grid, layout = position
    exact = brute_force(grid, int(layout.sum()))
    assert exact.count > 0
    mines, safe = decided(grid, subsets=True)
    assert mines <= set(exact.mines)
    assert safe <= set(exact.safe)
    # The subset rule only adds to the single-cell rules.
    single_mines, single_safe = decided(grid, subsets=False)
    assert single_mines <= mines and single_safe <= safe


@SETTINGS
@given(positions())
def test_every_constraint_left_holds_on_the_layout(position: tuple[np.ndarray, np.ndarray]) -> None:
    """Numbers and derived differences alike: each holds on the layout the position came from
    (a layout that agrees with the position), touches only undecided covered cells, and is
    undecided itself."""
    grid, layout = position
    known, constraints = subset_closure(grid)
    for row, col, mask, mines in constraints.tolist():
        cells = constraint_cells(row, col, mask)
        assert 0 < mines < len(cells)
        assert all(grid[r, c] == COVERED and known[r, c] == 0 for r, c in cells)
        assert sum(bool(layout[r, c]) for r, c in cells) == mines
    assert len({tuple(c[:3]) for c in constraints.tolist()}) == len(constraints)  # no set twice


@SETTINGS
@given(positions())
def test_the_result_does_not_depend_on_orientation(position: tuple[np.ndarray, np.ndarray]) -> None:
    """Every pair is compared, so the fixed point is a function of the position: transposing or
    mirroring the board transposes or mirrors what it decides (and exercises every shift)."""
    grid, _ = position
    known, _ = subset_closure(grid)
    assert np.array_equal(subset_closure(np.ascontiguousarray(grid.T))[0], known.T)
    assert np.array_equal(subset_closure(np.ascontiguousarray(grid[::-1, ::-1]))[0], known[::-1, ::-1])
