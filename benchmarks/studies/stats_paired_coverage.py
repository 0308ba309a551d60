"""Exact coverage of paired-difference intervals: why ``arena.analysis.stats.paired_difference`` uses Tango's interval.

For two bots on the same boards, the counts (only_a, only_b, rest) are trinomial with probabilities
(p12, p21, 1 - p12 - p21), and every interval compared here depends on the table only through (only_a, only_b,
games). So the coverage probability can be computed *exactly* by summing the trinomial probabilities of the tables
whose interval contains the true difference p12 - p21 (tables with probability below 1e-13 are skipped).

Scenarios follow the arena's use: win rates 0.3-0.9, differences of 0-10 points, discordance 5-20% of boards,
from 20 to 1000 boards. Compared methods: Tango's asymptotic score interval (the one used), the Wald interval and
Agresti-Min's adjusted Wald (add 0.5 to every cell).

Run: ``python benchmarks/studies/stats_paired_coverage.py`` (about 10 s).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from arena.analysis.stats import paired_difference, z_for_confidence

Interval = Callable[[int, int, int], tuple[float, float]]
Z = z_for_confidence(0.95)


def tango(b: int, c: int, n: int) -> tuple[float, float]:
    _, low, high = paired_difference(b, c, n)
    return low, high


def wald(b: int, c: int, n: int) -> tuple[float, float]:
    d = (b - c) / n
    se = math.sqrt(max(0.0, (b + c) - (b - c) ** 2 / n)) / n
    return max(-1.0, d - Z * se), min(1.0, d + Z * se)


def agresti_min(b: int, c: int, n: int) -> tuple[float, float]:
    bb, cc, nn = b + 0.5, c + 0.5, n + 2.0
    d = (bb - cc) / nn
    se = math.sqrt(max(0.0, (bb + cc) - (bb - cc) ** 2 / nn)) / nn
    return max(-1.0, d - Z * se), min(1.0, d + Z * se)


METHODS: dict[str, Interval] = {"tango": tango, "wald": wald, "agresti-min": agresti_min}


def exact_coverage(method: Interval, n: int, p12: float, p21: float) -> float:
    """Exact P(interval contains p12 - p21) under the trinomial model with n boards."""
    truth = p12 - p21
    p_rest = 1.0 - p12 - p21
    log_p12, log_p21 = math.log(p12), math.log(p21)
    log_rest = math.log(p_rest) if p_rest > 0 else -math.inf
    log_n_fact = math.lgamma(n + 1)
    b_hi = min(n, math.ceil(n * p12 + 9 * math.sqrt(n * p12) + 10))
    c_hi = min(n, math.ceil(n * p21 + 9 * math.sqrt(n * p21) + 10))
    covered = 0.0
    for b in range(b_hi + 1):
        for c in range(min(c_hi, n - b) + 1):
            rest = n - b - c
            log_prob = (
                log_n_fact
                - math.lgamma(b + 1)
                - math.lgamma(c + 1)
                - math.lgamma(rest + 1)
                + b * log_p12
                + c * log_p21
                + (rest * log_rest if rest else 0.0)
            )
            if log_prob < -30.0:
                continue
            low, high = method(b, c, n)
            if low <= truth <= high:
                covered += math.exp(log_prob)
    return covered


def main() -> None:
    # (discordance r, difference d) -> p12 = (r + d) / 2, p21 = (r - d) / 2.
    scenarios = [(0.05, 0.0), (0.05, 0.01), (0.05, 0.03), (0.10, 0.0), (0.10, 0.01), (0.10, 0.05), (0.20, 0.0)]
    scenarios += [(0.20, 0.02), (0.20, 0.10), (0.30, 0.10)]
    sizes = [20, 50, 100, 300, 1000]
    start = time.perf_counter()
    print(f"{'n':>5} {'discord':>8} {'diff':>6} " + " ".join(f"{name:>12}" for name in METHODS))
    summary: dict[str, list[float]] = {name: [] for name in METHODS}
    for n in sizes:
        for r, d in scenarios:
            p12, p21 = (r + d) / 2, (r - d) / 2
            row = []
            for name, method in METHODS.items():
                cov = exact_coverage(method, n, p12, p21)
                summary[name].append(cov)
                row.append(f"{cov:12.4f}")
            print(f"{n:5d} {r:8.2f} {d:6.2f} " + " ".join(row))
    print()
    for name, values in summary.items():
        below = sum(v < 0.93 for v in values)
        print(
            f"{name:>12}: mean {sum(values) / len(values):.4f}, min {min(values):.4f}, "
            f"max {max(values):.4f}, scenarios below 93%: {below}/{len(values)}"
        )
    print(f"elapsed {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
