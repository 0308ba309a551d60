"""What the solver's compiled preparation costs inside a compiled Beginner game, side by side with another tree.

Two figures, both CPU time:

* **per call**: ``fast.prepare`` as the compiled game calls it (``enumeration_compiled._analyse_on``: the
  preparation, then ``fast.guess_parts``), in a compiled loop over the positions at which the
  ``enumeration`` player analyses (collected from ``--boards`` Beginner games played move by move, safe
  first click), ``--repeat`` passes, the best of three;
* **per game**: the compiled games as a one-worker tournament plays them (``play_compiled_boards``, runs
  of ``RUN_BOARDS`` boards), over ``--games`` boards, the best of three passes.

``--baseline SRC`` times another source tree (a worktree of the code before a change) the same way, in
fresh processes alternating with this one (``--rounds`` rounds, the order swapped each round: a shared
machine's load drifts), and reports the best of each. A tree whose ``prepare`` takes no work array (the
code before ``fast.prepare_parts``) is timed through ``prepare`` and the old ``guess_parts``.

    python benchmarks/prepare_cost.py [--boards 300] [--repeat 100] [--games 10000] [--baseline SRC]

Results: ``benchmarks/results/prepare_cost.json``, with the load average.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "prepare_cost.json"


def positions(boards: int) -> tuple[np.ndarray, np.ndarray]:
    """The grids (and mine counts) at which the move-by-move ``enumeration`` player calls ``analyze``."""
    from arena.play.runner import play_game
    from engine import BEGINNER, FirstClick
    from players.builtin import enumeration_player
    from players.builtin.enumeration_player import EnumerationPlayer

    seen: list[tuple[np.ndarray, int]] = []
    analyze = enumeration_player.analyze

    def recording(grid: np.ndarray, mines: int, **options: Any) -> Any:
        seen.append((grid.copy(), mines))
        return analyze(grid, mines, **options)

    player = EnumerationPlayer()
    enumeration_player.analyze = recording
    try:
        for board in range(boards):
            play_game(player, "enumeration", BEGINNER, FirstClick.SAFE, 99, board, compiled=False)
    finally:
        enumeration_player.analyze = analyze
    kept = [(g, m) for g, m in seen if g.shape == (BEGINNER.height, BEGINNER.width)]  # not the warm-up's
    return np.stack([g for g, _ in kept]), np.array([m for _, m in kept], np.int64)


def per_call(grids: np.ndarray, mines: np.ndarray, repeat: int) -> float:
    """Microseconds of CPU per preparation as ``_analyse_on`` makes it."""
    from numba import njit

    from players.solver import fast
    from players.solver.analysis import _FAST_SEARCH_NODES, _LOG_TABLE, DEFAULT_RREF_MIN_CELLS
    from players.solver.enumeration import DEFAULT_NODE_LIMIT, EXACT_CELLS

    probe = min(1 << 30, DEFAULT_NODE_LIMIT, _FAST_SEARCH_NODES)
    size = grids.shape[1] * grids.shape[2]
    if hasattr(fast, "prepare_parts"):
        work = np.empty(fast.work_size(size, EXACT_CELLS), np.int64)

        @njit
        def drive(grids, mines, reps, log_table, probe, rref_min, exact, work):  # type: ignore[no-untyped-def]
            found = 0
            for _ in range(reps):
                for i in range(grids.shape[0]):
                    out = fast.prepare_parts(grids[i], mines[i], np.bool_(False), np.bool_(True), rref_min, probe,
                                             exact, log_table, work)  # fmt: skip
                    if out[0] and out[1]:
                        found += fast.guess_parts(out)[2].shape[0]
            return found

        extra: tuple = (work,)
    else:

        @njit
        def drive(grids, mines, reps, log_table, probe, rref_min, exact):  # type: ignore[no-untyped-def]
            found = 0
            for _ in range(reps):
                for i in range(grids.shape[0]):
                    out = fast.prepare(grids[i], mines[i], np.bool_(False), np.bool_(True), rref_min, probe, exact,
                                       log_table)  # fmt: skip
                    if out[0] and out[1]:
                        found += fast.guess_parts(out, size)[2].shape[0]
            return found

        extra = ()
    solver = (_LOG_TABLE, probe, DEFAULT_RREF_MIN_CELLS, EXACT_CELLS, *extra)
    drive(grids, mines, 1, *solver)  # compiled here, not timed
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        drive(grids, mines, repeat, *solver)
        best = min(best, time.process_time() - started)
    return best / repeat / grids.shape[0] * 1e6


def per_game(games: int) -> float:
    """Milliseconds of CPU per compiled Beginner game, 64 boards a call (``whole_process_profile``'s path)."""
    from arena.config import PlayerRef, TournamentConfig
    from arena.play import runner
    from arena.play.agents import agent_for
    from arena.play.worker import RUN_BOARDS, init_worker, play
    from engine import BEGINNER, FirstClick
    from players.builtin.enumeration_compiled import BOARD_COLUMNS

    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, games=games, players=(PlayerRef(name="enumeration"),))
    init_worker((), single_thread=False, pool=False, workers=1)
    play(config, 0, config.players[0].key)  # the warm-up: kernels loaded
    gc.freeze()
    player = agent_for(config.players[0], config).player  # type: ignore[attr-defined]
    game = runner._compiled_game(config.spec, config.rule, 0, 0, True)
    limit = runner.default_move_limit(config.spec)
    figures = np.zeros((RUN_BOARDS, BOARD_COLUMNS), np.int64)
    logs = np.empty(RUN_BOARDS * game.log.shape[0], np.int32)
    log_ends = np.zeros(RUN_BOARDS, np.int64)
    runs = [np.arange(s, min(games, s + RUN_BOARDS), dtype=np.int64) for s in range(0, games, RUN_BOARDS)]
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for boards in runs:
            player.play_compiled_boards(game, config.seed, boards, limit, figures, logs, log_ends)
        best = min(best, time.process_time() - started)
    return best / games * 1000


def measure(args: argparse.Namespace) -> dict[str, Any]:
    grids, mines = positions(args.boards)
    return {
        "positions": int(grids.shape[0]),
        "prepare_us_per_call": round(per_call(grids, mines, args.repeat), 3),
        "compiled_game_ms": round(per_game(args.games), 4),
        "load": round(os.getloadavg()[0], 2),
    }


def in_tree(tree: str, args: argparse.Namespace) -> dict[str, Any]:
    """``measure`` in a fresh process on ``tree``'s code."""
    env = {**os.environ, "PYTHONPATH": tree, "OPENBLAS_NUM_THREADS": "1"}
    command = [sys.executable, str(Path(__file__).resolve()), "--measure-only", "--boards", str(args.boards),
               "--repeat", str(args.repeat), "--games", str(args.games)]  # fmt: skip
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=300, help="Beginner games whose positions are timed")
    parser.add_argument("--repeat", type=int, default=100, help="passes over the positions")
    parser.add_argument("--games", type=int, default=10_000, help="compiled games timed")
    parser.add_argument("--baseline", metavar="SRC", help="another source tree, timed alternately")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if min(args.boards, args.repeat, args.games, args.rounds) < 1:
        parser.error("--boards, --repeat, --games and --rounds must be positive")
    if args.measure_only:
        print(json.dumps(measure(args)))
        return
    trees = {"this": str(ROOT)}
    if args.baseline:
        trees["baseline"] = str(Path(args.baseline).resolve())
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for i in range(args.rounds):
        for name in list(trees)[:: 1 if i % 2 == 0 else -1]:
            figures = in_tree(trees[name], args)
            rounds[name].append(figures)
            call, game = figures["prepare_us_per_call"], figures["compiled_game_ms"]
            print(f"{name}: prepare {call:.2f} us a call ({figures['positions']} positions), compiled game "
                  f"{game:.4f} ms (load {figures['load']})", flush=True)  # fmt: skip
    result: dict[str, Any] = {"boards": args.boards, "repeat": args.repeat, "games": args.games, "rounds": args.rounds}
    for name, runs in rounds.items():
        result[name] = {
            "source": trees[name],
            "positions": runs[0]["positions"],
            "prepare_us_per_call": min(r["prepare_us_per_call"] for r in runs),
            "compiled_game_ms": min(r["compiled_game_ms"] for r in runs),
            "all_rounds": runs,
        }
        print(f"{name}: best prepare {result[name]['prepare_us_per_call']:.2f} us a call, "
              f"compiled game {result[name]['compiled_game_ms']:.4f} ms")  # fmt: skip
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    result["cpus"] = os.cpu_count()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"load average {result['load_average']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
