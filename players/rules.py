"""The two single-cell rules every human learns first, compiled.

1. A number whose covered neighbours are exactly as many as the mines it still needs: they are
   all mines.
2. A number whose flags (or known mines) already satisfy it: its other covered neighbours are safe.

Applied to a fixed point, treating mines found on the way as flags. Cheap enough to run before
any heavier reasoning, and the whole of what the ``random`` baseline knows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine import Action, Observation

__all__ = ["certain_actions", "single_cell_deductions"]


@njit(cache=True)
def _deduce(grid, height, width, known):
    """``known`` (int8, same shape as grid): 1 = mine, 2 = safe, 0 = unknown; filled in place."""
    changed = True
    while changed:
        changed = False
        for r in range(height):
            for c in range(width):
                number = grid[r, c]
                if number <= 0:
                    continue
                mines = 0
                unknown = 0
                for rr in range(max(r - 1, 0), min(r + 2, height)):
                    for cc in range(max(c - 1, 0), min(c + 2, width)):
                        g = grid[rr, cc]
                        if g == -2 or (g == -1 and known[rr, cc] == 1):
                            mines += 1
                        elif g == -1 and known[rr, cc] == 0:
                            unknown += 1
                if unknown == 0:
                    continue
                if mines == number:
                    mark = 2
                elif mines + unknown == number:
                    mark = 1
                else:
                    continue
                for rr in range(max(r - 1, 0), min(r + 2, height)):
                    for cc in range(max(c - 1, 0), min(c + 2, width)):
                        if grid[rr, cc] == -1 and known[rr, cc] == 0:
                            known[rr, cc] = mark
                            changed = True


def single_cell_deductions(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (mines, safe) of covered cells the two rules decide. Flags count as mines."""
    known = np.zeros(grid.shape, dtype=np.int8)
    _deduce(np.asarray(grid, dtype=np.int8), grid.shape[0], grid.shape[1], known)
    return known == 1, known == 2


def certain_actions(observation: Observation, *, flag_mines: bool = True) -> list[Action]:
    """Every move the two rules make certain: reveals of safe cells, then flags of mines."""
    mines, safe = single_cell_deductions(observation.grid)
    actions = [Action.reveal(int(r), int(c)) for r, c in zip(*np.nonzero(safe), strict=True)]
    if flag_mines:
        actions += [Action.flag(int(r), int(c)) for r, c in zip(*np.nonzero(mines), strict=True)]
    return actions
