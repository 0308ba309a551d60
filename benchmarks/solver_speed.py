"""Speed of the solver library: ``analyze`` on real expert positions, and the parallel search.

Part 1 plays expert games (rule ``safe``, first click in the corner) with a plain greedy player
on ``analyze``: reveal every certain safe cell, otherwise the least likely mine (first in
row-major order). Every position it analyses is timed; the "midgame" figures keep positions with
20-80% of the safe cells revealed. Per-game time is the sum over the game's positions.

Part 2 times ``count_component`` on one large component, serial lanes versus ``prange`` lanes
(``parallel=False`` / ``True``), checks that the counts are identical, and reports the speed-up.
Real games never produce a component that needs it (the largest search below takes a few thousand
nodes), so the component is a stress position: a 16x30 board with mines at density 0.2 and 30%
of its safe cells revealed at random, which leaves a 100-cell component of about 16 million
search nodes after deduction.

Part 3 measures compile time in a fresh interpreter with an empty numba cache (cold) and with the
normal on-disk cache (warm).

    python benchmarks/solver_speed.py [--games 200] [--seed 1] [--repeat 3]

Writes benchmarks/results/solver_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import COVERED, EXPERT, Game, parse_position
from players.solver import analyze, count_component, extract_frontier
from players.solver.rref import reduce_system

RESULTS = Path(__file__).resolve().parent / "results" / "solver_speed.json"


def play(seed: int, index: int) -> tuple[bool, list[dict[str, Any]]]:
    """One greedy expert game; returns (won, one record per analysed position)."""
    game = Game(EXPERT, "safe", seed=seed, index=index)
    game.reveal(0, 0)
    safe_total = EXPERT.cells - EXPERT.mines
    records = []
    while not game.over:
        grid = game.grid.copy()
        t = time.perf_counter()
        result = analyze(grid, EXPERT.mines)
        elapsed = time.perf_counter() - t
        revealed = int((grid >= 0).sum())
        records.append(
            {
                "seconds": elapsed,
                "progress": revealed / safe_total,
                "nodes": result.nodes,
                "largest": max((c.system.n_cells for c in result.components), default=0),
                "frontier": result.frontier.system.n_cells,
            }
        )
        if result.safe:
            for r, c in result.safe:
                if not game.over and game.grid[r, c] == COVERED:
                    game.reveal(r, c)
        else:
            game.reveal(*result.best_guesses()[0])
    return game.won, records


def summary(seconds: np.ndarray) -> dict[str, float]:
    ms = seconds * 1e3
    return {
        "mean_ms": float(ms.mean()),
        "median_ms": float(np.median(ms)),
        "p99_ms": float(np.percentile(ms, 99)),
        "max_ms": float(ms.max()),
    }


def stress_component(seed: int = 7) -> Any:
    """The largest component (after deduction) of a random 16x30 position with 30% of its safe cells revealed."""
    rng = np.random.default_rng(seed)
    layout = rng.random((16, 30)) < 0.2
    padded = np.pad(layout, 1).astype(np.int64)
    numbers = sum(padded[1 + dr : 17 + dr, 1 + dc : 31 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    grid = np.full((16, 30), COVERED, dtype=np.int8)
    shown = ~layout & (rng.random((16, 30)) < 0.3)
    grid[shown] = numbers[shown]
    mines = int(layout.sum())
    _, pieces = reduce_system(extract_frontier(grid, mines).system, rref_min_cells=24)
    return max(pieces, key=lambda p: p.n_cells), mines


def parallel_ceiling(repeat: int) -> float:
    """Speed-up of a trivially parallel numba loop (independent arithmetic, no memory traffic):
    what the machine's cores can give at best, to read the solver's figure against."""
    from numba import njit, prange

    @njit
    def work(n: int) -> float:
        s = 0.0
        for i in range(n):
            s += np.sin(i * 1e-3)
        return s

    @njit(parallel=True)
    def threaded(n: int, out: np.ndarray) -> None:
        for i in prange(out.shape[0]):
            out[i] = work(n)

    @njit
    def serial(n: int, out: np.ndarray) -> None:
        for i in range(out.shape[0]):
            out[i] = work(n)

    out = np.zeros(16)
    threaded(10, out)
    serial(10, out)
    best = {}
    for f in (serial, threaded):
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            f(2_000_000, out)
            times.append(time.perf_counter() - t)
        best[f] = min(times)
    return best[serial] / best[threaded]


def parallel_speedup(repeat: int) -> dict[str, Any]:
    import numba

    component, mines = stress_component()
    timings: dict[str, list[float]] = {"serial": [], "parallel": []}
    results = {}
    for _ in range(repeat + 1):  # the first round compiles or loads the kernels
        for mode in ("serial", "parallel"):
            t = time.perf_counter()
            results[mode] = count_component(component, max_mines=mines, parallel=mode == "parallel")
            timings[mode].append(time.perf_counter() - t)
    serial, threaded = results["serial"], results["parallel"]
    identical = bool(
        np.array_equal(serial.totals, threaded.totals)
        and np.array_equal(serial.mine_counts, threaded.mine_counts)
        and np.array_equal(serial.support, threaded.support)
    )
    best_serial = min(timings["serial"][1:])
    best_parallel = min(timings["parallel"][1:])
    return {
        "cells": component.n_cells,
        "nodes": serial.nodes,
        "solutions": float(serial.solutions),
        "exact_int64": serial.exact,
        "threads": numba.get_num_threads(),
        "threading_layer": numba.threading_layer(),
        "serial_s": best_serial,
        "parallel_s": best_parallel,
        "speedup": best_serial / best_parallel,
        "machine_ceiling_speedup": parallel_ceiling(repeat),
        "identical_counts": identical,
    }


_CHILD = """
import time, numpy as np
t0 = time.perf_counter()
from players.solver import analyze
from engine import parse_position
t1 = time.perf_counter()
analyze(parse_position("1##\\n###\\n###"), 2)
t2 = time.perf_counter()
analyze(parse_position("1##\\n###\\n###"), 2, parallel=True, parallel_threshold=1, exact_cells=0)
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def compile_times() -> dict[str, float]:
    root = Path(__file__).resolve().parent.parent
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        for label, env_cache in (("cold", cache), ("warm", None)):
            env = dict(os.environ)
            if env_cache is not None:
                env["NUMBA_CACHE_DIR"] = env_cache
            done = subprocess.run(
                [sys.executable, "-c", _CHILD], cwd=root, env=env, capture_output=True, text=True, check=True
            )
            imports, first, other_paths = (float(x) for x in done.stdout.split())
            out[f"{label}_import_s"] = imports
            out[f"{label}_first_analyze_s"] = first
            out[f"{label}_float_and_parallel_paths_s"] = other_paths
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    # Load every kernel (RREF, int and float counts) before timing: one untimed game and one float count.
    play(args.seed + 10_000, 0)
    analyze(parse_position("1##\n###\n###"), 2, exact_cells=0)
    wins = 0
    records: list[dict[str, Any]] = []
    per_game = []
    for index in range(args.games):
        won, game_records = play(args.seed, index)
        wins += won
        records.extend(game_records)
        per_game.append(sum(r["seconds"] for r in game_records))
    seconds = np.array([r["seconds"] for r in records])
    mid = np.array([r["seconds"] for r in records if 0.2 <= r["progress"] <= 0.8])
    nodes = np.array([r["nodes"] for r in records])
    report = {
        "machine": {"python": platform.python_version(), "processor": platform.processor(), "cpus": os.cpu_count()},
        "games": args.games,
        "seed": args.seed,
        "wins": wins,
        "positions": len(records),
        "analyze_all": summary(seconds),
        "analyze_midgame": {"positions": len(mid), **summary(mid)},
        "per_game_ms": {"mean": float(np.mean(per_game) * 1e3), "max": float(np.max(per_game) * 1e3)},
        "search_nodes": {
            "median": float(np.median(nodes)),
            "p99": float(np.percentile(nodes, 99)),
            "max": int(nodes.max()),
        },
        "largest_component_cells": int(max(r["largest"] for r in records)),
        "largest_frontier_cells": int(max(r["frontier"] for r in records)),
        "parallel": parallel_speedup(args.repeat),
        "compile": compile_times(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
