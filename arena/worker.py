"""What runs inside a worker process: a batch of boards, every pending player on each.

Workers rebuild the registry themselves (plugins are code, not data to pickle) and keep one
instance per player for the life of the process. Only plain values cross the process boundary.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from arena.config import PlayerRef, TournamentConfig
from arena.runner import GameResult, Outcome, play_game
from engine import BEGINNER, FirstClick
from players import Player, Registry

__all__ = ["Batch", "init_worker", "run_batch"]


@dataclass(frozen=True, slots=True)
class Batch:
    """Boards to play, and for each board the player keys that still need it."""

    config: TournamentConfig
    work: tuple[tuple[int, tuple[str, ...]], ...]

    @property
    def games(self) -> int:
        return sum(len(keys) for _, keys in self.work)


_WARM_UP_SEED = 2**62 + 12345
_registry: Registry | None = None
_instances: dict[str, Player] = {}


def init_worker(plugin_files: tuple[str, ...] = (), single_thread: bool = True, pool: bool = True) -> None:
    """Process initializer: load plugins once; keep numba's parallel code to one thread so that
    N workers on N cores do not oversubscribe them. Pool workers ignore Ctrl-C: the parent
    decides how to stop, and lets running batches finish so their games are committed."""
    global _registry
    if pool:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _registry = Registry(plugin_files)
    _instances.clear()
    if single_thread:
        # Only the runtime call: changing NUMBA_NUM_THREADS after numba is imported breaks it.
        import numba

        numba.set_num_threads(1)


def _player(ref: PlayerRef) -> Player:
    global _registry
    if _registry is None:
        _registry = Registry()
    player = _instances.get(ref.key)
    if player is None:
        player = _registry.create(ref.name, ref.options)
        warm_up(player)
        _instances[ref.key] = player
    return player


def warm_up(player: Player) -> None:
    """Play one throwaway game so that compiling (or loading cached) numba code is not billed
    to the first real game's time. Its result is discarded."""
    play_game(player, "warm-up", BEGINNER, FirstClick.SAFE, _WARM_UP_SEED, 0)


def run_batch(batch: Batch) -> list[GameResult]:
    config = batch.config
    spec = config.spec
    refs = {ref.key: ref for ref in config.players}
    results = []
    for board, keys in batch.work:
        for key in keys:
            try:
                player = _player(refs[key])
            except Exception as exc:  # a constructor that raises costs that player its games, nothing more
                error = f"could not set up the player: {type(exc).__name__}: {exc}"
                results.append(GameResult.failed(key, board, Outcome.ERROR, error))
                continue
            results.append(play_game(player, key, spec, config.rule, config.seed, board, move_limit=config.move_limit))
    return results
