"""What game records cost: bytes per game, and tournament throughput with records on and off.

Bytes: every built-in player plays a tournament (one worker) on Beginner and on Expert, first
click ``safe``; the blob lengths come from the store's ``records`` table, with the store file's
growth per game (the table's keys and SQLite's pages included).

Throughput: the worst case for records, ``enumeration`` on Beginner, which plays whole games in
compiled code (tens of microseconds of play per game, so every microsecond of logging, encoding
and writing shows), and Expert for comparison. The same tournament (same seed, same boards) runs
with ``--record moves`` and ``--record none`` in alternating rounds, in this process (one worker:
no pool, so the figure is the arena's own cost), each round on a fresh store. Per game: the
process CPU time (what other processes on a busy machine disturb least) and the wall time, of
the quietest round of each mode, and the median ratio of the rounds played side by side. Target
(issue 16): records cost at most 10% of tournament time on Beginner ``enumeration``. Also the
``play_game`` loop alone with and without ``record`` (the capture and encoding, no store).

    python benchmarks/records_cost.py [--rounds 25] [--games 2000] [--size-games 1000]
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

import numba
import numpy as np

from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.play.runner import play_game, warm_up
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.builtin import BUILTIN_PLAYERS
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "records_cost.json"
SEED = 20261116
TARGET = 0.10


def sizes(preset: str, games: int, registry: Registry, folder: Path) -> list[dict[str, object]]:
    """Per built-in player: blob bytes per game (mean, median, 95th percentile, max), per move, and
    the store file's growth per game with records against without."""
    names = sorted(cls.name for cls in BUILTIN_PLAYERS)
    refs = tuple(PlayerRef(name=n) for n in names)
    rows = []
    growth: dict[str, float] = {}
    for mode in (RecordMode.MOVES, RecordMode.NONE):
        path = folder / f"sizes-{preset}-{mode.value}.db"
        config = TournamentConfig.build(PRESETS[preset], FirstClick.SAFE, seed=SEED, games=games, players=refs,
                                        record=mode)  # fmt: skip
        with Store(path) as store:
            run_tournament(plan_tournament(config, store, registry, workers=1), store)
            store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if mode is RecordMode.MOVES:
                for name in names:
                    lengths = [
                        row[0]
                        for row in store.db.execute(
                            "SELECT LENGTH(data) FROM records WHERE tournament_id = ? AND player = ?",
                            (config.id, name),
                        )
                    ]
                    moves = store.db.execute(
                        "SELECT SUM(moves) FROM games WHERE tournament_id = ? AND player = ?", (config.id, name)
                    ).fetchone()[0]
                    rows.append(
                        {
                            "preset": preset,
                            "player": name,
                            "games": len(lengths),
                            "bytes_mean": statistics.fmean(lengths),
                            "bytes_median": statistics.median(lengths),
                            "bytes_p95": float(np.percentile(lengths, 95)),
                            "bytes_max": max(lengths),
                            "bytes_per_move": sum(lengths) / max(1, moves),
                        }
                    )
        growth[mode.value] = path.stat().st_size / (games * len(names))
    for row in rows:
        row["store_bytes_per_game_with_records"] = growth["moves"]
        row["store_bytes_per_game_without"] = growth["none"]
    return rows


def tournament_round(config: TournamentConfig, registry: Registry, folder: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one tournament on a fresh store, leaderboard not included."""
    path = folder / f"round-{config.record.value}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Store(path) as store:
        cpu, wall = time.process_time(), time.perf_counter()
        run_tournament(plan_tournament(config, store, registry, workers=1), store)
        return time.process_time() - cpu, time.perf_counter() - wall


def direct_round(name: str, preset: str, games: int, record: bool, registry: Registry) -> tuple[float, float]:
    player = registry.create(name)
    spec = PRESETS[preset]
    cpu, wall = time.process_time(), time.perf_counter()
    for board in range(games):
        play_game(player, name, spec, FirstClick.SAFE, SEED, board, record=record)
    return time.process_time() - cpu, time.perf_counter() - wall


def throughput(name: str, preset: str, games: int, rounds: int, registry: Registry, folder: Path) -> dict[str, object]:
    refs = (PlayerRef(name=name),)
    base = TournamentConfig.build(PRESETS[preset], FirstClick.SAFE, seed=SEED, games=games, players=refs)
    warm_up(registry.create(name))
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {
        "tournament": {"moves": [], "none": []},
        "play_game": {"moves": [], "none": []},
    }
    for number in range(rounds):
        # Alternate which mode goes first, so that a drift in the machine's load favours neither.
        modes = (RecordMode.MOVES, RecordMode.NONE) if number % 2 == 0 else (RecordMode.NONE, RecordMode.MOVES)
        for mode in modes:
            config = base.model_copy(update={"record": mode})
            samples["tournament"][mode.value].append(tournament_round(config, registry, folder))
            direct = direct_round(name, preset, games, mode is RecordMode.MOVES, registry)
            samples["play_game"][mode.value].append(direct)

    row: dict[str, object] = {"player": name, "preset": preset, "games_per_round": games, "rounds": rounds}
    for label, by_mode in samples.items():
        for which, clock in ((0, "cpu"), (1, "wall")):
            on = [s[which] / games * 1e6 for s in by_mode["moves"]]
            off = [s[which] / games * 1e6 for s in by_mode["none"]]
            # The quietest round of each mode (what a busy machine disturbs least), and the median
            # of the ratios of rounds played side by side (what it does to a typical run).
            row[f"{label}_{clock}_us_per_game_records"] = min(on)
            row[f"{label}_{clock}_us_per_game_no_records"] = min(off)
            row[f"{label}_{clock}_cost"] = min(on) / min(off) - 1
            ratios = [a / b for a, b in zip(on, off, strict=True)]
            row[f"{label}_{clock}_cost_median_of_pairs"] = statistics.median(ratios) - 1
    row["games_per_s_records"] = 1e6 / float(row["tournament_wall_us_per_game_records"])  # type: ignore[arg-type]
    row["games_per_s_no_records"] = 1e6 / float(row["tournament_wall_us_per_game_no_records"])  # type: ignore[arg-type]
    row["samples_seconds"] = samples
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25, help="alternating rounds per mode")
    parser.add_argument("--games", type=int, default=2000, help="Beginner games per round (Expert: a fifth)")
    parser.add_argument("--size-games", type=int, default=1000, help="games per player for the sizes (Expert: a fifth)")
    args = parser.parse_args()
    registry = Registry()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        size_rows = []
        for preset, games in (("beginner", args.size_games), ("expert", max(1, args.size_games // 5))):
            for row in sizes(preset, games, registry, folder):
                size_rows.append(row)
                print(
                    f"{preset:>9} {row['player']:<22} {row['bytes_mean']:6.1f} bytes/game (median "
                    f"{row['bytes_median']:.0f}, p95 {row['bytes_p95']:.0f}, max {row['bytes_max']}), "
                    f"{row['bytes_per_move']:.2f} bytes/move",
                    flush=True,
                )
            print(
                f"{preset:>9} store file: {size_rows[-1]['store_bytes_per_game_with_records']:.0f} bytes/game with "
                f"records, {size_rows[-1]['store_bytes_per_game_without']:.0f} without",
                flush=True,
            )
        speed_rows = []
        for preset, games in (("beginner", args.games), ("expert", max(1, args.games // 5))):
            row = throughput("enumeration", preset, games, args.rounds, registry, folder)
            speed_rows.append(row)
            print(
                f"{preset:>9} enumeration (compiled), {games} games x {args.rounds} rounds, per game, best round: "
                f"tournament {row['tournament_cpu_us_per_game_no_records']:.1f} -> "
                f"{row['tournament_cpu_us_per_game_records']:.1f} us CPU ({_pct(row['tournament_cpu_cost'])}; "
                f"median of pairs {_pct(row['tournament_cpu_cost_median_of_pairs'])}), wall "
                f"{row['tournament_wall_us_per_game_no_records']:.1f} -> "
                f"{row['tournament_wall_us_per_game_records']:.1f} us ({_pct(row['tournament_wall_cost'])}); "
                f"play_game alone {row['play_game_cpu_us_per_game_no_records']:.1f} -> "
                f"{row['play_game_cpu_us_per_game_records']:.1f} us CPU ({_pct(row['play_game_cpu_cost'])})",
                flush=True,
            )
    worst = speed_rows[0]
    cost = max(float(worst["tournament_cpu_cost"]), float(worst["tournament_cpu_cost_median_of_pairs"]))
    result = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
        },
        "seed": SEED,
        "sizes": size_rows,
        "throughput": speed_rows,
        "target": {
            "what": "records cost at most 10% of tournament time: enumeration, Beginner, compiled, CPU of one worker",
            "cost_best_rounds": worst["tournament_cpu_cost"],
            "cost_median_of_pairs": worst["tournament_cpu_cost_median_of_pairs"],
            "met": cost <= TARGET,
        },
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"target (<= {TARGET:.0%} of tournament CPU on Beginner enumeration): {_pct(worst['tournament_cpu_cost'])} "
        f"(best rounds), {_pct(worst['tournament_cpu_cost_median_of_pairs'])} (median of pairs) · saved {RESULTS}"
    )


def _pct(value: object) -> str:
    return f"{100 * float(value):+.1f}%"  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
