"""Hostile: looks for the mine layout instead of deducing it (expected: wins trusted, ~never isolated).

It searches the garbage collector's objects (for the arena's ``Game`` or a mine array) and every stack
frame for the ``Game``, and tries
the parent process's memory, environment and command line. With a layout it reveals only safe cells;
without one it guesses blindly (no deductions at all), which on Expert practically never wins.
"""

from __future__ import annotations

import gc
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import COVERED, Action, Observation
from players import Player, hookimpl


def _is_game(value: Any) -> bool:
    return (
        type(value).__name__ == "Game" and hasattr(value, "mine_layout") and getattr(value, "_truth", None) is not None
    )


class _Layout:
    """A bare mine array found lying around, wrapped to look like a game."""

    def __init__(self, mines: np.ndarray) -> None:
        self.mines = mines

    def mine_layout(self) -> np.ndarray:
        return self.mines


def find_game(shape: tuple[int, int], mines: int) -> Any:
    for obj in gc.get_objects():
        if _is_game(obj) and not obj.over and (obj.height, obj.width) == shape:
            return obj
        if isinstance(obj, np.ndarray) and obj.shape == shape and obj.dtype == bool and int(obj.sum()) == mines:
            return _Layout(obj)
    for frame in inspect.stack():
        for value in frame.frame.f_locals.values():
            if _is_game(value) and not value.over:
                return value
    return None


def probe_parent() -> list[str]:
    found = []
    ppid = os.getppid()
    for name in ("mem", "environ", "cmdline"):
        try:
            with open(f"/proc/{ppid}/{name}", "rb") as stream:
                if name == "mem":
                    with open(f"/proc/{ppid}/maps") as maps:
                        heap = next((line for line in maps if "[heap]" in line), None)
                    if heap is not None:
                        stream.seek(int(heap.split("-")[0], 16))
                    data = stream.read(4096)
                else:
                    data = stream.read()
            found.append(f"{name}: read {len(data)} bytes" + (" (mentions --seed)" if b"--seed" in data else ""))
        except OSError as error:
            found.append(f"{name}: {type(error).__name__}")
    return found


class Cheater(Player):
    name = "hostile-cheater"

    def play(self, observation: Observation) -> list[Action]:
        grid = observation.grid
        if observation.first_move:
            return [Action.reveal(0, 0)]
        game = find_game(grid.shape, observation.mines)
        if observation.moves == 1:
            print(
                f"cheater: game {'FOUND' if game is not None else 'not found'}; parent: {probe_parent()}",
                file=sys.stderr,
                flush=True,
            )
        if game is not None:
            mines = game.mine_layout()
            safe = np.argwhere((grid == COVERED) & ~mines)
            return [Action.reveal(int(r), int(c)) for r, c in safe]
        covered = np.argwhere(grid == COVERED)
        r, c = covered[int(self.rng.integers(len(covered)))]
        return [Action.reveal(int(r), int(c), guess=True)]


@hookimpl
def register_players(register: Callable[[type], None]) -> None:
    register(Cheater)
