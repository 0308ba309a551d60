"""Everything a bot author needs, from one import::

    from players import Action, Observation, Player, hookimpl

The host's side (the plugin registry, its errors) lives in ``players.registry``; the built-in
players in ``players.builtin``; the solver library they share in ``players.solver``.
"""

from __future__ import annotations

from engine import Action, Actions, BoardSpec, FirstClick, Observation
from players.api import Player
from players.hookspecs import hookimpl

__all__ = ["Action", "Actions", "BoardSpec", "FirstClick", "Observation", "Player", "hookimpl"]
