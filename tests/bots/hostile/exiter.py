"""Hostile: calls sys.exit in play() (expected: error: the host reports SystemExit as the bot's exception)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from engine import Action, Observation
from players import Player, hookimpl


class Exiter(Player):
    name = "hostile-exiter"

    def play(self, observation: Observation) -> list[Action]:
        sys.exit(3)


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Exiter)
