"""Every built-in player plays exactly the games it played before a change (``benchmarks/same_games.py``).

A refactoring of the engine or a solver must not change a single move. The stored hashes are of
25 boards per difficulty and first-click rule; the benchmark hashes 300. When a change is meant to
change a player's play, measure it (a benchmark with its interval) and then update that player's hash.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("same_games", Path(__file__).parents[2] / "benchmarks" / "same_games.py")
same_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(same_games)

EXPECTED = {
    "apex": "35959b131908b49f5e2f10289ac9adfee1d761d14952dd801ca3f2bfeecda0e4",
    "enumeration": "f72c008f45701c7f7c5d2b6ed9da358cb059dba1214275904174b66c475aa2b6",
    "max-single-constraint": "399bc53bb5ca813e6e384ac6d7665cc564d8578dc984c5eb41a0aa09db2eb831",
    "mean-constraint": "057733f93918cac7cee25c10001c2e1b1987a42acc221bdf778ceb172003a48e",
    "random": "92b90902a236b70195c0b8ff9c92db2a7043cce2a9c01cc5ab4045479a205029",
    "rref": "5f866c6fa5d639faab2aab98169d4ad45a0f685cea4988a32d7173fee27f01e9",
    "all": "65e094ebf8032c7ac1f8488a2e38e00c9913c706d34244976668c78789f6878c",
}


@pytest.mark.slow
def test_every_builtin_player_plays_the_same_games() -> None:
    assert same_games.games_digest(25) == EXPECTED
