"""Tournaments, the results store, statistics, leaderboards and the command line.

The front door for Python users: what it takes to run a tournament, open a store and build a leaderboard
without the CLI (docs/architecture.md shows it in a short example)::

    from arena import PlayerRef, Registry, Store, TournamentConfig, build_leaderboard, plan_tournament, run_tournament
    from engine import BEGINNER, FirstClick

    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=0, games=100, players=(PlayerRef(name="random"),))
    with Store("results.db") as store:
        plan = plan_tournament(config, store, Registry())  # what the store lacks, and the workers
        run_tournament(plan, store)
        leaderboard = build_leaderboard(store, config.id)

The names load lazily, on first use: ``import arena`` costs nothing, so the command line and the worker
processes that import a part of the arena pay only for that part.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.analysis.leaderboard import Leaderboard, LeaderboardRow, build_leaderboard
    from arena.analysis.pairs import Split, split_boards
    from arena.analysis.stats import PairedComparison, compare_paired, wilson_interval
    from arena.config import PlayerRef, RecordMode, TournamentConfig
    from arena.outcome import GameResult, Outcome
    from arena.play.events import TournamentEvents
    from arena.play.plan import TournamentPlan, TournamentSummary, plan_tournament
    from arena.play.tournament import TournamentInterrupted, run_tournament
    from arena.results.store import Store, StoreError
    from arena.results.stored import StoredPlayer, StoredTournament
    from players.registry import Registry

#: Each public name and the module that defines it.
_HOMES = {
    "GameResult": "arena.outcome",
    "Leaderboard": "arena.analysis.leaderboard",
    "LeaderboardRow": "arena.analysis.leaderboard",
    "Outcome": "arena.outcome",
    "PairedComparison": "arena.analysis.stats",
    "PlayerRef": "arena.config",
    "RecordMode": "arena.config",
    "Registry": "players.registry",
    "Split": "arena.analysis.pairs",
    "Store": "arena.results.store",
    "StoreError": "arena.results.store",
    "StoredPlayer": "arena.results.stored",
    "StoredTournament": "arena.results.stored",
    "TournamentConfig": "arena.config",
    "TournamentEvents": "arena.play.events",
    "TournamentInterrupted": "arena.play.tournament",
    "TournamentPlan": "arena.play.plan",
    "TournamentSummary": "arena.play.plan",
    "build_leaderboard": "arena.analysis.leaderboard",
    "compare_paired": "arena.analysis.stats",
    "plan_tournament": "arena.play.plan",
    "run_tournament": "arena.play.tournament",
    "split_boards": "arena.analysis.pairs",
    "wilson_interval": "arena.analysis.stats",
}

__all__ = [
    "GameResult",
    "Leaderboard",
    "LeaderboardRow",
    "Outcome",
    "PairedComparison",
    "PlayerRef",
    "RecordMode",
    "Registry",
    "Split",
    "Store",
    "StoreError",
    "StoredPlayer",
    "StoredTournament",
    "TournamentConfig",
    "TournamentEvents",
    "TournamentInterrupted",
    "TournamentPlan",
    "TournamentSummary",
    "build_leaderboard",
    "compare_paired",
    "plan_tournament",
    "run_tournament",
    "split_boards",
    "wilson_interval",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
