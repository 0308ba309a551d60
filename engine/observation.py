"""What a game shows: an ``Observation`` to a player, ``GameStatus`` and ``GameStats`` to the arena."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engine.board import FirstClick
from engine.kernels import COVERED, FLAGGED

__all__ = ["GameStats", "GameStatus", "Observation"]


class GameStatus(enum.StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


@dataclass(frozen=True, slots=True)
class Observation:
    """What a human would see, and nothing more. ``grid`` is a read-only int8 copy: ``COVERED``,
    ``FLAGGED`` (also class attributes, so a bot needs only ``players``) or the revealed 0-8."""

    COVERED: ClassVar[int] = int(COVERED)
    FLAGGED: ClassVar[int] = int(FLAGGED)

    grid: np.ndarray
    mines: int
    rule: FirstClick
    moves: int
    flags: int

    @property
    def height(self) -> int:
        return self.grid.shape[0]

    @property
    def width(self) -> int:
        return self.grid.shape[1]

    @property
    def mines_left(self) -> int:
        """Total mines minus flags placed: the counter a human reads (it can go negative)."""
        return self.mines - self.flags

    @property
    def first_move(self) -> bool:
        return bool((self.grid >= 0).sum() == 0)


@dataclass(frozen=True, slots=True)
class GameStats:
    """The per-game figures the arena aggregates (the arena adds guesses and timings)."""

    status: GameStatus
    rule: FirstClick
    first_click: tuple[int, int] | None
    moves: int
    reveals: int
    flags: int
    chords: int
    revealed_cells: int
    bbbv: int
    bbbv_solved: int

    @property
    def won(self) -> bool:
        return self.status is GameStatus.WON
