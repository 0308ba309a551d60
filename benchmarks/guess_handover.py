"""What a Beginner game's guess costs when numpy's arithmetic finishes it: handed to Python, or through
numpy's own loops in compiled code (``players.solver.numpy_loops``).

A guess whose shares are not exactly 0 or 1 needs ``np.exp`` and numpy's products. The compiled game
(``enumeration_compiled.play_boards``) either hands such a game to Python midway (``_python_step``) and
takes it back, or, when numpy's loops were found, calls them itself. This plays the same ``--games``
Beginner boards (safe first click) the way the one-worker tournament does, runs of ``RUN_BOARDS`` boards
a compiled call, alternately in both modes (``--rounds`` times each; the machine is shared, so only
side-by-side figures count), and prints the CPU per game of each (best and median of the rounds), the
handovers the Python mode makes, what Python's own step costs there (an instrumented pass), and the
difference per handover and per average game. Both modes play the same games; the script checks the
figures and move logs of every board.

    python benchmarks/guess_handover.py [--games 20000] [--rounds 5]

Results: ``benchmarks/results/guess_handover.json``, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "guess_handover.json"


def measure(games: int, rounds: int) -> dict[str, Any]:
    from arena.play import runner
    from arena.play.worker import RUN_BOARDS
    from engine import BEGINNER, FirstClick
    from players.builtin import enumeration_compiled as ec
    from players.builtin.common import ThreadingOptions
    from players.builtin.enumeration_compiled import BOARD_COLUMNS, CPU_NS, WALL_NS, play_boards
    from players.solver import numpy_loops

    seed, name_key = 20261128, 12345
    game = runner._compiled_game(BEGINNER, FirstClick.SAFE, 0, 0, True)
    limit = runner.default_move_limit(BEGINNER)
    options = ThreadingOptions()
    runs = [np.arange(start, min(games, start + RUN_BOARDS), dtype=np.int64) for start in range(0, games, RUN_BOARDS)]
    figures = np.zeros((RUN_BOARDS, BOARD_COLUMNS), np.int64)
    logs = np.empty(RUN_BOARDS * game.log.shape[0], np.int32)
    log_ends = np.zeros(RUN_BOARDS, np.int64)

    def play(loops: bool, keep: bool) -> tuple[float, list[bytes]]:
        ec.NUMPY_LOOPS = loops
        kept = []
        started = time.process_time()
        for boards in runs:
            play_boards(game, seed, boards, name_key, limit, options, figures, logs, log_ends)
            if keep:
                n = boards.shape[0]
                rows = figures[:n].copy()
                rows[:, CPU_NS] = rows[:, WALL_NS] = 0
                kept.append(rows.tobytes() + logs[: log_ends[n - 1]].tobytes())
        return time.process_time() - started, kept

    play(numpy_loops.AVAILABLE, False)  # warm-up: kernels loaded, both paths
    play(False, False)
    _, with_python = play(False, True)
    _, with_loops = play(numpy_loops.AVAILABLE, True)
    same = with_python == with_loops

    # One instrumented pass: the handovers and Python's own step.
    original = ec._python_step
    calls = {"n": 0, "guess": 0, "seconds": 0.0}

    def counted(*args: Any) -> Any:
        started = time.process_time()
        try:
            return original(*args)
        finally:
            calls["seconds"] += time.process_time() - started
            calls["n"] += 1
            calls["guess"] += args[3] == ec.GUESS

    ec._python_step = counted
    try:
        play(False, False)
    finally:
        ec._python_step = original

    times: dict[str, list[float]] = {"python": [], "loops": []}
    for _ in range(rounds):
        for mode in ("python", "loops"):
            seconds, _ = play(mode == "loops" and numpy_loops.AVAILABLE, False)
            times[mode].append(seconds / games * 1e3)
    ec.NUMPY_LOOPS = numpy_loops.AVAILABLE
    python_ms, loops_ms = statistics.median(times["python"]), statistics.median(times["loops"])
    paired = statistics.median(p - q for p, q in zip(times["python"], times["loops"], strict=True))
    return {
        "games": games,
        "rounds": rounds,
        "numpy_loops_found": numpy_loops.AVAILABLE,
        "same_games": same,
        "ms_per_game_python_handover": {"best": min(times["python"]), "median": python_ms, "all": times["python"]},
        "ms_per_game_numpy_loops": {"best": min(times["loops"]), "median": loops_ms, "all": times["loops"]},
        "handovers_per_game": calls["guess"] / games,
        "python_step_calls_per_game": calls["n"] / games,
        "python_step_us_per_handover": calls["seconds"] / max(calls["n"], 1) * 1e6,
        "saving_us_per_game_paired_median": paired * 1e3,
        "saving_us_per_handover": paired * 1e3 / max(calls["guess"] / games, 1e-12),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds take at least 1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the arena command runs (only if set before numpy)
    sys.path.insert(0, str(ROOT))
    result: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()]}
    result.update(measure(args.games, args.rounds))
    result["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    for key, value in result.items():
        print(f"{key:36} {value}")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
