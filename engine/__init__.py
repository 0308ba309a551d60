"""The game: seeded boards, first-click rules, compiled rules, and what a player may see."""

from __future__ import annotations

from engine.actions import Action, ActionKind, Actions
from engine.board import (
    BEGINNER,
    EXPERT,
    INTERMEDIATE,
    PRESETS,
    BoardSpec,
    FirstClick,
    parse_cell,
    resolve_board,
)
from engine.errors import (
    BoardConfigError,
    EngineError,
    IllegalActionError,
    InvalidActionError,
    LayoutFormatError,
)
from engine.game import Game, GameStats, GameStatus, Observation
from engine.kernels import COVERED, FLAGGED, MINE
from engine.layout import (
    board_permutation,
    draw_layout,
    format_layout,
    format_position,
    parse_layout,
    parse_position,
    player_generator,
)

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
    "board_permutation",
    "draw_layout",
    "format_layout",
    "format_position",
    "parse_cell",
    "parse_layout",
    "parse_position",
    "player_generator",
    "resolve_board",
]
