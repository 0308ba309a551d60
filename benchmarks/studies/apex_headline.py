"""Headline claims of the `apex` player: win rate on every preset, with games and intervals, and speed.

Each claim is an arena tournament (resumable store under ``benchmarks/studies/results/``): games, wins,
the win rate with its 95% Wilson interval, the target of issue 6 and the best published figure,
and whether the interval shows the target met ("met" only when the whole interval is above it).
CPU ms per game come from the per-game CPU times the workers record (numba compile excluded).

    python benchmarks/studies/apex_headline.py                 # a session-sized run (about 27 minutes on 2 cores)
    python benchmarks/studies/apex_headline.py --overnight     # the large claims, all local cores
    python benchmarks/studies/apex_headline.py --overnight --backend dask --scheduler tcp://host:8786

``--overnight`` multiplies the games to reach the intervals the targets need (about +/-0.3 points
on Expert). It resumes where a previous run stopped (Ctrl-C is safe: finished games are kept), and
uses a Dask cluster when the arena's ``plan_tournament`` accepts a ``backend`` argument.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

from arena.analysis.stats import wilson_interval
from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import default_workers, plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.builtin.apex import ApexPlayer
from players.registry import Registry

HERE = Path(__file__).parent
RESULTS = HERE / "results"
#: The ablation's seed: the Expert safe claim shares the full player's games with its table.
SEED = 6_000_000


@dataclass(frozen=True)
class Claim:
    preset: str
    rule: str
    target: float
    published: float
    published_source: str
    games: int
    overnight_games: int


CLAIMS = (
    Claim("beginner", "safe", 0.918, 0.9169, "Tu et al. PSEQ-D256, 100M games", 50_000, 1_000_000),
    Claim("intermediate", "safe", 0.785, 0.7861, "JSMinesweeper measured, 14k games", 100_000, 400_000),
    Claim("expert", "safe", 0.415, 0.4113, "DavidNHill Java solver, 10M games", 100_000, 400_000),
    Claim("expert", "opening", 0.55, 0.543, "DavidNHill at (3,3)", 10_000, 200_000),
)


def run_claim(
    claim: Claim, store: Store, registry: Registry, games: int, workers: int, backend: dict[str, Any]
) -> dict[str, Any]:
    player = PlayerRef(name="apex")
    config = TournamentConfig.build(
        PRESETS[claim.preset], FirstClick(claim.rule), seed=SEED, games=games, players=(player,)
    )
    start = time.perf_counter()
    run_tournament(plan_tournament(config, store, registry, workers=workers, **backend), store)
    rows = [g for g in store.games(config.id, games) if g.player == player.key]
    wins = sum(g.won for g in rows)
    low, high = wilson_interval(wins, len(rows))
    cpu = np.array([g.cpu_ms for g in rows])
    verdict = "met" if low >= claim.target else ("not met" if high < claim.target else "undecided")
    return {
        "preset": claim.preset,
        "rule": claim.rule,
        "seed": SEED,
        "tournament_id": config.id,
        "games": len(rows),
        "wins": wins,
        "win_rate": wins / len(rows),
        "ci_low": low,
        "ci_high": high,
        "target": claim.target,
        "target_verdict": verdict,
        "published": claim.published,
        "published_source": claim.published_source,
        "first_click": sorted({(g.first_row, g.first_col) for g in rows})[:3],
        "ms_per_game_mean": float(cpu.mean()),
        "ms_per_game_median": float(np.median(cpu)),
        "ms_per_game_p99": float(np.percentile(cpu, 99)),
        "errors": sum(g.outcome.value not in ("won", "lost") for g in rows),
        "wall_seconds": time.perf_counter() - start,
    }


def backend_arguments(name: str, scheduler: str | None) -> dict[str, Any]:
    """Keyword arguments for ``plan_tournament``'s optional backend (absent: local processes)."""
    if name == "local":
        return {}
    parameters = inspect.signature(plan_tournament).parameters
    if "backend" not in parameters:
        raise SystemExit(f"this arena's plan_tournament has no backend argument; use --backend local, not {name!r}")
    arguments: dict[str, Any] = {"backend": name}
    if scheduler:
        for key in ("scheduler", "address", "scheduler_address"):
            if key in parameters:
                arguments[key] = scheduler
                break
    return arguments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overnight", action="store_true", help="the large claims (hours on a few cores)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    parser.add_argument("--only", default="", help="comma-separated presets, e.g. expert")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--backend", default="local", help="local, or a backend the arena offers (e.g. dask)")
    parser.add_argument("--scheduler", default=None, help="address of a Dask scheduler, for --backend dask")
    parser.add_argument("--store", type=Path, default=RESULTS / f"apex_v{ApexPlayer.version}.db")
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: results/apex_headline*.json)")
    args = parser.parse_args()
    only = {p for p in args.only.split(",") if p}
    backend = backend_arguments(args.backend, args.scheduler)
    registry = Registry(entry_points=False)
    args.store.parent.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "numba": numba.__version__,
            "cpus": os.cpu_count(),
            "workers": args.workers,
            "backend": args.backend,
        },
        "player": {"name": "apex", "version": registry.get("apex").version, "options": "defaults"},
        "overnight": args.overnight,
        "claims": [],
    }
    with Store(args.store) as store:
        for claim in CLAIMS:
            if only and claim.preset not in only:
                continue
            games = max(100, int((claim.overnight_games if args.overnight else claim.games) * args.scale))
            row = run_claim(claim, store, registry, games, args.workers, backend)
            results["claims"].append(row)
            print(
                f"{claim.preset:>12} {claim.rule:>7}: {row['wins']}/{row['games']} = {100 * row['win_rate']:.2f}% "
                f"[{100 * row['ci_low']:.2f}, {100 * row['ci_high']:.2f}] · target {100 * claim.target:.1f}% "
                f"{row['target_verdict']} · published {100 * claim.published:.2f}% ({claim.published_source}) · "
                f"{row['ms_per_game_mean']:.1f} ms/game (median {row['ms_per_game_median']:.1f})",
                flush=True,
            )
    out = args.out or RESULTS / ("apex_headline_overnight.json" if args.overnight else "apex_headline.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
