"""Ablation of the `apex` player: what each part is worth, paired on identical boards.

One arena tournament holds the full player and one variant per switched-off part (each a
``PlayerRef(name="apex", options={...})``, so every variant has its own leaderboard key and plays
exactly the same boards). Each row gives games, wins, the win rate with its 95% Wilson interval,
CPU ms per game, and the paired difference to the full player: boards only one of the two won,
the difference with Tango's 95% interval and the exact McNemar p-value. Results go to a resumable
SQLite store and a JSON file under ``benchmarks/studies/results/``; re-running plays only missing games,
and a larger ``--games`` extends the same boards. Caveat: the store keys games by player key and
options, not by code: the default store is named after the player's version (``apex_v3.db``); after
changing the player without a new version, start a new store (``--store``).

    python benchmarks/studies/apex_ablation.py --preset expert --rule safe --games 20000
    python benchmarks/studies/apex_ablation.py --variants full,no-deep --games 2000 --workers 2

The saved tables (``results/apex_ablation_*.json``) and what they showed are summed up in
``docs/experiments.md``.
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

from arena.analysis.leaderboard import build_leaderboard
from arena.analysis.stats import compare_paired
from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import default_workers, plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.builtin.apex import ApexPlayer
from players.registry import Registry

HERE = Path(__file__).parent
RESULTS = HERE / "results"
SEED = 6_000_000

#: Each variant changes one of the player's options (the variants of the saved tables that switched
#: off parts now built in, or tried research options, ran on the code at commit d26d1cd).
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {},
    "no-endgame": {"endgame_layouts": 0},
    "endgame-2000": {"endgame_layouts": 2000},
    "endgame-5000": {"endgame_layouts": 5000},
    "endgame-5000-deep": {"endgame_layouts": 5000, "endgame_effort": 1_500_000},
    "no-deep": {"deep": 0},
    "deep-5": {"deep": 5},
}
#: The table reported by default.
DEFAULT_VARIANTS = ("full", "no-endgame", "endgame-2000", "no-deep")


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
    summary = run_tournament(plan_tournament(config, store, Registry(entry_points=False), workers=workers), store)
    leaderboard = build_leaderboard(store, config.id, games)
    by_key = {row.player: row for row in leaderboard.rows}
    won: dict[str, dict[int, bool]] = {}
    for g in store.games(config.id, games):
        won.setdefault(g.player, {})[g.board] = g.won
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
            "failed": row.failed,
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
