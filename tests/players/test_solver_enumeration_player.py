"""The ``enumeration`` player's compiled shortcuts make exactly the decisions of its plain version.

The player's speed work (one compiled call for "first move?" plus the single-cell rules, a
compiled guess shortlist, tuples built directly, the solver's fast path) must not change one
move: its published win rates are reproduced board by board. The reference here is the player as
it was written before that work: ``players.rules.certain_actions``, ``Observation.first_move``,
per-cell Python loops for the guess and the general numpy path of the solver.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.play.runner import play_game
from engine import BEGINNER, COVERED, EXPERT, FLAGGED, INTERMEDIATE, Action, FirstClick, Observation
from players.builtin.common import guess_candidates
from players.builtin.enumeration_player import EnumerationPlayer
from players.rules import certain_actions, certain_cells
from players.solver import analyze
from players.solver.analysis import analyze_general


def position_preference(cells: list[tuple[int, int]], height: int, width: int) -> list[tuple[int, int]]:
    """The corners among ``cells`` if any, else the edge cells, else all of them."""
    corners = [(r, c) for r, c in cells if r in (0, height - 1) and c in (0, width - 1)]
    if corners:
        return corners
    edges = [(r, c) for r, c in cells if r in (0, height - 1) or c in (0, width - 1)]
    return edges or cells


SETTINGS = settings(
    max_examples=int(os.environ.get("SOLVER_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class ReferenceEnumerationPlayer(EnumerationPlayer):
    """The player before its speed work, line for line (bar the solver's general path)."""

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        actions = certain_actions(observation)
        if actions:
            return actions
        result = analyze_general(observation.grid, observation.mines, weighted=False)
        actions = [Action.reveal(r, c) for r, c in result.safe] + [Action.flag(r, c) for r, c in result.mines]
        if actions:
            return actions
        return [Action.reveal(*self._reference_guess(result, observation), guess=True)]

    def _reference_guess(self, result, observation: Observation) -> tuple[int, int]:
        probabilities = result.probabilities
        frontier = [divmod(int(f), observation.width) for f in result.frontier.system.cells]
        frontier = [cell for cell in frontier if probabilities[cell] < 1.0]
        unconstrained = [divmod(int(f), observation.width) for f in result.frontier.unconstrained]
        best_frontier = min((probabilities[cell] for cell in frontier), default=np.inf)
        if unconstrained and result.unconstrained_probability < best_frontier:
            choices = position_preference(unconstrained, observation.height, observation.width)
        else:
            choices = [cell for cell in frontier if probabilities[cell] == best_frontier]
        return choices[int(self.rng.integers(len(choices)))]


@st.composite
def grids(draw: st.DrawFn) -> np.ndarray:
    """Random positions up to expert size, some with wrong flags or impossible numbers."""
    h = draw(st.integers(1, 16))
    w = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout = rng.random((h, w)) < draw(st.sampled_from([0.1, 0.2, 0.3]))
    padded = np.pad(layout, 1).astype(np.int64)
    numbers = sum(padded[1 + dr : h + 1 + dr, 1 + dc : w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full((h, w), COVERED, dtype=np.int8)
    shown = ~layout & (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3, 0.6, 0.9])))
    grid[shown] = numbers[shown]
    grid[layout & (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3])))] = FLAGGED
    broken = rng.random((h, w)) < draw(st.sampled_from([0.0, 0.0, 0.05]))
    grid[broken] = rng.integers(-2, 9, size=(h, w))[broken]
    grid.flags.writeable = False
    return grid


@SETTINGS
@given(grids())
def test_rules_match_certain_actions(grid: np.ndarray) -> None:
    observation = Observation(grid, int((grid == FLAGGED).sum()) + 3, FirstClick.SAFE, 0, 0)
    first_move, safe, mines = certain_cells(grid)
    assert first_move == observation.first_move
    if not first_move:
        actions = [Action.reveal(r, c) for r, c in zip(*safe.tolist(), strict=True)]
        actions += [Action.flag(r, c) for r, c in zip(*mines.tolist(), strict=True)]
        assert actions == certain_actions(observation)


@SETTINGS
@given(grids(), st.integers(0, 40))
def test_guess_shortlist_matches_the_python_loops(grid: np.ndarray, extra_mines: int) -> None:
    mines = int((grid == FLAGGED).sum()) + extra_mines
    try:
        result = analyze(grid, mines, weighted=False, node_limit=200_000)
    except (ValueError, RuntimeError):
        return
    height, width = grid.shape
    p = result.probabilities
    frontier = [divmod(int(f), width) for f in result.frontier.system.cells]
    frontier = [cell for cell in frontier if p[cell] < 1.0]
    unconstrained = [divmod(int(f), width) for f in result.frontier.unconstrained]
    best = min((p[cell] for cell in frontier), default=np.inf)
    if unconstrained and result.unconstrained_probability < best:
        expected = position_preference(unconstrained, height, width)
    else:
        expected = [cell for cell in frontier if p[cell] == best]
    got = guess_candidates(
        p.reshape(-1),
        result.frontier.system.cells,
        result.frontier.unconstrained,
        result.unconstrained_probability,
        height,
        width,
    )
    assert [divmod(int(f), width) for f in got] == expected


@pytest.mark.parametrize(
    ("spec", "rule", "boards"),
    [
        (BEGINNER, FirstClick.SAFE, 40),
        (INTERMEDIATE, FirstClick.SAFE, 12),
        (EXPERT, FirstClick.SAFE, 6),
        (BEGINNER, FirstClick.NONE, 20),
        (INTERMEDIATE, FirstClick.OPENING, 8),
    ],
    ids=["beginner", "intermediate", "expert", "beginner-none", "intermediate-opening"],
)
def test_games_are_move_for_move_those_of_the_reference(spec, rule: FirstClick, boards: int) -> None:
    player, reference = EnumerationPlayer(), ReferenceEnumerationPlayer()
    for board in range(boards):
        got = play_game(player, "enumeration", spec, rule, 123, board).as_row()
        want = play_game(reference, "enumeration", spec, rule, 123, board).as_row()
        for row in (got, want):
            del row["cpu_ms"], row["wall_ms"]
        assert got == want, board


def test_the_rust_threshold_sends_ties_and_denser_frontiers_away() -> None:
    probabilities = np.full(9, np.nan)
    probabilities[[1, 3]] = 0.25  # the frontier
    frontier = np.array([1, 3], dtype=np.int64)
    unconstrained = np.array([0, 4, 8], dtype=np.int64)  # corners 0 and 8, centre 4
    assert list(guess_candidates(probabilities, frontier, unconstrained, 0.25, 3, 3, False)) == [1, 3]
    assert list(guess_candidates(probabilities, frontier, unconstrained, 0.25, 3, 3, True)) == [0, 8]
    assert list(guess_candidates(probabilities, frontier, unconstrained, 0.30, 3, 3, True)) == [1, 3]


def test_the_density_threshold_is_a_validated_option() -> None:
    from players.api import PlayerError
    from players.registry import Registry

    player = Registry(entry_points=False).create("enumeration", {"interior": "density"})
    assert player.options.interior == "density"
    with pytest.raises(PlayerError):
        Registry(entry_points=False).create("enumeration", {"interior": "sometimes"})


def test_the_rust_counting_plays_whole_games_the_same_way_twice() -> None:
    from players.registry import Registry

    registry = Registry(entry_points=False)
    runs = []
    for _ in range(2):
        player = registry.create("enumeration", {"counting": "rust"})
        runs.append([play_game(player, "enumeration", EXPERT, FirstClick.SAFE, 4, b) for b in range(12)])
    assert [(r.outcome, r.moves, r.guesses) for r in runs[0]] == [(r.outcome, r.moves, r.guesses) for r in runs[1]]
    assert {r.outcome.value for r in runs[0]} <= {"won", "lost"}
