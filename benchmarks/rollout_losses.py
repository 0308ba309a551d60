"""Where `rollout` and `apex` differ: races, switches and playouts per game, and the boards only
one of them won, replayed in-process on the headline's boards.

Every game of `rollout` is apex's until a race overrules apex's choice, so the boards the two
split are the boards with a switch (or where a race's draws changed nothing but the budget). Per
budget: races, switches and playouts per game, the discordant boards, and how many of those had a
switch. Same boards and player seeds as ``rollout_headline.py`` (``arena.runner.play_game``), so
the outcomes are the tournament's.

    python benchmarks/rollout_losses.py --games 200 --budgets 250,1000,4000
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from arena.runner import Outcome, play_game
from engine import PRESETS, FirstClick
from players.builtin.apex import ApexPlayer
from players.builtin.rollout import RolloutPlayer

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--rule", default="safe", choices=[r.value for r in FirstClick])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=8_000_000)
    parser.add_argument("--budgets", default="250,1000,4000")
    parser.add_argument("--out", type=Path, default=RESULTS / "rollout_losses_expert_safe.json")
    args = parser.parse_args()
    spec, rule = PRESETS[args.preset], FirstClick(args.rule)
    apex = ApexPlayer()
    apex_won = [play_game(apex, "apex", spec, rule, args.seed, b).outcome is Outcome.WON for b in range(args.games)]
    table: dict[str, Any] = {"preset": args.preset, "rule": args.rule, "seed": args.seed, "games": args.games,
                             "apex_wins": sum(apex_won), "budgets": []}  # fmt: skip
    for budget in (int(b) for b in args.budgets.split(",")):
        player = RolloutPlayer({"budget": budget, "per_guess": max(budget // 2, 1)})
        races = switches = spent = 0
        switched_games = 0
        only_rollout: list[dict[str, Any]] = []
        only_apex: list[dict[str, Any]] = []
        start = time.process_time()
        for board in range(args.games):
            won = play_game(player, "rollout", spec, rule, args.seed, board).outcome is Outcome.WON
            n_switch = sum(1 for r in player.races if r.chosen != 0)
            races += len(player.races)
            switches += n_switch
            switched_games += n_switch > 0
            spent += budget - player.budget_left
            if won != apex_won[board]:
                entry = {"board": board, "switches": n_switch, "races": len(player.races),
                         "last_guess_by": player.decided_by}  # fmt: skip
                (only_rollout if won else only_apex).append(entry)
        row = {
            "budget": budget,
            "races_per_game": races / args.games,
            "switches_per_game": switches / args.games,
            "games_with_a_switch": switched_games,
            "playouts_per_game": spent / args.games,
            "cpu_ms_per_game": 1000 * (time.process_time() - start) / args.games,
            "rollout_wins": sum(apex_won) + len(only_rollout) - len(only_apex),
            "only_rollout": only_rollout,
            "only_apex": only_apex,
        }
        table["budgets"].append(row)
        print(f"budget {budget}: {row['races_per_game']:.2f} races, {row['switches_per_game']:.3f} switches "
              f"({switched_games} games), {row['playouts_per_game']:.0f} playouts, {row['cpu_ms_per_game']:.0f} ms "
              f"per game; discordant {len(only_rollout)} vs {len(only_apex)}, with a switch "
              f"{sum(e['switches'] > 0 for e in only_rollout)} / {sum(e['switches'] > 0 for e in only_apex)}",
              flush=True)  # fmt: skip
    args.out.write_text(json.dumps(table, indent=2) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
