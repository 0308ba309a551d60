"""Reading a huge tournament: the leaderboard, `arena export` and a resume of a 10,000,000-game store.

Issue 29 ("Scale"): the cost of reading results must not grow faster than the work; the leaderboard of a
10,000,000-game tournament of two players in at most 2 s and 200 MB. The store is built through the store's own
insert path (``Store.save``, in batches of 64 boards as the local backend commits them, so the totals' trigger and
the journal copy run as in a tournament) from synthetic results: random outcomes, figures and first clicks, and no
game records (as ``--record none``, the mode for huge runs; a record adds its own bytes per game).

Each reading is a fresh process, timed from outside (wall and CPU from ``wait4``) with its peak resident size
(``ru_maxrss``): ``arena leaderboard`` (whole command: start-up, imports, reading, rendering), the same with
``--games`` cutting a chunk (the last partial block is read game by game), ``arena export --format csv`` to
/dev/null-like scratch, and the resume's pending-work computation (``pending_work`` on the finished tournament,
timed inside its process too). The store's size per game is its file size after a checkpoint.

    python benchmarks/store_scale.py [--games 10000000] [--store PATH (kept, reused when it holds the games)]
                                     [--steps leaderboard_cli,resume_pending_work,...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.config import PlayerRef, TournamentConfig  # noqa: E402
from arena.outcome import GameResult, Outcome  # noqa: E402
from arena.results.store import Store  # noqa: E402
from engine import EXPERT, FirstClick  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "store_scale.json"
PLAYERS = ("apex", "enumeration")
BATCH_BOARDS = 64  # arena.play.backends.local.batch_size's largest batch


def config(boards: int) -> TournamentConfig:
    refs = tuple(PlayerRef(name=p) for p in PLAYERS)
    return TournamentConfig.build(EXPERT, FirstClick.SAFE, seed=2026, games=boards, players=refs)


def synthetic(player: str, board: int, rng: random.Random, strength: float) -> GameResult:
    """A plausible Expert game: won with probability ``strength``, a rare error, figures that vary."""
    draw = rng.random()
    won = draw < strength
    bbbv = 100 + board % 151
    return GameResult(
        player=player,
        board=board,
        outcome=Outcome.WON if won else (Outcome.ERROR if draw > 0.99995 else Outcome.LOST),
        moves=150 + board % 97,
        reveals=60 + board % 71,
        flags=board % 99,
        chords=0,
        guesses=board % 5,
        bbbv=bbbv,
        bbbv_solved=bbbv if won else int(bbbv * draw),
        revealed_cells=1 + board % 381,
        first_row=7,
        first_col=15,
        cpu_ms=5.0 + 35.0 * draw,
        wall_ms=6.0 + 35.0 * draw,
        error="",
    )


def build(path: Path, games: int) -> dict[str, float]:
    """A store of ``games`` games (two players on ``games / 2`` boards) through ``Store.save``."""
    boards = games // len(PLAYERS)
    cfg = config(boards)
    rng = random.Random(29)
    started, cpu = time.perf_counter(), time.process_time()
    with Store(path) as store:
        store.ensure_tournament(cfg, {p: ("1", "builtin") for p in PLAYERS})
        for first in range(0, boards, BATCH_BOARDS):
            batch = [
                synthetic(p, b, rng, s)
                for b in range(first, min(boards, first + BATCH_BOARDS))
                for p, s in zip(PLAYERS, (0.405, 0.400), strict=True)
            ]
            store.save(cfg.id, batch)
            if first % (BATCH_BOARDS * 10_000) == 0:
                print(f"  built {2 * first:,} games in {time.perf_counter() - started:.0f}s", flush=True)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"build_wall_s": time.perf_counter() - started, "build_cpu_s": time.process_time() - cpu}


def run(command: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    out = process.stdout.read().decode() if process.stdout else ""
    err = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed:\n{err}")
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_mb": round(usage.ru_maxrss / 1024, 1),
        "out": out,
    }


_RESUME = """
import json, sys, time
from arena.play.plan import pending_work
from arena.results.store import Store
from arena.config import TournamentConfig
with Store(sys.argv[1]) as store:
    config = TournamentConfig.model_validate_json(store.tournament(store.latest()).config)
    started = time.perf_counter()
    work, skipped = pending_work(config, store)
    print(json.dumps({"inside_s": time.perf_counter() - started, "pending": len(work), "skipped": skipped}))
"""

_LEADERBOARD = """
import json, sys, time
from arena.analysis.leaderboard import build_leaderboard
from arena.results.store import Store
with Store(sys.argv[1], read_only=True) as store:
    started = time.perf_counter()
    leaderboard = build_leaderboard(store, None, int(sys.argv[2]) if len(sys.argv) > 2 else None)
    elapsed = time.perf_counter() - started
print(json.dumps({"inside_s": elapsed, "rows": [[r.player, r.games, r.wins, r.paired_games, r.only_player,
    r.only_leader, r.p_value] for r in leaderboard.rows]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--store", type=Path, help="build (or reuse) the store here and keep it")
    parser.add_argument(
        "--steps",
        help="measure only these (comma-separated step names); the other steps' figures are kept from the results"
        " file when it is of the same number of games",
    )
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    os.environ.update(env)
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        path = args.store or Path(folder) / "scale.db"
        result: dict[str, Any] = {"games": args.games, "players": list(PLAYERS), "boards": args.games // 2}
        if args.steps and RESULTS.exists():
            earlier = json.loads(RESULTS.read_text(encoding="utf-8"))
            if earlier.get("games") == args.games:
                result.update(earlier)
        reuse = path.exists()
        if reuse:
            with Store(path, read_only=True) as store:
                reuse = store.db.execute("SELECT SUM(games) FROM game_totals").fetchone()[0] == args.games
        if not reuse:
            path.unlink(missing_ok=True)
            print(f"building {args.games:,} games in {path} ...", flush=True)
            result.update({k: round(v, 1) for k, v in build(path, args.games).items()})
            print(f"built in {result['build_wall_s']}s ({result['build_cpu_s']}s CPU)", flush=True)
        size = path.stat().st_size
        result["store_mb"] = round(size / 2**20, 1)
        result["bytes_per_game"] = round(size / args.games, 1)
        print(f"store: {result['store_mb']} MB, {result['bytes_per_game']} bytes per game", flush=True)
        boards = args.games // 2
        cut = boards - 1000 + 17  # cuts a chunk and a block: the partial block is read game by game
        cli = [python, "-c", "from arena.cli import main; main()"]
        steps = {
            "leaderboard_cli": [*cli, "leaderboard", "--store", str(path)],
            "leaderboard_call": [python, "-c", _LEADERBOARD, str(path)],
            "leaderboard_cut_call": [python, "-c", _LEADERBOARD, str(path), str(cut)],
            "export_csv_cli": [
                *(*cli, "export", "--format", "csv", "--store", str(path)),
                *("--output", str(Path(folder) / "export.csv")),
            ],
            "resume_pending_work": [python, "-c", _RESUME, str(path)],
        }
        chosen = set(args.steps.split(",")) if args.steps else set(steps)
        if chosen - set(steps):
            raise SystemExit(f"--steps: unknown {sorted(chosen - set(steps))}; the steps are {', '.join(steps)}")
        for name, command in steps.items():
            if name not in chosen:
                continue
            measured = run(command)
            measured["load_average"] = round(os.getloadavg()[0], 2)
            out = measured.pop("out")
            if name != "leaderboard_cli" and not name.startswith("export"):
                measured.update(json.loads(out.strip().splitlines()[-1]))
            if "inside_s" in measured:
                measured["inside_s"] = round(measured["inside_s"], 3)
            result[name] = measured
            print(f"{name}: {json.dumps(measured)}", flush=True)
            if name == "leaderboard_cli":
                print(out, flush=True)
    result.update(
        load_average=[round(x, 2) for x in os.getloadavg()],
        cpus=os.cpu_count(),
        python=platform.python_version(),
        machine=platform.machine(),
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
