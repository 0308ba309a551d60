"""The game: boards, first-click rules, moves, and what a player may see (docs/rules.md).

Seeded boards and text formats live in ``engine.layout``, the compiled rules in ``engine.kernels``.
"""

from __future__ import annotations

from engine import numba_setup  # noqa: F401  (first: before numba loads its numpy support)
from engine.actions import Action, ActionKind, Actions
from engine.board import BEGINNER, EXPERT, INTERMEDIATE, PRESETS, BoardSpec, FirstClick
from engine.errors import (
    BoardConfigError,
    EngineError,
    IllegalActionError,
    InvalidActionError,
    LayoutFormatError,
)
from engine.game import Game
from engine.kernels import COVERED, FLAGGED, MINE
from engine.observation import GameStats, GameStatus, Observation

__all__ = [
    "BEGINNER",
    "COVERED",
    "EXPERT",
    "FLAGGED",
    "INTERMEDIATE",
    "MINE",
    "PRESETS",
    "Action",
    "ActionKind",
    "Actions",
    "BoardConfigError",
    "BoardSpec",
    "EngineError",
    "FirstClick",
    "Game",
    "GameStats",
    "GameStatus",
    "IllegalActionError",
    "InvalidActionError",
    "LayoutFormatError",
    "Observation",
]
