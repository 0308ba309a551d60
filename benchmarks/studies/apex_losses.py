"""Where `apex` loses: every guess, by the part of the player that made it and how far the game had got.

A game is lost at a guess that hits a mine, and a guess whose cell is a mine with probability
``p`` (exact, given what the player has seen) loses ``p`` of a game on average: the mean over games
of ``p`` summed over a game's guesses estimates the loss rate without bias and with less noise
than the losses themselves (the benchmark prints both, and their difference with its interval, a
check of the probabilities). Split by ``ApexPlayer.decided_by`` and by the share of the safe cells
revealed before the guess, it shows where the games are lost: e.g. how much goes to the guesses
made when only the first click is open (every cell away from it is equally likely a mine), to
unavoidable 50/50s (lost half the time whatever is played) and to the lookahead's choices.

Columns: guesses per game, their mean mine probability, expected losses per game with a 95%
interval over games, the share of guesses away from the numbers, and "excess": how much more
likely a mine the guessed cell was than the board's safest cell, per game. Excess is not regret:
the endgame search and the lookahead take a less safe cell on purpose when it wins more games.

    python benchmarks/studies/apex_losses.py                     # Expert, 10000 games, about 2 minutes on 2 cores
    python benchmarks/studies/apex_losses.py --preset beginner   # 20 seconds

Writes ``benchmarks/studies/results/apex_losses_<preset>_safe.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import PRESETS, BoardSpec, FirstClick
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook

HERE = Path(__file__).parent
RESULTS = HERE / "results"
SEED = 9_100_000
#: Phases: the share of the safe cells revealed before the guess (upper bounds).
PHASES = ((0.0, "first click only"), (0.1, "up to 10%"), (0.5, "10-50%"), (0.9, "50-90%"), (1.0, "over 90%"))


class LossProbe(ApexPlayer):
    """`apex` itself (every decision unchanged) that records each guess: what decided it, the
    guessed cell's mine probability, the lowest one on the board and the share of safe cells
    revealed."""

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        self.guesses: list[dict[str, Any]] = []

    def choose_guess(self, outlook: Outlook) -> tuple[int, int]:
        row, col = super().choose_guess(outlook)
        p = outlook.probabilities
        cell = row * outlook.width + col
        safe_cells = outlook.covered.size - outlook.mines
        revealed = int((outlook.grid >= 0).sum())
        self.guesses.append(
            {
                "source": self.decided_by,
                "p": float(p[cell]),
                "lowest": float(p[outlook.covered & (p < 1.0)].min()),
                "revealed": revealed / safe_cells,
                "first_click_only": revealed == 1,
                "frontier": bool(outlook.comp_of[cell] >= 0),
            }
        )
        return row, col


def play_range(task: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    """Games ``first .. first + count - 1`` of a preset: per game, won and the guesses."""
    preset, first, count, seed = task
    spec = PRESETS[preset]
    player = LossProbe()
    games = []
    for index in range(first, first + count):
        # The arena's own game loop (a trusted player has no time limits); a probe's error stops the run.
        result = play_game(player, "apex", spec, FirstClick.SAFE, seed, index)
        if result.outcome not in (Outcome.WON, Outcome.LOST):
            raise RuntimeError(f"board {index}: {result.outcome.value}: {result.error}")
        games.append({"won": result.won, "guesses": player.guesses})
    return games


def phase_of(guess: dict[str, Any]) -> str:
    if guess["first_click_only"]:
        return PHASES[0][1]
    return next(name for bound, name in PHASES[1:] if guess["revealed"] <= bound)


def tabulate(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (source, phase): guesses per game, their mean mine probability, expected losses per game
    (with a 95% interval over games), the share played away from the numbers, and the excess: how
    much more likely a mine the guess was than the board's safest cell, per game."""
    n = len(games)
    per_game: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros(n))
    count: dict[tuple[str, str], int] = defaultdict(int)
    away: dict[tuple[str, str], int] = defaultdict(int)
    excess: dict[tuple[str, str], float] = defaultdict(float)
    for index, game in enumerate(games):
        for guess in game["guesses"]:
            key = (guess["source"], phase_of(guess))
            per_game[key][index] += guess["p"]
            count[key] += 1
            away[key] += not guess["frontier"]
            excess[key] += guess["p"] - guess["lowest"]
    rows = []
    order = [name for _, name in PHASES]
    for key in sorted(per_game, key=lambda k: (k[0], order.index(k[1]))):
        values = per_game[key]
        half = 1.96 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
        rows.append(
            {
                "source": key[0],
                "phase": key[1],
                "guesses_per_game": count[key] / n,
                "mean_mine_probability": float(values.sum()) / count[key],
                "expected_losses_per_game": float(values.mean()),
                "expected_losses_ci": [float(values.mean()) - half, float(values.mean()) + half],
                "away_from_numbers": away[key] / count[key],
                "excess_over_safest_per_game": excess[key] / n,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="default: results/apex_losses_<preset>_safe.json")
    args = parser.parse_args()
    if args.games < 2 or args.workers < 1:
        raise SystemExit("--games must be at least 2 and --workers positive")
    out = args.out or RESULTS / f"apex_losses_{args.preset}_safe.json"
    chunk = max(1, min(100, args.games // (4 * args.workers) or 1))
    tasks = [(args.preset, first, min(chunk, args.games - first), args.seed) for first in range(0, args.games, chunk)]
    start = time.perf_counter()
    games: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(play_range, tasks):
            games.extend(part)
    wall = time.perf_counter() - start
    n = len(games)
    lost = np.array([0.0 if g["won"] else 1.0 for g in games])
    expected = np.array([sum(g["p"] for g in game["guesses"]) for game in games])
    gap = lost - expected
    gap_half = 1.96 * float(gap.std(ddof=1)) / math.sqrt(n)
    rows = tabulate(games)
    print(
        f"{args.preset}, safe, {n} games (seed {args.seed}): lost {lost.mean():.4f} per game, expected "
        f"{expected.mean():.4f} (difference {gap.mean():+.4f} +/- {gap_half:.4f})"
    )
    header = ("decided by", "phase", "guesses/game", "mean p", "losses/game [95% CI]", "away", "excess")
    widths = (15, 17, 12, 7, 25, 5, 7)
    print(" ".join(f"{title:>{width}}" for title, width in zip(header, widths, strict=True)))
    for row in rows:
        low, high = row["expected_losses_ci"]
        interval = f"{row['expected_losses_per_game']:.4f} [{max(low, 0.0):.4f}, {high:.4f}]"
        print(
            f"{row['source']:>15} {row['phase']:>17} {row['guesses_per_game']:>12.3f} "
            f"{row['mean_mine_probability']:>7.4f} {interval:>25} "
            f"{row['away_from_numbers']:>5.2f} {row['excess_over_safest_per_game']:>7.4f}"
        )
    result = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()},
        "player": {"name": "apex", "version": ApexPlayer.version, "options": ApexPlayer.Options().model_dump()},
        "preset": args.preset,
        "rule": "safe",
        "seed": args.seed,
        "games": n,
        "losses_per_game": float(lost.mean()),
        "expected_losses_per_game": float(expected.mean()),
        "difference_ci": [float(gap.mean()) - gap_half, float(gap.mean()) + gap_half],
        "rows": rows,
        "wall_seconds": wall,
    }
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{wall:.0f} s; saved {out}")


if __name__ == "__main__":
    main()
