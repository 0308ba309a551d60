"""Hostile: writes megabytes to stderr and chatter to stdout on every move, then plays like `random`
(expected: won or lost: a chatty bot neither blocks nor corrupts the protocol)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from engine import Action, Observation
from players import hookimpl
from players.builtin.random_player import RandomPlayer

LINE = "flood " * 200 + "\n"


class Flooder(RandomPlayer):
    name = "hostile-flooder"

    def play(self, observation: Observation) -> list[Action]:
        sys.stderr.write(LINE * 500)  # ~600 kB, far beyond a pipe's buffer
        sys.stderr.flush()
        print("this is not the protocol", flush=True)  # the host points stdout at stderr
        os.write(1, b"nor is this, from fd 1\n")
        return super().play(observation)


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Flooder)
