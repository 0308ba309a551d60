"""Speed of the solver library: ``analyze`` on real expert positions, the enumeration player's
games, the parallel search, and compile times.

Part 1 plays expert games (rule ``safe``, first click in the corner) with a plain greedy player
on ``analyze``: reveal every certain safe cell, otherwise the least likely mine (first in
row-major order). Every position it analyses is then timed through ``analyze`` (the compiled fast
path, ``players.solver.fast``) and through ``analyze_general`` (the numpy pipeline that was all of
``analyze`` before the fast path, still its fallback), one solver at a time, in CPU time, the least
of ``--repeat`` passes; the two results are compared field by field (probabilities to the bit,
weighted and unweighted). The "midgame" figures keep positions with 20-80% of the safe cells
revealed. Per-game time is the sum over the game's positions.

Part 2 is the built-in ``enumeration`` player (the published full-enumeration solver) through
``arena.play.runner.play_game``: CPU ms per game (the runner's per-game thread time: the player and
the engine together) on Beginner, Intermediate and Expert (rule ``safe``), one thread, numba
cache warm, against the Rust solver's figures (REFERENCES.md). The player plays its in-process
games whole, in compiled code (``Player.play_compiled``); the same boards are also played move by
move (``play_game(..., compiled=False)``, as an isolated bot plays), and the two sets of results
are compared (everything but the timings must be identical). The "replay floor" replays the
same games' moves, move by move, with a player that only reads them from a list: the runner's and
the engine's share of a move-by-move game, which no move-by-move player can go below. Game costs
have a heavy tail (a rare position needs a search of millions of nodes: one expert game in a few
hundred takes 100+ ms), so the mean of a few hundred games moves by 20% from one seed to another;
the median is steadier.

Part 3 times ``count_component`` on one large component, serial lanes versus ``prange`` lanes
(``parallel=False`` / ``True``), checks that the counts are identical, and reports the speed-up.
Real games never produce a component that needs it (the largest search below takes a few thousand
nodes), so the component is a stress position: a 16x30 board with mines at density 0.2 and 30%
of its safe cells revealed at random, which leaves a 100-cell component of about 16 million
search nodes after deduction.

Part 4 measures compile time in a fresh interpreter with an empty numba cache (cold) and with the
normal on-disk cache (warm): the fast path (first ``analyze``), the general path's extra kernels
(float counts and lanes), the enumeration player's own kernels, and its compiled whole games
(``engine.compiled_game``, ``engine.rng``, ``players.builtin.enumeration_compiled``).

    python benchmarks/studies/solver_speed.py [--games 200] [--player-games 2000,1000,500] [--seed 1] [--repeat 3]

Writes benchmarks/studies/results/solver_speed.json.
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

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.play.runner import play_game
from engine import COVERED, EXPERT, PRESETS, Action, FirstClick, Game, Observation
from engine.layout import parse_position
from players.api import Player
from players.builtin.enumeration_player import EnumerationPlayer
from players.solver import Analysis, analyze, count_component, extract_frontier
from players.solver.analysis import analyze_general
from players.solver.rref import reduce_system

RESULTS = Path(__file__).resolve().parent / "results" / "solver_speed.json"
#: The Rust solver's CPU ms per game on this kind of machine (REFERENCES.md).
RUST_MS = {"beginner": 0.085, "intermediate": 0.53, "expert": 2.3}
PRESET_ORDER = ("beginner", "intermediate", "expert")


def identical(a: Analysis, b: Analysis) -> bool:
    """Every field of two analyses equal, float arrays to the bit (NaN where NaN)."""
    if not (
        a.probabilities.tobytes() == b.probabilities.tobytes()
        and a.frontier_mines.tobytes() == b.frontier_mines.tobytes()
        and (a.safe, a.mines, a.log_weight, a.nodes) == (b.safe, b.mines, b.log_weight, b.nodes)
        and np.array_equal([a.unconstrained_probability], [b.unconstrained_probability], equal_nan=True)
        and len(a.components) == len(b.components)
    ):
        return False
    pairs = [(a.frontier.system, b.frontier.system)]
    pairs += [(x.system, y.system) for x, y in zip(a.components, b.components, strict=True)]
    arrays = [(a.frontier.unconstrained, b.frontier.unconstrained), (a.frontier.flags, b.frontier.flags)]
    for x, y in pairs:
        arrays += [(x.cells, y.cells), (x.constraints, y.constraints), (x.rhs, y.rhs), (x.sources, y.sources)]
    for x, y in zip(a.components, b.components, strict=True):
        arrays += [(x.totals, y.totals), (x.mine_counts, y.mine_counts), (x.support, y.support)]
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in arrays)


def play(seed: int, index: int) -> tuple[bool, list[dict[str, Any]]]:
    """One greedy expert game; returns (won, one record per analysed position, with its grid).

    Each position is also analysed by ``analyze_general``, weighted and unweighted, and the record
    says whether the two paths agreed on every field (``identical``)."""
    game = Game(EXPERT, "safe", seed=seed, index=index)
    game.reveal(0, 0)
    safe_total = EXPERT.cells - EXPERT.mines
    records = []
    while not game.over:
        grid = game.grid.copy()
        result = analyze(grid, EXPERT.mines)
        same = identical(result, analyze_general(grid, EXPERT.mines)) and identical(
            analyze(grid, EXPERT.mines, weighted=False), analyze_general(grid, EXPERT.mines, weighted=False)
        )
        records.append(
            {
                "grid": grid,
                "identical": same,
                "progress": int((grid >= 0).sum()) / safe_total,
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


def time_positions(grids: list[np.ndarray], solver: Any, repeat: int) -> np.ndarray:
    """CPU seconds of ``solver(grid, mines)`` per position: the least of ``repeat`` passes over all
    the positions (one solver at a time, so that neither evicts the other from the caches)."""
    best = np.full(len(grids), np.inf)
    for _ in range(repeat):
        for i, grid in enumerate(grids):
            t = time.thread_time()
            solver(grid, EXPERT.mines)
            best[i] = min(best[i], time.thread_time() - t)
    return best


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
        "solutions": float(serial.totals.sum()),
        "exact_int64": serial.exact,
        "threads": numba.get_num_threads(),
        "threading_layer": numba.threading_layer(),
        "serial_s": best_serial,
        "parallel_s": best_parallel,
        "speedup": best_serial / best_parallel,
        "machine_ceiling_speedup": parallel_ceiling(repeat),
        "identical_counts": identical,
    }


class Replay(Player):
    """Plays back a recorded game's answers: the runner and the engine at work, no thinking."""

    name = "replay"

    def __init__(self) -> None:
        super().__init__()
        self.script: list[list[Action]] = []

    def play(self, observation: Observation) -> list[Action]:
        return self.script.pop()


class Recorder(EnumerationPlayer):
    """The enumeration player, keeping its answers for ``Replay``."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[list[Action]] = []

    def play(self, observation: Observation) -> list[Action]:
        answer = super().play(observation)
        self.answers.append(answer)
        return answer


def deterministic(result: Any) -> dict[str, Any]:
    """A game's result without its timings."""
    row = result.as_row()
    del row["cpu_ms"], row["wall_ms"]
    return row


def enumeration_games(games: dict[str, int], seed: int, repeat: int) -> dict[str, Any]:
    """CPU ms per game of the ``enumeration`` player on each preset (one thread, warm cache)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    player = EnumerationPlayer()
    for board in range(5):  # load every kernel (rules, fast path, guess) before timing
        play_game(player, "warm-up", EXPERT, FirstClick.SAFE, seed + 10_000, board)
    out: dict[str, Any] = {}
    for preset in PRESET_ORDER:
        spec, n = PRESETS[preset], games[preset]
        runs, wins, cpu, stepped = [], 0, np.zeros(n), []
        for _ in range(repeat):
            results = [play_game(player, "enumeration", spec, FirstClick.SAFE, seed, b) for b in range(n)]
            cpu = np.array([r.cpu_ms for r in results])
            runs.append(float(cpu.mean()))
            wins = sum(r.won for r in results)
            moves = [play_game(player, "enumeration", spec, FirstClick.SAFE, seed, b, compiled=False) for b in range(n)]
            stepped.append(float(np.mean([r.cpu_ms for r in moves])))
        same = sum(deterministic(a) == deterministic(b) for a, b in zip(results, moves, strict=True))
        recorder, replay, scripts = Recorder(), Replay(), []
        for b in range(n):
            recorder.answers = []
            play_game(recorder, "enumeration", spec, FirstClick.SAFE, seed, b)
            scripts.append(recorder.answers[::-1])
        floors = []
        for _ in range(repeat):
            replayed = []
            for b in range(n):
                replay.script = list(scripts[b])
                replayed.append(play_game(replay, "replay", spec, FirstClick.SAFE, seed, b).cpu_ms)
            floors.append(float(np.mean(replayed)))
        ms = float(np.median(runs))
        out[preset] = {
            "games": n,
            "wins": wins,
            "ms_per_game": ms,
            "ms_per_game_runs": runs,
            "median_ms_per_game": float(np.median(cpu)),
            "p99_ms_per_game": float(np.percentile(cpu, 99)),
            "max_ms_per_game": float(cpu.max()),
            "move_by_move_ms_per_game": float(np.median(stepped)),
            "move_by_move_ms_per_game_runs": stepped,
            "games_identical_both_ways": same,
            "replay_floor_ms_per_game": float(np.median(floors)),
            "move_by_move_player_ms_per_game": float(np.median(stepped)) - float(np.median(floors)),
            "rust_ms_per_game": RUST_MS[preset],
            "ratio_to_rust": ms / RUST_MS[preset],
        }
    numba.set_num_threads(threads)
    return out


_CHILD = """
import time, numpy as np
t0 = time.perf_counter(); c0 = time.process_time()
from players.solver import analyze
from engine.layout import parse_position
grid = parse_position("1##\\n###\\n###")
t1 = time.perf_counter(); c1 = time.process_time()
analyze(grid, 2)
analyze(grid, 2, weighted=False)
t2 = time.perf_counter(); c2 = time.process_time()
analyze(grid, 2, parallel=True, parallel_threshold=1, exact_cells=0)
t3 = time.perf_counter(); c3 = time.process_time()
from players.builtin.common import guess_candidates
from players.rules import certain_cells
t4 = time.perf_counter(); c4 = time.process_time()
certain_cells(grid)
guess_candidates(np.zeros(9), np.arange(3), np.arange(3, 9), 0.5, 3, 3)
t5 = time.perf_counter(); c5 = time.process_time()
from arena.play.runner import play_game
from engine import BEGINNER, FirstClick
from players.builtin.enumeration_player import EnumerationPlayer
t6 = time.perf_counter(); c6 = time.process_time()
play_game(EnumerationPlayer(), "enumeration", BEGINNER, FirstClick.SAFE, 1, 1)  # a guess: every kernel
t7 = time.perf_counter(); c7 = time.process_time()
print(t1 - t0, t2 - t1, t3 - t2, t5 - t4, t7 - t6, (c3 - c0) + (c5 - c4) + (c7 - c6))
"""


def compile_times() -> dict[str, float]:
    """Seconds (wall) per stage in a fresh interpreter, cold (empty numba cache) and warm; the CPU
    total leaves out importing the other built-in players (the enumeration player's package)."""
    root = Path(__file__).resolve().parents[2]
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        for label, env_cache in (("cold", cache), ("warm", None)):
            env = dict(os.environ)
            if env_cache is not None:
                env["NUMBA_CACHE_DIR"] = env_cache
            done = subprocess.run(
                [sys.executable, "-c", _CHILD], cwd=root, env=env, capture_output=True, text=True, check=True
            )
            imports, fast, general, player, whole, cpu = (float(x) for x in done.stdout.split())
            out[f"{label}_import_s"] = imports
            out[f"{label}_fast_path_s"] = fast
            out[f"{label}_general_path_s"] = general
            out[f"{label}_enumeration_player_s"] = player
            out[f"{label}_compiled_games_s"] = whole
            out[f"{label}_total_cpu_s"] = cpu
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="greedy expert games of part 1")
    parser.add_argument("--player-games", default="2000,1000,500", help="enumeration games per preset (part 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    player_games = dict(zip(PRESET_ORDER, (int(x) for x in args.player_games.split(",")), strict=True))

    # Load every kernel (fast path, general path, int and float counts) before timing.
    play(args.seed + 10_000, 0)
    analyze(parse_position("1##\n###\n###"), 2, exact_cells=0)
    wins = 0
    records: list[dict[str, Any]] = []
    game_of = []
    for index in range(args.games):
        won, game_records = play(args.seed, index)
        wins += won
        records.extend(game_records)
        game_of += [index] * len(game_records)
    grids = [r["grid"] for r in records]
    seconds = time_positions(grids, analyze, args.repeat)
    general = time_positions(grids, analyze_general, args.repeat)
    per_game = np.bincount(game_of, weights=seconds, minlength=args.games)
    per_game_general = np.bincount(game_of, weights=general, minlength=args.games)
    mid = np.array([0.2 <= r["progress"] <= 0.8 for r in records])
    nodes = np.array([r["nodes"] for r in records])
    report = {
        "machine": {"python": platform.python_version(), "processor": platform.processor(), "cpus": os.cpu_count()},
        "games": args.games,
        "seed": args.seed,
        "wins": wins,
        "positions": len(records),
        "positions_identical_to_general_path": int(sum(r["identical"] for r in records)),
        "analyze_all": summary(seconds),
        "analyze_general_all": summary(general),
        "speedup_median": float(np.median(general) / np.median(seconds)),
        "analyze_midgame": {"positions": int(mid.sum()), **summary(seconds[mid])},
        "analyze_general_midgame": summary(general[mid]),
        "per_game_ms": {"mean": float(np.mean(per_game) * 1e3), "max": float(np.max(per_game) * 1e3)},
        "per_game_general_ms": {"mean": float(np.mean(per_game_general) * 1e3)},
        "search_nodes": {
            "median": float(np.median(nodes)),
            "p99": float(np.percentile(nodes, 99)),
            "max": int(nodes.max()),
        },
        "largest_component_cells": int(max(r["largest"] for r in records)),
        "largest_frontier_cells": int(max(r["frontier"] for r in records)),
        "enumeration_player": enumeration_games(player_games, args.seed, args.repeat),
        "parallel": parallel_speedup(args.repeat),
        "compile": compile_times(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    for preset, row in report["enumeration_player"].items():
        print(
            f"enumeration {preset:>12}: {row['ms_per_game']:.3f} CPU ms/game (median {row['median_ms_per_game']:.3f}; "
            f"move by move {row['move_by_move_ms_per_game']:.3f}, replay floor "
            f"{row['replay_floor_ms_per_game']:.3f}; {row['games_identical_both_ways']}/{row['games']} games "
            f"identical) = x{row['ratio_to_rust']:.2f} the Rust solver's {row['rust_ms_per_game']} ms"
        )


if __name__ == "__main__":
    main()
