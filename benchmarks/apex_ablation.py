"""Ablation of the `apex` player: what each part is worth, paired on identical boards.

One arena tournament holds the full player and one variant per switched-off part (each a
``PlayerRef(name="apex", options={...})``, so every variant has its own leaderboard key and plays
exactly the same boards). Each row gives games, wins, the win rate with its 95% Wilson interval,
CPU ms per game, and the paired difference to the full player: boards only one of the two won,
the difference with Tango's 95% interval and the exact McNemar p-value. Results go to a resumable
SQLite store and a JSON file under ``benchmarks/results/``; re-running plays only missing games,
and a larger ``--games`` extends the same boards. Caveat: the store keys games by player key and
options, not by code: the default store is named after the player's version (``apex_v3.db``); after
changing the player without a new version, start a new store (``--store``).

    python benchmarks/apex_ablation.py --preset expert --rule safe --games 20000   # the saved table
    python benchmarks/apex_ablation.py --variants full,greedy --games 2000 --workers 2

The saved Expert table (20000 boards, 2 cores, about 25 minutes) is
``results/apex_ablation_expert_safe.json`` (version 2, before ``deep=3`` became the default, which
``_deep_v3.json`` supports: 10000 boards); ``_deep.json`` holds the gated ``deep`` variant and
``_v1.json`` the version-1 table that exposed the flawed 50/50 rule. ``_hill.json`` measures D. N.
Hill's two refinements apex lacked (``--variants full,influence,blended,influence-blended --games
10000 --seed 7100000``), and ``_hill_influence.json`` the first on 20000 boards: neither is
significant, so both stay off.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from arena.config import PlayerRef, TournamentConfig
from arena.leaderboard import build_leaderboard
from arena.stats import compare_paired
from arena.store import Store
from arena.tournament import default_workers, run_tournament
from engine import PRESETS, FirstClick
from players import Registry
from players.builtin.apex import ApexPlayer

HERE = Path(__file__).parent
RESULTS = HERE / "results"
SEED = 6_000_000

#: Each variant switches off (or changes) one part of the full player.
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {},
    "greedy": {"lookahead": False, "endgame_layouts": 0, "fifty_fifty": False, "avoid_dead": False},
    "no-lookahead": {"lookahead": False},
    "no-endgame": {"endgame_layouts": 0},
    "no-fifty-fifty": {"fifty_fifty": False},
    "no-pseudo-fifty": {"pseudo_fifty": False},
    "no-dead-cells": {"avoid_dead": False},
    "no-progress-bonus": {"progress_weight": 0.0},
    "no-off-frontier": {"off_frontier": 0},
    "tolerance-0.05": {"tolerance": 0.05},
    "tolerance-0.2": {"tolerance": 0.2},
    "endgame-400": {"endgame_layouts": 400},
    "endgame-2000": {"endgame_layouts": 2000},
    "endgame-5000": {"endgame_layouts": 5000},
    "endgame-5000-deep": {"endgame_layouts": 5000, "endgame_effort": 1_500_000},
    "off-frontier-5": {"off_frontier": 5},
    "progress-0.3": {"progress_weight": 0.3},
    "candidates-16": {"max_candidates": 16},
    "no-deep": {"deep": 0},
    "tolerance-0.15": {"tolerance": 0.15},
    "deep-close": {"deep_margin": 0.02},
    "deep-5": {"deep": 5},
    "deep-5-wide": {"deep": 5, "max_candidates": 12, "off_frontier": 3},
    "opening-0-0": {"opening_cell": [0, 0]},
    "opening-1-1": {"opening_cell": [1, 1]},
    "opening-2-2": {"opening_cell": [2, 2]},
    "opening-4-4": {"opening_cell": [4, 4]},
    "opening-2-4": {"opening_cell": [2, 4]},
    "opening-2-3": {"opening_cell": [2, 3]},
    "opening-3-2": {"opening_cell": [3, 2]},
    # D. N. Hill's refinements (off by default): his 50/50 influence; his blended secondary
    # safety with his tiny progress weight; with apex's own progress weight; both together.
    "influence": {"fifty_influence": 0.9},
    "blended": {"blended_safety": True, "progress_weight": 0.001},
    "blended-progress-0.1": {"blended_safety": True},
    "influence-blended": {"fifty_influence": 0.9, "blended_safety": True, "progress_weight": 0.001},
}
#: The table reported by default: every part switched off in turn, plus the largest endgame.
DEFAULT_VARIANTS = (
    "full",
    "greedy",
    "no-lookahead",
    "no-endgame",
    "no-fifty-fifty",
    "no-dead-cells",
    "no-progress-bonus",
    "endgame-2000",
    "no-deep",
)


def ref(options: dict[str, Any]) -> PlayerRef:
    return PlayerRef(name="apex", options=options)


def ablation(
    store: Store, preset: str, rule: str, games: int, seed: int, variants: list[str], workers: int
) -> dict[str, Any]:
    """Run (or resume) the tournament and build the table; the full player is the reference."""
    names = ["full", *[v for v in variants if v != "full"]]
    refs = {name: ref(VARIANTS[name]) for name in names}
    config = TournamentConfig.build(
        PRESETS[preset], FirstClick(rule), seed=seed, games=games, players=tuple(refs.values())
    )
    start = time.perf_counter()
    summary = run_tournament(config, store, Registry(entry_points=False), workers=workers)
    board = build_leaderboard(store, config.id, games)
    by_key = {row.player: row for row in board.rows}
    won: dict[str, dict[int, bool]] = {}
    for g in store.games(config.id, games):
        won.setdefault(g["player"], {})[g["board"]] = bool(g["won"])
    rows = []
    reference = won[refs["full"].key]
    for name in names:
        key = refs[name].key
        row = by_key[key]
        entry: dict[str, Any] = {
            "variant": name,
            "key": key,
            "options": VARIANTS[name],
            "games": row.games,
            "wins": row.wins,
            "win_rate": row.win_rate,
            "ci_low": row.ci_low,
            "ci_high": row.ci_high,
            "ms_per_game": row.ms_per_game,
            "guesses_per_game": row.guesses_per_game,
            "errors": row.errors,
        }
        if name != "full":
            common = sorted(set(reference) & set(won[key]))
            cmp = compare_paired(np.array([won[key][b] for b in common]), np.array([reference[b] for b in common]))
            entry.update(
                paired_games=cmp.games,
                only_variant=cmp.only_a,
                only_full=cmp.only_b,
                diff_vs_full=cmp.diff,
                diff_low=cmp.diff_low,
                diff_high=cmp.diff_high,
                p_value=cmp.p_value,
            )
        rows.append(entry)
    return {
        "tournament_id": config.id,
        "preset": preset,
        "rule": rule,
        "seed": seed,
        "boards": games,
        "first_click": by_key[refs["full"].key].first_click,
        "played_now": summary.played,
        "wall_seconds": time.perf_counter() - start,
        "rows": rows,
    }


def render(table: dict[str, Any]) -> str:
    lines = [
        f"apex ablation: {table['preset']} / {table['rule']} / seed {table['seed']} / {table['boards']} boards "
        f"/ first click {table['first_click']}",
        f"{'variant':<18} {'games':>6} {'win rate [95% Wilson]':>26} {'ms/game':>8}  vs full (paired)",
    ]
    for r in table["rows"]:
        head = (
            f"{r['variant']:<18} {r['games']:>6} {100 * r['win_rate']:>7.2f}% "
            f"[{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}] {r['ms_per_game']:>8.1f}"
        )
        if r["variant"] == "full":
            lines.append(head + "  reference")
        else:
            lines.append(
                head + f"  {100 * r['diff_vs_full']:+.2f} pts [{100 * r['diff_low']:+.2f}, {100 * r['diff_high']:+.2f}]"
                f" ({r['only_variant']} vs {r['only_full']} discordant, McNemar p = {r['p_value']:.3g})"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--rule", default="safe", choices=[r.value for r in FirstClick])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--variants", default=",".join(DEFAULT_VARIANTS), help="comma-separated, from: " + ", ".join(VARIANTS)
    )
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--store", type=Path, default=RESULTS / f"apex_v{ApexPlayer.version}.db")
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: results/apex_ablation_*.json)")
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {', '.join(VARIANTS)}")
    args.store.parent.mkdir(parents=True, exist_ok=True)
    with Store(args.store) as store:
        table = ablation(store, args.preset, args.rule, args.games, args.seed, variants, args.workers)
    table["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count(), "workers": args.workers}
    table["player_version"] = Registry(entry_points=False).get("apex").version
    print(render(table))
    out = args.out or RESULTS / f"apex_ablation_{args.preset}_{args.rule}.json"
    out.write_text(json.dumps(table, indent=2) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
