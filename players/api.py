"""The player API: what a bot author subclasses (docs/players.md, "Writing a bot")."""

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
    """The conventional opening: a corner (the likeliest zero), or under ``opening`` (a zero
    anywhere) three cells in, which opens the most."""
    if observation.rule is FirstClick.OPENING:
        return min(3, observation.height - 1), min(3, observation.width - 1)
    return 0, 0


class Player(abc.ABC):
    """Base class of every player: set ``name`` (the leaderboard identity) and ``description``,
    implement ``play``, and declare knobs in a nested ``Options(Player.Options)`` model. Randomness
    comes only from ``self.rng``, seeded per board, so every decision can be reproduced."""

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
        """Optional, for players run in the arena's process: play the whole game in compiled code on
        ``game`` (read its ``view``, play through ``reveal`` and ``play_cells`` with its ``log``),
        making every move ``play`` would, with the generator ``engine.rng.player_state(seed_words)``.
        False declines, at any point: the arena replays the board with ``play``."""
        return False

    def play_compiled_boards(
        self,
        game: CompiledGame,
        seed: int,
        boards: np.ndarray,
        move_limit: int,
        figures: np.ndarray,
        logs: np.ndarray,
        log_ends: np.ndarray,
    ) -> bool:
        """Optional, with ``play_compiled``: ``play_compiled``'s games on each of ``boards`` of ``seed`` in
        turn, many to a call (a Beginner game costs less than the calls around it). Fills each board's row
        of ``figures`` and its move log as ``players.builtin.enumeration_compiled.play_boards`` documents;
        a board it leaves not done is replayed with ``play``. False: not offered (the arena then calls
        ``play_compiled`` once a game)."""
        return False

    def first_click(self, observation: Observation) -> tuple[int, int]:
        """Where this player opens; the default is ``corner_first_click``."""
        return corner_first_click(observation)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.options!r}>"
