"""The game: boards, first-click rules, moves, and what a player may see.

This package's names are the game's vocabulary. Helpers live in their modules: seeded boards and
the text formats in ``engine.layout``, parsing CLI-style board input in ``engine.board``, the
compiled rules in ``engine.kernels``. ``engine.compiled_game`` and ``engine.rng`` are
accelerations of ``engine.game`` and of numpy's generators, each held equal to it by tests.
"""

from __future__ import annotations

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
