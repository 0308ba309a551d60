"""Typed errors of the engine: a malformed action (`InvalidActionError`) is told apart from one the
rules forbid now (`IllegalActionError`), so the arena records a bot's mistake precisely."""

from __future__ import annotations

__all__ = [
    "BoardConfigError",
    "EngineError",
    "IllegalActionError",
    "InvalidActionError",
    "LayoutFormatError",
]


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class BoardConfigError(EngineError, ValueError):
    """A board size, mine count, seed or first-click rule that cannot make a game."""


class LayoutFormatError(EngineError, ValueError):
    """A layout or position text that does not follow the documented format."""


class InvalidActionError(EngineError, ValueError):
    """An action that is malformed: unknown kind, wrong types, or a cell off the board."""


class IllegalActionError(EngineError):
    """A well-formed action the rules forbid now: the game is over, the cell is revealed, ..."""
