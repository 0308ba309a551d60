"""A game's process never imports scipy's linear algebra (``engine.numba_setup``), and compiled
code that does need BLAS still gets it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLAY_EVERY_PLAYER = """
import json, sys
from arena.play.runner import play_game
from engine import EXPERT, FirstClick
from players.registry import Registry

registry = Registry((), entry_points=False)
played = 0
for name in sorted(registry.players):
    player = registry.create(name)
    for board in range(3):
        play_game(player, name, EXPERT, FirstClick.SAFE, 5, board, record=True)
        played += 1
import numba.np.arraymath
print(json.dumps({"played": played, "linalg": "scipy.linalg" in sys.modules,
                  "blas_choice": numba.np.arraymath._HAVE_BLAS}))
"""

BLAS_KERNEL = """
import numpy as np
import engine  # noqa: F401  (hides scipy's BLAS while numba loads its numpy support)
from numba import njit

@njit
def dot(a, b):
    return np.dot(a, b)

print(dot(np.arange(3.0), np.ones(3)))
"""


def _run(script: str) -> str:
    """``script``'s last line of output, run in a fresh interpreter (numba's usual cache)."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[-1]


@pytest.mark.slow
def test_games_of_every_builtin_player_leave_scipy_linalg_unimported() -> None:
    got = json.loads(_run(PLAY_EVERY_PLAYER))
    assert got["played"] >= 18  # six players, three boards each
    assert got["linalg"] is False
    assert got["blas_choice"] is False


@pytest.mark.slow
def test_compiled_code_that_needs_blas_still_compiles() -> None:
    assert _run(BLAS_KERNEL) == "3.0"
