"""The compiled what-if summary agrees with ``weigh`` on every outcome of every candidate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import EXPERT, INTERMEDIATE, FirstClick, Game
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.whatif import ComponentStore
from players.deduction import certain_actions
from players.solver import InconsistentPositionError, analyze, weigh


def reference(pieces: list, n_free: int, mines_left: int) -> tuple[bool, float, bool, float]:
    """What ``Outlook._evaluate`` computed from ``weigh`` before the compiled summary."""
    try:
        w = weigh(pieces, n_free, mines_left)
    except InconsistentPositionError:
        return False, -math.inf, False, 0.0
    progress = any(bool(s.any()) for s in w.safe) or (n_free > 0 and w.unconstrained_safe)
    if progress:
        return True, w.log_total, True, 1.0
    lowest = 1.0
    for p, m in zip(w.probabilities, w.mine, strict=True):
        live = p[~m]
        if live.size:
            lowest = min(lowest, float(live.min()))
    if n_free > 0 and not w.unconstrained_mine:
        lowest = min(lowest, w.unconstrained_probability)
    return True, w.log_total, False, 1.0 - lowest if lowest < 1.0 else 1.0


def positions(spec, count: int, seed: int):
    """Positions with no certain move, reached by revealing safe cells of real boards."""
    rng = np.random.default_rng(seed)
    found = 0
    for index in range(200):
        game = Game(spec, FirstClick.SAFE, seed=seed, index=index)
        game.reveal(0, 0)
        while not game.over and found < count:
            observation = game.observation()
            actions = certain_actions(observation)
            if actions:
                for action in actions:
                    if not game.over and not (action.kind == "reveal" and game.grid[action.row, action.col] >= 0):
                        game.apply(action)
                continue
            analysis = analyze(observation.grid, observation.mines)
            if analysis.safe:
                for r, c in analysis.safe:
                    if not game.over and game.grid[r, c] < 0:
                        game.reveal(r, c)
                continue
            yield observation, analysis
            found += 1
            layout = game.mine_layout()
            safe = [(r, c) for r, c in zip(*np.nonzero(game.grid == -1), strict=True) if not layout[r, c]]
            if not safe:
                break
            game.reveal(*safe[rng.integers(len(safe))])
        if found >= count:
            return


@pytest.mark.parametrize("spec", [INTERMEDIATE, EXPERT], ids=["intermediate", "expert"])
def test_the_summary_matches_weigh(spec) -> None:
    checked = 0
    for observation, analysis in positions(spec, 25, 31):
        outlook = Outlook(observation.grid, observation.mines, analysis)
        store = ComponentStore(outlook.components)
        comps = list(outlook.components)
        for size in range(len(comps) + 1):
            order = np.arange(size, dtype=np.int64)[::-1].copy()
            extra = comps[size] if size < len(comps) else None
            pieces = [comps[i] for i in order] + ([extra] if extra is not None else [])
            for n_free, mines in ((outlook.n_unconstrained, outlook.mines_left), (0, outlook.mines_left)):
                got = store.summarize(order, extra, n_free, mines)
                want = reference(pieces, n_free, mines)
                assert got[0] == want[0]
                if want[0]:
                    assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-12)
                    assert got[2] == want[2]
                    assert got[3] == pytest.approx(want[3], rel=1e-12, abs=1e-12)
                checked += 1
    assert checked > 50
