"""`rollout`: apex, with its close guesses settled by rollouts (policy improvement).

At a guess apex judges candidates by what two or three clicks lead to. A rollout judges them by
the whole game: for each candidate, the share of layouts (drawn from the exact posterior,
``sampler``) on which clicking it and then playing on with a fast base policy (``playout``:
greedy on exact weighted probabilities, compiled) wins. The layouts are the same for every
candidate (common random numbers), so a difference between two candidates is measured on the
layouts where exactly one of them wins, with far less noise than their values.

Rollouts are spent only where they can matter: at guesses apex decided by its lookahead (50/50s,
exact endgames and "50/50 or safe" cells are already optimal or free) and whose best candidates
are close (two-click scores within ``close``). There the candidates race in batches of layouts: a
candidate clearly worse than the leader (McNemar z past ``eliminate_z`` on the discordant
layouts) stops being played, and the race ends when one is left or the decision's share of the
game's ``budget`` (playouts) is spent. apex's own choice stands unless the leader beats it by
``switch_z``: the base policy is weaker than apex, so its verdict has to be clear to overrule.

Deterministic given its seed: the layouts are drawn from the player's own generator.

Measured (Expert / safe, 1000 paired boards, seed 8000000, ``benchmarks/rollout_headline.py``):
no budget differs from apex. Budget 250: -0.10 points [-1.32, +1.11] (17 vs 18 discordant boards,
McNemar p = 1), 69 ms per game; 1000 (the default): -0.20 [-1.38, +0.96] (15 vs 17, p = 0.86),
252 ms; 4000: +0.00 [-1.10, +1.10] (14 vs 14, p = 1), 973 ms; apex 39.60% at 29 ms. The default on
6000 more boards (seed 8100000): 40.72% vs apex's 40.48%, +0.23 [-0.26, +0.73] (119 vs 105, p = 0.39),
221 vs 22 ms per game. The room is
small (``benchmarks/rollout_oracle.py``, 200 race positions, 2000 layouts per candidate to choose
and 2000 others to score): choosing by rollouts gains +0.0016 [+0.0004, +0.0028] win probability
per race in the base policy's units, about 2.4 races per game, hence about +0.4 points per game
at 4-8 times the default budget; the per-decision differences between apex's close candidates
(a point or two) are below what a few hundred playouts can resolve.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from engine import BoardSpec, FirstClick, rng
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.player import DECIDED_LOOKAHEAD
from players.builtin.rollout.playout import evaluate
from players.builtin.rollout.sampler import PosteriorSampler
from players.solver.analysis import _LOG_TABLE

__all__ = ["DECIDED_ROLLOUT", "RolloutPlayer", "RolloutRace", "race"]

Cell = tuple[int, int]

#: ``decided_by`` when rollouts overruled apex's choice.
DECIDED_ROLLOUT = "rollout"

_WARM = False


class RolloutRace:
    """What one race found: the candidates (apex's choice first), playouts per candidate, wins,
    the chosen index and the playouts spent."""

    __slots__ = ("candidates", "chosen", "playouts", "spent", "wins")

    def __init__(self, candidates: list[int], wins: np.ndarray, playouts: np.ndarray, chosen: int, spent: int) -> None:
        self.candidates = candidates
        self.wins = wins
        self.playouts = playouts
        self.chosen = chosen
        self.spent = spent


def _z(results: np.ndarray, a: int, b: int) -> float:
    """McNemar z of ``a`` over ``b`` on the layouts both played (0 without discordant ones)."""
    both = (results[a] >= 0) & (results[b] >= 0)
    better = int(np.count_nonzero(both & (results[a] == 1) & (results[b] == 0)))
    worse = int(np.count_nonzero(both & (results[a] == 0) & (results[b] == 1)))
    if better + worse == 0:
        return 0.0
    return (better - worse) / math.sqrt(better + worse)


def race(
    view: np.ndarray,
    height: int,
    width: int,
    mines: int,
    sampler: PosteriorSampler,
    candidates: list[int],
    state: np.ndarray,
    cap: int,
    batch: int,
    eliminate_z: float,
    switch_z: float,
) -> RolloutRace:
    """Race ``candidates`` (flat cells, the incumbent first) on common layouts, spending at most
    ``cap`` playouts: successive batches of ``batch`` layouts, dropping a candidate once the
    leader beats it by ``eliminate_z``; the incumbent stays unless the final leader beats it by
    ``switch_z`` (or it was dropped)."""
    k = len(candidates)
    cells = np.array(candidates, np.int64)
    alive = np.ones(k, np.bool_)
    chunks: list[np.ndarray] = []
    spent = 0
    results = np.zeros((k, 0), np.int8)
    while True:
        n_alive = int(alive.sum())
        if n_alive < 2 or spent + n_alive * batch > cap:
            break
        layouts = sampler.sample(state, batch)
        chunks.append(evaluate(view, layouts, cells, alive, height, width, mines, _LOG_TABLE))
        spent += n_alive * batch
        results = np.concatenate(chunks, axis=1)
        wins = (results == 1).sum(axis=1)
        played = (results >= 0).sum(axis=1)
        rate = np.where(alive, wins / np.maximum(played, 1), -1.0)
        leader = int(np.argmax(rate))  # ties: the earlier candidate (the incumbent first)
        for j in range(k):
            if alive[j] and j != leader and _z(results, leader, j) > eliminate_z:
                alive[j] = False
    wins = (results == 1).sum(axis=1)
    played = (results >= 0).sum(axis=1)
    chosen = 0
    if results.shape[1]:
        rate = np.where(alive, wins / np.maximum(played, 1), -1.0)
        leader = int(np.argmax(rate))
        if leader != 0 and (not alive[0] or _z(results, leader, 0) >= switch_z):
            chosen = leader
    return RolloutRace(candidates, wins, played, chosen, spent)


def _warm_up(player: RolloutPlayer) -> None:
    """Once per process: compile (or load) the sampler and the playout on a tiny position, so that
    it is never billed to a real game's time."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    from players.solver import analyze

    grid = np.array([[1, -1, -1], [-1, -1, -1]], dtype=np.int8)
    outlook = Outlook(grid, 2, analyze(grid, 2))
    sampler = PosteriorSampler(outlook, 1000)
    state = rng.player_state(np.array([1, 2, 3, 4], np.uint64))
    race(grid.reshape(-1).copy(), 2, 3, 2, sampler, [1, 2], state, 16, 4, 2.5, 1.5)


class RolloutPlayer(ApexPlayer):
    """apex, with its close lookahead guesses decided by rollouts of a greedy base policy."""

    name = "rollout"
    description = "apex + rollouts (exact posterior layouts, greedy base policy, common layouts) at close guesses"
    version = "1"

    class Options(ApexPlayer.Options):
        """apex's knobs, and the rollouts'."""

        #: Playouts per game (a candidate played on one layout is one playout); 0: plain apex.
        #: 250 / 1000 / 4000 (``per_guess`` half of it): 69 / 252 / 973 CPU ms per Expert game and
        #: -0.10 / -0.20 / +0.00 points against apex (1000 boards each, none significant).
        budget: int = Field(default=1000, ge=0, le=10_000_000)
        #: At most this many playouts per decision.
        per_guess: int = Field(default=500, ge=0, le=10_000_000)
        #: Layouts per round of the race.
        batch: int = Field(default=32, ge=1, le=100_000)
        #: Candidates raced: apex's choice and the next best by its two-click score.
        rollout_candidates: int = Field(default=4, ge=2, le=32)
        #: Race only when another candidate's two-click score is within this of apex's choice.
        close: float = Field(default=0.05, ge=0.0, le=1.0)
        #: A candidate stops racing when the leader beats it by this McNemar z.
        eliminate_z: float = Field(default=2.5, ge=0.0)
        #: apex's choice is overruled only when the leader beats it by this z (or it was dropped).
        switch_z: float = Field(default=1.0, ge=0.0)
        #: Positions whose components have more solutions than this are decided without rollouts.
        max_solutions: int = Field(default=200_000, ge=1)

    def __init__(self, options: Mapping[str, Any] | BaseModel | None = None) -> None:
        super().__init__(options)
        _warm_up(self)
        self.budget_left = self.options.budget
        #: Per game: the races run (``RolloutRace``), for the benchmarks' loss analysis.
        self.races: list[RolloutRace] = []

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        self.budget_left = self.options.budget
        self.races = []

    def choose_guess(self, outlook: Outlook) -> Cell:
        cell = super().choose_guess(outlook)
        options = self.options
        cap = min(options.per_guess, self.budget_left)
        if self.decided_by != DECIDED_LOOKAHEAD or cap < 2 * options.batch:
            return cell
        ranked = self._ranked(outlook, cell)
        if len(ranked) < 2:
            return cell
        sampler = PosteriorSampler(outlook, options.max_solutions)
        if not sampler.ok:
            return cell
        # The race's own generator, from the player's: deterministic given the game's seed.
        state = rng.player_state(self.rng.integers(0, 2**32, size=4, dtype=np.uint64))
        view = np.array(outlook.grid, dtype=np.int8).reshape(-1)
        result = race(
            view, outlook.height, outlook.width, outlook.mines, sampler, ranked, state,
            cap, options.batch, options.eliminate_z, options.switch_z,
        )  # fmt: skip
        self.budget_left -= result.spent
        self.races.append(result)
        if result.chosen == 0:
            return cell
        self.decided_by = DECIDED_ROLLOUT
        return divmod(ranked[result.chosen], outlook.width)

    def _ranked(self, outlook: Outlook, chosen: Cell) -> list[int]:
        """apex's choice, then up to ``rollout_candidates - 1`` others whose two-click score is
        within ``close`` of it, best first (flat cells)."""
        options = self.options
        weight = options.progress_weight
        width = outlook.width
        first = chosen[0] * width + chosen[1]
        top = outlook.summary(*chosen).score(weight)
        scored = []
        for row, col in self.candidates(outlook):
            flat = row * width + col
            if flat == first:
                continue
            score = outlook.summary(row, col).score(weight)
            if score >= top - options.close:
                scored.append((-round(score, 10), flat))
        scored.sort()
        return [first] + [flat for _, flat in scored[: options.rollout_candidates - 1]]
