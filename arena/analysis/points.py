"""Points over several board sets: a competition that ranks on several sizes at once (a course's 8x8, 16x16
and 16x30, 1, 2 and 3 points a win) ranks by the points its entrants won, each win worth its set's points.

The sets' games are independent of one another, so the intervals of the points combine the sets' own intervals
by MOVER (the method of variance estimates recovery, Zou and Donner 2008; Newcombe's square-and-add): for a sum
``sum(c_s * p_s)`` with each ``p_s`` estimated by ``p_s_hat`` within ``[l_s, u_s]``, the interval is

    low  = sum(c_s * p_s_hat) - sqrt(sum((c_s * (p_s_hat - l_s))**2))
    high = sum(c_s * p_s_hat) + sqrt(sum((c_s * (u_s - p_s_hat))**2))

which keeps each set's asymmetric interval (Wilson's for a win rate, Tango's for a paired difference) instead of
a normal approximation that fails near 0% and 100%. With one set it is that set's interval, scaled. Here
``c_s`` is the set's points a win times its boards, so the interval is of the points an entrant is expected to
win on boards like these. The comparison with the leader adds each set's paired difference the same way, and
its p-value is exact: on the boards only one of the two won, each such board is worth its set's points to one
side or the other with even chances under the null hypothesis (McNemar's test, weighted; with equal points it
is McNemar's exact test). ``benchmarks/points_coverage.py`` measures the intervals' coverage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from arena.analysis.stats import paired_difference, wilson_interval

__all__ = ["PairedPoints", "Points", "SetCounts", "SetPairs", "compare_points", "points_interval", "weighted_mcnemar"]

#: The exact weighted test's largest support (points scaled to whole numbers); above it, a normal approximation.
_EXACT_SPAN = 50_000


@dataclass(frozen=True)
class SetCounts:
    """One entrant on one board set: wins of games, and what a win is worth."""

    wins: int
    games: int
    points: float


@dataclass(frozen=True)
class Points:
    """The points won, and the 95% interval of the points expected on these boards."""

    points: float
    low: float
    high: float


def points_interval(sets: Sequence[SetCounts], confidence: float = 0.95) -> Points:
    """The points ``sum(points * wins)`` and their MOVER interval from each set's Wilson interval."""
    total = below = above = 0.0
    for s in sets:
        if s.games == 0:
            continue
        rate = s.wins / s.games
        low, high = wilson_interval(s.wins, s.games, confidence)
        weight = s.points * s.games
        total += weight * rate
        below += (weight * (rate - low)) ** 2
        above += (weight * (high - rate)) ** 2
    total = sum(s.points * s.wins for s in sets)  # exact, not the float sum of rates
    return Points(total, max(0.0, total - math.sqrt(below)), total + math.sqrt(above))


@dataclass(frozen=True)
class SetPairs:
    """Two entrants on one board set: the boards both played, and those only one of them won."""

    games: int
    only_a: int
    only_b: int
    points: float


@dataclass(frozen=True)
class PairedPoints:
    """A's points minus B's on the boards both played, its 95% interval and the exact weighted McNemar p."""

    diff: float
    low: float
    high: float
    p_value: float


def compare_points(sets: Sequence[SetPairs], confidence: float = 0.95) -> PairedPoints:
    """A against B over the sets: each set's paired difference (Tango's interval) added by MOVER."""
    diff = below = above = 0.0
    for s in sets:
        if s.games == 0:
            continue
        d, low, high = paired_difference(s.only_a, s.only_b, s.games, confidence)
        weight = s.points * s.games
        diff += weight * d
        below += (weight * (d - low)) ** 2
        above += (weight * (high - d)) ** 2
    diff = sum(s.points * (s.only_a - s.only_b) for s in sets if s.games)
    return PairedPoints(diff, diff - math.sqrt(below), diff + math.sqrt(above), weighted_mcnemar(sets))


def _binomial_half(m: int, k: int) -> float:
    """P(Binomial(m, 1/2) = k), in logarithms: ``comb(m, k)`` overflows a float beyond about m = 1,000."""
    return math.exp(math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1) - m * math.log(2))


def weighted_mcnemar(sets: Sequence[SetPairs]) -> float:
    """Two-sided p of the points difference under the null: each discordant board of set s adds +points or
    -points with even chances. Exact when the points are small fractions; a normal approximation otherwise."""
    live = [s for s in sets if s.games and s.only_a + s.only_b]
    if not live:
        return 1.0
    observed = sum(s.points * (s.only_a - s.only_b) for s in live)
    fractions = [Fraction(s.points).limit_denominator(1000) for s in live]
    scale = math.lcm(*(f.denominator for f in fractions))
    weights = [int(f * scale) for f in fractions]
    span = sum(w * (s.only_a + s.only_b) for w, s in zip(weights, live, strict=True))
    exact = all(abs(w / scale - s.points) < 1e-9 for w, s in zip(weights, live, strict=True))
    if not exact or span > _EXACT_SPAN:
        variance = sum(s.points**2 * (s.only_a + s.only_b) for s in live)
        z = abs(observed) / math.sqrt(variance)
        return min(1.0, math.erfc(z / math.sqrt(2)))
    # The distribution of sum(w * (2k - m)) over independent k ~ Binomial(m, 1/2), on the offsets -span..span.
    pmf = np.ones(1, dtype=np.float64)
    for w, s in zip(weights, live, strict=True):
        m = s.only_a + s.only_b
        grown = np.zeros(pmf.size + 2 * w * m)
        for k in range(m + 1):  # k pluses: offset w * (2k - m), shifted by w * m
            grown[2 * w * k : 2 * w * k + pmf.size] += pmf * _binomial_half(m, k)
        pmf = grown
    offsets = np.arange(pmf.size) - span
    target = abs(round(observed * scale))
    return float(min(1.0, pmf[np.abs(offsets) >= target].sum()))
