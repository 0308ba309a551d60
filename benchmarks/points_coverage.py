"""Exact coverage of the points interval (``arena.analysis.points.points_interval``) over several board sets.

An entrant's wins on independent sets are independent binomials, and the interval depends on the wins alone, so
its coverage of the expected points ``sum(points_s * games_s * p_s)`` is computed *exactly*: the sum of the
probabilities of the wins (w_1, ..., w_k) whose interval holds the true value (numpy, every combination at once).

Scenarios are a course's: three sets (8x8, 16x16, 16x30 at 1, 2 and 3 points a win) with win rates from a strong
to a weak agent, 20 to 200 boards a set. Compared with the interval used (MOVER from each set's Wilson interval):
the normal (Wald) interval of the points, ``sum(c_s p_s) +- 1.96 sqrt(sum(c_s^2 p_s (1 - p_s) / n_s))``, which
is what adding variances without care gives.

Run: ``python benchmarks/points_coverage.py`` (a few seconds); writes ``benchmarks/results/points_coverage.json``.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from arena.analysis.points import SetCounts, points_interval
from arena.analysis.stats import wilson_interval, z_for_confidence

Z = z_for_confidence(0.95)
POINTS = (1.0, 2.0, 3.0)
#: (label, win rates of the three sets)
AGENTS = [
    ("strong", (0.95, 0.85, 0.40)),
    ("good", (0.85, 0.65, 0.20)),
    ("weak", (0.60, 0.25, 0.03)),
    ("very weak", (0.20, 0.02, 0.0)),
    ("perfect small", (1.0, 0.80, 0.30)),
]
GAMES = [(20, 20, 20), (50, 50, 50), (100, 100, 100), (200, 100, 50)]


def _binomial(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    if p in (0.0, 1.0):
        return (k == (0 if p == 0.0 else n)).astype(float)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1)]
    return np.exp(np.array(logs) + k * math.log(p) + (n - k) * math.log1p(-p))


def coverage(games: tuple[int, ...], rates: tuple[float, ...]) -> tuple[float, float, float]:
    """(MOVER coverage, Wald coverage, the MOVER interval's mean width in points)."""
    truth = sum(w * n * p for w, n, p in zip(POINTS, games, rates, strict=True))
    grids = np.meshgrid(*[np.arange(n + 1) for n in games], indexing="ij")
    prob = np.ones(grids[0].shape)
    total = np.zeros(grids[0].shape)
    below = np.zeros(grids[0].shape)
    above = np.zeros(grids[0].shape)
    wald_var = np.zeros(grids[0].shape)
    for axis, (w, n, p) in enumerate(zip(POINTS, games, rates, strict=True)):
        shape = [1] * len(games)
        shape[axis] = n + 1
        prob = prob * _binomial(n, p).reshape(shape)
        k = np.arange(n + 1)
        rate = k / n
        bounds = np.array([wilson_interval(int(i), n) for i in k])
        c = w * n
        total = total + (c * rate).reshape(shape)
        below = below + ((c * (rate - bounds[:, 0])) ** 2).reshape(shape)
        above = above + ((c * (bounds[:, 1] - rate)) ** 2).reshape(shape)
        wald_var = wald_var + (c**2 * rate * (1 - rate) / n).reshape(shape)
    low, high = np.maximum(0.0, total - np.sqrt(below)), total + np.sqrt(above)
    mover = float(prob[(low <= truth + 1e-9) & (truth - 1e-9 <= high)].sum())
    half = Z * np.sqrt(wald_var)
    wald = float(prob[(total - half <= truth + 1e-9) & (truth - 1e-9 <= total + half)].sum())
    width = float((prob * (high - low)).sum())
    return mover, wald, width


def main() -> None:
    # The vectorised MOVER above is the module's: held equal on a few points first.
    for wins in [(3, 10, 0), (20, 0, 7), (0, 0, 0)]:
        exact = points_interval([SetCounts(w, 20, p) for w, p in zip(wins, POINTS, strict=True)])
        grid_low = sum(p * w for p, w in zip(POINTS, wins, strict=True)) - math.sqrt(
            sum((p * 20 * (w / 20 - wilson_interval(w, 20)[0])) ** 2 for p, w in zip(POINTS, wins, strict=True))
        )
        assert abs(max(0.0, grid_low) - exact.low) < 1e-9, (wins, grid_low, exact)
    started = time.perf_counter()
    rows = []
    print(f"{'agent':<14} {'boards':<14} {'MOVER':>7} {'Wald':>7} {'width':>7}")
    for label, rates in AGENTS:
        for games in GAMES:
            mover, wald, width = coverage(games, rates)
            rows.append({"agent": label, "rates": rates, "games": games, "mover": mover, "wald": wald, "width": width})
            print(f"{label:<14} {'/'.join(map(str, games)):<14} {mover:7.4f} {wald:7.4f} {width:7.1f}")
    movers = [r["mover"] for r in rows]
    walds = [r["wald"] for r in rows]
    print(
        f"MOVER: coverage {min(movers):.4f} at worst, {sum(movers) / len(movers):.4f} on average; "
        f"Wald: {min(walds):.4f} at worst, {sum(walds) / len(walds):.4f} on average "
        f"({len(rows)} scenarios, {time.perf_counter() - started:.1f} s)"
    )
    out = Path(__file__).parent / "results" / "points_coverage.json"
    out.write_text(json.dumps({"points": POINTS, "scenarios": rows}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
