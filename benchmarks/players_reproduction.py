"""Reproduce published win rates with the built-in players, and measure their speed.

Each claim runs as a real tournament (all local cores, results in a SQLite store beside this
file so an interrupted run resumes) and prints: games, wins, win rate with its 95% Wilson
interval, the published figure, whether the figure lies in our interval, and the exact
two-sided binomial p-value (scipy) of our wins against the published rate (the published samples are
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

For the C++ article's three players (random, max-single-constraint, mean-constraint), whose code
is public (github.com/BaranCanOener/CppSweeper), the same boards are played by:

* ``[subsets=true]``: ours with that engine's deduction, the subset rule, to a fixed point;
* the article-faithful variant: also its first click (0, 0), its scan-order ties and, for max,
  its estimate (``density_floor``); and each of these alone on top of the subset rule;
* a move-for-move port of that engine's AI (``cppsweeper_port.py``, not a player): its partial
  subset check, one certain move per turn, its flood-fill order and its flag timing.

Each variant's row gives its win rate against the published figure and the paired difference
to ours (variant minus ours) on the same boards; the port's row, the difference to the
article-faithful variant.

Speed: CPU ms per game per player and preset on one core, from the per-game CPU times the
workers record (compile time excluded: each worker warms its players up first). The numba
compile time is measured separately in a fresh process with an empty cache.

    python benchmarks/players_reproduction.py [--scale 1.0] [--only enumeration|constraint|PLAYER,...] [--no-speed]

``--only`` re-runs some claims and keeps the saved results of the others.
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
from cppsweeper_port import play_article_game
from scipy.stats import binomtest

from arena.analysis.stats import compare_paired, wilson_interval
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult
from arena.play.tournament import default_workers, plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick, Game
from engine.layout import player_generator
from players.registry import Registry

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

#: The article's players: ours with its deduction, and with everything of it we can set.
ARTICLE = {
    "random": ({"subsets": True}, {"subsets": True, "opening_cell": [0, 0]}),
    "max-single-constraint": (
        {"subsets": True},
        {"subsets": True, "density_floor": True, "ties": "scan", "opening_cell": [0, 0]},
    ),
    "mean-constraint": ({"subsets": True}, {"subsets": True, "ties": "scan", "opening_cell": [0, 0]}),
}
#: The port's guess method for each of them.
PORT_METHOD = {"random": "random", "max-single-constraint": "max", "mean-constraint": "mean"}
#: Each of the faithful variant's other options alone, on top of the subset rule.
ABLATION = {
    "random": (),
    "max-single-constraint": ({"density_floor": True}, {"ties": "scan"}, {"opening_cell": [0, 0]}),
    "mean-constraint": ({"ties": "scan"}, {"opening_cell": [0, 0]}),
}
#: ``--only`` shorthands.
GROUPS = {"constraint": tuple(ARTICLE)}

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
        "Seed 4000000, Expert, first click a zero (opening). The article is 'Writing a Stronger "
        "Minesweeper-Engine in C++' (Baran Can Oener, 2020), code at github.com/BaranCanOener/CppSweeper. "
        "All its players share a deduction ours lacked: a knowledge base of sentences with the subset rule. "
        "Ours (single-cell rules, first click (3, 3)) win 1.77 / 3.71 / 6.29%; with the subset rule to a "
        "fixed point (subsets=true) 20.56% [19.78, 21.36] / 29.03% [28.15, 29.93] / 29.42% [28.53, 30.32]; "
        "with its first click (0, 0), scan-order ties and, for max, its density floor too, 17.37% [16.64, "
        "18.13] / 24.62% [23.79, 25.47] / 26.87% [26.01, 27.75] (10000 games each): now far above its 7 / "
        "10 / 14%, because its subset check is partial (only sentences that just lost the clicked cell are "
        "tested as subsets, nothing on clicking a 0, derived sentences only as supersets). A move-for-move "
        "port of its AI (benchmarks/cppsweeper_port.py: that check, one certain move per turn, its flood-fill "
        "order) on the same boards wins 6.90% [6.42, 7.41] / 9.88% [9.31, 10.48] / 10.66% [10.07, 11.28]: "
        "random and max reproduced. Its mean method, as coded, flags the mines found by the last click only "
        "after choosing its guess, so such a mine counts as covered and, estimated at the density, can be "
        "clicked; flagging before the guess gives 13.24% [12.59, 13.92], 0.76 points under 14% (p = 0.03 "
        "taking 14% as exact, about 0.12 allowing for its own 10k games). Unexplained: whether the published "
        "mean figure came from code that flagged first, and those 0.76 points. The last-cell engine bug "
        "(REFERENCES.md) is not in its code: a mine is checked before a win."
    ),
}


#: The Rust solver's per-game times on this kind of machine (REFERENCES.md), for the ratio.
RUST_MS = {"beginner": 0.085, "intermediate": 0.53, "expert": 2.3}


def compile_seconds() -> float:
    """Seconds to compile every kernel the built-in players use, in a fresh process, no cache."""
    code = (
        "import time; t=time.perf_counter();"
        "from players.registry import Registry; from arena.play.runner import warm_up;"
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


def rust_scored_wins(rows: list[GameResult], claim: Claim) -> int:
    """Wins left when a win on a board with an enclosed mine (for the game's own first click) is a loss."""
    wins = 0
    for g in rows:
        if not g.won:
            continue
        game = Game(PRESETS[claim.preset], FirstClick(claim.rule), seed=SEED, index=g.board)
        wins += not enclosed_mine(game.mine_layout((g.first_row, g.first_col)))  # type: ignore[arg-type]
    return wins


def run_claim(claim: Claim, registry: Registry, store: Store, scale: float) -> dict[str, object]:
    games = max(100, int(claim.games * scale))
    refs = [PlayerRef(name=claim.player)]
    if claim.player == "enumeration":
        refs += [DENSITY, RUST]
    if claim.player in ARTICLE:
        subsets, faithful = (PlayerRef(name=claim.player, options=o) for o in ARTICLE[claim.player])
        ablation = [PlayerRef(name=claim.player, options={"subsets": True, **o}) for o in ABLATION[claim.player]]
        refs += [subsets, faithful, *ablation]
    config = TournamentConfig.build(
        PRESETS[claim.preset], FirstClick(claim.rule), seed=SEED, games=games, players=tuple(refs)
    )
    start = time.perf_counter()
    run_tournament(plan_tournament(config, store, registry, workers=default_workers()), store)
    every = store.games(config.id, games)
    rows = [g for g in every if g.player == claim.player]
    wins = sum(g.won for g in rows)
    low, high = wilson_interval(wins, len(rows))
    cpu = np.array([g.cpu_ms for g in rows])
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
        "p_value_vs_published": binomtest(wins, len(rows), claim.published).pvalue,
        "ms_per_game_mean": float(cpu.mean()),
        "ms_per_game_median": float(np.median(cpu)),
        "errors": sum(g["outcome"] not in ("won", "lost") for g in rows),
        "wall_seconds": time.perf_counter() - start,
    }
    if claim.publisher == "article":
        # A bug REFERENCES.md knows of "one public engine": a mine hit that leaves exactly one safe cell counted
        # as a win. Not the article's: its code checks for a mine before counting a win.
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
    if claim.player in ARTICLE:
        of = {ref.key: by_board([g for g in every if g["player"] == ref.key]) for ref in refs}
        row["subsets_variant"] = variant_row(every, rows, subsets, claim)
        faithful_row = variant_row(every, rows, faithful, claim)
        row["faithful_variant"] = faithful_row
        row["ablation"] = [variant_row(every, rows, ref, claim) for ref in ablation]
        for v in [faithful_row, *row["ablation"]]:
            v["vs_subsets"] = paired(of[subsets.key], of[str(v["player"])])
        row["port"], port = port_row(claim, len(rows), of[faithful.key])
        if claim.player == "mean-constraint":  # the only method that reads flags where it matters
            row["port_flags_synced"], _ = port_row(claim, len(rows), port, sync_flags=True)
    return row


def by_board(rows: list[dict[str, object]]) -> dict[int, bool]:
    return {int(g["board"]): bool(g["won"]) for g in rows}  # type: ignore[call-overload]


def paired(ours: dict[int, bool], other: dict[int, bool]) -> dict[str, object]:
    """The paired difference, ``other`` minus ``ours``, on the boards both played."""
    both = sorted(set(ours) & set(other))
    result = compare_paired([ours[b] for b in both], [other[b] for b in both])
    return {
        "paired_games": result.games,
        "only_variant": result.only_b,
        "only_ours": result.only_a,
        "diff": -result.diff,
        "diff_low": -result.diff_high,
        "diff_high": -result.diff_low,
        "p_value": result.p_value,
    }


def rate_row(name: str, wins: int, games: int, claim: Claim) -> dict[str, object]:
    low, high = wilson_interval(wins, games)
    row: dict[str, object] = {
        "player": name,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci_low": low,
        "ci_high": high,
    }
    if claim.publisher == "article":
        row["published_in_ci"] = low <= claim.published <= high
        row["p_value_vs_published"] = binomtest(wins, games, claim.published).pvalue
    return row


def variant_row(
    every: list[dict[str, object]], rows: list[dict[str, object]], ref: PlayerRef, claim: Claim
) -> dict[str, object]:
    """A variant of ours on the same boards: its win rate, the paired difference (variant minus
    ours), and its rate scored as the Rust solver scores (or against the article's figure)."""
    variant = [g for g in every if g["player"] == ref.key]
    row = rate_row(ref.key, sum(bool(g["won"]) for g in variant), len(variant), claim)
    row.update(paired(by_board(rows), by_board(variant)))
    if claim.publisher == "rust":
        row.update(rust_scoring(variant, claim, "rust_scored"))
    return row


def port_row(
    claim: Claim, games: int, reference: dict[int, bool], *, sync_flags: bool = False
) -> tuple[dict[str, object], dict[int, bool]]:
    """The port of the article's engine on boards 0..games-1, paired against ``reference`` (port
    minus reference; wins by board): our article-faithful variant, or the port itself for
    ``sync_flags``. Returns the row and the wins by board. One core: a few ms per game."""
    method = PORT_METHOD[claim.player]
    name = f"cppsweeper-port[{method}{',flags-synced' if sync_flags else ''}]"
    spec = PRESETS[claim.preset]
    start = time.perf_counter()
    won: dict[int, bool] = {}
    guesses = stuck = 0
    for board in range(games):
        rng = player_generator(SEED, board, f"cppsweeper-port[{method}]")
        won[board], g, s = play_article_game(spec, SEED, board, method, rng, sync_flags=sync_flags)
        guesses += g
        stuck += s
    row = rate_row(name, sum(won.values()), games, claim)
    row.update(paired(reference, won))
    row["guesses_per_game"] = guesses / games
    row["stuck_moves"] = stuck
    row["wall_seconds"] = time.perf_counter() - start
    return row, won


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
        run_tournament(plan_tournament(config, store, registry, workers=default_workers()), store)
        by_player: dict[str, list[float]] = {}
        for g in store.games(config.id, games):
            by_player.setdefault(g.player, []).append(g.cpu_ms)
        for name in names:
            cpu = np.array(by_player[name])
            row = {"player": name, "preset": preset, "games": cpu.size, "ms_per_game_mean": float(cpu.mean())}
            row["ms_per_game_median"] = float(np.median(cpu))
            if name == "enumeration":
                row["rust_ms_per_game"] = RUST_MS[preset]
                row["ratio_to_rust"] = row["ms_per_game_mean"] / RUST_MS[preset]
            rows.append(row)
    return rows


def variant_line(v: dict[str, object], against: str) -> str:
    """A variant's wins, rate and interval, how it stands to the published figure, and its paired
    difference to ``against`` (the row it was compared with)."""
    return (
        f"{v['player']}: {v['wins']}/{v['games']} = {100 * v['win_rate']:.2f}% "
        f"[{100 * v['ci_low']:.2f}, {100 * v['ci_high']:.2f}] (published "
        f"{'within' if v['published_in_ci'] else 'OUTSIDE'}, p = {v['p_value_vs_published']:.3g}); "
        f"{100 * v['diff']:+.2f} points [{100 * v['diff_low']:+.2f}, {100 * v['diff_high']:+.2f}] "
        f"on {against} (p = {v['p_value']:.3g})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (0.1 for a quick look)")
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated players to run, or 'constraint' for the article's three (default: all claims); "
        "the saved results of the others are kept",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the speed table (the saved one is kept)")
    args = parser.parse_args()
    only = {q for p in args.only.split(",") if p for q in GROUPS.get(p, (p,))}
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
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
                    f"{'':>22} counting a mine hit with one safe cell left as a win (another engine's bug): "
                    f"{100 * bug['win_rate']:.2f}% [{100 * bug['ci_low']:.2f}, {100 * bug['ci_high']:.2f}]",
                    flush=True,
                )
            if "faithful_variant" in row:
                for key in ("subsets_variant", "faithful_variant"):
                    label = "with the subset rule" if key == "subsets_variant" else "article-faithful"
                    print(f"{'':>22} {label}, {variant_line(row[key], 'ours')}", flush=True)
                for v in [row["faithful_variant"], *row["ablation"]]:
                    d = v["vs_subsets"]
                    print(
                        f"{'':>22} {v['player']} against [subsets=true]: {100 * d['diff']:+.2f} points "
                        f"[{100 * d['diff_low']:+.2f}, {100 * d['diff_high']:+.2f}] (p = {d['p_value']:.3g})",
                        flush=True,
                    )
                for key in ("port", "port_flags_synced"):
                    if key not in row:
                        continue
                    v = row[key]
                    label = "the port of its engine" if key == "port" else "its port, flags placed before a guess"
                    against = "the article-faithful variant" if key == "port" else "the port"
                    print(
                        f"{'':>22} {label}, {variant_line(v, against)}; {v['guesses_per_game']:.2f} guesses/game",
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
        # Claims not re-run keep their saved results, in the order of CLAIMS.
        fresh = {(row["player"], row["preset"], row["rule"]): row for row in claims}
        saved = {(row["player"], row["preset"], row["rule"]): row for row in previous.get("claims", [])}
        keys = [(c.player, c.preset, c.rule) for c in CLAIMS]
        results["claims"] = [fresh.get(key) or saved[key] for key in keys if key in fresh or key in saved]
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
    if args.no_speed:  # keep the last measured speed table
        for key in ("speed", "compile_seconds_all_builtin_players"):
            if key in previous:
                results[key] = previous[key]
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
