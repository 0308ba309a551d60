"""Everything a bot author needs, from one import: ``from players import Action, Observation,
Player, hookimpl``. The host's side is ``players.registry``."""

from __future__ import annotations

from engine import Action, Actions, BoardSpec, FirstClick, Observation
from players.api import Player
from players.hookspecs import hookimpl

__all__ = ["Action", "Actions", "BoardSpec", "FirstClick", "Observation", "Player", "hookimpl"]
