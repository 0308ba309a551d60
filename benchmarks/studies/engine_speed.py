"""Engine cost per game, measured with an oracle player that knows the layout.

The oracle clicks a corner first, then reveals every still-covered safe cell in row-major order
through the public ``Game`` API, so nearly all of the time is the engine's: building the game,
drawing the layout at the first reveal (permutation, numbers, 3BV labels), the compiled reveal and
flood fill, and the final ``stats()``. No player logic is timed.

Compile time is measured separately in fresh subprocesses: once with ``NUMBA_CACHE_DIR`` pointing at
an empty temporary directory (a true cold compile), once with the normal on-disk cache (what every
later process pays to load it). Neither is part of the per-game figures.

    python benchmarks/studies/engine_speed.py [--games 2000] [--seed 2024]

Writes benchmarks/studies/results/engine_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_EXPERT_US = 300.0
RESULTS = Path(__file__).resolve().parent / "results" / "engine_speed.json"


def play_oracle(spec: Any, seed: int, index: int) -> Any:
    """Win one game by revealing every safe cell; returns the finished ``Game``."""
    from engine import FirstClick, Game

    game = Game(spec, FirstClick.SAFE, seed=seed, index=index)
    game.reveal(0, 0)
    width = spec.width
    # game.grid is a live read-only view; a memoryview of it reads cells as plain ints.
    covered = memoryview(game.grid.reshape(-1))
    safe = (~game.mine_layout()).reshape(-1).nonzero()[0].tolist()
    for cell in safe:
        if covered[cell] == -1:
            game.reveal(cell // width, cell % width)
    return game


def child_first_game() -> None:
    """Run in a fresh interpreter: time the imports, the first game (compiles or loads the kernels)
    and the next ones, and print them as JSON."""
    t0 = time.perf_counter()
    import numba  # noqa: F401
    import numpy  # noqa: F401

    t1 = time.perf_counter()
    from engine import EXPERT

    t2 = time.perf_counter()
    game = play_oracle(EXPERT, 1, 0)
    t3 = time.perf_counter()
    assert game.won
    game.stats()
    t4 = time.perf_counter()
    later = []
    for index in range(1, 21):
        start = time.perf_counter()
        play_oracle(EXPERT, 1, index).stats()
        later.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "import_numpy_numba_s": t1 - t0,
                "import_engine_s": t2 - t1,
                "first_game_s": t4 - t2,
                "first_game_without_stats_s": t3 - t2,
                "later_game_median_s": statistics.median(later),
            }
        )
    )


def measure_startup(cold: bool) -> dict[str, Any]:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="numba-cold-cache-") as cache_dir:
        if cold:
            env["NUMBA_CACHE_DIR"] = cache_dir
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=str(Path(__file__).resolve().parents[2]),
        )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    data["kernel_setup_s"] = data["first_game_s"] - data["later_game_median_s"]
    return data


def measure_games(spec: Any, games: int, seed: int) -> dict[str, Any]:
    for index in range(20):  # warm-up: kernels loaded, caches and allocator warm
        play_oracle(spec, seed + 1, index).stats()
    times: list[float] = []
    reveals = 0
    bbbv = 0
    clock = time.perf_counter_ns
    for index in range(games):
        start = clock()
        game = play_oracle(spec, seed, index)
        stats = game.stats()
        times.append((clock() - start) / 1000.0)
        if not stats.won:
            raise AssertionError(f"the oracle lost board {index} of {spec.label}")
        reveals += stats.reveals
        bbbv += stats.bbbv
    times.sort()
    median = statistics.median(times)
    return {
        "board": spec.label,
        "height": spec.height,
        "width": spec.width,
        "mines": spec.mines,
        "rule": "safe",
        "games": games,
        "median_us": round(median, 2),
        "mean_us": round(statistics.fmean(times), 2),
        "p10_us": round(times[len(times) // 10], 2),
        "p90_us": round(times[(9 * len(times)) // 10], 2),
        "min_us": round(times[0], 2),
        "games_per_s": round(1e6 / median, 1),
        "reveals_per_game": round(reveals / games, 2),
        "bbbv_per_game": round(bbbv / games, 2),
        "us_per_reveal_call_amortised": round(median / (reveals / games), 3),
    }


def machine_info() -> dict[str, Any]:
    import numba
    import numpy

    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "cpus_available": affinity,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per preset (default 2000)")
    parser.add_argument("--seed", type=int, default=2024, help="tournament seed of the boards")
    parser.add_argument("--no-startup", action="store_true", help="skip the compile-time subprocesses")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON results")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_first_game()
        return 0

    from engine import PRESETS

    info = machine_info()
    print(f"machine: {info['cpu']} ({info['cpu_count']} cpus), {info['platform']}")
    print(f"python {info['python']}, numpy {info['numpy']}, numba {info['numba']}")

    startup: dict[str, Any] = {}
    if not args.no_startup:
        startup["cold_compile"] = measure_startup(cold=True)
        startup["warm_cache"] = measure_startup(cold=False)
        cold, warm = startup["cold_compile"], startup["warm_cache"]
        print()
        print("one-off cost of a new process (not in the per-game figures):")
        print(
            f"  cold compile (empty NUMBA_CACHE_DIR): first expert game {cold['first_game_s'] * 1e3:8.1f} ms"
            f"  -> kernel compile ~{cold['kernel_setup_s'] * 1e3:.1f} ms"
        )
        print(
            f"  on-disk numba cache:                 first expert game {warm['first_game_s'] * 1e3:8.1f} ms"
            f"  -> cache load ~{warm['kernel_setup_s'] * 1e3:.1f} ms"
        )
        print(
            f"  imports: numpy+numba {warm['import_numpy_numba_s'] * 1e3:.1f} ms, "
            f"engine {warm['import_engine_s'] * 1e3:.1f} ms"
        )

    rows = [measure_games(spec, args.games, args.seed) for spec in PRESETS.values()]
    print()
    print(f"oracle games, rule safe, first click (0, 0), {args.games} games per board, one core:")
    header = (
        f"{'board':<13} {'median us':>10} {'p10 us':>9} {'p90 us':>9} {'mean us':>9} "
        f"{'games/s':>9} {'reveals':>8} {'us/reveal*':>11}  target"
    )
    print(header)
    print("-" * len(header))
    footnote = "* game time / reveal calls, so it includes the per-game setup and the first reveal's layout draw"
    for row in rows:
        target = ""
        if row["board"] == "expert":
            verdict = "met" if row["median_us"] <= TARGET_EXPERT_US else "MISSED"
            target = f"<= {TARGET_EXPERT_US:.0f} us: {verdict}"
            row["target_us"] = TARGET_EXPERT_US
            row["target_met"] = row["median_us"] <= TARGET_EXPERT_US
        print(
            f"{row['board']:<13} {row['median_us']:>10.1f} {row['p10_us']:>9.1f} {row['p90_us']:>9.1f} "
            f"{row['mean_us']:>9.1f} {row['games_per_s']:>9.0f} {row['reveals_per_game']:>8.1f} "
            f"{row['us_per_reveal_call_amortised']:>11.3f}  {target}"
        )
    print(footnote)

    result = {
        "benchmark": "engine_speed",
        "description": "median wall time per oracle game (Game(), first reveal, every safe reveal, stats())",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seed": args.seed,
        "games_per_board": args.games,
        "target_expert_median_us": TARGET_EXPERT_US,
        "machine": info,
        "startup": startup,
        "boards": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(args.output)
    print(f"\nsaved {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
