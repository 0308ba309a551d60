"""`rollout` against `apex`, paired on identical boards: the gain, its cost and its budget curve.

One arena tournament holds `apex` and `rollout` at one or more budgets (playouts per game, each a
``PlayerRef(name="rollout", options={"budget": B, ...})``, so each has its own leaderboard key and
plays exactly the same boards). Each row gives games, the win rate with its 95% Wilson interval,
CPU ms per game (the leaderboard's figure), and the paired difference to `apex`: boards only one
of the two won, the difference with Tango's 95% interval and the exact McNemar p-value. Results go
to a resumable SQLite store and a JSON file under ``benchmarks/results/``; re-running plays only
missing games, and a larger ``--games`` extends the same boards. The store keys games by player
key and options, not by code: after changing the player, start a new store (``--store``).

    python benchmarks/rollout_headline.py --budgets 250,1000,4000 --games 2000   # the budget curve
    python benchmarks/rollout_headline.py --budgets 1000 --games 20000 --seed 8100000

Each rollout budget B races candidates with ``per_guess = B / 2`` playouts at most per decision.
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
from players.builtin.rollout import RolloutPlayer

HERE = Path(__file__).parent
RESULTS = HERE / "results"
SEED = 8_000_000


def rollout_ref(budget: int) -> PlayerRef:
    return PlayerRef(name="rollout", options={"budget": budget, "per_guess": max(budget // 2, 1)})


def headline(
    store: Store, preset: str, rule: str, games: int, seed: int, budgets: list[int], workers: int
) -> dict[str, Any]:
    """Run (or resume) the tournament and build the table; `apex` is the reference."""
    apex = PlayerRef(name="apex", options={})
    refs = {"apex": apex, **{f"rollout-{b}": rollout_ref(b) for b in budgets}}
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
    reference = won[apex.key]
    rows = []
    for name, ref in refs.items():
        row = by_key[ref.key]
        entry: dict[str, Any] = {
            "player": name,
            "key": ref.key,
            "options": dict(ref.options),
            "games": row.games,
            "wins": row.wins,
            "win_rate": row.win_rate,
            "ci_low": row.ci_low,
            "ci_high": row.ci_high,
            "ms_per_game": row.ms_per_game,
            "errors": row.errors,
        }
        if name != "apex":
            common = sorted(set(reference) & set(won[ref.key]))
            cmp = compare_paired(np.array([won[ref.key][b] for b in common]), np.array([reference[b] for b in common]))
            entry.update(
                paired_games=cmp.games,
                only_rollout=cmp.only_a,
                only_apex=cmp.only_b,
                diff_vs_apex=cmp.diff,
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
        "first_click": by_key[apex.key].first_click,
        "played_now": summary.played,
        "wall_seconds": time.perf_counter() - start,
        "rows": rows,
    }


def render(table: dict[str, Any]) -> str:
    lines = [
        f"rollout vs apex: {table['preset']} / {table['rule']} / seed {table['seed']} / {table['boards']} boards "
        f"/ first click {table['first_click']}",
        f"{'player':<14} {'games':>6} {'win rate [95% Wilson]':>26} {'ms/game':>8}  vs apex (paired)",
    ]
    for r in table["rows"]:
        head = (
            f"{r['player']:<14} {r['games']:>6} {100 * r['win_rate']:>7.2f}% "
            f"[{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}] {r['ms_per_game']:>8.1f}"
        )
        if r["player"] == "apex":
            lines.append(head + "  reference")
        else:
            lines.append(
                head + f"  {100 * r['diff_vs_apex']:+.2f} pts [{100 * r['diff_low']:+.2f}, {100 * r['diff_high']:+.2f}]"
                f" ({r['only_rollout']} vs {r['only_apex']} discordant, McNemar p = {r['p_value']:.3g})"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--rule", default="safe", choices=[r.value for r in FirstClick])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--budgets", default="1000", help="comma-separated playouts per game")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--store", type=Path, default=RESULTS / f"rollout_v{RolloutPlayer.version}.db")
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: results/rollout_*.json)")
    args = parser.parse_args()
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    except ValueError:
        parser.error(f"--budgets: comma-separated integers, not {args.budgets!r}")
    if not budgets or min(budgets) < 0:
        parser.error("--budgets: at least one budget, none negative")
    args.store.parent.mkdir(parents=True, exist_ok=True)
    with Store(args.store) as store:
        table = headline(store, args.preset, args.rule, args.games, args.seed, budgets, args.workers)
    table["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count(), "workers": args.workers}
    table["player_version"] = RolloutPlayer.version
    print(render(table))
    out = args.out or RESULTS / f"rollout_{args.preset}_{args.rule}.json"
    out.write_text(json.dumps(table, indent=2) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
