"""`apex`: the strongest player we know how to build, in the order of what each part is worth.

1. Certain moves first: the compiled single-cell rules, then the exact solver (``analyze``). No
   guess is ever made while a certain move exists.
2. Guesses start from exact mine probabilities weighted by the global mine count: greedy on them
   alone wins 38.2% of Expert / safe games here (20000 boards), published about 39%.
3. Unavoidable 50/50s are guessed at once (``patterns``): a free choice, saves later work.
4. When at most 400 layouts remain, an exact game-tree search picks the guess that maximises the
   probability of winning (``endgame``): +0.76 points on Expert, the largest single part.
   Otherwise a cell that is mined only as one half of a pair (or 2x2 block) no number can ever
   tell apart is guessed at once: "a 50/50 or safe" (``patterns.pseudo_fifty``).
5. Otherwise, among the cells nearly as safe as the safest, the one that maximises the chance to
   survive this click and a greedy next one ("secondary safety"), plus a bonus for making some
   cell certain ("progress"), computed exactly for every number the cell could show
   (``outlook``). Cells whose number is already determined ("dead") teach nothing and are only
   played when every candidate is dead. +0.57 points; with 4, +2.33 over greedy (40.5%).
6. The best three candidates are re-scored on the survival of three clicks (``deep``): +0.34.

Every choice is a deterministic function of the observation (ties go to the safest, then to the
cell with the fewest unknown neighbours, then to board order), so a game replays exactly. The
measured effect of each option is on ``Options`` and in ``benchmarks/results/apex_ablation_*``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba
import numpy as np
from pydantic import BaseModel, Field

from engine import COVERED, Action, ActionKind, BoardSpec, FirstClick, Game, Observation
from players.api import Player
from players.builtin.apex.endgame import solve_endgame
from players.builtin.apex.influence import FiftyInfluence
from players.builtin.apex.outlook import CellOutlook, Outlook
from players.builtin.apex.patterns import pseudo_fifty, unavoidable_pair
from players.rules import certain_actions
from players.solver import DEFAULT_PARALLEL_THRESHOLD, InconsistentPositionError, analyze

__all__ = [
    "DECIDED_ENDGAME",
    "DECIDED_FIFTY",
    "DECIDED_LOOKAHEAD",
    "DECIDED_PSEUDO_FIFTY",
    "DECIDED_SAFEST",
    "ApexPlayer",
]

Cell = tuple[int, int]


#: ``ApexPlayer.decided_by``: the part of the player that chose the last guess.
DECIDED_FIFTY = "50/50"
DECIDED_ENDGAME = "endgame search"
DECIDED_PSEUDO_FIFTY = "pseudo 50/50"
DECIDED_SAFEST = "safest"
DECIDED_LOOKAHEAD = "lookahead"

_WARM = False
#: Scores are compared to this many decimals (their rounding error is around 1e-13).
_SCORE_DIGITS = 10


def _warm_up_kernels(player: ApexPlayer) -> None:
    """Once per process: play a few tiny games so that loading (or compiling) the numba code of
    the solver, the what-if reveals and the endgame search happens at construction, as the
    arena's own warm-up intends, and is never billed to a real game's time (and score one
    what-if the ``blended_safety`` way, for its own compiled summary)."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    spec = BoardSpec(5, 5, 6, "warm-up")
    for index in range(4):
        game = Game(spec, FirstClick.SAFE, seed=2**40 + 7, index=index)
        player.reset(np.random.default_rng(index), spec, FirstClick.SAFE)
        while not game.over:
            for action in player.play(game.observation()):
                if game.over:
                    break
                if action.kind is ActionKind.REVEAL and game.grid[action.row, action.col] >= 0:
                    continue
                game.apply(action)
    # The compiled part of ``blended_safety`` too, whatever this first player's options.
    grid = np.array([[1, COVERED, COVERED], [COVERED, COVERED, COVERED]], dtype=np.int8)
    Outlook(grid, 2, analyze(grid, 2)).blended_summary(0, 1)


def _unknown_neighbours(unknown: np.ndarray, height: int, width: int) -> np.ndarray:
    """Per cell (flat), how many of its neighbours are unknown: fewer means a likelier zero."""
    grid = np.zeros((height + 2, width + 2), dtype=np.int64)
    grid[1:-1, 1:-1] = unknown.reshape(height, width)
    total = np.zeros((height, width), dtype=np.int64)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr != 1 or dc != 1:
                total += grid[dr : dr + height, dc : dc + width]
    return total.reshape(-1)


class ApexPlayer(Player):
    """Exact weighted probabilities, secondary-safety/progress lookahead, 50/50s, endgame search."""

    name = "apex"
    description = "exact weighted probabilities + progress/secondary-safety lookahead + 50/50s + exact endgame search"
    #: 2: the 50/50 rule requires every number to see both cells of the pair or neither.
    #: 3: three-click re-scoring on by default; near-equal scores tie (compiled what-if summary).
    #: 4: cells that are "a 50/50 or safe" are guessed at once (``pseudo_fifty``).
    version = "4"

    class Options(Player.Options):
        """The knobs, each with its measured effect on Expert / safe / corner, paired on the same
        boards against the defaults (benchmarks/apex_ablation.py; points with 95% intervals;
        "n.s." = the interval holds 0; 20000 boards unless said; measured with version 2, whose
        defaults were these with ``deep=0``, except ``deep``). Everything off together (greedy):
        -2.33 [-2.80, -1.86]."""

        #: Judge near-safest guesses by what they lead to (secondary safety and progress). Off:
        #: greedy on exact weighted probabilities. Off: -0.57 [-0.98, -0.18], McNemar p = 0.005.
        lookahead: bool = True
        #: Candidates are the cells whose safety is at least ``1 - tolerance`` times the best.
        #: 0.05: +0.12 [-0.51, +0.74]; 0.2: +0.14 [-0.24, +0.54] (3456 boards, version 1, n.s.).
        tolerance: float = Field(default=0.1, ge=0.0, le=1.0)
        #: At most this many candidates next to the numbers (safest first) get the lookahead.
        max_candidates: int = Field(default=8, ge=1, le=64)
        #: And at most this many cells away from them (fewest unknown neighbours first).
        #: 5: -0.06 [-0.33, +0.20] (3456 boards, version 1, n.s.).
        off_frontier: int = Field(default=2, ge=0, le=16)
        #: Score = secondary safety + ``progress_weight`` x P(safe and some cell becomes certain).
        #: 0: +0.03 [-0.27, +0.34] (n.s.); 0.3: -0.03 [-0.55, +0.49] (3456 boards, n.s.).
        progress_weight: float = Field(default=0.1, ge=0.0, le=10.0)
        #: Re-score this many of the best candidates one click deeper (survival of three clicks:
        #: each number's position is analysed and its own candidates scored); below 2: off.
        #: Off (0): -0.34 [-0.73, +0.04] (10000 boards, McNemar p = 0.09; 20000 boards of version
        #: 2: -0.27 [-0.53, 0.00], p = 0.05) at 6.2 instead of 20.7 ms per Expert game; 5: -0.05.
        deep: int = Field(default=3, ge=0, le=16)
        #: Only candidates whose two-click score is within this of the best are re-scored.
        #: 0.02 with ``deep=3``: +0.21 [-0.10, +0.52] against ``deep=0`` (12000 boards of version 2,
        #: p = 0.20), about 13 ms per Expert game now.
        deep_margin: float = Field(default=1.0, ge=0.0, le=1.0)
        #: Skip dead candidates (whose number is already determined) unless all are dead.
        #: Off: -0.04 [-0.10, +0.00] (8 vs 17 discordant boards, n.s.).
        avoid_dead: bool = True
        #: Guess an unavoidable 50/50 pair as soon as it appears. Off: 2 boards of 20000 changed
        #: (-0.01; such a pair is independent of the rest); it saves later search work.
        fifty_fifty: bool = True
        #: Guess at once a cell that is "a 50/50 or safe" (``patterns.pseudo_fifty``): mined only
        #: where it and a neighbour (or a 2x2 block) can never be told apart. Off: -0.09 [-0.20,
        #: +0.01] (8 vs 17 discordant boards of 10000, McNemar p = 0.11, n.s.) at 20.2 instead of
        #: 22.7 ms per Expert game (``results/apex_ablation_expert_safe_pseudo_fifty.json``).
        pseudo_fifty: bool = True
        #: D. N. Hill's "50/50 influence" (``influence.FiftyInfluence``): each candidate's scores
        #: (two-click and, with ``deep``, three-click) are multiplied by 1 + ``fifty_influence`` x
        #: I / P(safe), I the fraction of layouts in which it is a mine only as one half of a
        #: 50/50 still to come (a pair or 2x2 block whose closing cells are all mines: lost half
        #: the time whatever is played), and the cells whose safety plus influence passes the
        #: candidates' cut-off are candidates too. Hill's JSMinesweeper: solver_main.js
        #: ``secondarySafetyAnalysis`` multiplies each number's blended safety by
        #: ``fiftyFiftyInfluence = 1 + 0.9 x tileInfluenceTally / safetyTally``, the tally from
        #: LongTermRiskHelper.js ``findTileInfluence`` (the tile's two horizontal and two vertical
        #: pairs added, each with up to 3 closing cells not yet known mines, plus the best of its
        #: four 2x2 blocks, plus its ``influenceEnablers`` from the board scan ``findInfluence``:
        #: pairs with at most one such cell, blocks with none; capped at min(mine tally, safe
        #: tally)), and ``tieBreak`` adds ``getInfluencedTiles(0.9 x best safety)`` to the
        #: candidates. His Java solver (``SecondarySafetyEvaluator.doFullEvaluateTile`` with
        #: ``LongTermRiskHelper.findInfluence(Location)``) is the same but for the larger of the
        #: two pairs each way and a 2.5% floor on scanned patterns. Only with ``lookahead``.
        #: 0: off; Hill's value is 0.9. 0.9: +0.10 [-0.17, +0.37] (387 vs 367 discordant boards of
        #: 20000, McNemar p = 0.49, n.s.) at 22.5 instead of 20.6 ms per Expert game
        #: (``results/apex_ablation_expert_safe_hill_influence.json``): off by default.
        fifty_influence: float = Field(default=0.0, ge=0.0, le=1.0)
        #: Score candidates Hill's way (``Outlook.blended_summary``): after each number the next
        #: click is worth ``(4 x best + second) / 5`` over the two safest living cells (a certainly
        #: safe cell counts 1, the unconstrained cells' shared safety twice) instead of the safest
        #: cell (1 with progress), and progress counts only numbers that make more living cells
        #: certainly safe than the candidate's safety alone does. Hill's JSMinesweeper:
        #: solver_probability_engine.js ``ProbabilityEngine.process`` sets ``blendedSafety =
        #: (bestSafety1 * 4 + bestSafety2) / 5`` over tiles not in ``deadTiles`` (both start at the
        #: off-edge safety); solver_main.js ``secondarySafetyAnalysis`` sums it over the values and
        #: counts progress when ``livingClearTile > linkedTilesCount``; his Java
        #: ``SecondarySafetyEvaluator.doFullEvaluateTile`` likewise (``getBlendedSafety``, weights
        #: 4 and 1 in ``SolverSettings``). Hill scores ``blended x (1 + 0.001 x progress)``: set
        #: ``progress_weight=0.001`` for his weighting (added here, not multiplied). Differences:
        #: dead cells are only the lonely ones (every neighbour revealed, a known mine or the
        #: candidate); with no living cell the dead ones count, and a lone cell is its own second
        #: (Hill: 0); ``deep`` re-scores on plain three-click survival. With ``progress_weight=0.001``:
        #: +0.03 [-0.21, +0.27] (73 vs 70 discordant boards of 10000, p = 0.87, n.s.), 22.1 instead
        #: of 21.0 ms per Expert game; with ``fifty_influence=0.9`` too: +0.14 [-0.29, +0.58] (252 vs
        #: 238, p = 0.56), 24.1 ms (``results/apex_ablation_expert_safe_hill.json``): off by default.
        blended_safety: bool = False
        #: Search the game tree exactly when at most this many layouts remain (0: never).
        #: 0: -0.76 [-0.99, -0.54], McNemar p = 3e-11; 2000: +0.04 [-0.02, +0.10] (n.s.). Measured
        #: as regret instead (``benchmarks/apex_regret.py``, 10000 Expert games): exact play in
        #: every position of 401-5000 layouts would add +0.071 points [+0.058, +0.084] with no
        #: work limit, +0.050 within 1.5M and +0.023 within 300k; exact play inside isolated
        #: components (``endgame.isolated_layouts``, 268 guesses) would add nothing: the
        #: heuristics already pick an optimal guess there every time. On Intermediate 401-5000
        #: layouts add +0.007 [+0.002, +0.012], on Beginner +0.000 (10000 games each).
        endgame_layouts: int = Field(default=400, ge=0, le=100_000)
        #: Work allowed per endgame decision (layouts summed over the states it expands) before
        #: falling back on the heuristics: about 1 ms per 100k on one core.
        endgame_effort: int = Field(default=300_000, ge=1)
        #: The first click under the ``opening`` rule (row, column); None: three in from the corner,
        #: (3, 3). Under the other rules the first click is the corner (0, 0). Against (3, 3) on
        #: 8000 Expert boards: (0, 0) -5.33, (1, 1) -1.95, (2, 2) +0.81 [+0.19, +1.43], (2, 3) +0.66,
        #: (3, 2) +0.35, (2, 4) -0.43, (4, 4) -1.06; but (2, 2) on 8000 fresh boards (seed 7000000):
        #: -0.46 [-1.07, +0.14]: the best of seven on one seed was luck, (3, 3) stays.
        opening_cell: tuple[int, int] | None = None
        #: Threaded enumeration of large components: None = when numba has several threads.
        parallel: bool | None = None
        parallel_threshold: int = Field(default=DEFAULT_PARALLEL_THRESHOLD, ge=1)

    def __init__(self, options: Mapping[str, Any] | BaseModel | None = None) -> None:
        super().__init__(options)
        _warm_up_kernels(self)
        #: Which part chose the last guess of this game (a ``DECIDED_*`` name), None before any.
        self.decided_by: str | None = None

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        self.decided_by = None

    def play(self, observation: Observation) -> list[Action]:
        if observation.first_move:
            cell = self.first_click(observation)
            wanted = self.options.opening_cell
            if observation.rule is FirstClick.OPENING and wanted is not None:
                cell = (min(wanted[0], observation.height - 1), min(wanted[1], observation.width - 1))
            return [Action.reveal(*cell, guess=observation.rule is FirstClick.NONE)]
        # The single-cell rules find most certain moves at a fraction of the solver's cost, and
        # the position reached before the next guess is the same whichever order they run in.
        actions = certain_actions(observation)
        if actions:
            return actions
        options = self.options
        parallel = options.parallel if options.parallel is not None else numba.get_num_threads() > 1
        analysis = analyze(
            observation.grid,
            observation.mines,
            parallel=parallel,
            parallel_threshold=options.parallel_threshold,
        )
        flags = [Action.flag(r, c) for r, c in analysis.mines]
        if analysis.safe:
            return [Action.reveal(r, c) for r, c in analysis.safe] + flags
        outlook = Outlook(observation.grid, observation.mines, analysis)
        row, col = self.choose_guess(outlook)
        return [*flags, Action.reveal(row, col, guess=True)]

    # -- guessing -------------------------------------------------------------------------
    def choose_guess(self, outlook: Outlook) -> Cell:
        """The guess in a position without certain moves (see the module docstring); which part
        decided it is left in ``decided_by`` (for the benchmarks that study the guesses)."""
        options = self.options
        if options.fifty_fifty:
            pair = unavoidable_pair(outlook)
            if pair is not None:
                self.decided_by = DECIDED_FIFTY
                return pair
        if options.endgame_layouts > 0:
            solved = solve_endgame(outlook, options.endgame_layouts, options.endgame_effort)
            if solved is not None:
                self.decided_by = DECIDED_ENDGAME
                return solved[0], solved[1]
        if options.pseudo_fifty:
            cell = pseudo_fifty(outlook)
            if cell is not None:
                self.decided_by = DECIDED_PSEUDO_FIFTY
                return cell
        influence = FiftyInfluence(outlook) if options.lookahead and options.fifty_influence > 0.0 else None
        candidates = self.candidates(outlook, influence)
        if not options.lookahead or len(candidates) == 1:
            self.decided_by = DECIDED_SAFEST
            return candidates[0]
        self.decided_by = DECIDED_LOOKAHEAD
        return self.best_by_lookahead(outlook, candidates, influence)

    def candidates(self, outlook: Outlook, influence: FiftyInfluence | None = None) -> list[Cell]:
        """Near-safest cells, safest first: frontier cells, then a few cells away from it; with
        ``influence``, also the cells whose safety plus 50/50 influence passes the cut-off."""
        options = self.options
        p = outlook.probabilities
        live = outlook.covered & (p < 1.0)
        cells = np.flatnonzero(live)
        best = float(p[cells].min())
        tolerance = options.tolerance if options.lookahead else 0.0
        limit = 1.0 - (1.0 - best) * (1.0 - tolerance) + 1e-12
        near = cells[p[cells] <= limit]
        frontier = [int(x) for x in near if outlook.comp_of[x] >= 0]
        away = [int(x) for x in near if outlook.unconstrained[x]]
        width = outlook.width
        counts = _unknown_neighbours(live & ~outlook.constant_mine, outlook.height, width)

        def crowd(x: int) -> int:
            return int(counts[x])

        frontier.sort(key=lambda x: (round(float(p[x]), 12), crowd(x), x))
        away.sort(key=lambda x: (crowd(x), x))
        picked = frontier[: options.max_candidates]
        picked += away[: max(options.off_frontier, 0 if picked else 1)]
        if influence is not None:
            chosen = set(picked)
            picked += [x for x in influence.influenced((1.0 - best) * (1.0 - tolerance)) if x not in chosen]
        picked.sort(key=lambda x: (round(float(p[x]), 12), crowd(x), x))
        return [divmod(x, width) for x in picked]

    def best_by_lookahead(
        self, outlook: Outlook, candidates: list[Cell], influence: FiftyInfluence | None = None
    ) -> Cell:
        """The candidate with the best score; candidates whose safety bounds their score below
        the best so far are skipped (a score never exceeds ``safety x (1 + progress_weight)``,
        times the 50/50 influence factor with ``influence``)."""
        options = self.options
        weight = options.progress_weight
        p = outlook.probabilities
        summaries: list[CellOutlook] = []
        factor: dict[Cell, float] = {}
        best_score = -1.0
        for row, col in candidates:
            safety = 1.0 - float(p[row * outlook.width + col])
            f = 1.0
            if influence is not None:
                f += options.fifty_influence * influence.of(row * outlook.width + col) / safety
            factor[(row, col)] = f
            if safety * (1.0 + weight) * f <= best_score:
                continue
            summary = outlook.blended_summary(row, col) if options.blended_safety else outlook.summary(row, col)
            summaries.append(summary)
            if not (options.avoid_dead and summary.values <= 1):
                best_score = max(best_score, summary.score(weight) * f)
        if options.avoid_dead:
            alive = [s for s in summaries if s.values > 1]
            if alive:
                summaries = alive

        def score(s: CellOutlook) -> float:
            return s.score(weight) * factor[s.cell]

        # max() keeps the first of equal scores: candidates come safest first, then by crowd.
        # Scores equal but for rounding (symmetric cells reached through different sums) are
        # equal: the tie-break decides, not the last bits of the arithmetic.
        best = max(summaries, key=lambda s: round(score(s), _SCORE_DIGITS))
        if options.deep > 1 and len(summaries) > 1:
            top = score(best) - options.deep_margin
            ranked = [s for s in sorted(summaries, key=lambda s: -round(score(s), _SCORE_DIGITS))]
            ranked = [s for s in ranked if score(s) >= top]
            if len(ranked) > 1:
                deep = {
                    s.cell: round(self.deep_score(outlook, s.cell) * factor[s.cell], _SCORE_DIGITS)
                    for s in ranked[: options.deep]
                }
                return max(ranked[: options.deep], key=lambda s: deep[s.cell]).cell
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
