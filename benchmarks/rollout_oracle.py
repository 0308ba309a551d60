"""How much can rollouts gain at all? The value of a guess among apex's close candidates, measured
with many playouts, at the positions where `rollout` races.

The headline run (``rollout_headline.py``) measures the player; this measures the room it has.
Expert games are played by apex; at each guess apex decides by its lookahead with another
candidate close (the positions where `rollout` would race, ``RolloutPlayer._ranked``), every
candidate is played out on the same ``--layouts`` posterior layouts with the base policy. Per
position: each candidate's win rate, and the gain of choosing by rollouts over apex's choice,
estimated without selection bias by splitting the layouts: the candidate chosen on the first half
(argmax, or the player's rule: overrule apex only past ``switch_z``) is scored on the second half
against apex's choice. The mean gain per position times the races per game bounds what rollouts
with that many layouts per candidate can add per game, in the base policy's units (a playout
continues with greedy, not apex).

    python benchmarks/rollout_oracle.py --positions 40 --layouts 4000
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine import EXPERT, BoardSpec, FirstClick, Game, rng
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.player import DECIDED_LOOKAHEAD
from players.builtin.rollout import RolloutPlayer
from players.builtin.rollout.playout import evaluate
from players.builtin.rollout.sampler import PosteriorSampler
from players.solver.analysis import _LOG_TABLE

RESULTS = Path(__file__).parent / "results"


class _Probe(RolloutPlayer):
    """apex's moves; records the positions where `rollout` would race."""

    def reset(self, rng_: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng_, spec, rule)
        self.found: list[tuple[np.ndarray, int, list[int], PosteriorSampler]] = []

    def choose_guess(self, outlook: Outlook) -> tuple[int, int]:
        cell = ApexPlayer.choose_guess(self, outlook)
        if self.decided_by == DECIDED_LOOKAHEAD:
            ranked = self._ranked(outlook, cell)
            sampler = PosteriorSampler(outlook, self.options.max_solutions)
            if len(ranked) > 1 and sampler.ok:
                self.found.append((np.array(outlook.grid, np.int8), outlook.mines, ranked, sampler))
        return cell


def _mcnemar_z(a: np.ndarray, b: np.ndarray) -> float:
    better = int(np.count_nonzero((a == 1) & (b == 0)))
    worse = int(np.count_nonzero((a == 0) & (b == 1)))
    return 0.0 if better + worse == 0 else (better - worse) / math.sqrt(better + worse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--layouts", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=8_500_000)
    parser.add_argument("--switch-z", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=RESULTS / "rollout_oracle_expert_safe.json")
    args = parser.parse_args()
    probe = _Probe({"budget": 0})
    rows: list[dict[str, Any]] = []
    games = 0
    start = time.process_time()
    while len(rows) < args.positions:
        game = Game(EXPERT, FirstClick.SAFE, seed=args.seed, index=games)
        probe.reset(np.random.default_rng(games), EXPERT, FirstClick.SAFE)
        while not game.over:
            for action in probe.play(game.observation()):
                if game.over:
                    break
                if action.kind.name == "REVEAL" and game.grid[action.row, action.col] >= 0:
                    continue
                game.apply(action)
        games += 1
        for grid, mines, ranked, sampler in probe.found:
            if len(rows) >= args.positions:
                break
            state = rng.player_state(np.array([args.seed, games, len(rows), 1], np.uint64))
            layouts = sampler.sample(state, args.layouts)
            cells = np.array(ranked, np.int64)
            won = evaluate(grid.reshape(-1).copy(), layouts, cells, np.ones(len(ranked), np.bool_),
                           grid.shape[0], grid.shape[1], mines, _LOG_TABLE)  # fmt: skip
            half = args.layouts // 2
            first, second = won[:, :half], won[:, half:]
            rates = first.mean(axis=1)
            argmax = int(np.argmax(rates))
            rule = argmax if argmax != 0 and _mcnemar_z(first[argmax], first[0]) >= args.switch_z else 0
            rows.append({
                "game": games - 1,
                "covered": int((grid < 0).sum()),
                "candidates": len(ranked),
                "win_rates": won.mean(axis=1).tolist(),
                "best_minus_apex": float(won.mean(axis=1).max() - won[0].mean()),
                "gain_argmax": float(second[argmax].mean() - second[0].mean()),
                "gain_rule": float(second[rule].mean() - second[0].mean()),
            })  # fmt: skip
            r = rows[-1]
            print(f"{len(rows):3d} game {r['game']:3d} covered {r['covered']:3d} rates "
                  f"{' '.join(f'{x:.3f}' for x in r['win_rates'])}  argmax gain {r['gain_argmax']:+.4f}"
                  f"  rule gain {r['gain_rule']:+.4f}", flush=True)  # fmt: skip
    summary: dict[str, Any] = {"positions": len(rows), "games": games, "layouts": args.layouts}
    summary["races_per_game"] = len(rows) / games
    for key in ("best_minus_apex", "gain_argmax", "gain_rule"):
        values = np.array([r[key] for r in rows])
        se = float(values.std(ddof=1) / math.sqrt(len(values)))
        summary[key] = {"mean": float(values.mean()), "low": float(values.mean() - 1.96 * se),
                        "high": float(values.mean() + 1.96 * se)}  # fmt: skip
        summary[key + "_per_game_points"] = 100 * float(values.mean()) * summary["races_per_game"]
    summary["cpu_seconds"] = time.process_time() - start
    summary["switch_z"] = args.switch_z
    print(json.dumps(summary, indent=2))
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n")
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
