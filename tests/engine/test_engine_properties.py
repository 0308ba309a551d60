"""Property-based tests of the engine over random sizes, mine counts, seeds, rules and first clicks.

Every expected value is recomputed here independently of the kernels: numbers with numpy
shifts, the first reveal's region with a plain breadth-first search.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

import numpy as np
import pytest
from boards import draw_layout
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import COVERED, FLAGGED, MINE, BoardSpec, FirstClick, Game, GameStatus

PROPERTY_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Case:
    spec: BoardSpec
    rule: FirstClick
    seed: int
    index: int
    click: tuple[int, int]


@st.composite
def cases(
    draw: st.DrawFn, rules: tuple[FirstClick, ...] = tuple(r for r in FirstClick if r.player_clicks), max_side: int = 20
) -> Case:
    rule = draw(st.sampled_from(rules))
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    capacity = height * width - rule.max_exclusion(height, width)
    assume(capacity >= 1)
    mines = draw(st.integers(1, capacity))
    click = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    seed = draw(st.integers(0, 2**63 - 1))
    index = draw(st.integers(0, 2**40))
    return Case(BoardSpec(height, width, mines), rule, seed, index, click)


def reference_numbers(mines: np.ndarray) -> np.ndarray:
    """Adjacent-mine counts by summing the nine shifted copies of the zero-padded layout."""
    height, width = mines.shape
    padded = np.pad(mines.astype(np.int64), 1)
    counts = sum(padded[1 + dr : 1 + dr + height, 1 + dc : 1 + dc + width] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    return np.where(mines, int(MINE), counts).astype(np.int8)


def neighbours(height: int, width: int, row: int, col: int) -> list[tuple[int, int]]:
    return [
        (r, c)
        for r in range(max(row - 1, 0), min(row + 2, height))
        for c in range(max(col - 1, 0), min(col + 2, width))
        if (r, c) != (row, col)
    ]


def reference_region(numbers: np.ndarray, click: tuple[int, int]) -> np.ndarray:
    """The cells a reveal at ``click`` opens: its zero-connected region plus that region's border."""
    height, width = numbers.shape
    region = np.zeros(numbers.shape, dtype=bool)
    if numbers[click] == MINE:
        return region
    region[click] = True
    queue = deque([click] if numbers[click] == 0 else [])
    while queue:
        cell = queue.popleft()
        for nb in neighbours(height, width, *cell):
            if not region[nb]:
                region[nb] = True
                if numbers[nb] == 0:
                    queue.append(nb)
    return region


def check_rule(layout: np.ndarray, rule: FirstClick, click: tuple[int, int]) -> None:
    if rule in (FirstClick.SAFE, FirstClick.WINDOWS):
        assert not layout[click]
    elif rule is FirstClick.OPENING:
        row, col = click
        assert not layout[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2].any()


@PROPERTY_SETTINGS
@given(cases())
def test_numbers_equal_adjacent_mine_counts(case: Case) -> None:
    game = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    game.reveal(*case.click)
    layout = game.mine_layout()
    for row, col in np.argwhere(~layout).tolist():
        if not game.over and game.grid[row, col] == COVERED:
            game.reveal(row, col)
    shown = game.grid >= 0  # every safe cell, unless the first click (rule none) hit a mine
    assert np.array_equal(game.grid[shown], reference_numbers(layout)[shown])


@PROPERTY_SETTINGS
@given(cases())
def test_layout_has_the_exact_mine_count_and_obeys_the_rule(case: Case) -> None:
    layout = draw_layout(case.spec, case.rule, case.seed, case.index, case.click)
    assert layout.shape == (case.spec.height, case.spec.width)
    assert int(layout.sum()) == case.spec.mines
    check_rule(layout, case.rule, case.click)
    game = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    assert np.array_equal(game.mine_layout(case.click), layout)
    game.reveal(*case.click)
    assert np.array_equal(game.mine_layout(), layout)
    if case.rule is FirstClick.OPENING:
        assert game.grid[case.click] == 0
    if case.rule is not FirstClick.NONE:
        assert game.status is not GameStatus.LOST


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(cases())
def test_first_reveal_opens_exactly_the_zero_region_and_its_border(case: Case) -> None:
    game = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    revealed = game.reveal(*case.click)
    numbers = reference_numbers(game.mine_layout())
    region = reference_region(numbers, case.click)
    grid = game.grid
    assert np.array_equal(grid >= 0, region)
    assert np.array_equal(grid[region], numbers[region])
    assert (grid[~region] == COVERED).all()
    assert revealed == int(region.sum())
    if numbers[case.click] == MINE:
        assert case.rule is FirstClick.NONE
        assert game.status is GameStatus.LOST
        assert game.exploded == case.click
    else:
        expected = GameStatus.WON if revealed == case.spec.cells - case.spec.mines else GameStatus.PLAYING
        assert game.status is expected
        assert game.safe_left == case.spec.cells - case.spec.mines - revealed
    stats = game.stats()
    assert stats.first_click == case.click
    assert stats.rule is case.rule
    assert stats.revealed_cells == revealed


@PROPERTY_SETTINGS
@given(cases(), st.integers(0, 2**32 - 1))
def test_layouts_ignore_global_random_state(case: Case, noise: int) -> None:
    random.seed(noise)
    np.random.seed(noise)
    first = draw_layout(case.spec, case.rule, case.seed, case.index, case.click)
    game = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    random.seed(noise + 1)
    random.random()
    np.random.seed((noise * 7 + 3) % 2**32)
    np.random.rand(17)
    np.random.permutation(case.spec.cells)
    second = draw_layout(case.spec, case.rule, case.seed, case.index, case.click)
    random.random()
    np.random.rand()
    game.reveal(*case.click)
    assert np.array_equal(first, second)
    assert np.array_equal(game.mine_layout(), first)


@PROPERTY_SETTINGS
@given(cases(rules=(FirstClick.SAFE,)), st.integers(0, 19), st.integers(0, 19))
def test_safe_layouts_for_two_clicks_differ_in_at_most_one_mine(case: Case, row: int, col: int) -> None:
    other = (row % case.spec.height, col % case.spec.width)
    a = draw_layout(case.spec, "safe", case.seed, case.index, case.click)
    b = draw_layout(case.spec, "safe", case.seed, case.index, other)
    assert int((a & ~b).sum()) == int((b & ~a).sum()) <= 1
    none_a = draw_layout(case.spec, "none", case.seed, case.index, case.click)
    none_b = draw_layout(case.spec, "none", case.seed, case.index, other)
    assert np.array_equal(none_a, none_b)


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(cases(max_side=12), st.randoms(use_true_random=False), st.booleans())
def test_revealing_every_safe_cell_in_any_order_wins(case: Case, rng: random.Random, flag_mines: bool) -> None:
    game = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    game.reveal(*case.click)
    layout = game.mine_layout()
    safe_total = case.spec.cells - case.spec.mines
    if layout[case.click]:
        assert case.rule is FirstClick.NONE
        assert game.status is GameStatus.LOST
        return
    flags = 0
    if flag_mines and not game.over:
        for cell in map(tuple, np.argwhere(layout)):
            if rng.random() < 0.5:
                game.flag(*cell)
                flags += 1
    order = [tuple(int(v) for v in cell) for cell in np.argwhere(~layout)]
    rng.shuffle(order)
    solved = game.stats().bbbv_solved
    assert solved in (0, 1)  # 0 when the click is a number on an opening's border
    for cell in order:
        if game.grid[cell] != COVERED:
            continue
        assert not game.over
        before = game.safe_left
        revealed = game.reveal(*cell)
        assert revealed >= 1
        assert game.safe_left == before - revealed
        now = game.stats().bbbv_solved
        assert now - solved in (0, 1)
        solved = now
    assert game.won
    stats = game.stats()
    assert stats.status is GameStatus.WON
    assert stats.revealed_cells == safe_total
    assert game.safe_left == 0
    assert stats.bbbv_solved == stats.bbbv
    assert stats.bbbv <= stats.reveals <= safe_total
    assert stats.flags == flags
    assert stats.moves == stats.reveals + flags
    assert stats.first_click == case.click
    numbers = reference_numbers(layout)
    obs = game.observation()
    assert np.array_equal(obs.grid[~layout], numbers[~layout])
    assert set(np.unique(obs.grid[layout]).tolist()) <= {int(COVERED), int(FLAGGED)}
    assert obs.flags == flags
    assert obs.mines_left == case.spec.mines - flags


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(cases())
def test_a_fixed_layout_plays_like_the_seeded_board(case: Case) -> None:
    seeded = Game(case.spec, case.rule, seed=case.seed, index=case.index)
    seeded.reveal(*case.click)
    fixed = Game(case.spec, "none", layout=seeded.mine_layout())
    fixed.reveal(*case.click)
    assert np.array_equal(fixed.grid, seeded.grid)
    assert fixed.status is seeded.status
    assert fixed.stats().bbbv == seeded.stats().bbbv
    assert fixed.stats().bbbv_solved == seeded.stats().bbbv_solved
