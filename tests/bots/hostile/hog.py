"""Hostile: allocates without bound (expected: error with MemoryError, stopped by the address-space limit).

bytes(n) memory is zero pages until written, so hitting the limit costs address space, not RAM."""

from __future__ import annotations

from collections.abc import Callable

from engine import Action, Observation
from players import Player, hookimpl


class Hog(Player):
    name = "hostile-hog"

    def play(self, observation: Observation) -> list[Action]:
        blocks = []
        while True:
            blocks.append(bytes(256 << 20))


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Hog)
