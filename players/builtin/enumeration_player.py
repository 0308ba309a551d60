"""`enumeration`: the published "full enumeration" solver.

RREF deductions, then every solution of each frontier component is enumerated; combinations
whose mine total cannot fit the mines left are discarded. A cell that is safe (or a mine) in
every solution is played. Otherwise the best frontier cell's probability, from plain solution
counts (unweighted, as published), is compared with the probability of a cell away from the
frontier; a guess away from the frontier prefers a corner, then an edge, then any other cell.

The open-source Rust solver of REFERENCES.md wins 91.05 / 75.68 / 32.51% on Beginner /
Intermediate / Expert (safe first click, corner); this player, 91.25 / 76.32 / 33.93%. The Rust
solver's own guess threshold, counting and scoring (options ``interior`` and ``counting``, see
``benchmarks/players_reproduction.py``) bring ours to 91.05 / 75.91 / 33.03%.

Speed: a move costs one compiled call for the first-move test and the single-cell rules
(``_rules``: the sweeps of ``players.rules``), and only when those find nothing an ``analyze``
(the solver's compiled fast path) and, for a guess, one compiled shortlist (``_candidates``).
In the arena's own process the player plays whole games in compiled code instead
(``play_compiled``, ``players.builtin.enumeration_compiled``): the same moves, 0.072 / 0.187 /
1.06 ms per Beginner / Intermediate / Expert game against 0.19 / 0.43 / 1.57 move by move
(``benchmarks/solver_speed.py``).
Every choice is the one the plain Python version made, down to the random draw among ties:
``tests/players/test_solver_enumeration_player.py`` plays games against that version.
"""

from __future__ import annotations

from typing import Literal

import numba
import numpy as np
from numba import njit
from pydantic import Field

from engine import COVERED, Action, Actions, BoardSpec, FirstClick, Observation
from engine.compiled_game import CompiledGame
from players.api import Player
from players.solver import DEFAULT_PARALLEL_THRESHOLD, Analysis, analyze

__all__ = ["EnumerationPlayer", "position_preference"]


def position_preference(cells: list[tuple[int, int]], height: int, width: int) -> list[tuple[int, int]]:
    """The corners among ``cells`` if any, else the edge cells, else all of them."""
    corners = [(r, c) for r, c in cells if r in (0, height - 1) and c in (0, width - 1)]
    if corners:
        return corners
    edges = [(r, c) for r, c in cells if r in (0, height - 1) or c in (0, width - 1)]
    return edges or cells


@njit(cache=True)
def _number_rule(grid: np.ndarray, known: np.ndarray, r: int, c: int) -> int:
    """One visit of ``players.rules._deduce`` to the number at (r, c): mark its unknown covered
    neighbours if one of the two rules applies. Returns -1 when the number has no unknown
    neighbour (nothing to do, now or later), 1 when it marked cells, 0 otherwise."""
    height, width = grid.shape
    number = grid[r, c]
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
        return -1
    if mines == number:
        mark = 2
    elif mines + unknown == number:
        mark = 1
    else:
        return 0
    for rr in range(max(r - 1, 0), min(r + 2, height)):
        for cc in range(max(c - 1, 0), min(c + 2, width)):
            if grid[rr, cc] == -1 and known[rr, cc] == 0:
                known[rr, cc] = mark
    return 1


@njit(cache=True)
def _rules(grid: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    """``Observation.first_move`` and ``players.rules.certain_actions`` in one compiled call.

    Returns ``(first_move, safe, mines)``, the cells as (2, k) row/col arrays in board order.
    The deduction makes exactly the visits of ``players.rules._deduce`` (row-major sweeps until
    one changes nothing) that can change anything: a number without unknown neighbours is skipped
    by every later sweep (cells only ever leave "unknown"), so after the first sweep only the
    numbers that still had unknown neighbours and fired no rule are visited again, in the same
    order. Same marks in the same order, hence exactly the actions ``certain_actions`` returns.
    It is a copy rather than a call because numba's cache of this module would not notice edits
    to ``rules.py``.
    """
    height, width = grid.shape
    known = np.zeros((height, width), np.int8)
    first = True
    active = np.empty(height * width, np.int64)
    n_active = 0
    changed = False
    for r in range(height):
        for c in range(width):
            if grid[r, c] >= 0:
                first = False
            if grid[r, c] > 0:
                done = _number_rule(grid, known, r, c)
                if done == 1:
                    changed = True
                elif done == 0:
                    active[n_active] = r * width + c
                    n_active += 1
    if first:
        return True, np.zeros((2, 0), np.int64), np.zeros((2, 0), np.int64)
    while changed:
        changed = False
        kept = 0
        for i in range(n_active):
            f = active[i]
            done = _number_rule(grid, known, f // width, f % width)
            if done == 1:
                changed = True
            elif done == 0:
                active[kept] = f
                kept += 1
        n_active = kept
    n_safe = 0
    n_mines = 0
    for r in range(height):
        for c in range(width):
            if known[r, c] == 2:
                n_safe += 1
            elif known[r, c] == 1:
                n_mines += 1
    safe = np.empty((2, n_safe), np.int64)
    mine = np.empty((2, n_mines), np.int64)
    n_safe = 0
    n_mines = 0
    for r in range(height):
        for c in range(width):
            if known[r, c] == 2:
                safe[0, n_safe] = r
                safe[1, n_safe] = c
                n_safe += 1
            elif known[r, c] == 1:
                mine[0, n_mines] = r
                mine[1, n_mines] = c
                n_mines += 1
    return False, safe, mine


@njit(cache=True)
def _candidates(
    probabilities: np.ndarray,
    frontier: np.ndarray,
    unconstrained: np.ndarray,
    u: float,
    height: int,
    width: int,
    ties_away: bool = False,
) -> np.ndarray:
    """The cells a guess is drawn from (flat indices, board order): the frontier cells (not
    certain mines) of least probability, unless the unconstrained cells are less likely (or as
    likely, with ``ties_away``); then ``position_preference`` of those (corners, else edges, else
    all)."""
    best = np.inf
    for f in frontier:
        p = probabilities[f]
        if p < 1.0 and p < best:
            best = p
    if unconstrained.shape[0] > 0 and (u < best or (ties_away and u == best)):
        out = np.empty(unconstrained.shape[0], np.int64)
        for level in range(3):
            count = 0
            for f in unconstrained:
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


_kernels_loaded = False


def _load_kernels() -> None:
    """Compile, or load from numba's cache, every kernel a game may need, once per process.

    A game reaches the solver only at its first guess, so the arena's warm-up game (one beginner
    board) often would not load the solver's kernels, and the first real game would be billed
    for them (half a second from the cache). Loading them at the first ``reset`` puts that cost
    where the warm-up expects it.
    """
    global _kernels_loaded
    if _kernels_loaded:
        return
    grid = np.full((3, 3), -1, dtype=np.int8)
    grid[0, 0] = 1
    grid.flags.writeable = False  # like an observation's grid: the same compiled signatures
    _rules(grid)
    result = analyze(grid, 2, weighted=False)
    _candidates(
        result.probabilities.reshape(-1), result.frontier.system.cells, result.frontier.unconstrained, 0.5, 3, 3, False
    )
    _kernels_loaded = True


class EnumerationPlayer(Player):
    """Exact enumeration of the frontier with unweighted solution counts; corner/edge guesses."""

    name = "enumeration"
    description = "full frontier enumeration (unweighted counts, as published), corner/edge guesses"

    class Options(Player.Options):
        #: Search large components on several threads: None = when numba has more than one
        #: thread (tournament workers are pinned to one, so cores are never oversubscribed).
        parallel: bool | None = None
        #: Components with at least this many cells are searched in parallel.
        parallel_threshold: int = Field(default=DEFAULT_PARALLEL_THRESHOLD, ge=1)
        #: The mine probability a guess away from the frontier is compared with. ``expected``: the
        #: mines the unconstrained cells hold on average over the counted solutions, per cell.
        #: ``density``: mines left over all covered cells, frontier included, with ties going
        #: away from the frontier: what the published Rust solver compares with (for
        #: ``benchmarks/players_reproduction.py``, which measures the difference).
        interior: Literal["expected", "density"] = "expected"
        #: How solutions are counted. ``joint``: combinations of component solutions whose mine
        #: total fits the mines left, above and below (as described above). ``rust``: what the
        #: published Rust solver does, for ``benchmarks/players_reproduction.py`` only: each
        #: component alone, keeping a solution when its mines plus every other component's fewest
        #: fit under the mines left (no lower bound, so nothing is ever deduced from the count);
        #: mines found by enumeration are not flagged; the Rust guess threshold (``interior`` is
        #: then ignored), and with no cell away from the frontier a corner, edge or any covered cell.
        counting: Literal["joint", "rust"] = "joint"

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        _load_kernels()

    def play(self, observation: Observation) -> Actions | list[Action]:
        grid = observation.grid
        first_move, safe, mines = _rules(grid)
        if first_move:
            return [Action.reveal(*self.first_click(observation), guess=observation.rule is FirstClick.NONE)]
        # The compiled single-cell rules first: they find most certain moves for a fraction of the
        # cost, and the position reached before any guess is the same whatever order safe cells
        # are opened in, so no decision changes.
        if safe.shape[1] or mines.shape[1]:
            return Actions.cells(safe, mines)
        parallel = self.options.parallel
        if parallel is None:
            parallel = numba.get_num_threads() > 1
        result = analyze(
            grid,
            observation.mines,
            weighted=False,
            parallel=parallel,
            parallel_threshold=self.options.parallel_threshold,
        )
        if self.options.counting == "rust":
            return self._play_rust(result, observation)
        if result.safe or result.mines:
            return Actions.cells(result.safe, result.mines)
        return [Action.reveal(*self._guess(result, observation), guess=True)]

    def play_compiled(self, game: CompiledGame, seed_words: np.ndarray, move_limit: int) -> bool:
        """The same games in compiled code (``players.builtin.enumeration_compiled``), for the
        default counting; a subclass or the reproduction options play move by move."""
        options = self.options
        if type(self) is not EnumerationPlayer or options.counting != "joint" or options.interior != "expected":
            return False
        from players.builtin.enumeration_compiled import play_whole_game  # it imports this module

        return play_whole_game(game, seed_words, move_limit, options.parallel, options.parallel_threshold)

    def _play_rust(self, result: Analysis, observation: Observation) -> Actions | list[Action]:
        """The Rust solver's counting and guessing (see ``Options.counting``)."""
        width = observation.width
        flat = result.probabilities.reshape(-1)
        in_component = np.zeros(flat.size, dtype=bool)
        for comp in result.components:
            in_component[comp.cells] = True
        # Cells settled by the local deductions, before any counting, stay settled.
        settled = result.frontier.system.cells[~in_component[result.frontier.system.cells]]
        safe = [int(x) for x in settled if flat[x] == 0.0]
        mines = [int(x) for x in settled if flat[x] == 1.0]
        left = observation.mines - observation.flags
        lowest = [int(np.flatnonzero(comp.totals)[0]) for comp in result.components]
        p = np.full(flat.size, np.nan)
        for comp, low in zip(result.components, lowest, strict=True):
            kept = np.arange(comp.totals.shape[0]) + sum(lowest) - low <= left
            total = float(comp.totals[kept].sum())
            counts = comp.mine_counts[kept].sum(axis=0).astype(np.float64)
            p[comp.cells] = counts / total
            safe += [int(x) for x, n in zip(comp.cells, counts, strict=True) if n == 0]
        if safe or mines:
            return Actions.cells([divmod(x, width) for x in sorted(safe)], [divmod(x, width) for x in sorted(mines)])
        frontier = [int(x) for x in result.frontier.system.cells if in_component[x] and p[x] < 1.0]
        best = min((p[x] for x in frontier), default=np.inf)
        covered = np.flatnonzero(observation.grid.reshape(-1) == COVERED)
        density = left / covered.size if covered.size else 1.0
        if best < density:
            choices = [x for x in frontier if p[x] == best]
        else:
            pool = result.frontier.unconstrained if result.frontier.unconstrained.size else covered
            cells = position_preference([divmod(int(x), width) for x in pool], observation.height, width)
            choices = [r * width + c for r, c in cells]
        cell = choices[int(self.rng.integers(len(choices)))]
        return [Action.reveal(*divmod(cell, width), guess=True)]

    def _guess(self, result: Analysis, observation: Observation) -> tuple[int, int]:
        """The least likely mine on the frontier, unless a cell away from it is less likely (then
        a corner, an edge or any such cell); ties broken at random. Compiled, but the candidates
        and their order are those of the original per-cell Python loops, so the draw is the same."""
        u = result.unconstrained_probability
        density = self.options.interior == "density"
        if density:
            covered = int(np.count_nonzero(observation.grid == COVERED))
            u = (observation.mines - observation.flags) / covered if covered else 1.0
        choices = _candidates(
            result.probabilities.reshape(-1),
            result.frontier.system.cells,
            result.frontier.unconstrained,
            u,
            observation.height,
            observation.width,
            density,
        )
        return divmod(int(choices[int(self.rng.integers(len(choices)))]), observation.width)
