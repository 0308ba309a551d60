"""Arena throughput: games/s of a `random` tournament on each preset, 1 and 2 workers.

Also the arena's own overhead per game (scheduling, the store, the leaderboard): the whole
tournament's time with 1 worker minus the time of playing the very same games directly with
``arena.play.runner.play_game`` (engine plus player), per game, as a share of that direct cost.

Targets (issue 3): overhead < 10% of the cost of playing; 2 workers >= 1.8x the games/s of 1.

    python benchmarks/studies/arena_throughput.py [--games N] [--presets beginner,intermediate,expert]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numba
import numpy as np

from arena.analysis.leaderboard import build_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult
from arena.play.runner import play_game, warm_up
from arena.play.tournament import TournamentEvents, plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "arena_throughput.json"


def direct_seconds(config: TournamentConfig, registry: Registry) -> float:
    player = registry.create("random")
    warm_up(player)
    spec = config.spec
    start = time.perf_counter()
    for board in range(config.games):
        play_game(player, "random", spec, config.rule, config.seed, board)
    return time.perf_counter() - start


def tournament_seconds(config: TournamentConfig, registry: Registry, workers: int) -> tuple[float, float]:
    """(seconds for the whole run incl. pool start-up and the leaderboard, seconds of pool start-up)."""
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "bench.db") as store:
        first_result: list[float] = []
        start = time.perf_counter()

        class FirstBatch(TournamentEvents):
            def batch_done(self, results: Sequence[GameResult]) -> None:
                if not first_result:
                    first_result.append(time.perf_counter())

        run_tournament(plan_tournament(config, store, registry, workers=workers), store, FirstBatch())
        build_leaderboard(store, config.id)
        total = time.perf_counter() - start
    return total, (first_result[0] - start) if first_result else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=0, help="games per preset (default: scaled per preset)")
    parser.add_argument("--presets", default="beginner,intermediate,expert")
    args = parser.parse_args()
    default_games = {"beginner": 40_000, "intermediate": 20_000, "expert": 20_000}
    registry = Registry()
    rows = []
    for name in args.presets.split(","):
        spec = PRESETS[name]
        games = args.games or default_games[name]
        config = TournamentConfig.build(
            spec, FirstClick.SAFE, seed=20261122, games=games, players=(PlayerRef(name="random"),)
        )
        direct = direct_seconds(config, registry)
        one, _ = tournament_seconds(config, registry, 1)
        two, startup = tournament_seconds(config, registry, 2)
        overhead = (one - direct) / direct
        row = {
            "preset": name,
            "games": games,
            "direct_ms_per_game": 1000 * direct / games,
            "games_per_s_1_worker": games / one,
            "games_per_s_2_workers": games / two,
            "speedup_2_workers": one / two,
            "pool_startup_s": startup,
            # Once the workers are up: the rate a long tournament sees.
            "games_per_s_2_workers_after_startup": games / max(two - startup, 1e-9),
            "speedup_2_workers_after_startup": one / max(two - startup, 1e-9),
            "arena_overhead_ms_per_game": 1000 * (one - direct) / games,
            "arena_overhead_share": overhead,
            "overhead_target_met": overhead < 0.10,
            "speedup_target_met": one / two >= 1.8,
            "speedup_after_startup_target_met": one / max(two - startup, 1e-9) >= 1.8,
        }
        rows.append(row)
        print(
            f"{name:>12}: {games} games · play {row['direct_ms_per_game']:.3f} ms/game · "
            f"1 worker {row['games_per_s_1_worker']:,.0f} games/s · 2 workers {row['games_per_s_2_workers']:,.0f} "
            f"games/s (x{row['speedup_2_workers']:.2f}; x{row['speedup_2_workers_after_startup']:.2f} after the "
            f"{startup:.2f}s pool start) · arena overhead "
            f"{row['arena_overhead_ms_per_game'] * 1000:.1f} us/game = {100 * overhead:.1f}% of play",
            flush=True,
        )
    RESULTS.parent.mkdir(exist_ok=True)
    machine = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
    }
    RESULTS.write_text(json.dumps({"machine": machine, "rows": rows}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
