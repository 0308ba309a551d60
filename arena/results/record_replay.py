"""A stored game record played back on its board: the proof that it is the game it claims to be.

``replay_record`` plays a record (``arena.results.records``: the moves and the cells each opened) on the board
the tournament's seed makes, checks every move is legal and opens exactly the cells the record lists, and that
the game then comes to what the store says of it; ``Replayed`` is what a replay shows, board by board. Apart from
the codec because it needs the engine's game, where the codec needs only its compiled kernels and the bytes:
a store reads and writes records without replaying them, and the replay's readers (``StoreReader.replay``, the
loss analysis) read records without encoding any.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.results.records import GameRecord, RecordMismatch
from engine import BoardSpec, EngineError, FirstClick, Game
from engine.kernels import COVERED

__all__ = ["Replayed", "replay_record"]

#: What the store's games table says about a game, compared with the replay's figures.
_FIGURES = ("moves", "reveals", "flags", "chords", "guesses", "bbbv", "bbbv_solved", "revealed_cells")


@dataclass(frozen=True, slots=True)
class Replayed:
    """A record played back on its board: ``grids[i]`` is what the board showed after ``i`` moves
    (int8, as an observation: -1 covered, -2 flagged, 0-8 revealed; ``grids[0]`` all covered), and
    ``game`` the finished game (``final_grid``, ``exploded``, ``mine_layout``, ``stats``)."""

    record: GameRecord
    grids: tuple[np.ndarray, ...]
    game: Game

    @property
    def exploded(self) -> tuple[int, int] | None:
        """The mine that ended a lost game."""
        return self.game.exploded


def replay_record(
    spec: BoardSpec,
    rule: FirstClick | str,
    seed: int,
    board: int,
    record: GameRecord,
    expected: Mapping[str, Any] | Any | None = None,
) -> Replayed:
    """Play ``record`` on board ``board`` of ``seed`` and check it is the game it claims to be.

    Each move must be legal and open exactly the cells the record lists. ``expected`` (a row of the
    store's games table, or a ``GameResult``) is what the game must then come to: its outcome (a won
    or lost game must have ended so; any other outcome, a failure of the bot, left the game
    unfinished), moves, 3BV and every other figure it has. Raises ``RecordMismatch`` otherwise."""
    if (record.height, record.width) != (spec.height, spec.width):
        raise RecordMismatch(
            f"the record is of a {record.height}x{record.width} board, the tournament's is {spec.height}x{spec.width}"
        )
    game = Game(spec, rule, seed=seed, index=board)
    view = game.grid
    grids = [view.copy()]
    for number, move in enumerate(record.moves, 1):
        before = grids[-1]
        try:
            if game.over:
                raise EngineError("the game was already over")
            game.apply(move.action)
        except EngineError as error:
            raise RecordMismatch(f"move {number} of the record ({move}) cannot be played: {error}") from None
        after = view.copy()
        opened = np.flatnonzero(((before == COVERED) & (after >= 0)).reshape(-1))
        recorded = [r * spec.width + c for r, c in move.opened]
        if opened.tolist() != sorted(recorded):
            raise RecordMismatch(
                f"move {number} of the record ({move}) opens {len(opened)} cell(s) on the board, "
                f"the record says {len(recorded)}"
            )
        grids.append(after)
    if expected is not None:
        _check(game, expected)
    return Replayed(record, tuple(grids), game)


def _field(expected: Mapping[str, Any] | Any, name: str) -> Any:
    return expected[name] if isinstance(expected, Mapping) else getattr(expected, name)


def _check(game: Game, expected: Mapping[str, Any] | Any) -> None:
    stats = game.stats()
    outcome = str(_field(expected, "outcome"))
    status = game.status.value
    finished = outcome in ("won", "lost")
    if (finished and status != outcome) or (not finished and game.over):
        raise RecordMismatch(f"the record's moves end the game {status}; the stored outcome is {outcome}")
    found = {name: getattr(stats, name, None) for name in _FIGURES}
    found["guesses"] = game.guesses
    first = stats.first_click
    found["first_row"], found["first_col"] = first if first is not None else (None, None)
    for name, value in found.items():
        try:
            stored = _field(expected, name)
        except (KeyError, AttributeError):
            continue
        if stored != value:
            raise RecordMismatch(f"the record's moves give {name} = {value}; the stored game has {stored}")
