"""Hostile: sleeps far past the move limit, in a child process of its own too (expected: timeout, and the
whole process group, grandchild included, killed)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

from engine import Action, Observation
from players import Player, hookimpl


class Sleeper(Player):
    name = "hostile-sleeper"

    def play(self, observation: Observation) -> list[Action]:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"sleeper-child-pid {child.pid}", file=sys.stderr, flush=True)
        time.sleep(600)
        return [Action.reveal(0, 0)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Sleeper)
