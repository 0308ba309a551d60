"""Typed errors of the engine.

Modelled on python-chess: a malformed request (`InvalidActionError`) is told apart from a
well-formed action that the rules forbid in this position (`IllegalActionError`), so that the
arena can record a bot's mistake precisely instead of catching a bare exception.
"""

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
