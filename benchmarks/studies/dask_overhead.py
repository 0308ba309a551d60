"""Dask overhead: games/s of the local pool of 2 workers vs a Dask LocalCluster of 2 workers, same games.

Expert boards, first click safe; `random` (cheap games: the per-batch overhead shows) and `enumeration`
(expensive games). The cluster's start-up is reported separately; the games/s of both backends cover the
whole run after that (the pool's own start-up, the players' warm-up in every worker, every batch, every
commit). The pool is new, so cold, in every run: its figure is the best of ``--repeat`` runs. The cluster's
workers stay up between runs: its headline figure is its first (cold) run of each player, the warm figure
the best of the later ones. Every run is saved, to judge the noise of a shared machine.

Target (issue 5): the Dask LocalCluster within 15% of the local pool's games/s.

    python benchmarks/studies/dask_overhead.py [--random-games 2000] [--enumeration-games 400] [--repeat 3]
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

from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult
from arena.play.backends import Backend, PoolBackend
from arena.play.backends.dask_cluster import DaskBackend
from arena.play.runner import warm_up
from arena.play.tournament import TournamentEvents, plan_tournament, run_tournament
from arena.results.store import Store
from engine import EXPERT, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "dask_overhead.json"
WORKERS = 2
TARGET = 0.15


def timed_run(config: TournamentConfig, backend: Backend) -> tuple[float, float, float]:
    """(seconds for the whole tournament, seconds until the first batch was committed, games/s after it)."""
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "bench.db") as store:
        first: list[tuple[float, int]] = []
        start = time.perf_counter()

        class FirstBatch(TournamentEvents):
            def batch_done(self, results: Sequence[GameResult]) -> None:
                if not first:
                    first.append((time.perf_counter() - start, len(results)))

        plan = plan_tournament(config, store, Registry())
        summary = run_tournament(plan, store, FirstBatch(), backend=backend)
        seconds = time.perf_counter() - start
        assert summary.played == config.games, summary
    first_s, first_games = first[0]
    # Once the workers are up and warm: the rate a long tournament sees.
    steady = (config.games - first_games) / max(seconds - first_s, 1e-9)
    return seconds, first_s, steady


def runs(repeat: int, config: TournamentConfig, backend: Backend) -> list[tuple[float, float, float]]:
    return [timed_run(config, backend) for _ in range(repeat)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=2000)
    parser.add_argument("--enumeration-games", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()

    started = time.perf_counter()
    dask = DaskBackend(workers=WORKERS)
    dask.start()
    startup = time.perf_counter() - started
    print(f"Dask LocalCluster of {WORKERS} workers started in {startup:.2f}s", flush=True)
    rows = []
    try:
        for player, games in (("random", args.random_games), ("enumeration", args.enumeration_games)):
            config = TournamentConfig.build(
                EXPERT, FirstClick.SAFE, seed=args.seed, games=games, players=(PlayerRef(name=player),)
            )
            # Compile (or load) the player's numba code once here, as the workers run it (one numba thread),
            # so that the numba cache on disk is fresh and no run below pays for a compilation.
            numba.set_num_threads(1)
            warm_up(Registry().create(player))
            pool_runs = runs(args.repeat, config, PoolBackend(WORKERS))
            dask_runs = runs(args.repeat, config, dask)
            # Apples to apples: a pool is new (cold) every run, so compare with the cluster's first run
            # of this player, when its workers warm the player up too; later runs are warm.
            (pool_s, pool_first, _), (dask_s, dask_first, _) = min(pool_runs), dask_runs[0]
            dask_warm = min(dask_runs[1:] or dask_runs)[0]
            pool_steady = max(steady for *_, steady in pool_runs)
            dask_steady = max(steady for *_, steady in dask_runs)
            pool_rate, dask_rate = games / pool_s, games / dask_s
            shortfall = 1 - dask_rate / pool_rate
            row = {
                "player": player,
                "preset": "expert",
                "games": games,
                "pool_seconds": pool_s,
                "dask_seconds": dask_s,
                "pool_games_per_s": pool_rate,
                "dask_games_per_s": dask_rate,
                "dask_warm_games_per_s": games / dask_warm,
                "pool_first_batch_s": pool_first,
                "dask_first_batch_s": dask_first,
                "dask_shortfall": shortfall,
                "pool_games_per_s_after_first_batch": pool_steady,
                "dask_games_per_s_after_first_batch": dask_steady,
                "dask_shortfall_after_first_batch": 1 - dask_steady / pool_steady,
                # Every run: a pool is new each run; the cluster's workers stay up (and warm) between runs,
                # so its first run is the cold one.
                "pool_runs_s": [run[0] for run in pool_runs],
                "dask_runs_s": [run[0] for run in dask_runs],
                "target_met": shortfall <= TARGET,
            }
            rows.append(row)
            print(
                f"{player:>12}: {games} expert games · pool {pool_rate:,.1f} games/s · dask {dask_rate:,.1f} "
                f"games/s ({100 * shortfall:+.1f}% slower; warm {games / dask_warm:,.1f} games/s; first batch "
                f"{pool_first:.2f}s vs {dask_first:.2f}s; "
                f"after it {pool_steady:,.1f} vs {dask_steady:,.1f} games/s) · "
                f"target {'met' if shortfall <= TARGET else 'MISSED'}",
                flush=True,
            )
    finally:
        dask.close()
    machine = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
        "load_average_at_end": os.getloadavg(),
    }
    RESULTS.parent.mkdir(exist_ok=True)
    payload = {
        "machine": machine,
        "workers": WORKERS,
        "repeat": args.repeat,
        "dask_cluster_startup_s": startup,
        "target_shortfall": TARGET,
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
