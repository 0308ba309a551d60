"""`apex`: the strongest player we know how to build. Its parts, in the order they decide a move,
are in docs/players.md ("apex, inside"); what each is worth, in docs/experiments.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from engine import COVERED, Action, BoardSpec, FirstClick, Game, Observation
from players.api import Player
from players.builtin.apex.endgame import solve_endgame
from players.builtin.apex.outlook import Cell, CellOutlook, Outlook
from players.builtin.apex.patterns import pseudo_fifty, unavoidable_pair
from players.builtin.apex.whatif_fast import shortlist, unknown_neighbours
from players.builtin.common import ThreadingOptions, opening_move
from players.deduction import certain_actions
from players.solver import InconsistentPositionError, analyze

__all__ = ["DECIDED_ENDGAME", "DECIDED_FIFTY", "DECIDED_LOOKAHEAD", "DECIDED_PSEUDO_FIFTY", "DECIDED_SAFEST"]
__all__ += ["ApexPlayer"]

#: ``ApexPlayer.decided_by``: the part of the player that chose the last guess.
DECIDED_FIFTY = "50/50"
DECIDED_ENDGAME = "endgame search"
DECIDED_PSEUDO_FIFTY = "pseudo 50/50"
DECIDED_SAFEST = "safest"
DECIDED_LOOKAHEAD = "lookahead"

#: Candidates: cells whose safety is at least ``1 - _TOLERANCE`` times the best; at most
#: ``_MAX_CANDIDATES`` of them next to the numbers and ``_OFF_FRONTIER`` away from them.
_TOLERANCE = 0.1
_MAX_CANDIDATES = 8
_OFF_FRONTIER = 2
#: Score = secondary safety + ``_PROGRESS_WEIGHT`` x P(safe and some cell becomes certain).
_PROGRESS_WEIGHT = 0.1
#: Only candidates whose two-click score is within this of the best are re-scored deeper.
_DEEP_MARGIN = 1.0
#: Scores are compared to this many decimals (their rounding error is around 1e-13).
_SCORE_DIGITS = 10

_WARM = False


def _warm_up_kernels(player: ApexPlayer) -> None:
    """Once per process, a few tiny games: loading the numba code is never billed to a real game."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    spec = BoardSpec(5, 5, 6, "warm-up")
    for index in range(4):
        game = Game(spec, FirstClick.SAFE, seed=2**40 + 7, index=index)
        player.reset(np.random.default_rng(index), spec, FirstClick.SAFE)
        while not game.over:
            game.play_answer(player.play(game.observation()))


def _unknown_neighbours(unknown: np.ndarray, height: int, width: int) -> np.ndarray:
    """Per cell (flat), how many of its neighbours are unknown: fewer means a likelier zero (the
    reference of ``whatif_fast.unknown_neighbours``, which ``candidates`` calls)."""
    grid = np.zeros((height + 2, width + 2), dtype=np.int64)
    grid[1:-1, 1:-1] = unknown.reshape(height, width)
    total = np.zeros((height, width), dtype=np.int64)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr != 1 or dc != 1:
                total += grid[dr : dr + height, dc : dc + width]
    return total.reshape(-1)


def _keyed(cells: np.ndarray, p: np.ndarray, counts: np.ndarray) -> list[tuple[float, int, int]]:
    """(probability rounded to 12 places, unknown neighbours, cell) per cell: candidates' order."""
    keys = zip(p[cells].tolist(), counts[cells].tolist(), cells.tolist(), strict=True)
    return [(round(q, 12), n, x) for q, n, x in keys]


class ApexPlayer(Player):
    """Exact weighted probabilities, secondary-safety/progress lookahead, 50/50s, endgame search."""

    name = "apex"
    description = "exact weighted probabilities + progress/secondary-safety lookahead + 50/50s + exact endgame search"
    version = "4"

    class Options(ThreadingOptions):
        """The work each guess may take: more search, slower games."""

        #: Re-score this many of the best candidates on the survival of three clicks (each number's
        #: position analysed and its own candidates scored); below 2: off, and much faster.
        deep: int = Field(default=3, ge=0, le=16)
        #: Search the game tree exactly when at most this many layouts remain (0: never).
        endgame_layouts: int = Field(default=400, ge=0, le=100_000)
        #: Work allowed per endgame decision (layouts summed over the states it expands) before
        #: falling back on the heuristics.
        endgame_effort: int = Field(default=300_000, ge=1)

    def __init__(self, options: Mapping[str, Any] | BaseModel | None = None) -> None:
        super().__init__(options)
        #: ``analyze``'s threading arguments, resolved once a game (numba's threads are set before).
        self._threading = self.options.threading()
        _warm_up_kernels(self)
        #: Which part chose the last guess of this game (a ``DECIDED_*`` name), None before any.
        self.decided_by: str | None = None

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        self.decided_by = None
        self._threading = self.options.threading()

    def play(self, observation: Observation) -> list[Action]:
        opening = opening_move(self, observation)
        if opening is not None:
            return opening
        # The cheap rules first: the position reached before the next guess is the same.
        actions = certain_actions(observation)
        if actions:
            return actions
        analysis = analyze(observation.grid, observation.mines, **self._threading)
        flags = [Action.flag(r, c) for r, c in analysis.mines]
        if analysis.safe:
            return [Action.reveal(r, c) for r, c in analysis.safe] + flags
        outlook = Outlook(observation.grid, observation.mines, analysis)
        row, col = self.choose_guess(outlook)
        return [*flags, Action.reveal(row, col, guess=True)]

    # -- guessing -------------------------------------------------------------------------
    def choose_guess(self, outlook: Outlook) -> Cell:
        """The guess in a position without certain moves; ``decided_by`` names the part that chose."""
        options = self.options
        pair = unavoidable_pair(outlook)
        if pair is not None:
            self.decided_by = DECIDED_FIFTY
            return pair
        if options.endgame_layouts > 0:
            solved = solve_endgame(outlook, options.endgame_layouts, options.endgame_effort)
            if solved is not None:
                self.decided_by = DECIDED_ENDGAME
                return solved[0], solved[1]
        cell = pseudo_fifty(outlook)
        if cell is not None:
            self.decided_by = DECIDED_PSEUDO_FIFTY
            return cell
        candidates = self.candidates(outlook)
        if len(candidates) == 1:
            self.decided_by = DECIDED_SAFEST
            return candidates[0]
        self.decided_by = DECIDED_LOOKAHEAD
        return self.best_by_lookahead(outlook, candidates)

    def candidates(self, outlook: Outlook) -> list[Cell]:
        """Near-safest cells, safest first: frontier cells, then a few cells away from it."""
        p = outlook.probabilities
        width = outlook.width
        ok, frontier, away, counts = shortlist(
            p, outlook.covered, outlook.constant_mine, outlook.comp_of, outlook.unconstrained, outlook.height,
            width, _TOLERANCE, _OFF_FRONTIER,
        )  # fmt: skip
        if ok:  # the steps below in one compiled pass
            picked = sorted(_keyed(frontier, p, counts))[:_MAX_CANDIDATES] + _keyed(away, p, counts)
            picked.sort()
            return [divmod(x, width) for _, _, x in picked]
        return self.candidates_numpy(outlook)

    def candidates_numpy(self, outlook: Outlook) -> list[Cell]:
        """``candidates`` in numpy: the reference ``whatif_fast.shortlist`` is held equal to (and
        what raises, as before, when no covered cell may be safe)."""
        p = outlook.probabilities
        live = outlook.covered & (p < 1.0)
        cells = np.flatnonzero(live)
        best = float(p[cells].min())
        limit = 1.0 - (1.0 - best) * (1.0 - _TOLERANCE) + 1e-12
        near = cells[p[cells] <= limit]
        width = outlook.width
        counts = unknown_neighbours(live & ~outlook.constant_mine, outlook.height, width)
        # Frontier cells by (probability to 12 places, crowd, cell): Python's round, on the few;
        # cells away by (crowd, cell) in numpy: often hundreds of them, and only two are kept.
        frontier = near[outlook.comp_of[near] >= 0]
        away = near[outlook.unconstrained[near]]
        away = away[np.lexsort((away, counts[away]))[:_OFF_FRONTIER]]
        picked = sorted(_keyed(frontier, p, counts))[:_MAX_CANDIDATES] + _keyed(away, p, counts)
        picked.sort()
        return [divmod(x, width) for _, _, x in picked]

    def best_by_lookahead(self, outlook: Outlook, candidates: list[Cell]) -> Cell:
        """The candidate with the best score; candidates whose safety bounds their score below
        the best so far are skipped (a score never exceeds ``safety x (1 + _PROGRESS_WEIGHT)``)."""
        p = outlook.probabilities
        summaries: list[CellOutlook] = []
        best_score = -1.0
        for row, col in candidates:
            safety = 1.0 - float(p[row * outlook.width + col])
            if safety * (1.0 + _PROGRESS_WEIGHT) <= best_score:
                continue
            summary = outlook.summary(row, col)
            summaries.append(summary)
            if summary.values > 1:
                best_score = max(best_score, summary.score(_PROGRESS_WEIGHT))
        summaries = [s for s in summaries if s.values > 1] or summaries

        def score(s: CellOutlook) -> float:
            # Scores equal but for rounding (symmetric cells reached through different sums) are
            # equal: the tie-break decides, not the last bits of the arithmetic.
            return round(s.score(_PROGRESS_WEIGHT), _SCORE_DIGITS)

        # max() keeps the first of equal scores: candidates come safest first, then by crowd.
        best = max(summaries, key=score)
        if self.options.deep > 1 and len(summaries) > 1:
            top = best.score(_PROGRESS_WEIGHT) - _DEEP_MARGIN
            ranked = [s for s in sorted(summaries, key=lambda s: -score(s)) if s.score(_PROGRESS_WEIGHT) >= top]
            ranked = ranked[: self.options.deep]
            if len(ranked) > 1:
                deep = {s.cell: round(self.deep_score(outlook, s.cell), _SCORE_DIGITS) for s in ranked}
                return max(ranked, key=lambda s: deep[s.cell]).cell
        return best.cell

    def deep_score(self, outlook: Outlook, cell: Cell) -> float:
        """P(surviving ``cell``, then the best two-click continuation): depth-3 survival. A number
        that makes some cell certain counts as survival, as in the two-click score."""
        total = 0.0
        grid = np.array(outlook.grid, dtype=np.int8)
        for outcome in outlook.outcomes(*cell):
            if outcome.progress or outcome.best_safety >= 1.0:
                total += outcome.probability
                continue
            grid[cell] = outcome.value
            try:
                child = Outlook(grid, outlook.mines, analyze(grid, outlook.mines))
            except InconsistentPositionError:
                continue
            finally:
                grid[cell] = COVERED
            total += outcome.probability * self._best_secondary(child)
        return total

    def _best_secondary(self, outlook: Outlook) -> float:
        """The best two-click survival among the candidates of a position. Candidates come safest
        first and a two-click survival never exceeds the first click's safety: stop there."""
        best = 0.0
        p = outlook.probabilities
        for row, col in self.candidates(outlook):
            if 1.0 - float(p[row * outlook.width + col]) <= best:
                break
            best = max(best, outlook.summary(row, col).secondary)
        return best
