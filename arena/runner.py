"""Play one game between a player and a seeded board, and say exactly how it ended.

Every game ends in exactly one ``Outcome``. A bot's mistake (a bad action, an exception, an
endless stream of moves) is that bot's result for that game, never an exception in the arena.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from engine import Action, ActionKind, BoardSpec, EngineError, FirstClick, Game, player_generator
from engine.kernels import COVERED
from players import Player

__all__ = ["GameResult", "Outcome", "default_move_limit", "play_game"]


class Outcome(enum.StrEnum):
    WON = "won"
    LOST = "lost"
    #: The bot asked for something the rules forbid or that is not an action at all.
    ILLEGAL = "illegal"
    #: The bot raised, or would not finish (too many moves).
    ERROR = "error"
    #: The bot exceeded its time budget (isolated players).
    TIMEOUT = "timeout"
    #: The bot's process died (isolated players).
    CRASHED = "crashed"


@dataclass(frozen=True, slots=True)
class GameResult:
    """One row of the results store. Everything but the timings is deterministic."""

    player: str
    board: int
    outcome: Outcome
    moves: int
    reveals: int
    flags: int
    chords: int
    guesses: int
    bbbv: int
    bbbv_solved: int
    revealed_cells: int
    first_row: int | None
    first_col: int | None
    cpu_ms: float
    wall_ms: float
    error: str = ""

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    @classmethod
    def failed(cls, player: str, board: int, outcome: Outcome, error: str) -> GameResult:
        """A game that never started: the player could not even be set up."""
        return cls(player, board, outcome, 0, 0, 0, 0, 0, 0, 0, 0, None, None, 0.0, 0.0, error[:2000])

    def as_row(self) -> dict[str, object]:
        row = {name: getattr(self, name) for name in self.__slots__}
        row["outcome"] = self.outcome.value
        row["won"] = int(self.won)
        return row


def default_move_limit(spec: BoardSpec) -> int:
    """Generous: every cell revealed, flagged and unflagged twice over. Only a looping bot hits it."""
    return 6 * spec.cells + 100


def _as_actions(answer: Action | Iterable[Action] | None) -> list[Action]:
    if answer is None:
        return []
    if isinstance(answer, Action) or (isinstance(answer, tuple) and answer and isinstance(answer[0], str)):
        return [answer]  # type: ignore[list-item]
    return list(answer)


def _opened_meanwhile(action: Action, covered_before: np.ndarray, grid: np.ndarray) -> bool:
    """A reveal of a cell that was covered when the bot answered and is revealed now."""
    try:
        kind, row, col = action[0], action[1], action[2]
        return (
            kind == ActionKind.REVEAL
            and row >= 0
            and col >= 0
            and bool(covered_before[row, col])
            and grid[row, col] >= 0
        )
    except (TypeError, IndexError, KeyError, ValueError):
        return False  # not an action at all: let the engine say why


def play_game(
    player: Player,
    key: str,
    spec: BoardSpec,
    rule: FirstClick,
    seed: int,
    board: int,
    *,
    move_limit: int | None = None,
) -> GameResult:
    """Play board ``board`` of ``seed`` to the end with ``player`` (registered as ``key``)."""
    limit = move_limit or default_move_limit(spec)
    game = Game(spec, rule, seed=seed, index=board)
    grid = game.grid
    guesses = 0
    outcome: Outcome | None = None
    error = ""
    wall0 = time.perf_counter()
    cpu0 = time.thread_time()
    try:
        player.reset(player_generator(seed, board, player.name), spec, rule)
        while not game.over:
            actions = _as_actions(player.play(game.observation()))
            if not actions:
                outcome, error = Outcome.ILLEGAL, "play() returned no action"
                break
            covered_before = grid == COVERED
            for number, action in enumerate(actions):
                if game.over:
                    break
                if number and _opened_meanwhile(action, covered_before, grid):
                    # A later reveal in the same answer may target a cell that an earlier one
                    # flood-filled: the bot could not know, so it is skipped, not punished.
                    continue
                game.apply(action)
                if action[0] == ActionKind.REVEAL and len(action) > 3 and action[3]:
                    guesses += 1
            if game.moves > limit:
                outcome, error = Outcome.ERROR, f"no result after {limit} moves"
                break
    except EngineError as exc:
        outcome, error = Outcome.ILLEGAL, f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # the bot's exception is its own result
        outcome, error = Outcome.ERROR, f"{type(exc).__name__}: {exc}"
    cpu_ms = (time.thread_time() - cpu0) * 1000.0
    wall_ms = (time.perf_counter() - wall0) * 1000.0
    if outcome is None:
        outcome = Outcome.WON if game.won else Outcome.LOST
    stats = game.stats()
    first = stats.first_click
    return GameResult(
        player=key,
        board=board,
        outcome=outcome,
        moves=stats.moves,
        reveals=stats.reveals,
        flags=stats.flags,
        chords=stats.chords,
        guesses=guesses,
        bbbv=stats.bbbv,
        bbbv_solved=stats.bbbv_solved,
        revealed_cells=stats.revealed_cells,
        first_row=first[0] if first else None,
        first_col=first[1] if first else None,
        cpu_ms=round(cpu_ms, 4),
        wall_ms=round(wall_ms, 4),
        error=error[:2000],
    )
