"""Hostile: answers with things that are not actions (expected: illegal, never an arena exception)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import Action, Observation
from players import Player, hookimpl


class Garbage(Player):
    name = "hostile-garbage"

    def play(self, observation: Observation) -> Any:
        if observation.first_move:
            return [Action.reveal(0, 0)]
        junk: list[Any] = [object(), {"reveal": (1, 1)}, ("reveal", 1.5, 0), 42, ("explode", 0, 0)]
        return junk[observation.moves % len(junk)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Garbage)
