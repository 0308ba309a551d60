"""A recorded game played again on the engine, step by step, with the exact mine probabilities of each position.

``replay`` puts a record's moves back on the engine's own board and keeps what a viewer needs after every
move: the visible grid, the cells the move opened, and ``arena analyze``'s analysis of the position the
player faced, flags taken off (docs/analysis.md says why). The HTML replay (``arena.analysis.replay.page``) and the
terminal stepper (``arena.cli.terminal_replay``) both draw from it, so they cannot disagree about a game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.outcome import Outcome
from engine import COVERED, FLAGGED, MINE, Action, ActionKind, BoardSpec, EngineError, FirstClick, Game, GameStatus
from players.solver import Analysis, SolverError, analyze

__all__ = [
    "NOTE_SHOWN",
    "TIE",
    "Choice",
    "Note",
    "Replay",
    "ReplayError",
    "ReplayGame",
    "ReplayMove",
    "Step",
    "first_divergence",
    "note_text",
    "position_analysis",
    "replay",
]

#: A move's note as a bot attached it: free text, or a small JSON object such as ``{"note": "...", "p_mine": 0.12}``.
Note = str | Mapping[str, Any] | None
#: A note longer than this (as text, or as compact JSON) is cut for display: a replay stays small whatever a bot says.
NOTE_SHOWN = 300


class ReplayError(ValueError):
    """A record that does not reproduce its game: a move the rules refuse, moves after the end, or an outcome
    the replayed moves do not reach. The message names the game and says what went wrong."""


@dataclass(frozen=True, slots=True)
class ReplayMove:
    """One move as it was played: the action, the player's guess mark, its optional note, and (when the record
    has them) the cells it opened, which the replay then checks against the engine's."""

    kind: ActionKind
    row: int
    col: int
    guess: bool = False
    note: Note = None
    opened: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ActionKind(self.kind))

    @classmethod
    def from_action(cls, action: Action, note: Note = None) -> ReplayMove:
        return cls(ActionKind(action.kind), int(action.row), int(action.col), bool(action.guess), note)

    @property
    def action(self) -> Action:
        return Action(self.kind, self.row, self.col, self.guess and self.kind is ActionKind.REVEAL)

    def __str__(self) -> str:
        return str(self.action)


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """One stored game: who played which board, the moves as played, and the outcome the store holds.

    ``outcome`` is checked against the replay when given (``None``: not checked). ``error`` is the stored
    reason of a game the bot lost by misbehaving (an illegal action, a crash, a timeout), shown in the replay.
    """

    player: str
    spec: BoardSpec
    rule: FirstClick
    seed: int
    board: int
    moves: Sequence[ReplayMove]
    outcome: Outcome | None = None
    error: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", FirstClick.parse(self.rule))
        object.__setattr__(self, "moves", tuple(self.moves))
        if self.outcome is not None:
            object.__setattr__(self, "outcome", Outcome(self.outcome))

    @property
    def label(self) -> str:
        """How the page and errors name the game."""
        return f"{self.player} on board {self.board} of seed {self.seed} ({self.spec.label}, first click {self.rule})"


@dataclass(frozen=True, slots=True)
class Step:
    """The game after ``number`` moves: what the player saw, and what was exactly known then.

    ``grid`` is the visible (height, width) int8 grid (``COVERED``, ``FLAGGED``, 0-8). ``opened`` lists the
    flat cells that move ``number`` revealed. ``analysis`` is the exact analysis of this position with the
    flags taken off (``None`` once the game is over, before the first click under a protecting rule, or when
    the position is beyond the solver: ``analysis_note`` then says which).
    """

    number: int
    grid: np.ndarray
    move: ReplayMove | None
    opened: tuple[int, ...]
    status: GameStatus
    analysis: Analysis | None
    analysis_note: str = ""

    @property
    def flags(self) -> int:
        return int((self.grid == FLAGGED).sum())


@dataclass(frozen=True, slots=True)
class Choice:
    """What was exactly known about a move when it was chosen: "why did it guess there?".

    ``probability`` is the chosen cell's mine probability (``None`` for a chord, or where the position has no
    analysis); ``certain`` is ``"safe"`` or ``"mine"`` when the analysis proves it; ``safest`` is the lowest
    mine probability of any covered unflagged cell then, held by ``safest_cells`` cells (ties within 1e-12);
    ``fatal`` says the move hit a mine.
    """

    number: int
    move: ReplayMove
    probability: float | None
    certain: str | None
    safest: float | None
    safest_cells: int
    fatal: bool

    @property
    def riskier(self) -> bool:
        """A reveal whose mine probability was above the safest available one."""
        return (
            self.move.kind is ActionKind.REVEAL
            and self.probability is not None
            and self.safest is not None
            and self.probability > self.safest + TIE
        )


#: Probabilities this close count as equal when the safest cells are counted (the page uses the same).
TIE = 1e-12


@dataclass(frozen=True, slots=True)
class Replay:
    """A game replayed: ``steps[k]`` is the board after ``k`` moves (``steps[0]``: nothing played yet)."""

    game: ReplayGame
    steps: tuple[Step, ...]
    #: The boolean (height, width) mine layout, or ``None`` when no cell was ever revealed (it is drawn then).
    layout: np.ndarray | None
    exploded: tuple[int, int] | None
    status: GameStatus
    bbbv: int
    bbbv_solved: int
    #: The stored outcome when the record has one, else how the replay ended.
    outcome: str

    @property
    def moves(self) -> int:
        return len(self.steps) - 1

    @property
    def losing_move(self) -> int | None:
        """The number (1-based) of the move that hit a mine, if one did."""
        return self.moves if self.exploded is not None else None

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def final_grid(self) -> np.ndarray:
        """The last step's grid with the hidden mines shown (``MINE``) on the cells still covered."""
        grid = self.steps[-1].grid.copy()
        if self.layout is not None:
            grid[self.layout & (grid == COVERED)] = MINE
        return grid

    def choice(self, number: int) -> Choice | None:
        """Move ``number`` (1-based) with what was known when it was chosen, or ``None`` past the last move."""
        if not 1 <= number <= self.moves:
            return None
        before = self.steps[number - 1]
        move = self.steps[number].move
        assert move is not None
        fatal = number == self.moves and self.exploded is not None
        analysis = before.analysis
        if analysis is None:
            return Choice(number, move, None, None, None, 0, fatal)
        cell = (move.row, move.col)
        certain = "safe" if cell in set(analysis.safe) else "mine" if cell in set(analysis.mines) else None
        probability = None if move.kind is ActionKind.CHORD else float(analysis.probabilities[cell])
        open_cells = analysis.probabilities[before.grid == COVERED]
        open_cells = open_cells[~np.isnan(open_cells)]
        safest = float(open_cells.min()) if open_cells.size else None
        tied = int((open_cells <= safest + TIE).sum()) if safest is not None else 0
        return Choice(number, move, probability, certain, safest, tied, fatal)


def replay(game: ReplayGame, *, probabilities: bool = True) -> Replay:
    """Play ``game``'s moves again on its board; raises ``ReplayError`` when the record does not reproduce it.

    ``probabilities=False`` skips the analysis (a terminal stepper that only draws the board). Positions that
    differ only in flags share one analysis: flags are taken off before it.
    """
    engine_game = Game(game.spec, game.rule, seed=game.seed, index=game.board)
    cache: dict[bytes, tuple[Analysis | None, str]] = {}

    def position(status: GameStatus) -> tuple[Analysis | None, str]:
        if not probabilities or status is not GameStatus.PLAYING:
            return None, ""
        return position_analysis(engine_game.grid, game.spec.mines, game.rule, cache)

    steps = [Step(0, engine_game.grid.copy(), None, (), engine_game.status, *position(engine_game.status))]
    for number, move in enumerate(game.moves, start=1):
        if engine_game.over:
            raise ReplayError(
                f"the record of {game.label} goes on after the game ended ({engine_game.status}) at move "
                f"{number - 1}: {len(game.moves) - number + 1} moves too many"
            )
        before = engine_game.grid.copy()
        try:
            engine_game.apply(move.action)
        except EngineError as exc:
            raise ReplayError(f"the record of {game.label} does not replay: move {number} ({move}): {exc}") from None
        after = engine_game.grid.copy()
        opened = tuple(int(i) for i in np.flatnonzero((before.reshape(-1) < 0) & (after.reshape(-1) >= 0)))
        if move.opened is not None:
            recorded = sorted(r * game.spec.width + c for r, c in move.opened)
            if recorded != sorted(opened):
                raise ReplayError(
                    f"the record of {game.label} does not replay: move {number} ({move}) opened {len(opened)} "
                    f"cells on the board but the record says {len(recorded)}"
                )
        steps.append(Step(number, after, move, opened, engine_game.status, *position(engine_game.status)))
    status = engine_game.status
    _check_outcome(game, status)
    layout = None
    if engine_game.first_click is not None:
        layout = engine_game.mine_layout()
    stats = engine_game.stats()
    outcome = game.outcome.value if game.outcome is not None else status.value
    return Replay(game, tuple(steps), layout, engine_game.exploded, status, stats.bbbv, stats.bbbv_solved, outcome)


def _check_outcome(game: ReplayGame, status: GameStatus) -> None:
    """The stored outcome must be the one the moves reach: a won or lost game ends so; a game the bot lost by
    misbehaving (illegal, error, timeout, crash) stopped while still in play."""
    if game.outcome is None:
        return
    expected = {Outcome.WON: GameStatus.WON, Outcome.LOST: GameStatus.LOST}.get(game.outcome, GameStatus.PLAYING)
    if status is not expected:
        raise ReplayError(
            f"the record of {game.label} does not reproduce its game: its {len(game.moves)} moves leave the game "
            f"{status}, but the stored outcome is {game.outcome}"
        )


def position_analysis(
    grid: np.ndarray, mines: int, rule: FirstClick, cache: dict[bytes, tuple[Analysis | None, str]]
) -> tuple[Analysis | None, str]:
    """The exact analysis of ``grid`` with its flags taken off, memoised by position in ``cache``: the one
    a replay shows, so ``arena losses`` judges a move by the same numbers the replay of its game shows."""
    numbers = grid.copy()
    numbers[numbers == FLAGGED] = COVERED
    if not (numbers >= 0).any() and rule is not FirstClick.NONE:
        return None, f"the first click is safe under the first-click rule {rule}"
    key = numbers.tobytes()
    if key not in cache:
        try:
            cache[key] = (analyze(numbers, mines), "")
        except SolverError as exc:
            # Not a record error: the moves replayed; only the numbers are beyond the solver here.
            cache[key] = (None, f"no exact probabilities here: {exc}")
    return cache[key]


def first_divergence(a: ReplayGame | Sequence[ReplayMove], b: ReplayGame | Sequence[ReplayMove]) -> int | None:
    """The index (0-based) of the first move where two games' play differs (kind or cell; one game ending
    while the other goes on counts), or ``None`` when they played the same moves. The guess mark and the
    note do not count: they are the players' words, not their play."""
    moves_a = a.moves if isinstance(a, ReplayGame) else tuple(a)
    moves_b = b.moves if isinstance(b, ReplayGame) else tuple(b)
    for index, (x, y) in enumerate(zip(moves_a, moves_b, strict=False)):
        if (x.kind, x.row, x.col) != (y.kind, y.row, y.col):
            return index
    if len(moves_a) != len(moves_b):
        return min(len(moves_a), len(moves_b))
    return None


def note_text(note: Note) -> str:
    """A note as one line of text, cut to ``NOTE_SHOWN``: text as it is, a JSON object with its ``note`` first."""
    if note is None:
        return ""
    if isinstance(note, str):
        text = note
    else:
        items = dict(note)
        head = items.pop("note", None)
        rest = ", ".join(f"{key} {_short(value)}" for key, value in items.items())
        text = " · ".join(part for part in (str(head) if head is not None else "", rest) if part)
    text = " ".join(text.split())
    return text if len(text) <= NOTE_SHOWN else text[: NOTE_SHOWN - 1] + "…"


def _short(value: Any) -> str:
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), default=str)
