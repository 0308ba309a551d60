"""What exact search could still add to `apex`, measured as regret instead of by tournament.

`apex` searches the game tree exactly when at most ``endgame_layouts`` (400) layouts remain and
decides every other guess by its heuristics. D. N. Hill's Java solver searches up to about 4000
layouts. A larger threshold is worth about 0.1 point at most, which a paired tournament needs
about 100k games to see. This study measures it directly instead.

It plays ``--games`` boards with `apex` (defaults) and stops at every guess the heuristics make in
a position of at most ``--layouts`` layouts that apex's own search did not decide (more than
``endgame_layouts`` layouts, or the search ran out of ``endgame_effort``). ``guess_values`` gives
the exact probability of winning after each possible guess with perfect play afterwards, within a
work budget (``--budget``).

The regret of a stop is the best guess's value minus apex's guess's value. The sum of regrets over
a game is exactly what exact play in every position with at most ``--layouts`` layouts adds to that
game's chance of winning (the performance-difference identity: those positions only lead to
smaller ones, where exact play is optimal). Summed over games and divided by their number, it is
the win rate the larger threshold would add with an unlimited budget, with a 95% interval over
games. The effort (layouts summed over the states expanded) and time of each search show what a
budget would keep of the gain. (The saved results also hold an ``isolated`` kind: exact search of
isolated components, measured with code at commit d26d1cd; see ``docs/experiments.md``.)

    python benchmarks/studies/apex_regret.py --games 10000 --layouts 5000   # the saved run, ~4 minutes on 2 cores
    python benchmarks/studies/apex_regret.py --preset intermediate           # (and beginner): under a minute

The search time it prints includes allocating the memo the budget asks for (``Endgame`` sizes it
for the budget), so it is an upper bound; the effort figures are the work itself.

Writes ``benchmarks/studies/results/apex_regret_<preset>_safe.json`` (``--preset``, Expert by default).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import PRESETS, BoardSpec, FirstClick
from players.builtin.apex import ApexPlayer
from players.builtin.apex.endgame import Endgame, EndgameBudgetExceeded, _search, enumerate_layouts
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.player import DECIDED_ENDGAME

HERE = Path(__file__).parent
RESULTS = HERE / "results"
SEED = 8_300_000


def guess_values(search: Endgame) -> dict[int, float]:
    """Per board cell that is safe in some layout: the probability of winning when it is revealed
    now and every later click is the best. One memo serves every cell; the budget bounds the work
    of all of them together (``search.effort`` is what it took)."""
    count = search.layouts.shape[0]
    key1, key2, table, counter = search._tables()
    values: dict[int, float] = {}
    for j in range(search.layouts.shape[1]):
        safe = np.flatnonzero(search.layouts[:, j] == 0)
        if safe.shape[0] == 0:
            continue
        shown = search.numbers[safe, j]
        total = 0.0
        for v in np.unique(shown):
            part = safe[shown == v].astype(np.int64)
            r, _ = _search(part, search.layouts, search.numbers, key1, key2, *table, counter, search.budget)
            if r < 0.0:
                search.effort = int(counter[0])
                raise EndgameBudgetExceeded
            total += part.shape[0] / count * r
        values[int(search.cells[j])] = total
    search.effort = int(counter[0])
    return values


class RegretProbe(ApexPlayer):
    """`apex` itself (every decision unchanged) that records, at each heuristic guess, the exact
    value of the best guess and of its own where a search is possible."""

    layouts = 5000
    budget = 30_000_000

    def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
        super().reset(rng, spec, rule)
        self.stops: list[dict[str, Any]] = []

    def choose_guess(self, outlook: Outlook) -> tuple[int, int]:
        choice = super().choose_guess(outlook)
        if self.decided_by == DECIDED_ENDGAME:
            return choice  # optimal already
        cell = choice[0] * outlook.width + choice[1]
        if outlook.log_weight <= math.log(self.layouts) + 1e-9:
            found = enumerate_layouts(outlook, self.layouts)
            if found is not None and found[1].shape[0] > 0:
                self._measure("threshold", found, outlook, cell)
        return choice

    def _measure(self, kind: str, found: tuple[np.ndarray, np.ndarray], outlook: Outlook, cell: int) -> None:
        cells, layouts = found
        search = Endgame(outlook, layouts, cells, self.budget)
        start = time.perf_counter()
        try:
            values = guess_values(search)
        except EndgameBudgetExceeded:
            values = None
        seconds = time.perf_counter() - start
        stop: dict[str, Any] = {"kind": kind, "layouts": int(layouts.shape[0]), "seconds": seconds}
        if values is None:
            stop.update(solved=False, effort=None, regret=None)
        else:
            best = max(values.values())
            stop.update(solved=True, effort=search.effort, best=best, chosen=values.get(cell, 0.0))
            stop["regret"] = best - stop["chosen"]
        self.stops.append(stop)


def play_range(task: tuple[str, int, int, int, int, int]) -> list[dict[str, Any]]:
    """Games ``first .. first + count - 1`` of a preset: per game, won and the stops."""
    preset, first, count, seed, layouts, budget = task
    spec = PRESETS[preset]
    player = RegretProbe()
    player.layouts, player.budget = layouts, budget
    games = []
    for index in range(first, first + count):
        # The arena's own game loop (a trusted player has no time limits); a probe's error stops the run.
        result = play_game(player, "apex", spec, FirstClick.SAFE, seed, index)
        if result.outcome not in (Outcome.WON, Outcome.LOST):
            raise RuntimeError(f"board {index}: {result.outcome.value}: {result.error}")
        games.append({"board": index, "won": result.won, "stops": player.stops})
    return games


def summarize(games: list[dict[str, Any]], kind: str, budgets: tuple[int, ...]) -> dict[str, Any]:
    """Stops of one kind: counts, the regret per game with its 95% interval (over games), and the
    share of it a search limited to each budget would keep."""
    n = len(games)
    per_game = np.array([sum(s["regret"] or 0.0 for s in g["stops"] if s["kind"] == kind) for g in games])
    stops = [s for g in games for s in g["stops"] if s["kind"] == kind]
    solved = [s for s in stops if s["solved"]]
    mean = float(per_game.mean()) if n else 0.0
    half = 1.96 * float(per_game.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    efforts = np.array([s["effort"] for s in solved], dtype=float)
    seconds = np.array([s["seconds"] for s in stops], dtype=float)
    kept = {str(b): float(sum(s["regret"] for s in solved if s["effort"] <= b) / n) if n else 0.0 for b in budgets}
    return {
        "stops": len(stops),
        "stops_per_game": len(stops) / n if n else 0.0,
        "unsolved_within_budget": len(stops) - len(solved),
        "stops_with_regret": sum(1 for s in solved if s["regret"] > 1e-12),
        "regret_per_game": mean,
        "regret_per_game_ci": [mean - half, mean + half],
        "regret_per_game_within_budget": kept,
        "layouts_quantiles": np.percentile([s["layouts"] for s in stops], [50, 90, 100]).tolist() if stops else [],
        "effort_quantiles_50_90_99_max": np.percentile(efforts, [50, 90, 99, 100]).tolist() if solved else [],
        "search_seconds_per_game": float(seconds.sum() / n) if n else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--layouts", type=int, default=5000, help="largest position searched (layouts)")
    parser.add_argument("--budget", type=int, default=30_000_000, help="work budget of one stop's search")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="default: results/apex_regret_<preset>_safe.json")
    args = parser.parse_args()
    if args.games < 1 or args.layouts < 1 or args.budget < 1 or args.workers < 1:
        raise SystemExit("--games, --layouts, --budget and --workers must be positive")
    out = args.out or RESULTS / f"apex_regret_{args.preset}_safe.json"
    chunk = max(1, min(50, args.games // (4 * args.workers) or 1))
    tasks = [
        (args.preset, first, min(chunk, args.games - first), args.seed, args.layouts, args.budget)
        for first in range(0, args.games, chunk)
    ]
    start = time.perf_counter()
    games: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(play_range, tasks):
            games.extend(part)
    wall = time.perf_counter() - start
    wins = sum(g["won"] for g in games)
    budgets = (300_000, 1_500_000, 5_000_000, args.budget)
    player = ApexPlayer()
    result = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()},
        "player": {"name": "apex", "version": player.version, "endgame_layouts": player.options.endgame_layouts},
        "preset": args.preset,
        "rule": "safe",
        "seed": args.seed,
        "games": len(games),
        "wins": wins,
        "layouts": args.layouts,
        "budget": args.budget,
        "threshold": summarize(games, "threshold", budgets),
        "wall_seconds": wall,
    }
    for kind in ("threshold",):
        row = result[kind]
        low, high = row["regret_per_game_ci"]
        print(
            f"{kind:>9}: {row['stops']} stops in {len(games)} games ({row['unsolved_within_budget']} over budget, "
            f"{row['stops_with_regret']} with regret) · regret per game {100 * row['regret_per_game']:.3f} points "
            f"[{100 * low:.3f}, {100 * high:.3f}] · within budgets "
            + ", ".join(f"{b}: {100 * v:.3f}" for b, v in row["regret_per_game_within_budget"].items())
            + f" · search {1000 * row['search_seconds_per_game']:.1f} ms per game",
            flush=True,
        )
    print(f"apex won {wins}/{len(games)}; {wall:.0f} s")
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
