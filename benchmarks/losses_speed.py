"""How fast ``arena losses`` judges games: boards per second on Expert.

A 200-board Expert tournament of ``enumeration`` (first click ``safe``, one worker) is played into a
store kept beside this file's results (``--store``; it resumes, so a second run only measures), then
``tournament_losses`` judges every game: once to compile and warm the caches, then ``--rounds`` timed
runs; the figure is the median, wall time and process CPU time. It also prints the expected against the
observed losses, the calibration check ``arena losses`` reports.

    python benchmarks/losses_speed.py [--games 200] [--rounds 3] [--store PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from arena.analysis.losses import tournament_losses
from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "losses_speed.json"
SEED = 20261126
PLAYER = "enumeration"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "arena-losses-speed.db")
    args = parser.parse_args()
    config = TournamentConfig.build(
        PRESETS["expert"], FirstClick.SAFE, seed=SEED, games=args.games, players=(PlayerRef(name=PLAYER),)
    )
    with Store(args.store) as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
    tid = config.id
    with Store(args.store, read_only=True) as store:
        report = tournament_losses(store, tid, PLAYER)  # warm: numba compiles, SQLite pages cached
        walls, cpus = [], []
        for _ in range(args.rounds):
            wall, cpu = time.perf_counter(), time.process_time()
            report = tournament_losses(store, tid, PLAYER)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    games = len(report.games)
    result = {
        "tournament": tid,
        "board": "expert",
        "rule": "safe",
        "player": PLAYER,
        "games": games,
        "boards_per_second_wall": games / statistics.median(walls),
        "boards_per_second_cpu": games / statistics.median(cpus),
        "rounds": args.rounds,
        "classes": report.classes,
        "guesses": report.expected_losses["guesses"],
        "expected_losses": report.expected_losses,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"arena losses on Expert ({PLAYER}, {games} boards): {result['boards_per_second_wall']:.0f} boards/s wall, "
        f"{result['boards_per_second_cpu']:.0f} boards/s CPU; {report.losses} losses {report.classes}; "
        f"expected losses {report.expected_losses['expected']:.1f} +- {1.96 * report.expected_losses['sd']:.1f}, "
        f"observed {report.expected_losses['observed']}"
    )


if __name__ == "__main__":
    main()
