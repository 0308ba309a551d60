"""Where the CPU of a whole Beginner tournament goes: start-up, playing, the runner around play, storing.

``benchmarks/whole_process.py`` times the whole ``arena tournament -d beginner -p enumeration -w 1`` process; this
splits it, each part timed on its own (CPU time, ``time.process_time``), so that the parts can be compared with
the whole:

* **start-up** (fresh processes, the best of ``--runs``): the interpreter and ``import arena.cli.tournament`` (the
  modules the command imports), and the whole one-game command (``arena tournament -n 1``: imports, parsing,
  opening the store, loading the player's compiled kernels, the leaderboard);
* **per game**, in one process over ``--games`` boards (the same path the one-worker tournament takes):
  the compiled game alone, one a call (``CompiledGame.reset``, the player's seed, ``play_compiled``) and
  as the tournament plays it, runs of ``RUN_BOARDS`` boards a call (``play_compiled_boards``: each game's
  reset, seed, play, figures, move log and clocks), the whole of ``arena.play.worker.play_boards`` on
  those runs into a ``GameBatch`` (the compiled games plus the runner around them: the records' blobs, the
  results),
  ``Store.save`` of those results in commits of 4,000 games (what the in-process backend hands over
  in half a second), of which the games rows with the running totals added (``arena.results.running``), the
  games rows alone, the records, and the rest;
  the cyclic garbage collector's share is counted from ``gc.callbacks``;
* **the leaderboard** read back at the end.

    python benchmarks/whole_process_profile.py [--games 20000] [--runs 3]

Results: ``benchmarks/results/whole_process_profile.json``, with the load average (a shared machine's load
inflates every figure; compare the parts within one run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "whole_process_profile.json"
COMMIT_GAMES = 4000


def _cpu_of(command: list[str]) -> float:
    """CPU seconds (user + system) of one process, from ``wait4``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime


def start_up(runs: int) -> dict[str, float]:
    python = [sys.executable, "-c"]
    with tempfile.TemporaryDirectory() as folder:
        one_game = [*python, "import sys; from arena.cli import main; sys.argv[0] = 'arena'; sys.exit(main())",
                    "tournament", "-d", "beginner", "-n", "1", "-p", "enumeration", "-w", "1", "-q"]  # fmt: skip
        _cpu_of([*one_game, "--store", str(Path(folder) / "warm.db")])  # numba's cache warm
        figures = {
            "interpreter_s": min(_cpu_of([*python, "pass"]) for _ in range(runs)),
            "interpreter_and_imports_s": min(_cpu_of([*python, "import arena.cli.tournament"]) for _ in range(runs)),
            "one_game_command_s": min(
                _cpu_of([*one_game, "--store", str(Path(folder) / f"{i}.db")]) for i in range(runs)
            ),
        }
    return {k: round(v, 3) for k, v in figures.items()}


class GcClock:
    """The CPU the cyclic garbage collector takes while it is on."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0
        gc.callbacks.append(self)

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start


def commit(results: Any, start: int) -> Any:
    """The games of one commit, as the in-process backend hands them over (a ``GameBatch``)."""
    part = type(results)()
    part.items = results.items[start : start + COMMIT_GAMES]
    return part


def per_game(games: int) -> dict[str, Any]:
    from arena.analysis.leaderboard import build_leaderboard
    from arena.config import PlayerRef, TournamentConfig
    from arena.outcome import GameBatch, GameResult
    from arena.play import runner
    from arena.play.agents import agent_for
    from arena.play.plan import plan_tournament
    from arena.play.worker import RUN_BOARDS, init_worker, play, play_boards
    from arena.results.running import add_games
    from arena.results.store import _RECORDS, Store, _batch_rows, _layout, _row_layout
    from engine import BEGINNER, FirstClick
    from engine.layout import player_seed_words
    from players.builtin.enumeration_compiled import BOARD_COLUMNS
    from players.registry import Registry

    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, games=games, players=(PlayerRef(name="enumeration"),))
    key = config.players[0].key
    init_worker((), single_thread=False, pool=False, workers=1)
    play(config, 0, key)  # the warm-up: kernels loaded
    gc.freeze()  # as the in-process backend does after its first batch
    clock = GcClock()
    player = agent_for(config.players[0], config).player  # type: ignore[attr-defined]
    game = runner._compiled_game(config.spec, config.rule, 0, 0, True)
    limit = runner.default_move_limit(config.spec)

    started = time.process_time()
    for board in range(games):
        game.reset(config.seed, board)
        player.play_compiled(game, player_seed_words(config.seed, board, player.name), limit)
    one_a_call = time.process_time() - started

    # What the one-worker tournament plays now: runs of RUN_BOARDS boards, each run one compiled call.
    figures = np.zeros((RUN_BOARDS, BOARD_COLUMNS), np.int64)
    logs = np.empty(RUN_BOARDS * game.log.shape[0], np.int32)
    log_ends = np.zeros(RUN_BOARDS, np.int64)
    runs = [np.arange(start, min(games, start + RUN_BOARDS), dtype=np.int64) for start in range(0, games, RUN_BOARDS)]
    started = time.process_time()
    for boards in runs:
        player.play_compiled_boards(game, config.seed, boards, limit, figures, logs, log_ends)
    compiled = time.process_time() - started

    gc_before, started = clock.seconds, time.process_time()
    results = GameBatch()  # what the in-process backend collects: the compiled games kept as their values
    for boards in runs:
        play_boards(config, boards.tolist(), key, results)
    whole_play = time.process_time() - started
    gc_play = clock.seconds - gc_before
    assert len(results) == games

    with tempfile.TemporaryDirectory() as folder:
        stores = []
        for name in ("save", "parts"):
            store = Store(Path(folder) / f"{name}.db")
            plan = plan_tournament(config, store, Registry(entry_points=False))
            store.ensure_tournament(plan.config, plan.sources, plan.fingerprints)
            stores.append((store, plan.tournament_id))
        (store, tournament), (bare, bare_id) = stores
        gc_before, started = clock.seconds, time.process_time()
        for start in range(0, games, COMMIT_GAMES):
            store.save(tournament, commit(results, start))
        save = time.process_time() - started
        gc_save = clock.seconds - gc_before
        started = time.process_time()
        leaderboard = build_leaderboard(store, tournament, games)
        leaderboard = time.process_time() - started
        assert leaderboard.rows[0].games == games, leaderboard.rows[0]

        # The parts of a save, on a second store: the games rows with the running totals added (what Store.save
        # writes: arena.results.running), the records, and then the games rows alone (on an emptied games table).
        insert, layout = _layout(GameResult)[1], _row_layout(GameResult)
        rows, records = _batch_rows(bare_id, results, "now")

        def committed(values: list, write: Any) -> float:
            started = time.process_time()
            for start in range(0, games, COMMIT_GAMES):
                with bare.db:
                    bare.db.execute("BEGIN IMMEDIATE")
                    write(values[start : start + COMMIT_GAMES])
            return time.process_time() - started

        parts = {
            "games_rows_and_totals": committed(rows, lambda part: add_games(bare.db, insert, part, layout)),
            "records": committed(records, lambda part: bare.db.executemany(_RECORDS, part)),
        }
        bare.db.execute("DELETE FROM games")
        parts["games_rows_alone"] = committed(rows, lambda part: bare.db.executemany(insert, part))
        for db, _ in stores:
            db.close()

    ms = 1000.0 / games
    return {
        "games": games,
        "compiled_game_one_a_call_ms": round(one_a_call * ms, 4),
        "compiled_game_ms": round(compiled * ms, 4),
        "worker_play_ms": round(whole_play * ms, 4),
        "runner_around_play_ms": round((whole_play - compiled) * ms, 4),
        "gc_during_play_ms": round(gc_play * ms, 4),
        "stored_cpu_ms": round(sum(r.cpu_ms for r in results) / games, 4),
        "store_save_ms": round(save * ms, 4),
        "gc_during_save_ms": round(gc_save * ms, 4),
        "save_parts_ms": {k: round(v * ms, 4) for k, v in parts.items()},
        "leaderboard_s": round(leaderboard, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3, help="start-up processes timed per part (the best counts)")
    args = parser.parse_args()
    if args.games < COMMIT_GAMES or args.runs < 1:
        parser.error(f"--games takes at least {COMMIT_GAMES}, --runs at least 1")
    sys.path.insert(0, str(ROOT))
    result: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()]}
    result["start_up_cpu"] = start_up(args.runs)
    print(f"start-up (CPU s, best of {args.runs}): {result['start_up_cpu']}", flush=True)
    result["per_game"] = per_game(args.games)
    for name, value in result["per_game"].items():
        print(f"  {name:26} {value}")
    result["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average {result['load_at_start']} -> {result['load_at_end']}")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
