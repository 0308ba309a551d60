"""The player API: what a bot author subclasses.

A player sees ``Observation`` objects and answers with ``Action`` values; it never sees the
game. Randomness comes only from the generator handed to ``reset`` so that every decision is
reproducible from the tournament seed.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from engine import Action, BoardSpec, FirstClick, Observation
from engine.compiled_game import CompiledGame

__all__ = [
    "NAME_PATTERN",
    "Player",
    "PlayerError",
    "PlayerOptionsError",
    "corner_first_click",
]

#: Leaderboard identity depends on names, so they are short, lower-case and stable.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class PlayerError(Exception):
    """A player class or its configuration is unusable."""


class PlayerOptionsError(PlayerError, ValueError):
    """Options that the player's ``Options`` model refuses."""


def corner_first_click(observation: Observation) -> tuple[int, int]:
    """The conventional opening: a corner under ``safe``/``none``/``windows`` (most likely a zero
    there), a cell three in from the corner under ``opening`` (a guaranteed zero anywhere, and
    one that far in opens the most)."""
    if observation.rule is FirstClick.OPENING:
        return min(3, observation.height - 1), min(3, observation.width - 1)
    return 0, 0


class Player(abc.ABC):
    """Base class of every player, built-in or third-party.

    Subclasses set ``name`` (stable, it is the leaderboard identity) and ``description``, may
    define a nested ``Options(Player.Options)`` pydantic model for their knobs, and implement
    ``play``. ``play`` may return one action or several: returning every certain move at once
    saves round trips. Mark uncertain reveals with ``Action.reveal(r, c, guess=True)``; the
    arena reports them as the player's guesses. An action may carry a ``note`` (and ``p_mine``, the
    player's own estimate): stored with the move in the game's record and shown in replays.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    version: ClassVar[str] = "1"

    class Options(BaseModel):
        """No knobs by default. Unknown options are an error, never silently ignored."""

        model_config = ConfigDict(extra="forbid", frozen=True)

    def __init__(self, options: Mapping[str, Any] | BaseModel | None = None) -> None:
        self.options = self.parse_options(options)
        self.rng: np.random.Generator = np.random.default_rng(0)
        self.spec: BoardSpec | None = None
        self.rule: FirstClick | None = None

    @classmethod
    def parse_options(cls, options: Mapping[str, Any] | BaseModel | None) -> Any:
        if isinstance(options, cls.Options):
            return options
        if isinstance(options, BaseModel):
            options = options.model_dump()
        try:
            return cls.Options(**dict(options or {}))
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in error.errors()
            )
            raise PlayerOptionsError(f"player {cls.name!r}: {problems}") from None

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        """Start a new game. Override to clear per-game state; call ``super().reset``."""
        self.rng = rng
        self.spec = spec
        self.rule = rule

    @abc.abstractmethod
    def play(self, observation: Observation) -> Action | Iterable[Action]:
        """Return the next action, or several to be played in order: a list of ``Action``, or an
        ``Actions`` (the same moves as one array, the cheapest to play; see ``engine.actions``)."""

    def play_compiled(self, game: CompiledGame, seed_words: np.ndarray, move_limit: int) -> bool:
        """Optional: play a whole game at once, in compiled code, instead of ``play`` move by move.

        Only for players the arena runs in its own process (built-in or trusted), whose moves are
        otherwise dominated by Python round trips. ``game`` holds the board's state as arrays
        (``engine.compiled_game``: read its ``view`` only, play through its ``reveal`` and
        ``play_cells``, passing its ``log``: the arena stores the moves logged there as the game's
        record); ``seed_words`` is this game's seed (``engine.layout.player_seed_words``:
        ``engine.rng.player_state`` of it is the generator ``reset`` would have had). Every move
        must be the one ``play`` would make. Return False to decline, before or during the game:
        the arena then plays the board again from the start with ``play``. By default, declines.
        """
        return False

    def first_click(self, observation: Observation) -> tuple[int, int]:
        """Where this player opens; the default is ``corner_first_click``."""
        return corner_first_click(observation)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.options!r}>"
