"""Why a player loses: every lost or failed game of a tournament classified from its record.

Each record is played back on its board and its fatal move judged by the exact mine probabilities of
the position before it: ``blunder``, ``fifty_fifty``, ``forced``, ``suboptimal`` or ``unanalysed``, and
``failure`` for a game not played to the end by the rules, so the classes add up to the player's lost
and failed games; beside them, the expected losses of the guesses. The classes and the reasoning:
docs/analysis.md, "`arena losses`".
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.analysis.replay.model import position_analysis
from arena.outcome import GameResult, Outcome
from arena.results.record_replay import replay_record
from arena.results.store import Store, StoreError
from engine import COVERED, FLAGGED, ActionKind, BoardSpec, FirstClick
from players.solver import Analysis

__all__ = [
    "CLASSES",
    "CLASS_MEANING",
    "TIE",
    "GameLoss",
    "LossReport",
    "classify",
    "fifty_fifty",
    "game_losses",
    "tournament_losses",
]

#: The classes of a lost or failed game, in the order they are tried.
CLASSES = ("blunder", "fifty_fifty", "forced", "suboptimal", "failure", "unanalysed")
#: Two probabilities this close count as equal (``forced`` against ``suboptimal``, a 50/50's one half).
TIE = 1e-9
#: The largest group ``fifty_fifty`` enumerates (2 ** 8 layouts).
GROUP_CELLS = 8
#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054

#: What each class of loss means, in a few words (``arena losses``' table and a player's page).
CLASS_MEANING = {
    "blunder": "a proven-safe cell existed",
    "fifty_fifty": "an unavoidable 50/50",
    "forced": "clicked a safest cell",
    "suboptimal": "a strictly safer cell existed",
    "failure": "timeout, crash, illegal, error",
    "unanalysed": "position beyond the solver",
}


def _neighbours(cell: int, height: int, width: int) -> Iterable[int]:
    row, col = divmod(cell, width)
    for r in range(max(0, row - 1), min(height, row + 2)):
        for c in range(max(0, col - 1), min(width, col + 2)):
            if r != row or c != col:
                yield r * width + c


def fifty_fifty(grid: np.ndarray, probabilities: np.ndarray, cell: tuple[int, int], mines: int) -> bool:
    """Whether clicking ``cell`` was a choice no future information could have helped: a true 50/50.

    ``grid`` is the position with flags taken off (``COVERED``, 0-8), ``probabilities`` its exact analysis,
    ``mines`` the board's mine count. A *proven mine* is a covered cell of probability exactly 1. The *group*
    G of ``cell`` is the smallest set of covered cells that are not proven mines, holding ``cell``, and
    closed under two steps: a covered neighbour of a cell of G (not a proven mine) is in G, and so is every
    covered cell (not a proven mine) next to a revealed number next to a cell of G. It is a 50/50 when

    1. no covered cell is proven safe (probability 0), and every cell of G has probability 1/2 (within TIE);
    2. G has 2 to ``GROUP_CELLS`` cells;
    3. the fillings of G that fit every revealed number around it (its proven mines counted), and, when G
       and the proven mines are all the covered cells, the mines left, are exactly two, complementary
       (each cell of G a mine in exactly one), with as many mines each.

    By the closure, any cell that can ever be opened outside G touches no cell of G, and every number
    around G counts only cells of G and proven mines: nothing opened elsewhere counts a cell of G. By 3, the
    mine count left for the rest of the board is the same either way, so nothing weighs one filling against
    the other. G is then a coin toss for ever, and the game cannot be won without opening one of its cells
    (each filling leaves safe cells in it). The isolated pair (one mine between two cells walled off by
    numbers and mines) and the 2x2 block with its mines on one diagonal or the other are the classic cases.
    Conservative: a group that needs more than this (more cells, a neighbour still undecided, fillings of
    different sizes) is not called a 50/50.
    """
    height, width = grid.shape
    flat = grid.reshape(-1)
    p = probabilities.reshape(-1)
    covered = flat < 0
    if (covered & (p == 0.0)).any():
        return False
    start = cell[0] * width + cell[1]
    if not covered[start] or abs(p[start] - 0.5) > TIE:
        return False
    mine = covered & (p == 1.0)
    group = {start}
    numbers: set[int] = set()
    todo = [start]
    while todo:
        current = todo.pop()
        reached = []
        for near in _neighbours(current, height, width):
            if covered[near]:
                reached.append(near)
            else:
                numbers.add(near)
                reached.extend(_neighbours(near, height, width))
        for other in reached:
            if covered[other] and not mine[other] and other not in group:
                group.add(other)
                todo.append(other)
                if len(group) > GROUP_CELLS:
                    return False
    if len(group) < 2 or any(abs(p[c] - 0.5) > TIE for c in group):
        return False
    cells = sorted(group)
    rules = []
    for number in numbers:
        around = list(_neighbours(number, height, width))
        need = int(flat[number]) - int(mine[around].sum())
        rules.append(([cells.index(c) for c in around if c in group], need))
    everything = len(group) + int(mine.sum()) == int(covered.sum())
    left = mines - int(mine.sum())
    fillings = [
        bits
        for bits in itertools.product((0, 1), repeat=len(cells))
        if all(sum(bits[i] for i in members) == need for members, need in rules)
        and (not everything or sum(bits) == left)
    ]
    if len(fillings) != 2:
        return False
    a, b = fillings
    return all(x != y for x, y in zip(a, b, strict=True)) and sum(a) == sum(b)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A fatal click judged: its class, the clicked cell's probability, the safest one, and the regret."""

    kind: str
    probability: float
    safest: float
    regret: float


def classify(grid: np.ndarray, mines: int, analysis: Analysis, cells: Iterable[tuple[int, int]]) -> Verdict:
    """The class of a click that hit a mine, opening ``cells`` (one cell; a chord's several) on ``grid``
    (flags may be on it: they count as covered) of a board with ``mines`` mines, ``analysis`` its exact
    analysis."""
    cells = list(cells)
    numbers = grid.copy()
    numbers[numbers == FLAGGED] = COVERED
    p = analysis.probabilities
    covered = numbers < 0
    safest = float(p[covered].min())
    clicked = max(float(p[cell]) for cell in cells)
    if safest <= 0.0 and clicked > 0.0:
        return Verdict("blunder", clicked, safest, clicked - safest)
    if len(cells) == 1 and fifty_fifty(numbers, p, cells[0], mines):
        return Verdict("fifty_fifty", clicked, safest, 0.0)
    if clicked <= safest + TIE:
        return Verdict("forced", clicked, safest, 0.0)
    return Verdict("suboptimal", clicked, safest, clicked - safest)


@dataclass(frozen=True, slots=True)
class GameLoss:
    """One game as ``arena losses`` sees it: its outcome, the probabilities of its guesses, and the class
    of its loss (``None`` for a won game)."""

    board: int
    outcome: str
    guesses: tuple[float, ...]
    kind: str | None = None
    regret: float = 0.0
    unanalysed: int = 0


def game_losses(
    spec: BoardSpec, rule: FirstClick | str, seed: int, board: int, record: Any, result: GameResult | None = None
) -> GameLoss:
    """Replay one game's ``record`` (checked against its stored ``result``) and judge its moves."""
    rule = FirstClick.parse(rule)
    played = replay_record(spec, rule, seed, board, record, result)
    outcome = result.outcome.value if result is not None else played.game.status.value
    lost = played.exploded is not None
    cache: dict[bytes, tuple[Analysis | None, str]] = {}
    known_safe: set[tuple[int, int]] = set()
    guesses: list[float] = []
    verdict: Verdict | None = None
    unanalysed = 0
    last = len(record.moves) - 1
    for number, move in enumerate(record.moves):
        grid = played.grids[number]
        if move.kind is ActionKind.REVEAL:
            cells = [(move.row, move.col)]
        elif move.kind is ActionKind.CHORD:
            opened = {tuple(c) for c in move.opened}
            cells = [
                (r, c)
                for r in range(max(0, move.row - 1), min(spec.height, move.row + 2))
                for c in range(max(0, move.col - 1), min(spec.width, move.col + 2))
                if grid[r, c] == COVERED and ((r, c) in opened or (lost and number == last))
            ]
        else:
            continue
        fatal = lost and number == last
        if not cells or (not fatal and all(cell in known_safe for cell in cells)):
            continue
        if rule is not FirstClick.NONE and not (grid >= 0).any():
            continue  # the first click: safe by the rule
        analysis, _ = position_analysis(grid, spec.mines, rule, cache)
        if analysis is None:
            unanalysed += 1
            if fatal:
                verdict = Verdict("unanalysed", math.nan, math.nan, 0.0)
            continue
        known_safe.update(analysis.safe)
        probability = max(float(analysis.probabilities[cell]) for cell in cells)
        if probability > 0.0:
            guesses.append(probability)
        if fatal:
            verdict = classify(grid, spec.mines, analysis, cells)
    kind: str | None = None
    if outcome not in (Outcome.WON, Outcome.LOST):
        kind = "failure"
    elif lost:
        kind = verdict.kind if verdict is not None else "unanalysed"
    regret = verdict.regret if verdict is not None and kind == "suboptimal" else 0.0
    return GameLoss(board, outcome, tuple(guesses), kind, regret, unanalysed)


@dataclass
class LossReport:
    """A player's lost and failed games by class, with its guesses and their expected losses."""

    player: str
    tournament: str
    label: str
    games: list[GameLoss] = field(default_factory=list)

    @property
    def losses(self) -> int:
        return sum(1 for game in self.games if game.kind is not None)

    @property
    def classes(self) -> dict[str, int]:
        counts = Counter(game.kind for game in self.games if game.kind is not None)
        return {name: counts.get(name, 0) for name in CLASSES}

    @property
    def boards(self) -> dict[str, list[int]]:
        return {name: [game.board for game in self.games if game.kind == name] for name in CLASSES}

    @property
    def regret(self) -> dict[str, Any]:
        per_game = [{"board": game.board, "regret": game.regret} for game in self.games if game.kind == "suboptimal"]
        return {"total": math.fsum(game.regret for game in self.games), "per_game": per_game}

    @property
    def guesses_per_game(self) -> dict[str, Any]:
        counts = Counter(len(game.guesses) for game in self.games)
        total = sum(len(game.guesses) for game in self.games)
        return {
            "mean": total / len(self.games) if self.games else 0.0,
            "histogram": {str(n): counts[n] for n in sorted(counts)},
        }

    @property
    def expected_losses(self) -> dict[str, Any]:
        """Mines the guesses should have hit against the mines hit, with a 95% normal interval."""
        ps = [p for game in self.games for p in game.guesses]
        expected = math.fsum(ps)
        sd = math.sqrt(math.fsum(p * (1 - p) for p in ps))
        observed = sum(1 for game in self.games if game.outcome == Outcome.LOST)
        low, high = max(0.0, expected - Z95 * sd), expected + Z95 * sd
        return {
            "guesses": len(ps),
            "expected": expected,
            "sd": sd,
            "low": low,
            "high": high,
            "observed": observed,
            "consistent": low <= observed <= high,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "tournament": self.tournament,
            "games": len(self.games),
            "losses": self.losses,
            "classes": self.classes,
            "boards": self.boards,
            "regret": self.regret,
            "guesses_per_game": self.guesses_per_game,
            "expected_losses": self.expected_losses,
        }


def tournament_losses(store: Store, tournament_id: str, player: str) -> LossReport:
    """Every stored game of ``player`` in the tournament, judged. ``StoreError`` for an unknown player,
    ``RecordMissing`` when a game was stored without its record."""
    tournament = store.tournament(tournament_id)
    names = [p.key for p in store.players(tournament_id)]
    if player not in names:
        raise StoreError(
            f"tournament {tournament_id} has no player {player!r}; its players: {', '.join(names) or 'none'}"
        )
    spec, rule = tournament.spec, tournament.rule
    report = LossReport(player, tournament_id, f"{spec.label}, first click {rule.value}")
    for game in store.games(tournament_id):
        if game.player != player:
            continue
        record = store.game_record(tournament_id, player, game.board)
        report.games.append(game_losses(spec, rule, tournament.seed, game.board, record, game))
    return report
