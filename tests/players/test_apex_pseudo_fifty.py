"""`apex`'s "50/50 or safe" cells (``patterns.pseudo_fifty``) against brute force.

Every cell it names must be, in every layout consistent with the position in which it is a mine,
one half of a pair or 2x2 block whose other cells and closing cells are as the pattern says: then
the layout with the pattern's mines swapped shows the same numbers everywhere. The brute force
enumerates every layout of small boards and checks exactly that, and that the swap keeps every
number of the position.
"""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import layouts, numbers

from engine import COVERED, Action, BoardSpec, FirstClick, Game, Observation
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.patterns import pseudo_fifty, unavoidable_pair
from players.builtin.apex.player import DECIDED_PSEUDO_FIFTY
from players.deduction import certain_actions
from players.solver import analyze


def swapped_partner_exists(tile: int, mined: frozenset[int], all_layouts: set[frozenset[int]], h: int, w: int) -> bool:
    """Some pair or 2x2 block holding ``tile`` whose swap turns ``mined`` into another consistent
    layout with the same numbers on every cell that is not a mine in either."""
    r, c = divmod(tile, w)
    swaps = []
    for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < h and 0 <= cc < w:
            swaps.append(({tile}, {rr * w + cc}))
    for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < h and 0 <= cc < w:
            swaps.append(({tile, rr * w + cc}, {r * w + cc, rr * w + c}))
    for now, then in swaps:
        if not now <= mined or then & mined:
            continue
        other = (mined - now) | then
        if other not in all_layouts:
            continue
        both = mined | other
        before, after = numbers(mined, h, w), numbers(other, h, w)
        if all(before[f] == after[f] for f in range(h * w) if f not in both):
            return True
    return False


def guess_positions(spec: BoardSpec, seeds: range) -> list[Observation]:
    """Positions without a certain single-cell move, from games of certain moves and random guesses."""
    out = []
    for seed in seeds:
        game = Game(spec, FirstClick.SAFE, seed=seed)
        rng = np.random.default_rng(seed)
        game.apply(Action.reveal(0, 0))
        while not game.over:
            observation = game.observation()
            actions = certain_actions(observation)
            if not actions:
                out.append(observation)
                covered = np.argwhere(observation.grid == COVERED)
                r, c = covered[rng.integers(len(covered))]
                game.apply(Action.reveal(int(r), int(c), guess=True))
            else:
                game.play_answer(actions)
    return out


@pytest.mark.slow
def test_every_named_cell_is_a_50_50_or_safe_by_brute_force() -> None:
    spec = BoardSpec(4, 5, 5)
    named = 0
    for observation in guess_positions(spec, range(400)):
        analysis = analyze(observation.grid, observation.mines)
        if analysis.safe:
            continue
        outlook = Outlook(observation.grid, observation.mines, analysis)
        cell = pseudo_fifty(outlook)
        if cell is None:
            continue
        named += 1
        h, w = observation.grid.shape
        tile = cell[0] * w + cell[1]
        every = layouts(observation.grid, observation.mines)
        assert every, "the position has layouts"
        pool = set(every)
        mined_in = [m for m in every if tile in m]
        assert len(mined_in) <= len(every) / 2
        assert mined_in, "a guess, not a certain cell"
        assert all(swapped_partner_exists(tile, m, pool, h, w) for m in mined_in)
    assert named >= 3  # the test sees the rule at work


@pytest.mark.slow
def test_apex_guesses_a_named_cell_at_once_and_says_so() -> None:
    spec = BoardSpec(4, 5, 5)
    player = ApexPlayer({"endgame_layouts": 0})
    seen = 0
    for observation in guess_positions(spec, range(400)):
        analysis = analyze(observation.grid, observation.mines)
        outlook = Outlook(observation.grid, observation.mines, analysis)
        if analysis.safe or unavoidable_pair(outlook) is not None:
            continue
        cell = pseudo_fifty(outlook)
        if cell is None:
            continue
        seen += 1
        assert player.choose_guess(outlook) == cell
        assert player.decided_by == DECIDED_PSEUDO_FIFTY
    assert seen >= 3
