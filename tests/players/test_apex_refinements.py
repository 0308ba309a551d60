"""`apex`'s refinements after D. N. Hill's solvers: the 50/50 influence (``fifty_influence``,
``influence.FiftyInfluence``) and the blended secondary safety (``blended_safety``,
``Outlook.blended_summary``).

Each is checked against independent computation (brute-force layout counts, re-analysis of the
grid with the number written in) and on a tiny position where it picks a different cell than the
default lookahead, one whose exact probability of winning (game-tree search over every layout,
flood fill included) is higher.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from bruteforce import layouts, win_probability

from arena.result import Outcome
from arena.runner import play_game
from engine import BEGINNER, COVERED, Action, BoardSpec, FirstClick, Game
from engine.layout import parse_position
from players.api import PlayerOptionsError
from players.builtin.apex import ApexPlayer
from players.builtin.apex.influence import FiftyInfluence
from players.builtin.apex.outlook import BLEND_BEST, BLEND_SECOND, Outlook, neighbours
from players.rules import certain_actions
from players.solver import InconsistentPositionError, analyze

#: The lookahead alone: no exact endgame search, no 50/50 shortcuts before it.
LOOKAHEAD = {"endgame_layouts": 0, "pseudo_fifty": False, "fifty_fifty": False}


def guess_positions(spec: BoardSpec, seeds: range) -> list[tuple[np.ndarray, int]]:
    """Positions without any certain move, from games of certain moves and random safe guesses."""
    out = []
    for seed in seeds:
        game = Game(spec, FirstClick.SAFE, seed=seed)
        rng = np.random.default_rng(seed)
        game.apply(Action.reveal(0, 0))
        while not game.over:
            observation = game.observation()
            actions = certain_actions(observation)
            if actions:
                game.play_answer(actions)
                continue
            safe = analyze(observation.grid, observation.mines).safe
            if safe:
                game.play_answer([Action.reveal(r, c) for r, c in safe])
                continue
            out.append((np.array(observation.grid), observation.mines))
            layout = game.mine_layout()
            safe = [(int(r), int(c)) for r, c in np.argwhere(observation.grid == COVERED) if not layout[r, c]]
            if not safe:
                break
            game.reveal(*safe[rng.integers(len(safe))])
    return out


def _outlook(grid: np.ndarray, mines: int) -> Outlook:
    return Outlook(grid, mines, analyze(grid, mines))


# -- options -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [{"fifty_influence": -0.1}, {"fifty_influence": 1.5}, {"fifty_influence": "lots"}, {"blended_safety": "maybe"}],
)
def test_refinement_options_are_validated(options: dict[str, object]) -> None:
    with pytest.raises(PlayerOptionsError):
        ApexPlayer(options)


def test_refinements_are_off_by_default() -> None:
    options = ApexPlayer().options
    assert options.fifty_influence == 0.0
    assert options.blended_safety is False


def test_refinements_play_legally() -> None:
    blended = {"blended_safety": True, "progress_weight": 0.001}
    for options in ({"fifty_influence": 0.9}, blended, blended | {"fifty_influence": 0.9, "deep": 0}):
        player = ApexPlayer(options)
        for board in range(12):
            result = play_game(player, "apex", BEGINNER, FirstClick.SAFE, 11, board)
            assert result.outcome in (Outcome.WON, Outcome.LOST), (options, result.error)


# -- the 50/50 influence -------------------------------------------------------------------------
def test_pattern_counts_match_brute_force() -> None:
    """Every pattern's count (first cell and closing cells mined, partner(s) safe) is the exact
    fraction of layouts, for pairs and blocks, whatever their number of missing closing mines."""
    checked = 0
    rng = np.random.default_rng(7)
    for grid, mines in guess_positions(BoardSpec(4, 5, 5), range(150)):
        if (grid == COVERED).sum() > 13:
            continue  # keep the brute force quick
        every = layouts(grid, mines)
        influence = FiftyInfluence(_outlook(grid, mines))
        h, w = grid.shape
        # Any cells, not only patterns: two safe cells that can both be mines need the layouts
        # where both are (inclusion-exclusion).
        hidden = np.flatnonzero(influence.hidden)
        for _ in range(4):
            if hidden.size < 3:
                break
            mined, *safe = (int(x) for x in rng.choice(hidden, 3, replace=False))
            want = sum(1 for m in every if mined in m and m.isdisjoint(safe)) / len(every)
            assert influence._count([mined], safe) == pytest.approx(want, abs=1e-12)
        for kind, r, c in itertools.product("hvb", range(h), range(w)):
            ratio, missing = influence._pattern(kind, r, c, 20)
            if missing is None:
                continue
            cells = influence._cells(kind, r, c)
            mined, safe = ([cells[0], cells[3]], cells[1:3]) if kind == "b" else ([cells[0]], cells[1:])
            want = sum(1 for m in every if m.issuperset(mined + missing) and m.isdisjoint(safe)) / len(every)
            assert ratio == pytest.approx(want, abs=1e-12), (kind, r, c)
            checked += 1
    assert checked >= 50


def test_a_closed_block_gives_its_diagonal_influence() -> None:
    # Flags and the top edge close the block (0,2) (0,3) / (1,2) (1,3): in one of the four layouts
    # (0,2) is a mine only as one diagonal of it, lost or won on a coin toss whatever is played.
    grid = parse_position("01####\n13##3F\n1FF3F2\n122211")
    outlook = _outlook(grid, 6)
    influence = FiftyInfluence(outlook)
    assert len(layouts(grid, 6)) == 4
    assert outlook.probabilities[0 * 6 + 2] == pytest.approx(0.25)
    assert influence.of(0 * 6 + 2) == pytest.approx(0.25)
    assert influence.of(1 * 6 + 2) == pytest.approx(0.25)  # P(safe) caps it
    assert influence.of(0 * 6 + 5) == 0.0


def test_influence_picks_a_cell_that_wins_more() -> None:
    grid = parse_position("01####\n13##3F\n1FF3F2\n122211")
    plain = ApexPlayer(LOOKAHEAD).choose_guess(_outlook(grid, 6))
    influenced = ApexPlayer(LOOKAHEAD | {"fifty_influence": 0.9}).choose_guess(_outlook(grid, 6))
    assert (plain, influenced) == ((0, 5), (0, 2))
    # Both are mines in one layout of four; the default keeps the 50/50 for later.
    assert win_probability(grid, 6, plain) == pytest.approx(0.5)
    assert win_probability(grid, 6, influenced) == pytest.approx(0.75)


# -- the blended secondary safety ----------------------------------------------------------------
def _blended_reference(outlook: Outlook, cell: tuple[int, int]) -> tuple[float, float, float, int]:
    """(safety, blended secondary, progress, values) of ``cell`` by re-analysing the grid with each
    number written in: living cells have a neighbour that is covered, not a known mine and not
    ``cell``; the unconstrained cells' safety counts twice."""
    grid = np.array(outlook.grid)
    h, w = grid.shape
    x = cell[0] * w + cell[1]
    known = outlook.constant_mine | (outlook.covered & (outlook.probabilities == 1.0))
    open_cell = outlook.covered & ~known
    open_cell[x] = False
    results = []
    for v in range(9):
        grid[cell] = v
        try:
            child = analyze(grid, outlook.mines)
        except InconsistentPositionError:
            continue
        finally:
            grid[cell] = COVERED
        probability = math.exp(child.log_weight - outlook.log_weight)
        if probability <= 0.0:
            continue
        grid[cell] = v
        q = child.probabilities.reshape(-1)
        flat = grid.reshape(-1)
        living, anything, clears, free = [], [], set(), None
        for y in np.flatnonzero(flat == COVERED):
            y = int(y)
            if q[y] >= 1.0:
                continue
            around = neighbours(y, h, w)
            if not any(flat[z] >= 0 for z in around):
                free = 1.0 - q[y]  # unconstrained
                continue
            anything.append(1.0 - q[y])
            if any(open_cell[z] for z in around):
                living.append(1.0 if q[y] <= 1e-12 else 1.0 - q[y])
                if q[y] <= 1e-12:
                    clears.add(y)
        grid[cell] = COVERED
        if free is not None:
            living += [free, free]
            anything += [free, free]
        pool = sorted(living or anything, reverse=True) or [1.0, 1.0]
        best, second = pool[0], pool[1] if len(pool) > 1 else pool[0]
        results.append((probability, (BLEND_BEST * best + BLEND_SECOND * second) / (BLEND_BEST + BLEND_SECOND), clears))
    linked = set.intersection(*[r[2] for r in results]) if results else set()
    progress = sum(r[0] for r in results if len(r[2]) > len(linked))
    return sum(r[0] for r in results), sum(r[0] * r[1] for r in results), progress, len(results)


@pytest.mark.parametrize(("spec", "seeds"), [(BoardSpec(5, 6, 7), range(40)), (BoardSpec(8, 8, 12), range(12))])
def test_blended_summary_matches_reanalysis(spec: BoardSpec, seeds: range) -> None:
    checked = 0
    for grid, mines in guess_positions(spec, seeds):
        outlook = _outlook(grid, mines)
        for x in np.flatnonzero(outlook.covered & (outlook.probabilities < 1.0)):
            r, c = divmod(int(x), grid.shape[1])
            got = outlook.blended_summary(r, c)
            safety, secondary, progress, values = _blended_reference(outlook, (r, c))
            assert got.safety == pytest.approx(safety, abs=1e-9)
            assert got.secondary == pytest.approx(secondary, abs=1e-9), (r, c)
            assert got.progress == pytest.approx(progress, abs=1e-9), (r, c)
            assert got.values == values
            checked += 1
    assert checked >= 100


def test_a_cell_the_click_leaves_lonely_is_dead() -> None:
    # Once (3,0) is revealed, (4,0) has no covered neighbour that could be safe: its number is
    # known, it teaches nothing, and its becoming safe is not progress (Hill's living clears).
    grid = parse_position("01#2##\n12####\n##2###\n#223##\n#1####")
    outlook = _outlook(grid, 7)
    got = outlook.blended_summary(3, 0)
    safety, secondary, progress, values = _blended_reference(outlook, (3, 0))
    assert (got.safety, got.secondary, got.progress, got.values) == pytest.approx((safety, secondary, progress, values))
    assert got.progress == pytest.approx(8 / 51)
    assert outlook.summary(3, 0).progress == pytest.approx(got.safety)  # the plain count calls it progress


def test_blended_safety_picks_a_cell_that_wins_more() -> None:
    # (0,4) and (4,3) both survive two greedy clicks 12 times in 17, and (0,4) makes progress more
    # often, so the default takes it; but after some of its numbers the second-safest living cell
    # is well below the safest, while after (4,3) the two are always equal: the blend prefers (4,3).
    grid = parse_position("001##\n012##\n01F3#\n122##\n##1##")
    plain = ApexPlayer(LOOKAHEAD).choose_guess(_outlook(grid, 5))
    blended = ApexPlayer(LOOKAHEAD | {"blended_safety": True, "progress_weight": 0.001}).choose_guess(_outlook(grid, 5))
    assert (plain, blended) == ((0, 4), (4, 3))
    assert win_probability(grid, 5, plain) == pytest.approx(4 / 17)
    assert win_probability(grid, 5, blended) == pytest.approx(5 / 17)
