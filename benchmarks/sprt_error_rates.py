"""Is `arena match`'s sequential test a correct test? Its error rates, measured by simulation.

A match is simulated as `arena match` plays it: boards in batches, each board a trinomial outcome
(only A won, a tie, only B won) with known probabilities, the test of `arena.analysis.sequential` checked
after every batch. With A as good as B (true difference 0), accepting "A better" is an error of
the first kind and must happen in about `alpha` of the matches or fewer; with A better by exactly
`delta`, accepting "no better" is an error of the second kind (`beta`). Also reported: the average
number of boards a match needs, what happens between the hypotheses (A better by delta / 2), and how soon a
large effect either way is decided (fifteen points better or worse with a one-point delta, the case that
the simple GSPRT left undecided after 300 boards).

    python benchmarks/sprt_error_rates.py              # 2000 matches per scenario
    python benchmarks/sprt_error_rates.py --runs 200   # a quick look
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from arena.analysis.sequential import decide
from arena.analysis.stats import wilson_interval

RESULTS = Path(__file__).parent / "results" / "sprt_error_rates.json"


def simulate(
    only_a: float, only_b: float, delta: float, alpha: float, beta: float, runs: int, batch: int, cap: int, seed: int
) -> dict[str, object]:
    """``runs`` matches whose boards are split A-only / B-only with these probabilities."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((runs, 3), dtype=np.int64)  # only B, tie, only A
    boards = np.zeros(runs, dtype=np.int64)
    verdict = np.zeros(runs, dtype=np.int8)  # 0 undecided, 1 accept H1, -1 accept H0
    active = np.ones(runs, dtype=bool)
    probs = [only_b, 1.0 - only_a - only_b, only_a]
    while active.any() and boards[active][0] < cap:
        idx = np.flatnonzero(active)
        counts[idx] += rng.multinomial(batch, probs, size=idx.size)
        boards[idx] += batch
        decided = decide(counts[idx, 2], counts[idx, 0], boards[idx], delta, alpha, beta)[0]
        verdict[idx] = decided
        active[idx[decided != 0]] = False
    accept_h1 = int((verdict == 1).sum())
    accept_h0 = int((verdict == -1).sum())
    return {
        "true_difference_points": 100 * (only_a - only_b),
        "discordant_fraction": only_a + only_b,
        "runs": runs,
        "accept_h1": accept_h1,
        "accept_h1_rate": accept_h1 / runs,
        "accept_h1_ci95": wilson_interval(accept_h1, runs),
        "accept_h0": accept_h0,
        "accept_h0_rate": accept_h0 / runs,
        "accept_h0_ci95": wilson_interval(accept_h0, runs),
        "undecided_at_cap": int((verdict == 0).sum()),
        "mean_boards": float(boards.mean()),
        "median_boards": float(np.median(boards)),
        "p95_boards": float(np.percentile(boards, 95)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated matches per scenario")
    parser.add_argument("--batch", type=int, default=200, help="boards between two looks (arena match's default)")
    parser.add_argument("--cap", type=int, default=2_000_000, help="boards after which a match counts as undecided")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    alpha = beta = 0.05
    scenarios = []
    # (delta to detect, discordant fraction): Expert-like split rates (about a tenth of boards) and
    # close players (3%), at the half point and one point that `arena match` is meant for.
    for delta, split in ((0.005, 0.10), (0.005, 0.03), (0.01, 0.10), (0.01, 0.03)):
        for true in (0.0, delta / 2, delta):
            scenarios.append((delta, split, true))
    # Large effects with the default one-point delta: a fifth of the boards split, 15.7 points either way.
    for true in (0.157, -0.157, -0.01):
        scenarios.append((0.01, 0.20 if abs(true) < 0.1 else 0.25, true))
    started = time.perf_counter()
    results = []
    rules = "GSPRT and large-effect rule"
    print(f"{rules}, alpha = beta = {alpha}, a look every {args.batch} boards, {args.runs} matches per scenario")
    header = f"{'delta':>6} {'split':>6} {'true':>6} | {'accept A better':>24} | {'accept no better':>24}"
    print(f"{header} | boards mean (p95)")
    for i, (delta, split, true) in enumerate(scenarios):
        only_a, only_b = (split + true) / 2, (split - true) / 2
        r = simulate(only_a, only_b, delta, alpha, beta, args.runs, args.batch, args.cap, seed=1000 + i)
        r["delta_points"] = 100 * delta
        r["alpha"], r["beta"], r["batch"] = alpha, beta, args.batch
        results.append(r)
        h1_lo, h1_hi = r["accept_h1_ci95"]
        h0_lo, h0_hi = r["accept_h0_ci95"]
        print(
            f"{100 * delta:>5.1f}p {split:>6.2f} {100 * true:>5.2f}p | "
            f"{100 * r['accept_h1_rate']:>6.2f}% [{100 * h1_lo:5.2f},{100 * h1_hi:5.2f}] | "
            f"{100 * r['accept_h0_rate']:>6.2f}% [{100 * h0_lo:5.2f},{100 * h0_hi:5.2f}] | "
            f"{r['mean_boards']:>9.0f} ({r['p95_boards']:.0f})"
        )
    ok_alpha = all(r["accept_h1_ci95"][0] <= alpha for r in results if r["true_difference_points"] == 0)
    ok_beta = all(
        r["accept_h0_ci95"][0] <= beta for r in results if abs(r["true_difference_points"] - r["delta_points"]) < 1e-9
    )
    print(f"errors of the first kind within alpha: {ok_alpha}; of the second kind within beta: {ok_beta}")
    print(f"{time.perf_counter() - started:.0f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {"benchmark": "sprt_error_rates", "alpha_ok": ok_alpha, "beta_ok": ok_beta, "scenarios": results}, indent=2
        )
        + "\n"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
