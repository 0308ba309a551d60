"""What the built-in players share: the opening click, the C++ engine's options, the solver's
threading options, a uniformly random guess, and the shortlist a probability player draws its guess
from."""

from __future__ import annotations

import numba
import numpy as np
from numba import njit
from pydantic import Field, NonNegativeInt

from engine import COVERED, Action, FirstClick, Observation
from players.api import Player, corner_first_click
from players.solver import DEFAULT_PARALLEL_THRESHOLD

__all__ = ["CppEnginePlayer", "ThreadingOptions", "guess_candidates", "opening_move", "random_guess", "warm_up_grid"]


def opening_move(player: Player, observation: Observation) -> list[Action] | None:
    """The player's first click on an untouched board, else None. Only the unprotected rule can
    lose on the first click, so only there is it counted as a guess."""
    if not observation.first_move:
        return None
    return [Action.reveal(*player.first_click(observation), guess=observation.rule is FirstClick.NONE)]


class CppEnginePlayer(Player):
    """A player with the options of the C++ engine it reproduces (their effects: docs/players.md)."""

    class Options(Player.Options):
        #: After the single-cell rules, the subset rule to a fixed point (``players.deduction``): the
        #: C++ engine's deduction.
        subsets: bool = False
        #: The first click under the ``opening`` rule (row, column); None: (3, 3), three in from
        #: the corner. The C++ engine clicks (0, 0).
        opening_cell: tuple[NonNegativeInt, NonNegativeInt] | None = None

    def first_click(self, observation: Observation) -> tuple[int, int]:
        wanted = self.options.opening_cell
        if wanted is None or observation.rule is not FirstClick.OPENING:
            return corner_first_click(observation)
        return min(wanted[0], observation.height - 1), min(wanted[1], observation.width - 1)


class ThreadingOptions(Player.Options):
    """The options of a player whose solver may search large components on several threads."""

    #: Search large components on several threads: None = when numba has more than one
    #: thread (tournament workers are pinned to one, so cores are never oversubscribed).
    parallel: bool | None = None
    #: Components with at least this many cells are searched in parallel.
    parallel_threshold: int = Field(default=DEFAULT_PARALLEL_THRESHOLD, ge=1)

    def threading(self) -> dict[str, bool | int]:
        """``analyze``'s ``parallel`` and ``parallel_threshold`` arguments, ``parallel`` resolved."""
        parallel = numba.get_num_threads() > 1 if self.parallel is None else self.parallel
        return {"parallel": parallel, "parallel_threshold": self.parallel_threshold}


def warm_up_grid() -> np.ndarray:
    """A 3x3 position with one number, read-only like an observation's grid (the same compiled
    signatures): what a player's kernels are loaded on before its first real game is billed."""
    grid = np.full((3, 3), COVERED, dtype=np.int8)
    grid[0, 0] = 1
    grid.flags.writeable = False
    return grid


def random_guess(observation: Observation, rng: np.random.Generator) -> Action:
    """Reveal a uniformly random covered (unflagged) cell."""
    covered = np.flatnonzero(observation.grid.reshape(-1) == COVERED)
    cell = int(covered[rng.integers(covered.size)])
    return Action.reveal(cell // observation.width, cell % observation.width, guess=True)


@njit(cache=True)
def guess_candidates(
    probabilities: np.ndarray,
    frontier: np.ndarray,
    away: np.ndarray,
    u: float,
    height: int,
    width: int,
    ties_away: bool = False,
) -> np.ndarray:
    """The cells a guess is drawn from, in the order given: the least likely ``frontier`` cells,
    unless the cells ``away`` from it (each a mine with probability ``u``) are less likely (or
    as likely, with ``ties_away``): then their corners, else their edge cells, else all."""
    best = np.inf
    for f in frontier:
        p = probabilities[f]
        if p < 1.0 and p < best:
            best = p
    if away.shape[0] > 0 and (u < best or (ties_away and u == best)):
        out = np.empty(away.shape[0], np.int64)
        for level in range(3):
            count = 0
            for f in away:
                r = f // width
                c = f % width
                row_edge = r == 0 or r == height - 1
                col_edge = c == 0 or c == width - 1
                if level == 2 or (row_edge and col_edge) or (level == 1 and (row_edge or col_edge)):
                    out[count] = f
                    count += 1
            if count:
                return out[:count]
    out = np.empty(frontier.shape[0], np.int64)
    count = 0
    for f in frontier:
        if probabilities[f] < 1.0 and probabilities[f] == best:
            out[count] = f
            count += 1
    return out[:count]
