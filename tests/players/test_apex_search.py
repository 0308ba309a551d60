"""`apex`'s exact machinery against independent brute force on tiny positions.

* ``Outlook``: the probability of each number a cell could show, and what follows, against
  re-running ``analyze`` on the grid with that number written in.
* ``Endgame``: the optimal probability of winning against a naive game-tree search that plays the
  real rules (flood fill included) over every layout, with no shortcut at all.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from bruteforce import win_probability

from engine import BoardSpec, FirstClick, Game
from players.builtin.apex.endgame import Endgame, enumerate_layouts, solve_endgame
from players.builtin.apex.outlook import Outlook
from players.solver import InconsistentPositionError, analyze


def _positions(spec: BoardSpec, count: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """Positions without certain moves, from games played by revealing the safest cell."""
    found = []
    board = 0
    while len(found) < count and board < 400:
        game = Game(spec, FirstClick.SAFE, seed=seed, index=board)
        board += 1
        game.reveal(0, 0)
        while not game.over:
            grid = game.grid.copy()
            analysis = analyze(grid, spec.mines)
            if analysis.safe:
                game.reveal(*analysis.safe[0])
                continue
            found.append((grid, spec.mines))
            game.reveal(*analysis.best_guesses()[0])
    return found[:count]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "seed"), [(BoardSpec(4, 4, 3), 1), (BoardSpec(3, 5, 4), 2), (BoardSpec(4, 5, 5), 3)])
def test_endgame_matches_brute_force(spec: BoardSpec, seed: int) -> None:
    checked = 0
    for grid, mines in _positions(spec, 30, seed):
        analysis = analyze(grid, mines)
        outlook = Outlook(grid, mines, analysis)
        cells, layouts = enumerate_layouts(outlook, 10_000)
        assert layouts.shape[0] == round(math.exp(analysis.log_weight))
        if layouts.shape[0] > 60:
            continue
        search = Endgame(outlook, layouts, cells, budget=1_000_000)
        cell, value = search.best()
        assert value == pytest.approx(win_probability(grid, mines), abs=1e-12)
        assert analysis.probabilities.reshape(-1)[cell] < 1.0
        checked += 1
    assert checked >= 5


def test_layouts_reproduce_the_solver_probabilities() -> None:
    for grid, mines in _positions(BoardSpec(6, 6, 8), 10, 4):
        analysis = analyze(grid, mines)
        outlook = Outlook(grid, mines, analysis)
        enumerated = enumerate_layouts(outlook, 200_000)
        if enumerated is None:
            continue
        cells, layouts = enumerated
        assert layouts.shape[0] == round(math.exp(analysis.log_weight))
        frequencies = layouts.mean(axis=0)
        np.testing.assert_allclose(frequencies, analysis.probabilities.reshape(-1)[cells], atol=1e-9)


def test_solve_endgame_declines_big_positions() -> None:
    grid, mines = _positions(BoardSpec(16, 16, 40), 1, 5)[0]
    outlook = Outlook(grid, mines, analyze(grid, mines))
    assert solve_endgame(outlook, 100, 1000) is None


@pytest.mark.parametrize(("spec", "seed"), [(BoardSpec(8, 8, 12), 6), (BoardSpec(16, 30, 99), 7)])
def test_outlook_matches_reanalysis(spec: BoardSpec, seed: int) -> None:
    for grid, mines in _positions(spec, 6, seed):
        analysis = analyze(grid, mines)
        outlook = Outlook(grid, mines, analysis)
        rows, cols = np.nonzero(analysis.covered)
        safest = np.lexsort((cols, rows, analysis.probabilities[rows, cols]))[:4]
        for row, col in zip(rows[safest].tolist(), cols[safest].tolist(), strict=True):
            p = analysis.probabilities[row, col]
            if p >= 1.0:
                continue
            outcomes = {o.value: o for o in outlook.outcomes(row, col)}
            assert sum(o.probability for o in outcomes.values()) == pytest.approx(1.0 - p, abs=1e-9)
            for v in range(9):
                written = grid.copy()
                written[row, col] = v
                try:
                    after = analyze(written, mines)
                except InconsistentPositionError:
                    assert v not in outcomes
                    continue
                expected = math.exp(after.log_weight - analysis.log_weight)
                assert outcomes[v].probability == pytest.approx(expected, rel=1e-9)
                assert outcomes[v].progress == bool(after.safe)
                live = after.covered & (after.probabilities < 1.0)
                if not after.safe and live.any():
                    assert outcomes[v].best_safety == pytest.approx(1.0 - after.probabilities[live].min(), abs=1e-9)


@pytest.mark.slow
def test_endgame_gives_up_past_its_budget() -> None:
    for grid, mines in _positions(BoardSpec(4, 5, 5), 30, 3):
        analysis = analyze(grid, mines)
        outlook = Outlook(grid, mines, analysis)
        if math.exp(analysis.log_weight) < 20:
            continue
        assert solve_endgame(outlook, 10_000, 1) is None
        solved = solve_endgame(outlook, 10_000, 10_000_000)
        assert solved is not None
        row, col, value = solved
        assert 0.0 < value <= 1.0 - analysis.probabilities[analysis.covered].min() + 1e-12
        assert analysis.probabilities[row, col] < 1.0
        return
    pytest.fail("no position with enough layouts")


def test_pruned_best_secondary_equals_the_full_maximum() -> None:
    from players.builtin.apex import ApexPlayer

    player = ApexPlayer()
    for grid, mines in _positions(BoardSpec(16, 30, 99), 8, 8):
        outlook = Outlook(grid, mines, analyze(grid, mines))
        full = max(outlook.summary(*cell).secondary for cell in player.candidates(outlook))
        assert player._best_secondary(outlook) == pytest.approx(full, abs=1e-12)
