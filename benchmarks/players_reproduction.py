"""Reproduce published win rates with the built-in players, and measure their speed.

Each claim runs as a real tournament (all local cores, results in a SQLite store beside this
file so an interrupted run resumes) and prints: games, wins, win rate with its 95% Wilson
interval, the published figure, whether the figure lies in our interval, and the exact
two-sided binomial p-value of our wins against the published rate (the published samples are
so large that their own uncertainty is negligible next to ours).

For `enumeration`, two differences from the Rust solver are measured on the same boards, because
our Expert rate sits above its figure (notes in ``NOTES`` and the JSON):

* scoring: the Rust solver counts a game as won only when every mine is flagged too, and it can
  never flag a mine with no safe neighbour (nothing it sees touches that mine), so it clicks it
  and loses. ``rust_scored_*`` re-scores our games that way: a win on a board whose layout has such
  an enclosed mine is a loss.
* the guess threshold: the Rust solver guesses away from the frontier when the frontier's best
  cell is no safer than mines left / covered cells (the density of the whole covered area), where
  ours compares with the expected density of the unconstrained cells alone. The
  ``enumeration[interior=density]`` variant plays the same boards with the Rust threshold; its
  paired difference and its Rust-scored rate are reported.
* the counting: each component alone, with only an upper bound from the mine count, and mines
  found by enumeration left unflagged: ``enumeration[counting=rust]`` (threshold included).

Speed: CPU ms per game per player and preset on one core, from the per-game CPU times the
workers record (compile time excluded: each worker warms its players up first). The numba
compile time is measured separately in a fresh process with an empty cache.

    python benchmarks/players_reproduction.py [--scale 1.0] [--only enumeration]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from arena.config import PlayerRef, TournamentConfig
from arena.stats import binomial_two_sided_p, compare_paired, wilson_interval
from arena.store import Store
from arena.tournament import default_workers, run_tournament
from engine import PRESETS, FirstClick, Game
from players import Registry

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "players_reproduction.json"
STORE = HERE / "results" / "players_reproduction.db"
SEED = 4_000_000


@dataclass(frozen=True)
class Claim:
    player: str
    preset: str
    rule: str
    published: float
    source: str
    games: int

    @property
    def publisher(self) -> str:
        return "article" if self.source.startswith("C++") else "rust"


CLAIMS = (
    Claim("enumeration", "beginner", "safe", 0.9105, "Rust solver, measured here: 1.2M games", 100_000),
    Claim("enumeration", "intermediate", "safe", 0.7568, "Rust solver, measured here: 500k games", 40_000),
    Claim("enumeration", "expert", "safe", 0.3251, "Rust solver, measured here: 240k games", 20_000),
    Claim("random", "expert", "opening", 0.07, "C++ engine article: 10k games", 10_000),
    Claim("max-single-constraint", "expert", "opening", 0.10, "C++ engine article: 10k games", 10_000),
    Claim("mean-constraint", "expert", "opening", 0.14, "C++ engine article: 10k games", 10_000),
)

#: Our enumeration with the Rust solver's guess threshold, and with its counting too.
DENSITY = PlayerRef(name="enumeration", options={"interior": "density"})
RUST = PlayerRef(name="enumeration", options={"counting": "rust"})

#: What the scoring and threshold rows found (printed and saved with the results).
NOTES = {
    "enumeration": (
        "Seed 4000000, safe first click in the corner. As published, the Rust solver differs from ours in three "
        "measured ways: it needs every mine flagged to win and cannot flag a mine with no safe neighbour "
        "(1.1% of Expert layouts); it guesses away from the frontier when the best frontier cell is no safer "
        "than mines left / covered cells; it counts each component alone with only an upper bound from the "
        "mine count. With all three (counting=rust, Rust scoring), ours gives 91.05% [90.87, 91.23] / 75.91% "
        "[75.49, 76.32] / 33.03% [32.39, 33.69] against 91.05 / 75.68 / 32.51%: Beginner and Intermediate "
        "reproduced, Expert 0.5 points above, just outside. Left unmodelled: its floating-point RREF with "
        "exact zero tests (rounding can drop valid solutions; a panic counts as a loss)."
    ),
    "constraint players": (
        "Seed 4000000, first click a zero in the corner. The C++ article's engine, rules and code are not "
        "public; ours follow the issue's definitions (the single-cell rules, then the guess rule). Its known "
        "engine bug (a mine hit that leaves one safe cell counted as a win) adds 0.4 / 0.6 / 1.0 points "
        "here, far from its 7 / 10 / 14%. A factor of two or more remains unexplained; our engine's rules "
        "and layouts are checked by the engine tests and the uniformity benchmark, and the same players "
        "on Beginner win 71-83%, so the difference lies in the article's players or counting, which we "
        "cannot inspect."
    ),
}


#: The Rust solver's per-game times on this kind of machine (REFERENCES.md), for the ratio.
RUST_MS = {"beginner": 0.085, "intermediate": 0.53, "expert": 2.3}


def compile_seconds() -> float:
    """Seconds to compile every kernel the built-in players use, in a fresh process, no cache."""
    code = (
        "import time; t=time.perf_counter();"
        "from players import Registry; from arena.worker import warm_up;"
        "r=Registry(); [warm_up(r.create(n)) for n in sorted(r.players)];"
        "print(time.perf_counter()-t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def enclosed_mine(layout: np.ndarray) -> bool:
    """Whether some mine has no safe neighbour (the board's edge counts as mines)."""
    padded = np.pad(layout, 1, constant_values=True)
    height, width = layout.shape
    surrounded = np.ones_like(layout)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr != 1 or dc != 1:
                surrounded &= padded[dr : dr + height, dc : dc + width]
    return bool((layout & surrounded).any())


def rust_scored_wins(rows: list[dict[str, object]], claim: Claim) -> int:
    """Wins left when a win on a board with an enclosed mine (for the game's own first click) is a loss."""
    wins = 0
    for g in rows:
        if not g["won"]:
            continue
        game = Game(PRESETS[claim.preset], FirstClick(claim.rule), seed=SEED, index=int(g["board"]))  # type: ignore[call-overload]
        wins += not enclosed_mine(game.mine_layout((int(g["first_row"]), int(g["first_col"]))))  # type: ignore[call-overload]
    return wins


def run_claim(claim: Claim, registry: Registry, store: Store, scale: float) -> dict[str, object]:
    games = max(100, int(claim.games * scale))
    refs = [PlayerRef(name=claim.player)]
    if claim.player == "enumeration":
        refs += [DENSITY, RUST]
    config = TournamentConfig.build(
        PRESETS[claim.preset], FirstClick(claim.rule), seed=SEED, games=games, players=tuple(refs)
    )
    start = time.perf_counter()
    run_tournament(config, store, registry, workers=default_workers())
    every = store.games(config.id, games)
    rows = [g for g in every if g["player"] == claim.player]
    wins = sum(g["won"] for g in rows)
    low, high = wilson_interval(wins, len(rows))
    cpu = np.array([g["cpu_ms"] for g in rows])
    row: dict[str, object] = {
        "player": claim.player,
        "preset": claim.preset,
        "rule": claim.rule,
        "games": len(rows),
        "wins": wins,
        "win_rate": wins / len(rows),
        "ci_low": low,
        "ci_high": high,
        "published": claim.published,
        "published_source": claim.source,
        "published_in_ci": low <= claim.published <= high,
        "p_value_vs_published": binomial_two_sided_p(wins, len(rows), claim.published),
        "ms_per_game_mean": float(cpu.mean()),
        "ms_per_game_median": float(np.median(cpu)),
        "errors": sum(g["outcome"] not in ("won", "lost") for g in rows),
        "wall_seconds": time.perf_counter() - start,
    }
    if claim.publisher == "article":
        # The known engine bug (REFERENCES.md): a mine hit that leaves exactly one safe cell counted as a win.
        safe_cells = PRESETS[claim.preset].height * PRESETS[claim.preset].width - PRESETS[claim.preset].mines
        lucky = sum(g["outcome"] == "lost" and g["revealed_cells"] == safe_cells - 1 for g in rows)
        low, high = wilson_interval(wins + lucky, len(rows))
        row["last_cell_bug"] = {
            "wins": wins + lucky,
            "win_rate": (wins + lucky) / len(rows),
            "ci_low": low,
            "ci_high": high,
        }
    if claim.player == "enumeration":
        row.update(rust_scoring(rows, claim, "rust_scored"))
        row["density_variant"] = variant_row(every, rows, DENSITY, claim)
        row["rust_variant"] = variant_row(every, rows, RUST, claim)
    return row


def variant_row(
    every: list[dict[str, object]], rows: list[dict[str, object]], ref: PlayerRef, claim: Claim
) -> dict[str, object]:
    """A variant of ours on the same boards: its win rate, the paired difference (variant minus
    ours), and its rate scored as the Rust solver scores."""
    variant = {int(g["board"]): g for g in every if g["player"] == ref.key}  # type: ignore[call-overload]
    own = {int(g["board"]): g for g in rows}  # type: ignore[call-overload]
    both = sorted(set(own) & set(variant))
    paired = compare_paired([bool(own[b]["won"]) for b in both], [bool(variant[b]["won"]) for b in both])
    wins = sum(bool(g["won"]) for g in variant.values())
    return {
        "player": ref.key,
        "games": len(variant),
        "wins": wins,
        "win_rate": wins / len(variant),
        "paired_games": paired.games,
        "only_variant": paired.only_b,
        "only_ours": paired.only_a,
        "diff": -paired.diff,
        "diff_low": -paired.diff_high,
        "diff_high": -paired.diff_low,
        "p_value": paired.p_value,
        **rust_scoring(list(variant.values()), claim, "rust_scored"),
    }


def rust_scoring(rows: list[dict[str, object]], claim: Claim, prefix: str) -> dict[str, object]:
    wins = rust_scored_wins(rows, claim)
    low, high = wilson_interval(wins, len(rows))
    return {
        f"{prefix}_wins": wins,
        f"{prefix}_win_rate": wins / len(rows),
        f"{prefix}_ci_low": low,
        f"{prefix}_ci_high": high,
        f"{prefix}_published_in_ci": low <= claim.published <= high,
    }


def speed_table(registry: Registry, store: Store, scale: float) -> list[dict[str, object]]:
    """Every built-in player on every preset (safe rule), CPU ms per game."""
    rows = []
    names = sorted(registry.players)
    for preset in ("beginner", "intermediate", "expert"):
        games = max(50, int(1000 * scale))
        config = TournamentConfig.build(
            PRESETS[preset],
            FirstClick.SAFE,
            seed=SEED + 1,
            games=games,
            players=tuple(PlayerRef(name=n) for n in names),
        )
        run_tournament(config, store, registry, workers=default_workers())
        by_player: dict[str, list[float]] = {}
        for g in store.games(config.id, games):
            by_player.setdefault(g["player"], []).append(g["cpu_ms"])
        for name in names:
            cpu = np.array(by_player[name])
            row = {"player": name, "preset": preset, "games": cpu.size, "ms_per_game_mean": float(cpu.mean())}
            row["ms_per_game_median"] = float(np.median(cpu))
            if name == "enumeration":
                row["rust_ms_per_game"] = RUST_MS[preset]
                row["ratio_to_rust"] = row["ms_per_game_mean"] / RUST_MS[preset]
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (0.1 for a quick look)")
    parser.add_argument("--only", default="", help="comma-separated players to run (default: all claims)")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed table")
    args = parser.parse_args()
    only = {p for p in args.only.split(",") if p}
    registry = Registry(entry_points=False)
    STORE.parent.mkdir(exist_ok=True)
    results: dict[str, object] = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "cpus": os.cpu_count(),
            "workers": default_workers(),
        },
        "seed": SEED,
    }
    with Store(STORE) as store:
        claims = []
        for claim in CLAIMS:
            if only and claim.player not in only:
                continue
            row = run_claim(claim, registry, store, args.scale)
            claims.append(row)
            verdict = "within" if row["published_in_ci"] else "OUTSIDE"
            print(
                f"{claim.player:>22} {claim.preset:>12} {claim.rule:>7}: {row['wins']}/{row['games']} = "
                f"{100 * row['win_rate']:.2f}% [{100 * row['ci_low']:.2f}, {100 * row['ci_high']:.2f}] · published "
                f"{100 * claim.published:.2f}% {verdict} our 95% CI (p = {row['p_value_vs_published']:.3g}) · "
                f"{row['ms_per_game_mean']:.2f} ms/game",
                flush=True,
            )
            if "last_cell_bug" in row:
                bug = row["last_cell_bug"]
                print(
                    f"{'':>22} counting a mine hit with one safe cell left as a win (a known engine bug): "
                    f"{100 * bug['win_rate']:.2f}% [{100 * bug['ci_low']:.2f}, {100 * bug['ci_high']:.2f}]",
                    flush=True,
                )
            if "density_variant" in row:
                v = row["density_variant"]
                print(
                    f"{'':>22} scored as the Rust solver scores: {100 * row['rust_scored_win_rate']:.2f}% "
                    f"[{100 * row['rust_scored_ci_low']:.2f}, {100 * row['rust_scored_ci_high']:.2f}]; with its "
                    f"guess threshold (interior=density): {100 * v['win_rate']:.2f}%, {100 * v['diff']:+.2f} points "
                    f"[{100 * v['diff_low']:+.2f}, {100 * v['diff_high']:+.2f}] (p = {v['p_value']:.3g}); both: "
                    f"{100 * v['rust_scored_win_rate']:.2f}% [{100 * v['rust_scored_ci_low']:.2f}, "
                    f"{100 * v['rust_scored_ci_high']:.2f}]",
                    flush=True,
                )
                v = row["rust_variant"]
                print(
                    f"{'':>22} with its counting too (counting=rust): {100 * v['win_rate']:.2f}%, "
                    f"{100 * v['diff']:+.2f} points [{100 * v['diff_low']:+.2f}, {100 * v['diff_high']:+.2f}] "
                    f"(p = {v['p_value']:.3g}); scored as it scores: {100 * v['rust_scored_win_rate']:.2f}% "
                    f"[{100 * v['rust_scored_ci_low']:.2f}, {100 * v['rust_scored_ci_high']:.2f}]",
                    flush=True,
                )
        results["claims"] = claims
        results["notes"] = NOTES
        if not args.no_speed:
            speed = speed_table(registry, store, args.scale)
            results["speed"] = speed
            for row in speed:
                extra = (
                    f" · x{row['ratio_to_rust']:.2f} the Rust solver's {row['rust_ms_per_game']} ms"
                    if "ratio_to_rust" in row
                    else ""
                )
                print(
                    f"speed {row['player']:>22} {row['preset']:>12}: {row['ms_per_game_mean']:.3f} ms/game mean, "
                    f"{row['ms_per_game_median']:.3f} median ({row['games']} games){extra}",
                    flush=True,
                )
            compile_s = compile_seconds()
            results["compile_seconds_all_builtin_players"] = compile_s
            print(f"numba compile time of every built-in player's kernels: {compile_s:.1f} s")
    if args.no_speed and RESULTS.exists():  # keep the last measured speed table
        previous = json.loads(RESULTS.read_text())
        for key in ("speed", "compile_seconds_all_builtin_players"):
            if key in previous:
                results[key] = previous[key]
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
