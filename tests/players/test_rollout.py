"""The `rollout` player: its posterior sampler against brute force, its base policy, its race,
determinism and legal play under every first-click rule."""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter

import numpy as np
import pytest

from arena.runner import Outcome, play_game
from engine import INTERMEDIATE, BoardSpec, FirstClick, Game, rng
from engine.kernels import MINE, neighbour_numbers
from players import Registry
from players.api import PlayerOptionsError
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook
from players.builtin.rollout import RolloutPlayer
from players.builtin.rollout.player import race
from players.builtin.rollout.playout import evaluate, exact_probabilities, play_out
from players.builtin.rollout.sampler import PosteriorSampler
from players.solver import analyze
from players.solver.analysis import _LOG_TABLE
from players.solver.bruteforce import layouts

SMALL = {"budget": 400, "per_guess": 200, "batch": 16}
#: Beginner's size with more mines: close guesses on most boards, under every rule.
DENSE = BoardSpec(9, 9, 16, "dense")


def _position(height: int, width: int, mines: list[int], revealed: list[int]) -> np.ndarray:
    """The grid showing the true numbers of ``revealed`` on the layout ``mines`` (flat cells)."""
    is_mine = np.zeros(height * width, np.uint8)
    is_mine[mines] = 1
    truth = np.zeros(height * width, np.int8)
    neighbour_numbers(is_mine, height, width, truth)
    grid = np.full(height * width, -1, np.int8)
    for f in revealed:
        assert truth[f] != MINE
        grid[f] = truth[f]
    return grid.reshape(height, width)


def _chi_square_bound(df: int, z: float = 3.719) -> float:
    """The chi-square quantile at p = 1e-4 (z = 3.719), by Wilson and Hilferty's approximation."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


POSITIONS = [
    # One component beside a large unconstrained area: the binomial weights of the rest matter.
    (_position(4, 5, [2, 8, 13, 16, 19], [0, 1, 5, 6]), 5),
    # Two components at opposite corners and unconstrained cells between them.
    (_position(4, 6, [2, 9, 15, 18, 20], [0, 1, 6, 7, 4, 5, 10, 11]), 5),
    # Few layouts, a number next to a covered edge.
    (_position(3, 5, [1, 3, 11, 14], [0, 2, 5, 6, 7]), 4),
]


@pytest.mark.parametrize(("grid", "mines"), POSITIONS)
def test_sampler_matches_brute_force_by_chi_square(grid: np.ndarray, mines: int) -> None:
    """Frequencies of every layout within a chi-square bound at p = 1e-4. The third position has
    power against a sampler that forgets the binomial weights (frontier configurations holding 3
    or 4 mines leave different numbers of ways for the rest): its expected chi-square would be
    about 1340 against a bound of 30."""
    every = layouts(grid, mines)
    index = {layout: i for i, layout in enumerate(every)}
    outlook = Outlook(grid, mines, analyze(grid, mines))
    sampler = PosteriorSampler(outlook, 100_000)
    assert sampler.ok
    n = max(40 * len(every), 4000)
    drawn = sampler.sample(rng.player_state(np.array([9, 8, 7, 6], np.uint64)), n)
    counts = Counter(index[frozenset(np.flatnonzero(row).tolist())] for row in drawn)  # KeyError: impossible
    observed = np.array([counts[i] for i in range(len(every))], dtype=float)
    expected = n / len(every)  # uniform mines: every consistent layout is equally likely
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert len(every) > 5
    assert chi2 < _chi_square_bound(len(every) - 1), (chi2, len(every))


def test_sampler_keeps_flags_and_declines_past_its_limit() -> None:
    grid, mines = POSITIONS[0]
    flagged = grid.copy()
    flagged[0, 2] = -2  # (0, 2) is a mine of the layout: flagged, every sample must keep it
    outlook = Outlook(flagged, mines, analyze(flagged, mines))
    drawn = PosteriorSampler(outlook, 100_000).sample(rng.player_state(np.array([1, 0, 0, 0], np.uint64)), 200)
    assert (drawn[:, 2] == 1).all()
    assert (drawn.sum(axis=1) == mines).all()
    assert not PosteriorSampler(Outlook(grid, mines, analyze(grid, mines)), 1).ok


def _intermediate_positions(count: int) -> list[tuple[np.ndarray, int]]:
    found = []
    for board in range(30):
        game = Game(INTERMEDIATE, FirstClick.SAFE, seed=21, index=board)
        game.reveal(0, 0)
        while not game.over and len(found) < count:
            observation = game.observation()
            found.append((np.array(observation.grid), observation.mines))
            analysis = analyze(observation.grid, observation.mines)
            game.reveal(*(analysis.safe[0] if analysis.safe else analysis.ranked()[0][1]))
    return found


def test_compiled_probabilities_are_the_solvers() -> None:
    checked = 0
    for grid, mines in _intermediate_positions(60):
        ok, probabilities, safe, mine = exact_probabilities(grid, mines, _LOG_TABLE)
        if not ok:
            continue
        analysis = analyze(grid, mines)
        reference = analysis.probabilities.reshape(-1)
        known = ~np.isnan(reference)
        np.testing.assert_allclose(probabilities[known], reference[known], rtol=0, atol=1e-12)
        assert sorted(zip(safe[0].tolist(), safe[1].tolist(), strict=True)) == sorted(analysis.safe)
        assert sorted(zip(mine[0].tolist(), mine[1].tolist(), strict=True)) == sorted(analysis.mines)
        checked += 1
    assert checked >= 50


def test_play_out_loses_on_a_mine_and_wins_an_open_board() -> None:
    height, width = 4, 4
    is_mine = np.zeros(16, np.uint8)
    is_mine[15] = 1
    truth = np.zeros(16, np.int8)
    neighbour_numbers(is_mine, height, width, truth)
    stack = np.empty(16, np.int64)
    view = np.full(16, -1, np.int8)
    assert not play_out(view.copy(), truth, height, width, 1, 15, stack, _LOG_TABLE)
    assert play_out(view.copy(), truth, height, width, 1, 0, stack, _LOG_TABLE)  # a zero opens all


def test_race_overrules_a_clearly_worse_incumbent() -> None:
    grid, mines = POSITIONS[0]
    outlook = Outlook(grid, mines, analyze(grid, mines))
    p = outlook.probabilities
    covered = [int(f) for f in np.flatnonzero(outlook.covered)]
    worst = max((f for f in covered if p[f] < 1.0), key=lambda f: p[f])
    best = min(covered, key=lambda f: p[f])
    assert p[worst] - p[best] >= 0.5
    sampler = PosteriorSampler(outlook, 100_000)
    state = rng.player_state(np.array([3, 1, 4, 1], np.uint64))
    result = race(grid.reshape(-1).copy(), 4, 5, mines, sampler, [worst, best], state, 400, 20, 2.5, 1.0)
    assert result.chosen == 1
    assert result.spent <= 400
    # Common layouts: clicking a cell loses exactly on the layouts that mine it.
    drawn = sampler.sample(rng.player_state(np.array([5, 5, 5, 5], np.uint64)), 50)
    view = grid.reshape(-1).copy()
    won = evaluate(view, drawn, np.array([worst], np.int64), np.ones(1, np.bool_), 4, 5, mines, _LOG_TABLE)
    assert not won[0][drawn[:, worst] == 1].any()


def test_registered_with_validated_options() -> None:
    assert Registry(entry_points=False).get("rollout").cls is RolloutPlayer
    for options in ({"budget": -1}, {"batch": 0}, {"rollout_candidates": 1}, {"bogus": 1}):
        with pytest.raises(PlayerOptionsError):
            RolloutPlayer(options)


def _trajectories(player: ApexPlayer, name: str, spec: BoardSpec, boards: range) -> tuple[str, int]:
    digest = hashlib.sha256()
    races = 0
    for board in boards:
        result = play_game(player, name, spec, FirstClick.SAFE, 77, board)
        digest.update(repr(result.as_row() | {"cpu_ms": 0, "wall_ms": 0}).encode())
        races += len(getattr(player, "races", []))
    return digest.hexdigest(), races


def test_deterministic_for_a_seed() -> None:
    boards = range(10)
    first, races = _trajectories(RolloutPlayer(SMALL), "rollout", INTERMEDIATE, boards)
    random.seed(12345)
    np.random.seed(54321)
    np.random.random(17)
    second, _ = _trajectories(RolloutPlayer(SMALL), "rollout", INTERMEDIATE, boards)
    assert races > 0  # the rollouts ran, so their draws were part of what repeated
    assert first == second


def test_no_budget_plays_as_apex() -> None:
    boards = range(8)
    apex, _ = _trajectories(ApexPlayer(), "x", INTERMEDIATE, boards)
    rollout, races = _trajectories(RolloutPlayer({"budget": 0}), "x", INTERMEDIATE, boards)
    assert races == 0
    assert apex == rollout


@pytest.mark.parametrize("rule", list(FirstClick))
def test_plays_legal_games_under_every_rule(rule: FirstClick) -> None:
    player = RolloutPlayer(SMALL)
    races = 0
    spent = 0
    for board in range(25):
        result = play_game(player, "rollout", DENSE, rule, 4, board)
        assert result.outcome in (Outcome.WON, Outcome.LOST), result.error
        races += len(player.races)
        spent = max(spent, SMALL["budget"] - player.budget_left)
        assert player.budget_left >= 0
    assert races > 0
    assert spent <= SMALL["budget"]
